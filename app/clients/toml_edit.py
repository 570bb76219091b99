"""Edits of a TOML config file (Codex): set or remove our one table through tomlkit, which keeps
every other table, comment and value as written."""

from __future__ import annotations

from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from vault_recall.app.app_errors import TomlEditError


def _load(text: str, what: str) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(text)
    except TOMLKitError as exc:
        raise TomlEditError(f"{what} is not valid TOML ({exc}), so it was left untouched") from None


def _plain(value: Any) -> Any:
    return value.unwrap() if hasattr(value, "unwrap") else value


def set_table(text: str, container: str, name: str, entry: dict[str, Any], what: str) -> str:
    """`text` with `[container.name]` holding exactly `entry`, edited in place: the caller has
    merged in what a person added to our entry, and whatever it left out goes (a switch of
    forms leaves no key of the old form behind)."""
    document = _load(text, what)
    servers = document.get(container)
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        document[container] = servers
    elif not isinstance(servers, dict):
        raise TomlEditError(f"{what} has '{container}' that is not a table, so it was left untouched")
    existing = servers.get(name)
    if isinstance(existing, dict):
        if _plain(existing) == entry:
            return text
        for key in [key for key in existing if key not in entry]:
            del existing[key]
        for key, value in entry.items():  # in place: the table's comments and order stay
            if _plain(existing.get(key)) != value:
                existing[key] = value
    else:
        table = tomlkit.table()
        for key, value in entry.items():
            table[key] = value
        servers[name] = table
    return tomlkit.dumps(document)


def remove_table(text: str, container: str, name: str, what: str) -> str:
    """`text` without `[container.name]` (unchanged when it is not there)."""
    document = _load(text, what)
    servers = document.get(container)
    if not isinstance(servers, dict) or name not in servers:
        return text
    del servers[name]
    return tomlkit.dumps(document)


def remove_container_if_empty(text: str, container: str, what: str) -> str:
    """`text` without `[container]` when nothing is left in it."""
    document = _load(text, what)
    if container not in document or _plain(document[container]) != {}:
        return text
    del document[container]
    return tomlkit.dumps(document)
