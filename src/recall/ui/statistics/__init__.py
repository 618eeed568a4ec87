"""The statistics window: figures, charts and misconceptions of a deck or the collection."""
