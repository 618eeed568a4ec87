"""Deck options as use cases: changing them and the schedules that follow, fitting, simulating."""
