"""What the tests share: collections and packages built for them, sound files, sync devices."""
