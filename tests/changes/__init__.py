"""Tests of recall.changes."""
