"""The command line (edge): one module per command group; Qt loads only with the window."""
