"""Tests of `app/desktop/`."""
