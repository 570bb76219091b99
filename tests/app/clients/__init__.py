"""Tests of `app/clients/`."""
