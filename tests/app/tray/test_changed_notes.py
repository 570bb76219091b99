"""The person's side of "changed since", as data: which clients hold an old version of a note,
when the tray tells the person (the throttle), what it says — over a real activity store and
real files for the revisions read now."""

from __future__ import annotations

import dataclasses
import hashlib
import time
from pathlib import Path

import pytest

from tests.support.vaults import record, write_vault
from vault_recall.app.state.note_revisions import change_of, file_mark, revision_now, revisions_now, vault_folders
from vault_recall.app.state.obsidian_vaults import KnownVault
from vault_recall.app.tray.menu.items import client_name
from vault_recall.app.tray.news.changed_notes import (
    NOTICE_SECONDS,
    ChangeNotices,
    StaleNote,
    VanishedVault,
    notice_text,
    stale_notes,
    vanished_text,
    watched_notes,
)
from vault_recall.server.activity.event_rows import Recall
from vault_recall.server.activity.events import ActivityEvent
from vault_recall.server.activity.queries import latest_recalls, recent_events
from vault_recall.server.activity.writer import ActivityWriter
from vault_recall.server.config.config_file import Config, VaultEntry

NOW = time.mktime((2026, 5, 14, 15, 0, 0, 0, 0, -1))  # mid-afternoon, local time


def recall(client: str, path: str, revision: str, seconds_ago: float, vault: str = "Work") -> Recall:
    return Recall(client=client, vault=vault, path=path, revision=revision, ts=NOW - seconds_ago)


def test_the_clients_given_another_revision_than_the_notes_now_hold_an_old_version() -> None:
    recalls = [
        recall("cursor", "Build.md", "r1", 3600),
        recall("claude-code", "Build.md", "r1", 600),
        recall("zed", "Build.md", "r2", 60),  # given the note as it is now
        recall("cursor", "Same.md", "s1", 30),
        recall("cursor", "Gone.md", "g1", 20),
        recall("cursor", "Elsewhere.md", "e1", 10, vault="Unknown"),
    ]
    current = {("Work", "Build.md"): "r2", ("Work", "Same.md"): "s1", ("Work", "Gone.md"): None}
    assert stale_notes(recalls, current) == [
        StaleNote("Work", "Gone.md", None, ("cursor",), NOW - 20),
        StaleNote("Work", "Build.md", "r2", ("claude-code", "cursor"), NOW - 600),
    ]
    assert watched_notes(recalls, limit=3) == [("Work", "Build.md"), ("Work", "Same.md"), ("Work", "Gone.md")]


def test_a_change_is_announced_once_and_a_note_at_most_once_per_few_minutes() -> None:
    notices = ChangeNotices()
    first = StaleNote("Work", "Build.md", "r2", ("cursor",), NOW - 60)
    assert notices.due([first], NOW) == [first]
    assert notices.due([first], NOW + 1) == []  # the same change: told already
    # The person keeps typing: Obsidian saves every few seconds.  Quiet until the time is up…
    second = StaleNote("Work", "Build.md", "r3", ("cursor",), NOW - 60)
    for moment in (NOW + 2, NOW + 60, NOW + NOTICE_SECONDS - 1):
        assert notices.due([second], moment) == []
    # … then the latest change, still standing, is told once.
    assert notices.due([second], NOW + NOTICE_SECONDS) == [second]
    assert notices.due([second], NOW + NOTICE_SECONDS + 1) == []
    # Another note is not held back by the first.
    other = StaleNote("Work", "Release.md", None, ("zed",), NOW - 5)
    assert notices.due([second, other], NOW + NOTICE_SECONDS + 2) == [other]


def test_a_throttled_change_no_longer_standing_is_not_announced() -> None:
    notices = ChangeNotices()
    first = StaleNote("Work", "Build.md", "r2", ("cursor",), NOW - 60)
    notices.due([first], NOW)
    notices.due([StaleNote("Work", "Build.md", "r3", ("cursor",), NOW - 60)], NOW + 10)
    # cursor recalls the newest version meanwhile: nobody holds an old one any more.
    assert notices.due([], NOW + NOTICE_SECONDS + 10) == []
    # Much later, a new edit is news again, at once.
    again = StaleNote("Work", "Build.md", "r4", ("cursor",), NOW + 900)
    assert notices.due([again], NOW + 1000) == [again]


def test_what_had_changed_before_the_tray_watched_is_not_news_but_its_next_change_is() -> None:
    notices = ChangeNotices()
    before = StaleNote("Work", "Build.md", "r2", ("cursor",), NOW - 60)
    notices.prime([before])
    assert notices.due([before], NOW) == []
    later = StaleNote("Work", "Build.md", "r3", ("cursor",), NOW - 60)
    assert notices.due([later], NOW + 1) == [later]


def summary(note: StaleNote) -> str:
    return notice_text(note, NOW, client_name)[0]


def test_the_notice_names_the_clients_that_read_the_old_version() -> None:
    two = StaleNote("Work", "Projects/Build decision.md", "r2", ("cursor", "claude-code"), NOW - 3600)
    assert summary(two) == "Cursor and Claude Code recalled the old 'Build decision' today"
    one = StaleNote("Work", "Build.md", "r2", ("zed",), NOW - 20 * 3600)  # before midnight
    assert summary(one) == "Zed recalled the old 'Build' yesterday"
    many = StaleNote("Work", "B.md", "r2", ("cursor", "zed", "codex", "my-own-agent"), NOW - 60)
    assert summary(many) == "Cursor, Zed and 2 other clients recalled the old 'B' today"
    three = StaleNote("Work", "B.md", "r2", ("cursor", "zed", "codex"), NOW - 60)
    assert summary(three) == "Cursor, Zed and Codex CLI recalled the old 'B' today"
    gone = StaleNote("Work", "B.md", None, ("cursor",), NOW - 60)
    assert summary(gone) == "'B' is gone; Cursor recalled it today"


def test_the_notice_says_what_happens_next_and_what_to_do() -> None:
    old = StaleNote("Work", "Decisions/Build with Bazel.md", "r2", ("cursor",), NOW - 3600)
    assert notice_text(old, NOW, client_name) == (
        "Cursor recalled the old 'Build with Bazel' today",
        "Cursor is told on its next call that it changed, and asked to read it again; a new conversation gets "
        "the new version anyway. Nothing for you to do.",
    )
    both = StaleNote("Work", "B.md", None, ("cursor", "zed"), NOW - 60)
    assert notice_text(both, NOW, client_name)[1] == (
        "Cursor and Zed are told on their next call that it is gone. If you moved or renamed it, nothing to do: "
        "a new recall finds it where it is now."
    )
    # An app connected with OAuth goes by the name it gave, not its id.
    app = StaleNote("Work", "B.md", "r2", ("mcp-inspector",), NOW - 60)
    assert notice_text(app, NOW, lambda c: client_name(c, {"mcp-inspector": "MCP Inspector"}))[0].startswith(
        "MCP Inspector recalled"
    )


def test_a_vault_gone_with_its_recalled_notes_is_one_notice_once_until_it_is_back() -> None:
    notices = ChangeNotices()
    gone = [StaleNote("Work", f"N{i}.md", None, ("cursor",) if i % 2 else ("zed",), NOW - 60 * i) for i in range(1, 6)]
    elsewhere = StaleNote("Home", "Diary.md", None, ("zed",), NOW - 30)
    (vanished,) = notices.vanished([*gone, elsewhere], {"Work"}, NOW)
    assert vanished == VanishedVault("Work", 5, ("cursor", "zed"))
    assert notices.due([*gone, elsewhere], NOW) == [elsewhere]  # the vault's notes: never one by one
    assert notices.vanished(gone, {"Work"}, NOW + 1) == [] and notices.due(gone, NOW + NOTICE_SECONDS) == []
    assert vanished_text(vanished, "/home/me/Work", client_name) == (
        "Work is out of reach, with 5 recalled notes",
        "Its folder /home/me/Work is gone or cannot be read: Cursor and Zed recalled 5 notes from it in the "
        "last day. Clients that use it get 'unavailable' until it is back: put the folder back (or plug its "
        "disk in).",
    )
    # Back, and gone again later: news again.
    assert notices.vanished([], set(), NOW + 10) == []
    assert notices.vanished(gone, {"Work"}, NOW + 20) == [VanishedVault("Work", 5, ("cursor", "zed"))]


@pytest.mark.parametrize("primed", [False, True])
def test_a_change_told_before_its_vault_went_is_not_told_again_when_the_vault_is_back(primed: bool) -> None:
    notices = ChangeNotices()
    changed = StaleNote("Work", "Build.md", "r2", ("cursor",), NOW - 600)
    gone = dataclasses.replace(changed, now=None)
    if primed:  # changed before the tray watched: never news
        notices.prime([changed])
    else:
        assert notices.due([changed], NOW) == [changed]
    assert len(notices.vanished([gone], {"Work"}, NOW + 60)) == 1
    assert notices.due([gone], NOW + 60) == []
    # Back, the note as it was: no news then, nor once the quiet time is over, nor ever.
    for later in (120, 60 + NOTICE_SECONDS, 120 + NOTICE_SECONDS, 10 * NOTICE_SECONDS):
        assert notices.vanished([changed], set(), NOW + later) == []
        assert notices.due([changed], NOW + later) == []
    # Changed again once back: that is news.
    again = dataclasses.replace(changed, now="r3")
    assert notices.due([again], NOW + 11 * NOTICE_SECONDS) == [again]


def test_each_clients_latest_recall_of_each_whole_note_comes_from_the_store(tmp_path: Path) -> None:
    store = tmp_path / "activity.sqlite3"
    writer = ActivityWriter()
    now = time.time()  # the store prunes by the real clock

    def append(client: str, ts: float, *returned: tuple[str, str | None], vault: str | None = "Work") -> None:
        event = ActivityEvent(client=client, tool="recall_context", duration_ms=1, ts=ts, vault=vault)
        assert writer.append(store, event.__class__(**{**event.__dict__, "returned": returned}))

    append("cursor", now - 2 * 86400, ("Build.md", "r0"))  # older than the window
    append("cursor", now - 3600, ("Build.md", "r1"), ("Other.md", "o1"))
    append("cursor", now - 60, ("Build.md", "r2"))
    append("zed", now - 30, ("Build.md", None))  # a search hit: a line, not the note
    append("zed", now - 20, ("Build.md", "r1"), vault=None)  # an unavailable answer names no vault
    writer.close()
    assert latest_recalls(store, since=now - 86400) == [
        Recall("cursor", "Work", "Build.md", "r2", now - 60),
        Recall("cursor", "Work", "Other.md", "o1", now - 3600),
    ]
    assert latest_recalls(store, since=now - 86400, limit=1) == [Recall("cursor", "Work", "Build.md", "r2", now - 60)]
    assert latest_recalls(tmp_path / "none.sqlite3", since=0) == []
    rows = recent_events(store)
    assert rows[1].given() == [("Build.md", "r1"), ("Other.md", "o1")] and rows[3].given() == [("Build.md", None)]


def test_a_notes_revision_now_is_read_fresh_from_its_vault(tmp_path: Path) -> None:
    text = record("build-system", "We build with Bazel.")
    work = write_vault(tmp_path / "Work", {"Build.md": text})
    obsidian_only = write_vault(tmp_path / "o" / "Diary", {"Day.md": "today\n"})
    config = Config(vaults=(VaultEntry("My work", str(work)),), active_vault="My work")
    folders = vault_folders(config, [KnownVault("Diary", obsidian_only, None, False, tmp_path)])
    assert folders == {"Work": work, "Diary": obsidian_only}  # by folder name, as servers record it
    sha = hashlib.sha256(text.encode()).hexdigest()
    assert revision_now(work, "Build.md") == sha
    mark = file_mark(work, "Build.md")
    assert mark is not None and file_mark(work, "Build.md") == mark
    current = revisions_now([("Work", "Build.md"), ("Work", "Gone.md"), ("Elsewhere", "X.md")], folders)
    assert current == {("Work", "Build.md"): sha, ("Work", "Gone.md"): None}
    assert change_of(("Work", "Build.md"), sha, current) is None
    assert change_of(("Work", "Build.md"), "old", current) == "changed"
    assert change_of(("Work", "Gone.md"), "old", current) == "gone"
    assert change_of(("Elsewhere", "X.md"), "old", current) is None  # its vault is not known here
    assert change_of(("Work", "Build.md"), None, current) is None  # a line, not a note
    (work / "Build.md").write_text(text + "More.\n", encoding="utf-8")
    assert file_mark(work, "Build.md") != mark and revision_now(work, "Build.md") != sha
    (work / "Build.md").unlink()
    (work / "Build.md").symlink_to(obsidian_only / "Day.md")
    assert revision_now(work, "Build.md") is None  # never through a symlink
    assert revisions_now([("Work", f"N{i}.md") for i in range(10)], folders, limit=3) == {
        ("Work", "N0.md"): None,
        ("Work", "N1.md"): None,
        ("Work", "N2.md"): None,
    }


@pytest.mark.parametrize("path", ["../outside.md", "Folder/../../outside.md", "a\x00b.md", "/etc/x.md", ".hidden/x.md"])
def test_a_recorded_path_that_is_not_a_vault_path_reads_as_gone(tmp_path: Path, path: str) -> None:
    work = write_vault(tmp_path / "Work", {"Build.md": "x\n"})
    (tmp_path / "outside.md").write_text("secret\n", encoding="utf-8")
    assert revision_now(work, path) is None and file_mark(work, path) is None
