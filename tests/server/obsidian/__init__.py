"""Tests of `server/obsidian/`."""
