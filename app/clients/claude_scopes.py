"""Claude Code's entries of ours beside the one `install` writes.

`install claude-code` writes the user-scope entry (`mcpServers` at the top of ~/.claude.json).
`claude mcp add` without `--scope` writes a *local* one instead, under
`projects["/the/project"].mcpServers`, and in that project Claude Code uses the local entry
before the user one — a stale local entry (an old command path, an old token) shadows a good
user entry there.  Read only: nothing here changes the file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from vault_recall.app.clients.catalogue import SERVER_NAME


@dataclass(frozen=True)
class LocalEntry:
    project: str  # the folder Claude Code uses this entry in
    entry: dict[str, Any]


def local_entries(text: str) -> list[LocalEntry]:
    """Our local-scope entries in ~/.claude.json's text, by project folder; none when the
    file is not the JSON object Claude Code writes (its user entry's check says so)."""
    try:
        data = json.loads(text)
    except ValueError:
        return []
    projects = data.get("projects") if isinstance(data, dict) else None
    found: list[LocalEntry] = []
    for folder, project in sorted(projects.items()) if isinstance(projects, dict) else ():
        servers = project.get("mcpServers") if isinstance(project, dict) else None
        entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
        if isinstance(entry, dict):
            found.append(LocalEntry(str(folder), entry))
    return found
