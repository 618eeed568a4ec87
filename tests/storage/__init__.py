"""Tests of recall.storage."""
