"""Changes made by hand, each undoable: to many cards at once, to decks, and to one card's text."""
