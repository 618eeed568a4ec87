"""Decks bundled with Recall, found through importlib.resources."""
