"""Tests of recall.host."""
