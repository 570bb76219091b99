"""Tests of `server/vault/`."""
