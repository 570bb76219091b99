"""Obsidian's syntax: a note's bytes → `Note` (properties, body, links, tags, headings), link
and name resolution the way Obsidian resolves, and `obsidian://` links.

Pure functions over text.  May import `vault_recall.server.vault` and `errors`; nothing above.
"""
