"""Studying: today's queue of a deck, answering, undo and the session's summary."""
