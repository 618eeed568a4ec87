"""Tests of recall.study."""
