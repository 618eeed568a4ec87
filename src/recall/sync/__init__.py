"""Sync through a folder a file-sync tool keeps in step: events, folder, merging (docs/sync.md)."""
