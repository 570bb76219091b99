"""Tests of `app/state/`."""
