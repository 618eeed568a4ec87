"""The collection as a whole: opening it, its decks, finding cards, decks in and out."""
