"""`obsidian://open` links, so a person can open (and correct) a recalled note in one click."""

from __future__ import annotations

import string
from urllib.parse import quote

from vault_recall.server.vault.paths import NOTE_SUFFIX


def obsidian_uri(vault_name: str, note_path: str) -> str:
    """Obsidian wants the vault name and the vault path without `.md`, every part encoded
    (`/` → %2F, space → %20, `#` → %23)."""
    file = note_path[: -len(NOTE_SUFFIX)] if note_path.endswith(NOTE_SUFFIX) else note_path
    return f"obsidian://open?vault={quote(vault_name, safe='')}&file={quote(file, safe='')}"


# What `quote` leaves as it is (safe=''): every other byte becomes three characters, '%XX'.
_UNRESERVED = (string.ascii_letters + string.digits + "_.-~").encode("ascii")


def obsidian_uri_size(vault_name: str, note_path: str) -> int:
    """len(obsidian_uri(vault_name, note_path)), without building it: a search sizes one for
    every note it finds."""
    file = note_path[: -len(NOTE_SUFFIX)] if note_path.endswith(NOTE_SUFFIX) else note_path
    return len(obsidian_uri(vault_name, "")) + _quoted_size(file.encode("utf-8"))


def _quoted_size(data: bytes) -> int:
    return len(data) + 2 * len(data.translate(None, _UNRESERVED))
