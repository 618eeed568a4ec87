"""Tests of recall.collection."""
