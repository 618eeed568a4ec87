"""Tests of recall.scheduling."""
