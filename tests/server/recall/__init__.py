"""Tests of `server/recall/`."""
