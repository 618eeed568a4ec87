"""What a card holds as text: deck format, card HTML and limits, sounds, search, lint."""
