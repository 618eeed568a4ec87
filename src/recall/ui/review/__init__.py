"""The review screen: a card, its choices or answer, the verdict, ratings, sounds, summary."""
