"""Tests of `app/tray/`."""
