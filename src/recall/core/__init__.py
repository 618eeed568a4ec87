"""Plain values and pure rules every layer shares: errors, memory, grading, days, options."""
