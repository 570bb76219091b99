"""Hostile note arguments: as many generated cases per tool as the Hypothesis profile asks
(3,000 in all under `ci`), 0 reads outside the vault, 0 hidden or excluded reads.

Every file the process opens while a case runs is recorded with a Python audit hook (which
sees `open()` and `os.open()` alike), so "nothing outside was read" is observed, not assumed.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.vaults import record, write_vault
from vault_recall.server.errors import PathRejected, RecallError
from vault_recall.server.recall.answers import backlinks, reading
from vault_recall.server.recall.scope import Exposure, Scope
from vault_recall.server.vault.paths import guard_note_path

SECRET = "TOP SECRET: must never be read"

_opened: list[str] | None = None


_PYTHON_HOMES = tuple(os.path.realpath(p) + os.sep for p in {sys.prefix, sys.base_prefix})


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _opened is not None and event == "open" and isinstance(args[0], str | bytes):
        path = os.fsdecode(args[0])
        if not os.path.isabs(path):
            return  # opened relative to a folder's descriptor: _recording_open records where
        # Python loading its own modules lazily (an encoding, say) is not the server reading.
        if path.endswith((".py", ".pyc", ".so")) and os.path.realpath(path).startswith(_PYTHON_HOMES):
            return
        _opened.append(path)


sys.addaudithook(_audit)


_real_open = os.open


def _recording_open(path: Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
    """os.open, noting the real path of whatever it opened (the server opens notes and folders
    relative to a folder's descriptor, where the name alone says nothing)."""
    fd = _real_open(path, flags, mode, dir_fd=dir_fd)
    if _opened is not None:
        _opened.append(os.readlink(f"/proc/self/fd/{fd}"))
    return fd


class Recorder:
    def __enter__(self) -> list[str]:
        global _opened
        _opened = []
        os.open = _recording_open  # type: ignore[assignment]
        return _opened

    def __exit__(self, *exc: object) -> None:
        global _opened
        _opened = None
        os.open = _real_open


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """A vault with symlinks planted inside, secrets beside it, hidden and excluded notes."""
    base = tmp_path_factory.mktemp("fuzz")
    outside = write_vault(base / "outside", {"secret.md": SECRET, "Secret note.md": SECRET, "dir/deep.md": SECRET})
    vault = write_vault(
        base / "vault",
        {
            "Visible.md": record("s", "visible text [[Linked]] [[secret]] [[Hidden]] [[Private plan]]"),
            "Folder/Nested note.md": record("s", "nested [[Visible]]"),
            ".obsidian/app.json": json.dumps({"userIgnoreFilters": ["Private/", "/^Drafts/"]}),
            ".obsidian/Hidden.md": record("s", SECRET),
            ".trash/Deleted.md": record("s", SECRET),
            "Folder/.hidden note.md": record("s", SECRET),
            "Private/Private plan.md": record("s", SECRET),
            "Private/Deeper/Plan.md": record("s", SECRET),
            "Drafts/Draft.md": record("s", SECRET),
        },
    )
    (vault / "Linked.md").symlink_to(outside / "secret.md")
    (vault / "LinkedDir").symlink_to(outside / "dir", target_is_directory=True)
    (vault / "Folder/Up").symlink_to(base, target_is_directory=True)
    (outside / "into.md").symlink_to(vault / "Visible.md")  # outside pointing in
    yield vault, outside


FRAGMENTS = [
    "..",
    ".",
    "",
    "~",
    "~root",
    "/",
    "//",
    "\\",
    "C:",
    "c:\\",
    "\\\\server\\share",
    "%2e%2e",
    "%2f",
    "%00",
    "\x00",
    "．．",
    "／",
    "\u2024\u2024",
    "\u2215",
    "\uff0f",
    "\u2025",
    ".obsidian",
    ".trash",
    ".git",
    "Private",
    "Drafts",
    "Linked",
    "LinkedDir",
    "Up",
    "outside",
    "secret",
    "Secret note",
    "deep",
    "into",
    "Visible",
    "Folder",
    "Nested note",
    "Hidden",
    ".hidden note",
    "Private plan",
    "Draft",
    "Deleted",
    "app.json",
    ".md",
    "#",
    "#^x",
    "|",
    "[[",
    "]]",
    "^",
    "/etc/passwd",
    "/proc/self/environ",
    "file:",
    "obsidian://",
    "\n",
    " ",
    "\t",
    "é",
    "\u202e",
]
SEPARATORS = ["/", "\\", "", "#", "|", "/../", "/./"]
HOSTILE = st.one_of(
    st.lists(st.tuples(st.sampled_from(FRAGMENTS), st.sampled_from(SEPARATORS)), min_size=1, max_size=7).map(
        lambda parts: "".join(a + b for a, b in parts)
    ),
    st.text(max_size=60),
)


def check_reads(opened: list[str], vault: Path) -> None:
    real_vault = os.path.realpath(vault)
    for path in opened:
        real = os.path.realpath(path)
        assert real == real_vault or real.startswith(real_vault + os.sep), f"read outside the vault: {path}"
        rel = os.path.relpath(real, real_vault).replace(os.sep, "/")
        if rel in (".obsidian/app.json", ".obsidian", "."):
            continue  # the Excluded files setting (and its folder), and the vault's own folder
        assert not any(part.startswith(".") for part in rel.split("/")), f"hidden read: {rel}"
        # Links resolve against the paths of excluded notes: their folders may be listed, but
        # nothing in them is ever opened.
        assert not rel.startswith(("Private/", "Drafts/")) or os.path.isdir(real), f"excluded read: {rel}"


def run_case(planted: tuple[Path, Path], call: Any) -> None:
    vault, _ = planted
    with Recorder() as opened:
        try:
            result = call(Scope(client="fuzz", vault=vault, exposure=Exposure(mode="vault")))
        except RecallError as exc:
            result = {"error": str(exc)}
    check_reads(opened, vault)
    assert SECRET not in json.dumps(result, ensure_ascii=False)


RAN = dict.fromkeys(("guard", "read_note", "get_backlinks"), 0)  # cases run, checked by the last test here


@given(HOSTILE)
def test_the_path_guard_never_lets_a_path_leave_the_vault(planted: tuple[Path, Path], candidate: str) -> None:
    vault, _ = planted
    RAN["guard"] += 1
    with Recorder() as opened:
        try:
            rel = guard_note_path(vault, candidate)
        except PathRejected as exc:
            assert "exists" not in str(exc) and "permission" not in str(exc)
            rel = None
    check_reads(opened, vault)
    if rel is not None:
        real = os.path.realpath(vault / rel)
        assert real.startswith(os.path.realpath(vault) + os.sep)
        assert not any(part.startswith(".") for part in rel.split("/"))
        assert not (vault / rel).is_symlink()


@given(HOSTILE, st.one_of(st.none(), HOSTILE))
def test_read_note_never_reads_outside_hidden_or_excluded(
    planted: tuple[Path, Path], note: str, section: str | None
) -> None:
    RAN["read_note"] += 1
    run_case(planted, lambda scope: reading.read_note(scope, note, section=section))


@given(HOSTILE)
def test_get_backlinks_never_reads_outside_hidden_or_excluded(planted: tuple[Path, Path], note: str) -> None:
    RAN["get_backlinks"] += 1
    run_case(planted, lambda scope: backlinks.get_backlinks(scope, note))


def test_the_recorder_does_see_reads(planted: tuple[Path, Path]) -> None:
    """The audit hook is what makes the cases above mean something: prove it records."""
    vault, outside = planted
    with Recorder() as opened:
        (outside / "secret.md").read_text(encoding="utf-8")
    with pytest.raises(AssertionError, match="read outside the vault"):
        check_reads(opened, vault)
    with Recorder() as opened:
        os.close(os.open(vault / ".trash/Deleted.md", os.O_RDONLY))
    with pytest.raises(AssertionError, match="hidden read"):
        check_reads(opened, vault)


def test_backlinks_list_the_excluded_folders_and_open_nothing_in_them(planted: tuple[Path, Path]) -> None:
    vault, _ = planted
    with Recorder() as opened:
        backlinks.get_backlinks(Scope(client="fuzz", vault=vault, exposure=Exposure(mode="vault")), "Visible")
    assert os.path.realpath(vault / "Private/Deeper") in opened  # listed, for resolving links
    check_reads(opened, vault)


def test_every_fuzz_ran_as_many_hostile_cases_as_the_profile_asks() -> None:
    if not all(RAN.values()):
        pytest.skip("run the whole file to count the cases")
    print(f"hostile cases run: {RAN}")
    assert all(count >= settings().max_examples for count in RAN.values()), RAN
