"""`obsidian://open` links, so a person can open (and correct) a recalled note in one click."""

from __future__ import annotations

from urllib.parse import quote

from vault_recall.server.vault.paths import NOTE_SUFFIX


def obsidian_uri(vault_name: str, note_path: str) -> str:
    """Obsidian wants the vault name and the vault path without `.md`, every part encoded
    (`/` → %2F, space → %20, `#` → %23)."""
    file = note_path[: -len(NOTE_SUFFIX)] if note_path.endswith(NOTE_SUFFIX) else note_path
    return f"obsidian://open?vault={quote(vault_name, safe='')}&file={quote(file, safe='')}"
