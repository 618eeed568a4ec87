"""Tests of recall.cli."""
