"""Repo-wide checks: layers and imports, names, the house rules, lint and types, the docs, the pins."""
