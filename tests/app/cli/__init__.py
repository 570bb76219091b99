"""Tests of `app/cli/`."""
