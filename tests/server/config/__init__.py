"""Tests of `server/config/`."""
