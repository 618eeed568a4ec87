"""Icons and the style sheet bundled with Recall, found through importlib.resources."""
