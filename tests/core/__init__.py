"""Tests of recall.core."""
