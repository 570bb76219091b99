"""Tests of `server/mcp/`."""
