"""Unit tests of `app/`, one folder per layer: no desktop session needed."""
