"""Unit and property tests of `server/`, one folder per layer: plain functions, no desktop, no network."""
