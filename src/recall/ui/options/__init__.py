"""The options windows: deck options with the optimizer and simulator, and preferences."""
