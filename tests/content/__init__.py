"""Tests of recall.content."""
