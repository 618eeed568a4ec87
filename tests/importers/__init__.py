"""Tests of recall.importers."""
