"""The learner's data from the window: import and export, backups, the database check, sync."""
