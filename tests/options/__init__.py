"""Tests of recall.options."""
