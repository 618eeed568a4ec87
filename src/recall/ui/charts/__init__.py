"""Painted chart widgets, drawn with the palette so they follow the light or dark theme."""
