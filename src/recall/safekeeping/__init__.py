"""The learner's data kept safe: backups, the check against the history, repair, recovery."""
