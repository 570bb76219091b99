"""Repo-wide checks: layers, imports, lint, types."""
