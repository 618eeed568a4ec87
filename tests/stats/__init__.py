"""Tests of recall.stats."""
