"""Writing the config file: only the CLI and the tray do, always atomically, never over a broken one.

Every change is read-modify-write: load (strictly, so a broken file is reported, never
overwritten), change, write to a temporary file beside it, fsync, rename over.  A crash at any
point leaves either the old file or the new one, whole.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path

from vault_recall.app.state.atomic_write import write_atomically
from vault_recall.app.state.file_lock import held
from vault_recall.server.config.bearer_tokens import TOKEN_PREFIX, token_hash
from vault_recall.server.config.config_file import ClientEntry, Config, config_path, load_config


def save_config(config: Config, path: Path | None = None) -> Path:
    """Write `config` atomically; folder 0700 and file 0600 (it names the person's vaults).

    A config.json that is a symlink (kept with the person's dotfiles) is written where it
    points, so the link stays a link and the dotfiles copy is the one that changes.
    """
    path = path or config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path.parent, 0o700)
    target = path.resolve() if path.is_symlink() else path
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    data = (json.dumps(config.to_json(), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    write_atomically(target, data, 0o600)
    return path


def update_config(change: Callable[[Config], Config], path: Path | None = None) -> Config:
    """Load the current config (raising ConfigError if it is broken), apply `change`, save.

    Holds a lock for the whole read-modify-write, so two commands (or the tray and a command)
    changing the config at once both keep their change.
    """
    path = path or config_path()
    with _locked(path.parent):
        current = load_config(path)
        updated = change(current)
        if updated != current or updated.to_json() != current.to_json():
            save_config(updated, path)
    return updated


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    with held(folder / ".config.lock"):
        yield


def register(client_id: str) -> bool:
    """Add the client to our config (so its activity shows under its name); True if added."""

    def change(config: Config) -> Config:
        if config.client(client_id):
            return config
        return dataclasses.replace(config, clients=(*config.clients, ClientEntry(id=client_id)))

    before = load_config().client(client_id)
    update_config(change)
    return before is None


def new_token() -> str:
    """A fresh bearer token: the prefix and 256 random bits, URL-safe."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def issue_token(client_id: str, token: str | None = None) -> tuple[str, bool]:
    """Give the client a new token (registering the client if need be), replacing any old one.

    Returns the token — the only time it exists outside the client's own config — and whether
    an older token was replaced (it stops working on its next request).  `token`: one made
    beforehand with `new_token` (an install writes it into the client's file first, so a
    failed write never leaves the client with a dead token).
    """
    token = token or new_token()
    replaced = False

    def change(config: Config) -> Config:
        nonlocal replaced
        entry = config.client(client_id)
        replaced = entry is not None and entry.token_sha256 is not None
        updated = dataclasses.replace(entry or ClientEntry(id=client_id), token_sha256=token_hash(token))
        if entry is None:
            return dataclasses.replace(config, clients=(*config.clients, updated))
        return dataclasses.replace(config, clients=tuple(updated if c.id == client_id else c for c in config.clients))

    update_config(change)
    return token, replaced


def revoke_token(client_id: str) -> bool:
    """Remove the client's token; True if it had one.  The endpoint refuses it on its next request."""
    revoked = False

    def change(config: Config) -> Config:
        nonlocal revoked
        entry = config.client(client_id)
        if entry is None or entry.token_sha256 is None:
            return config
        revoked = True
        updated = dataclasses.replace(entry, token_sha256=None)
        return dataclasses.replace(config, clients=tuple(updated if c.id == client_id else c for c in config.clients))

    update_config(change)
    return revoked
