"""The MCP clients whose OAuth registrations are known by name, and the client id of ours each
stands for: an app registering as "Claude Code (vault-recall)" is Claude Code's entry, approved
as `claude-code` unless the person says otherwise, and judged by doctor as that client's.

Each name is what the client itself sends as `client_name` in its dynamic client registration,
read in its own source (docs/clients.md, "OAuth: the names clients register with").  The ids are
the catalogue's (app/clients/catalogue.py; a test checks that every one is there).
"""

from __future__ import annotations

import re

# Compared without case: opencode 1.18 sends "OpenCode", its newer sources "opencode".
KNOWN_APPS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # Claude Code names the registration after the server's name in its config.
    ("claude-code", re.compile(r"Claude Code \(.+\)", re.IGNORECASE)),
    ("codex", re.compile(r"Codex", re.IGNORECASE)),
    ("gemini", re.compile(r"Gemini CLI MCP Client", re.IGNORECASE)),
    ("opencode", re.compile(r"OpenCode", re.IGNORECASE)),
)


def known_client(app_name: str) -> str | None:
    """The client id an app of this registered name stands for, or None for an app not known."""
    name = app_name.strip()
    return next((client for client, pattern in KNOWN_APPS if pattern.fullmatch(name)), None)
