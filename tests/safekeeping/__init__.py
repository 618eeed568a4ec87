"""Tests of recall.safekeeping."""
