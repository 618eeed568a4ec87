"""Tests of recall.sync."""
