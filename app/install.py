"""Installing our entry into a client's own config file, safely.

Never loses or reorders anything else (JSON is edited in place, TOML and YAML through
round-trip parsers); refuses files it cannot parse; backs the old file up beside it; writes
atomically with the file's own permissions; installing twice changes nothing the second time.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from tomlkit.exceptions import TOMLKitError

from app.clients import SERVER_NAME, ClientSpec
from app.json_edit import JsonEditError, parse_object, remove_member, set_member

BACKUP_SUFFIX = ".vault-recall.bak"
_MAX_CONFIG_BYTES = 16 * 1024 * 1024


class InstallError(Exception):
    """The client's file was left untouched; the message says why in one sentence."""


@dataclass(frozen=True)
class Plan:
    path: Path
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
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InstallError(f"{path} is not UTF-8 text, so it was left untouched") from None
    except OSError as exc:
        raise InstallError(f"{path} cannot be read: {exc.strerror}") from None


def plan_install(spec: ClientSpec, argv: list[str], path: Path) -> Plan:
    before = read_existing(path)
    text = before or ""
    entry = spec.entry(argv)
    what = str(path)
    try:
        if spec.format == "json":
            current = parse_object(text, what).get(spec.container)
            old = current.get(SERVER_NAME) if isinstance(current, dict) else None
            after = set_member(text, spec.container, SERVER_NAME, entry, what)
        elif spec.format == "toml":
            old, after = _toml_set(text, spec.container, entry, what)
        else:
            old, after = _yaml_set(text, spec, entry, what)
    except JsonEditError as exc:
        raise InstallError(str(exc)) from None
    return Plan(path=path, before=before, after=after, replaced=old is not None and _plain(old) != entry)


def plan_uninstall(spec: ClientSpec, path: Path) -> Plan:
    before = read_existing(path)
    if before is None:
        return Plan(path=path, before=None, after="", replaced=False)
    what = str(path)
    try:
        if spec.format == "json":
            after = remove_member(before, spec.container, SERVER_NAME, what)
        elif spec.format == "toml":
            after = _toml_remove(before, spec.container, what)
        else:
            after = _yaml_remove(before, spec, what)
    except JsonEditError as exc:
        raise InstallError(str(exc)) from None
    return Plan(path=path, before=before, after=after, replaced=False)


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
        backup = path.with_name(path.name + BACKUP_SUFFIX)
        shutil.copy2(path, backup)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(plan.after.encode("utf-8"))
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    return backup


def _plain(value: Any) -> Any:
    """tomlkit / ruamel containers as plain dicts and lists, for comparing entries."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "unwrap"):
        return value.unwrap()
    return value


def _toml_load(text: str, what: str) -> tomlkit.TOMLDocument:
    try:
        return tomlkit.parse(text)
    except TOMLKitError as exc:
        raise InstallError(f"{what} is not valid TOML ({exc}), so it was left untouched") from None


def _toml_set(text: str, container: str, entry: dict[str, Any], what: str) -> tuple[Any, str]:
    document = _toml_load(text, what)
    servers = document.get(container)
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        document[container] = servers
    elif not isinstance(servers, dict):
        raise InstallError(f"{what} has '{container}' that is not a table, so it was left untouched")
    old = servers.get(SERVER_NAME)
    table = tomlkit.table()
    for key, value in entry.items():
        table[key] = value
    if old is not None and _plain(old) == entry:
        return old, text
    servers[SERVER_NAME] = table
    return old, tomlkit.dumps(document)


def _toml_remove(text: str, container: str, what: str) -> str:
    document = _toml_load(text, what)
    servers = document.get(container)
    if not isinstance(servers, dict) or SERVER_NAME not in servers:
        return text
    del servers[SERVER_NAME]
    return tomlkit.dumps(document)


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    return yaml


def _yaml_load(text: str, what: str) -> Any:
    try:
        data = _yaml().load(text) if text.strip() else None
    except YAMLError as exc:
        raise InstallError(f"{what} is not valid YAML ({str(exc).splitlines()[0]}), so it was left untouched") from None
    if data is None:
        from ruamel.yaml.comments import CommentedMap

        return CommentedMap()
    if not isinstance(data, dict):
        raise InstallError(f"{what} does not hold a mapping at the top, so it was left untouched")
    return data


def _yaml_dump(data: Any) -> str:
    out = io.StringIO()
    _yaml().dump(data, out)
    return out.getvalue()


def _yaml_set(text: str, spec: ClientSpec, entry: dict[str, Any], what: str) -> tuple[Any, str]:
    data = _yaml_load(text, what)
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
        old = holder[index] if index is not None else None
        if old is not None and _plain(old) == entry:
            return old, text
        if index is None:
            holder.append(entry)
        else:
            holder[index] = entry
        return old, _yaml_dump(data)
    if holder is None:
        holder = {}
        data[spec.container] = holder
    elif not isinstance(holder, dict):
        raise InstallError(f"{what} has '{spec.container}' that is not a mapping, so it was left untouched")
    old = holder.get(SERVER_NAME)
    if old is not None and _plain(old) == entry:
        return old, text
    holder[SERVER_NAME] = entry
    return old, _yaml_dump(data)


def _yaml_remove(text: str, spec: ClientSpec, what: str) -> str:
    data = _yaml_load(text, what)
    holder = data.get(spec.container)
    if spec.is_list and isinstance(holder, list):
        kept = [item for item in holder if not (isinstance(item, dict) and item.get("name") == SERVER_NAME)]
        if len(kept) == len(holder):
            return text
        holder[:] = kept
        return _yaml_dump(data)
    if isinstance(holder, dict) and SERVER_NAME in holder:
        del holder[SERVER_NAME]
        return _yaml_dump(data)
    return text
