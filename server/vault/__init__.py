"""Vault access: list a vault folder's notes, read one note's bytes, guard user paths, and
Obsidian's Excluded files.

The bottom layer: imports only `vault_recall.server.errors` and the standard library.  Never
writes anything, never follows a symlink, keeps nothing between calls.
"""
