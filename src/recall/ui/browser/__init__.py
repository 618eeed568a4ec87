"""The card browser: the sidebar, the table of found cards, the editor and the add-card dialog."""
