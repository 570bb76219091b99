"""Tests of `server/activity/`."""
