"""Installing our entry into a client's own config file, safely.

Never loses or changes anything else: our entry is set or removed where it stands and every
other byte stays as it was (entry_edit.py), and the result is parsed again and compared with
the original before it is written.  Files that do not parse are refused.  The file is
replaced only if nobody changed it since it was read — a client app writing it meanwhile makes
us edit again from its version (guarded_write.py).  The old file is backed up beside it
(three per file at most: the oldest and the newest two); writes keep the file's permissions; a
symlinked config is written through to its target; installing twice changes nothing the second
time; settings a person added to our entry (env, timeouts) stay.  Uninstalling right after
installing gives back the file's exact bytes, or no file where there was none.
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import os
import random
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vault_recall.app.app_errors import EditError, InstallError
from vault_recall.app.clients import entry_edit
from vault_recall.app.clients.catalogue import SERVER_NAME, ClientSpec
from vault_recall.app.clients.entry_form import carried_over, form_of
from vault_recall.app.clients.guarded_write import (
    BACKUP_SUFFIX,
    Changed,
    Seen,
    backups_of,
    prune_backups,
    read_seen,
    replace_if_unchanged,
    write_backup,
)
from vault_recall.app.clients.launch import HOME_VARIABLES

__all__ = ["BACKUP_SUFFIX", "InstallError", "Plan", "apply", "current_entry", "plan_install", "plan_uninstall"]

_MAX_CONFIG_BYTES = 16 * 1024 * 1024
# Bytes an install adds besides our entry: a container's key and braces, indentation, newlines.
_SHAPE_SLACK = 256
_BOM = "\ufeff"
# How many times an edit starts over from the client's newer file before giving up, with a
# short pause of random length between tries so as not to keep colliding with a writer's rhythm.
ATTEMPTS = 8
_PAUSE_SECONDS = (0.01, 0.08)


# Settings of our entry that a person may tune: set when absent, never overwritten.
PERSONAL_KEYS = frozenset({"startup_timeout_sec", "required", "alwaysLoad"})


@dataclass(frozen=True)
class Plan:
    path: Path  # the file actually written (a symlink's target)
    before: str | None  # None: the file does not exist yet
    after: str | None  # None: the file is to be removed (it was made for our entry alone)
    replaced: bool  # an entry of ours was there with other settings
    seen: Seen = field(default=Seen(None, None), compare=False, repr=False)
    redo: Callable[[], Plan] | None = field(default=None, compare=False, repr=False)  # plan again, from now

    @property
    def changes(self) -> bool:
        if self.before is None:
            return bool(self.after)  # no file, and none (or an empty one) to write: nothing to do
        return self.before != self.after

    def diff(self) -> str:
        if self.after is None:
            return f"--- {self.path} (now)\n+++ /dev/null\n(the file is removed: it held only our entry)\n"
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
    try:
        return path.resolve() if path.is_symlink() else path
    except (OSError, RuntimeError):
        raise InstallError(f"{path} is a symlink that leads nowhere readable, so it was left untouched") from None


def read_current(path: Path) -> tuple[Seen, str | None]:
    """The file as read now — what a plan is made from — and its text (None: no file)."""
    try:
        seen = read_seen(path, _MAX_CONFIG_BYTES)
    except ValueError:
        raise InstallError(f"{path} is larger than 16 MiB; not a config file this tool will edit") from None
    except IsADirectoryError:
        raise InstallError(f"{path} is not a regular file") from None
    except OSError as exc:
        raise InstallError(f"{path} cannot be read: {_why(exc)}") from None
    if seen.data is None:
        return seen, None
    try:
        return seen, seen.data.decode("utf-8")
    except UnicodeDecodeError:
        raise InstallError(f"{path} is not UTF-8 text, so it was left untouched") from None


def read_existing(path: Path) -> str | None:
    """The file's text, or None when it does not exist; InstallError when it cannot be used."""
    return read_current(path)[1]


def current_entry(spec: ClientSpec, text: str, what: str) -> dict[str, Any] | None:
    """Our entry as the file has it now (plain data), or None; InstallError when the file
    cannot be read as the client reads it."""
    try:
        return entry_edit.current_entry(spec, text, what)
    except EditError as exc:
        raise InstallError(str(exc)) from None


def _split_bom(text: str) -> tuple[str, str]:
    return (_BOM, text[1:]) if text.startswith(_BOM) else ("", text)


def _merged(old: dict[str, Any] | None, entry: dict[str, Any], env_key: str = "env") -> dict[str, Any]:
    """Our entry, keeping what a person added to it (env, timeouts) in its place.

    In its environment the variables that place our config (launch.HOME_VARIABLES) are ours:
    they are set to what this install needs and dropped when it needs none; others stay.

    An old entry of the other form (stdio against URL, or both at once) is replaced whole: a
    `url` left beside a `command` makes Codex refuse to start and Gemini keep the URL, and an
    old header keeps a live token in the file.  Only what means the same in both forms and a
    person may have set is carried over (entry_form.FORM_FREE_KEYS).
    """
    if old is None:
        return entry
    if form_of(old) != form_of(entry):
        kept = carried_over(old)
        switched = {key: kept.get(key, value) if key in PERSONAL_KEYS else value for key, value in entry.items()}
        return switched | {key: value for key, value in kept.items() if key not in switched}
    merged = dict(old)
    merged.update({key: value for key, value in entry.items() if key not in PERSONAL_KEYS or key not in old})
    old_env = old.get(env_key)
    if isinstance(old_env, dict):
        kept = {name: value for name, value in old_env.items() if name not in HOME_VARIABLES}
        merged[env_key] = {**kept, **entry.get(env_key, {})}
    return merged


def _edited(spec: ClientSpec, text: str, entry: dict[str, Any], what: str) -> str:
    """`text` (without BOM) with our entry set to exactly `entry`, checked."""
    after = entry_edit.set_ours(spec, text, entry, what)
    entry_edit.verify(spec, text, after, entry, what)
    return after


def plan_install(spec: ClientSpec, argv: list[str], path: Path, extra: dict[str, Any] | None = None) -> Plan:
    """The change that gives `path` our entry for `argv` (plus `extra` keys: allow_list.py)."""
    target = target_of(path)
    seen, before = read_current(target)
    bom, text = _split_bom(before or "")
    entry = spec.entry(argv) | (extra or {})
    what = str(target)
    try:
        old = current_entry(spec, text, what)
        wanted = _merged(old, entry, spec.env_key)
        after = _edited(spec, text, wanted, what)
    except EditError as exc:
        raise InstallError(str(exc)) from None
    replaced = old is not None and (old.keys() != wanted.keys() or any(old[key] != wanted[key] for key in wanted))
    return Plan(
        path=target,
        before=before,
        after=bom + after if after != text else before or after,
        replaced=replaced,
        seen=seen,
        redo=lambda: plan_install(spec, argv, path, extra),
    )


def plan_uninstall(spec: ClientSpec, path: Path) -> Plan:
    target = target_of(path)
    seen, before = read_current(target)
    if before is None:
        return Plan(path=target, before=None, after=None, replaced=False, seen=seen)
    bom, text = _split_bom(before)
    what = str(target)
    after: str | None
    try:
        ours = current_entry(spec, text, what)
        removed = entry_edit.remove_ours(spec, text, what)
        entry_edit.verify(spec, text, removed, None, what)
        after = removed if ours is None else _as_before_install(spec, target, text, removed, ours, what)
    except EditError as exc:
        raise InstallError(str(exc)) from None
    if after is not None:
        after = bom + after if after != text else before
    redo = lambda: plan_uninstall(spec, path)  # noqa: E731
    return Plan(path=target, before=before, after=after, replaced=False, seen=seen, redo=redo)


def _as_before_install(
    spec: ClientSpec, path: Path, text: str, removed: str, ours: dict[str, Any], what: str
) -> str | None:
    """Undo an install as exactly as can be known.

    The newest backup without an entry of ours is the file our entry went into.  If the file is
    byte for byte what installing our entry into it gives, it goes back to that backup; if it is
    what installing into no file gives, it goes away.  Otherwise (the client changed the file
    since) our entry is removed where it stands, and the container we made for it too when the
    original had none.
    """
    original = _original_of(spec, path, what)
    if original is not None:
        if original == removed:
            return original
        # Installing adds our entry and at most a container and some blank space around it: a
        # file of another size was not made from this one (and is not worth parsing).
        if abs(len(removed) - len(original)) <= _SHAPE_SLACK and _installed_into(spec, original, ours, what) == text:
            return original
    elif _installed_into(spec, "", ours, what) == text:
        return None  # the file was made for our entry: no file, as before
    had_container = True
    if original is not None:
        with contextlib.suppress(EditError):
            had_container = spec.container in entry_edit.parse(spec, original, what)
    return removed if had_container else entry_edit.remove_empty_container(spec, removed, what)


def _original_of(spec: ClientSpec, path: Path, what: str) -> str | None:
    """The newest backup that holds no entry of ours (the file before our install), if any."""
    for backup in reversed(backups_of(path)):
        try:
            original = _split_bom(backup.read_bytes().decode("utf-8"))[1]
        except (OSError, UnicodeDecodeError):
            continue
        try:
            if SERVER_NAME in original and current_entry(spec, original, what) is not None:
                continue  # a version with our entry in it (saved before a later install or uninstall)
        except InstallError:
            continue
        return original
    return None


def _installed_into(spec: ClientSpec, original: str, ours: dict[str, Any], what: str) -> str | None:
    try:
        return _edited(spec, original, ours, what)
    except EditError:
        return None


def apply(plan: Plan) -> Path | None:
    """Write the plan's file; returns the backup's path (None for a new file).

    If the file changed since it was read (a client app wrote it), the edit is made again from
    the file as it is now, up to ATTEMPTS times, so nothing the app wrote is lost.
    """
    for _ in range(ATTEMPTS):
        if not plan.changes:
            return None
        try:
            backup = _commit(plan)
        except Changed:
            if plan.redo is None:
                break
            time.sleep(random.uniform(*_PAUSE_SECONDS))
            plan = plan.redo()
            continue
        prune_backups(plan.path)
        return backup
    raise InstallError(
        f"{plan.path} kept changing while Vault Recall edited it ({ATTEMPTS} tries), so it was left as the other "
        "program wrote it; quit that program and try again, or paste the snippet yourself"
    )


def _commit(plan: Plan) -> Path | None:
    path = plan.path
    mode = 0o600
    backup: Path | None = None
    try:
        if plan.seen.data is not None:
            st = os.stat(path)
            if not st.st_mode & stat.S_IWUSR or not os.access(path, os.W_OK):
                raise InstallError(
                    f"{path} is read-only, so it was left untouched; make it writable or paste the snippet"
                )
            mode = stat.S_IMODE(st.st_mode)
            backup = write_backup(path, plan.seen.data, mode)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
        new = plan.after.encode("utf-8") if plan.after is not None else None
        try:
            replace_if_unchanged(path, plan.seen, new, mode)
        except Changed:
            if backup is not None:
                backup.unlink(missing_ok=True)  # a copy of a version we did not replace after all
            raise
    except InstallError:
        raise
    except Changed:
        raise
    except OSError as exc:
        if backup is not None:
            backup.unlink(missing_ok=True)
        raise InstallError(f"{path} cannot be written ({_why(exc)}), so it was left untouched") from None
    return backup


def _why(exc: OSError) -> str:
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return exc.strerror or type(exc).__name__
