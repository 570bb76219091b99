"""Which clients have our entry in their config file now, in which form, and with which token.

The tray's Clients menu shows it per client (installed, by URL, not installed) and offers
*Uninstall*; its URL snippet item reuses the token an installed entry already sends instead of
making a new one that would stop that entry working.  Each client's file is read through the
install code's own reader (clients/install.py) and parsed again only when its size, time or
inode changed, so a refresh costs a `stat` per client.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vault_recall.app.app_errors import InstallError
from vault_recall.app.clients.catalogue import ClientSpec
from vault_recall.app.clients.install import current_entry, read_existing
from vault_recall.server.config.bearer_tokens import token_hash

URL_KEYS = ("url", "httpUrl", "serverUrl")


@dataclass(frozen=True)
class Installed:
    """Our entry in a client's config file."""

    path: Path
    by_url: bool  # it connects to `vault-recall http` (else it starts `vault-recall serve`)
    url: str | None = None
    token_sha256: str | None = None  # of the bearer token it sends, when the file holds it
    token: str | None = field(default=None, repr=False)  # that token (the file is the person's own)


def installed_from(path: Path, entry: dict[str, Any]) -> Installed:
    """What our entry in `path` says: its form, URL and token."""
    url = next((entry[key] for key in URL_KEYS if isinstance(entry.get(key), str)), None)
    token = None
    headers = entry.get("headers")
    if isinstance(headers, dict):
        value = headers.get("Authorization")
        if isinstance(value, str) and value.startswith("Bearer "):
            token = value.removeprefix("Bearer ").strip() or None
    return Installed(
        path=path,
        by_url=url is not None,
        url=url,
        token_sha256=token_hash(token) if token else None,
        token=token,
    )


@dataclass
class InstalledClients:
    """The clients' files as last read, each read again only when it changed."""

    _seen: dict[str, tuple[Any, Installed | None]] = field(default_factory=dict)

    def look(self, specs: Iterable[ClientSpec]) -> dict[str, Installed]:
        found: dict[str, Installed] = {}
        for spec in specs:
            if spec.paste_only:
                continue
            path = spec.config_file()
            if path is None:
                continue
            mark = _mark(path)
            cached = self._seen.get(spec.id)
            if cached is None or cached[0] != mark:
                cached = (mark, _read(spec, path) if mark is not None else None)
                self._seen[spec.id] = cached
            if cached[1] is not None:
                found[spec.id] = cached[1]
        return found


def _mark(path: Path) -> Any:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _read(spec: ClientSpec, path: Path) -> Installed | None:
    try:
        text = read_existing(path)
        entry = current_entry(spec, (text or "").removeprefix("\ufeff"), str(path))
    except InstallError:
        return None  # a file that does not parse: the install says why when asked
    return installed_from(path, entry) if entry is not None else None
