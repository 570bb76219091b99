"""Installing our entry into a client's own config file, safely.

Never loses or reorders anything else: JSON is edited in place, TOML and YAML through
round-trip parsers, and every result is parsed again and compared with the original before it
is written (everything but our entry must be equal, or the file is refused).  Files that do
not parse are refused; the old file is backed up beside it; writes are atomic with the file's
own permissions; a symlinked config is written through to its target; installing twice
changes nothing the second time; settings a person added to our entry (env, timeouts) stay.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import io
import json
import os
import stat
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import YAMLError
from ruamel.yaml.util import load_yaml_guess_indent
from tomlkit.exceptions import TOMLKitError

from vault_recall.app.clients.catalogue import SERVER_NAME, ClientSpec
from vault_recall.app.clients.json_edit import JsonEditError, parse_object, remove_member, set_member
from vault_recall.app.clients.launch import HOME_VARIABLES
from vault_recall.app.state.atomic_write import write_atomically

BACKUP_SUFFIX = ".vault-recall.bak"
_MAX_CONFIG_BYTES = 16 * 1024 * 1024
_BOM = "\ufeff"
# A new Continue config needs these besides our server (its schema requires them).
_CONTINUE_HEADER = {"name": "Local config", "version": "1.0.0", "schema": "v1"}


# Settings of our entry that a person may tune: set when absent, never overwritten.
PERSONAL_KEYS = frozenset({"startup_timeout_sec", "required", "alwaysLoad"})


class InstallError(Exception):
    """The client's file was left untouched; the message says why in one sentence."""


@dataclass(frozen=True)
class Plan:
    path: Path  # the file actually written (a symlink's target)
    before: str | None  # None: the file does not exist yet
    after: str
    replaced: bool  # an entry of ours was there with other settings

    @property
    def changes(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                (self.before or "").splitlines(keepends=True),
                self.after.splitlines(keepends=True),
                fromfile=f"{self.path} (now)" if self.before is not None else "/dev/null",
                tofile=f"{self.path} (after)",
            )
        )


def target_of(path: Path) -> Path:
    """A symlinked config (dotfiles) is edited where it really lives, the link kept."""
    return path.resolve() if path.is_symlink() else path


def read_existing(path: Path) -> str | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InstallError(f"{path} cannot be read: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise InstallError(f"{path} is not a regular file")
    if st.st_size > _MAX_CONFIG_BYTES:
        raise InstallError(f"{path} is larger than 16 MiB; not a config file this tool will edit")
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise InstallError(f"{path} is not UTF-8 text, so it was left untouched") from None
    except OSError as exc:
        raise InstallError(f"{path} cannot be read: {exc.strerror}") from None


def plan_install(spec: ClientSpec, argv: list[str], path: Path, extra: dict[str, Any] | None = None) -> Plan:
    """The change that gives `path` our entry for `argv` (plus `extra` keys: allow_list.py)."""
    path = target_of(path)
    before = read_existing(path)
    bom, text = _split_bom(before or "")
    entry = spec.entry(argv) | (extra or {})
    what = str(path)
    old = current_entry(spec, text, what)
    wanted = _merged(old, entry, spec.env_key)
    with _refusing(what):
        if spec.format == "json":
            after = set_member(text, spec.container, SERVER_NAME, wanted, what)
        elif spec.format == "toml":
            ours = {key: value for key, value in wanted.items() if key in entry or key == spec.env_key}
            after = _toml_set(text, spec.container, ours, what)
        else:
            after = _yaml_set(text, spec, wanted, what)
    _verify(spec, text, after, wanted, what)
    replaced = old is not None and any(old.get(key) != value for key, value in wanted.items())
    return Plan(path=path, before=before, after=bom + after if after != text else before or after, replaced=replaced)


def plan_uninstall(spec: ClientSpec, path: Path) -> Plan:
    path = target_of(path)
    before = read_existing(path)
    if before is None:
        return Plan(path=path, before=None, after="", replaced=False)
    bom, text = _split_bom(before)
    what = str(path)
    with _refusing(what):
        if spec.format == "json":
            after = remove_member(text, spec.container, SERVER_NAME, what)
        elif spec.format == "toml":
            after = _toml_remove(text, spec.container, what)
        else:
            after = _yaml_remove(text, spec, what)
    _verify(spec, text, after, None, what)
    return Plan(path=path, before=before, after=bom + after if after != text else before, replaced=False)


@contextlib.contextmanager
def _refusing(what: str) -> Iterator[None]:
    """Any failure to edit the file becomes one InstallError sentence: it was left untouched."""
    try:
        yield
    except JsonEditError as exc:
        raise InstallError(str(exc)) from None
    except (TOMLKitError, ValueError, TypeError, YAMLError) as exc:
        raise InstallError(
            f"{what} is laid out in a way this tool cannot edit safely ({exc}); it was left untouched"
        ) from None


def current_entry(spec: ClientSpec, text: str, what: str) -> dict[str, Any] | None:
    """Our entry as the file has it now (plain data), or None."""
    data = _parse(spec, text, what)
    holder = data.get(spec.container)
    if spec.is_list:
        items = holder if isinstance(holder, list) else []
        found = next((i for i in items if isinstance(i, dict) and i.get("name") == SERVER_NAME), None)
    else:
        found = holder.get(SERVER_NAME) if isinstance(holder, dict) else None
    return found if isinstance(found, dict) else None


def _merged(old: dict[str, Any] | None, entry: dict[str, Any], env_key: str = "env") -> dict[str, Any]:
    """Our entry, keeping what a person added to it (env, timeouts) in its place.

    In its environment the variables that place our config (launch.HOME_VARIABLES) are ours:
    they are set to what this install needs and dropped when it needs none; others stay.
    """
    if old is None:
        return entry
    merged = dict(old)
    merged.update({key: value for key, value in entry.items() if key not in PERSONAL_KEYS or key not in old})
    old_env = old.get(env_key)
    if isinstance(old_env, dict):
        kept = {name: value for name, value in old_env.items() if name not in HOME_VARIABLES}
        merged[env_key] = {**kept, **entry.get(env_key, {})}
    return merged


def _split_bom(text: str) -> tuple[str, str]:
    return (_BOM, text[1:]) if text.startswith(_BOM) else ("", text)


def _parse(spec: ClientSpec, text: str, what: str) -> dict[str, Any]:
    """The file as plain data, with the strict parser a client would use."""
    try:
        if spec.format == "json":
            return parse_object(text, what)
        if spec.format == "toml":
            return tomllib.loads(text)
        loaded = YAML(typ="safe", pure=True).load(text) if text.strip() else None
    except JsonEditError as exc:
        raise InstallError(str(exc)) from None
    except tomllib.TOMLDecodeError as exc:
        raise InstallError(f"{what} is not valid TOML ({exc}), so it was left untouched") from None
    except YAMLError as exc:
        raise InstallError(f"{what} is not valid YAML ({str(exc).splitlines()[0]}), so it was left untouched") from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise InstallError(f"{what} does not hold a mapping at the top, so it was left untouched")
    return loaded


def _without_ours(spec: ClientSpec, data: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(data)
    holder = data.get(spec.container)
    if spec.is_list and isinstance(holder, list):
        holder[:] = [i for i in holder if not (isinstance(i, dict) and i.get("name") == SERVER_NAME)]
    elif isinstance(holder, dict):
        holder.pop(SERVER_NAME, None)
    if holder in ({}, []):
        del data[spec.container]
    for key in _CONTINUE_HEADER if spec.id == "continue" else ():
        if data.get(key) == _CONTINUE_HEADER[key]:
            data.pop(key)
    return data


def _verify(spec: ClientSpec, before: str, after: str, wanted: dict[str, Any] | None, what: str) -> None:
    """Refuse any edit that changed something besides our entry (the last line of defence)."""
    old = _parse(spec, before, what)
    new = _parse(spec, after, what)
    if _without_ours(spec, old) != _without_ours(spec, new):
        raise InstallError(
            f"{what} is laid out in a way this tool cannot edit without changing other settings; it was left untouched"
        )
    if wanted is not None and current_entry(spec, after, what) != json.loads(json.dumps(wanted)):
        raise InstallError(f"{what} could not be given our entry cleanly; it was left untouched")


def apply(plan: Plan) -> Path | None:
    """Write the plan's file atomically; returns the backup's path (None for a new file)."""
    if not plan.changes or (plan.before is None and not plan.after):
        return None
    path = plan.path
    backup: Path | None = None
    mode = 0o600
    if plan.before is not None:
        st = path.stat()
        if not st.st_mode & stat.S_IWUSR or not os.access(path, os.W_OK):
            raise InstallError(f"{path} is read-only, so it was left untouched; make it writable or paste the snippet")
        mode = stat.S_IMODE(st.st_mode)
        backup = _backup_name(path)
        write_atomically(backup, path.read_bytes(), mode)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, plan.after.encode("utf-8"), mode)
    return backup


def _backup_name(path: Path) -> Path:
    """A new name for every backup, so no earlier one (the person's original) is overwritten."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    candidate = path.with_name(f"{path.name}.{stamp}{BACKUP_SUFFIX}")
    number = 1
    while candidate.exists() or candidate.is_symlink():
        number += 1
        candidate = path.with_name(f"{path.name}.{stamp}-{number}{BACKUP_SUFFIX}")
    return candidate


def _plain(value: Any) -> Any:
    if hasattr(value, "unwrap"):
        return value.unwrap()
    return value


def _toml_load(text: str, what: str) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(text)
    except TOMLKitError as exc:
        raise InstallError(f"{what} is not valid TOML ({exc}), so it was left untouched") from None


def _toml_set(text: str, container: str, entry: dict[str, Any], what: str) -> str:
    document = _toml_load(text, what)
    servers = document.get(container)
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        document[container] = servers
    elif not isinstance(servers, dict):
        raise InstallError(f"{what} has '{container}' that is not a table, so it was left untouched")
    existing = servers.get(SERVER_NAME)
    if isinstance(existing, dict):
        if all(_plain(existing.get(k)) == v for k, v in entry.items()):
            return text
        for key, value in entry.items():  # in place: other keys and sub-tables stay
            existing[key] = value
    else:
        table = tomlkit.table()
        for key, value in entry.items():
            table[key] = value
        servers[SERVER_NAME] = table
    return tomlkit.dumps(document)


def _toml_remove(text: str, container: str, what: str) -> str:
    document = _toml_load(text, what)
    servers = document.get(container)
    if not isinstance(servers, dict) or SERVER_NAME not in servers:
        return text
    del servers[SERVER_NAME]
    return tomlkit.dumps(document)


def _yaml_round_trip(text: str, what: str) -> tuple[Any, YAML]:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    if not text.strip():
        return None, yaml
    try:
        data, indent, block_seq_indent = load_yaml_guess_indent(text)
    except YAMLError as exc:
        raise InstallError(f"{what} is not valid YAML ({str(exc).splitlines()[0]}), so it was left untouched") from None
    # Write lists and mappings indented the way this file already is.
    # (the guess gives where a list item's content starts, and where its dash is)
    sequence = indent or 2
    offset = block_seq_indent or 0
    yaml.indent(mapping=max(2, sequence - offset) if offset else sequence, sequence=sequence, offset=offset)
    yaml.explicit_start = text.lstrip().startswith("---")
    if data is not None and not isinstance(data, dict):
        raise InstallError(f"{what} does not hold a mapping at the top, so it was left untouched")
    return data, yaml


def _yaml_dump(data: Any, yaml: YAML, original: str) -> str:
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def _with_lf(edit: Any) -> Any:
    """Run a YAML edit on LF text and give the file its CRLF line endings back."""

    def wrapped(text: str, *args: Any) -> str:
        if "\r\n" not in text:
            return str(edit(text, *args))
        lf = text.replace("\r\n", "\n")
        after = str(edit(lf, *args))
        return text if after == lf else after.replace("\n", "\r\n")

    return wrapped


@_with_lf
def _yaml_set(text: str, spec: ClientSpec, entry: dict[str, Any], what: str) -> str:
    data, yaml = _yaml_round_trip(text, what)
    if data is None:
        # A new (or comments-only) file: keep whatever text there is and add ours below it.
        fresh = CommentedMap(_CONTINUE_HEADER) if spec.id == "continue" and not text.strip() else CommentedMap()
        fresh[spec.container] = [entry] if spec.is_list else {SERVER_NAME: entry}
        addition = _yaml_dump(fresh, YAML(typ="rt"), text)
        return (text.rstrip("\n") + "\n" if text.strip() else "") + addition
    holder = data.get(spec.container)
    if spec.is_list:
        if holder is None:
            holder = []
            data[spec.container] = holder
        elif not isinstance(holder, list):
            raise InstallError(f"{what} has '{spec.container}' that is not a list, so it was left untouched")
        index = next(
            (i for i, item in enumerate(holder) if isinstance(item, dict) and item.get("name") == SERVER_NAME), None
        )
        if index is None:
            holder.append(entry)
        elif dict(holder[index]) == entry:
            return text
        else:
            holder[index].update(entry)
        return _yaml_dump(data, yaml, text)
    if holder is None:
        holder = CommentedMap()
        data[spec.container] = holder
    elif not isinstance(holder, dict):
        raise InstallError(f"{what} has '{spec.container}' that is not a mapping, so it was left untouched")
    existing = holder.get(SERVER_NAME)
    if isinstance(existing, dict):
        if dict(existing) == entry:
            return text
        existing.update(entry)
    else:
        holder[SERVER_NAME] = entry
    return _yaml_dump(data, yaml, text)


@_with_lf
def _yaml_remove(text: str, spec: ClientSpec, what: str) -> str:
    data, yaml = _yaml_round_trip(text, what)
    if data is None:
        return text
    holder = data.get(spec.container)
    if spec.is_list and isinstance(holder, list):
        kept = [item for item in holder if not (isinstance(item, dict) and item.get("name") == SERVER_NAME)]
        if len(kept) == len(holder):
            return text
        holder[:] = kept
        return _yaml_dump(data, yaml, text)
    if isinstance(holder, dict) and SERVER_NAME in holder:
        del holder[SERVER_NAME]
        return _yaml_dump(data, yaml, text)
    return text
