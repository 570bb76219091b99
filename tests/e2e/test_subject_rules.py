"""End to end: a vault as people have it — no `subject` property anywhere — made recallable by
subject rules set with the real `vault-recall subject` command, and recalled by real `serve` and
`http` processes. Rules are read on every call, exposure holds over stdio and HTTP alike, and
the vault is never written."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.e2e import call, call_error, paths, serving, vault_recall_command
from tests.support.http_e2e import http_client, running_endpoint
from tests.support.vaults import snapshot, write_vault

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

NOTES = {
    "Projects/Build/Bazel.md": "# Bazel\n\nWe build with Bazel; remote caching cut CI times in half.\n",
    "Projects/Build/Old plan.md": "---\nstatus: archived\n---\n# Make\n\nWe once planned to keep make.\n",
    "Projects/Hiring.md": "# Hiring\n\nTwo interviews, then a paid trial week. #people\n",
    "Reading/Dune.md": '---\ncategories:\n  - "[[Books]]"\n---\n# Dune\n\nSpice, sand and worms.\n',
    "Daily/2026-12-01.md": "Met the build team about caching.\n",
    "Inbox.md": "Loose thought about caching and sand.\n",
    ".obsidian/daily-notes.json": '{"folder": "Daily", "format": "YYYY-MM-DD"}',
}


def cli(*argv: str) -> str:
    """The real command, as a person types it (this test's own config home)."""
    done = subprocess.run([*vault_recall_command(), *argv], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = write_vault(tmp_path / "Work", NOTES)
    cli("vault", "add", str(root))
    return root


async def test_rule_subjects_are_recalled_listed_and_changed_on_the_next_call(vault: Path) -> None:
    before = snapshot(vault)
    suggested = cli("subject", "suggest")
    # Top-level folders of two notes or more; Reading holds one.
    assert "subject add projects --folder Projects" in suggested and "--folder Reading" not in suggested
    cli("subject", "add", "build", "--folder", "Projects/Build")
    cli("subject", "add", "books", "--property", "categories=Books")
    async with serving("cursor", None) as session:
        listed = await call(session, "list_subjects")
        counts = {s["subject"]: (s["active"], s["archived"]) for s in listed["subjects"]}
        assert counts == {"build": (1, 1), "books": (1, 0)}
        found = await call(session, "recall_context", {"subject": "build", "query": "how do we cache builds?"})
        assert (found["status"], paths(found), found["weak_match"]) == ("ok", ["Projects/Build/Bazel.md"], False)
        # Without a subject: every record this client may see, the archived plan left out.
        anywhere = await call(session, "recall_context", {"query": "spice worms"})
        assert paths(anywhere) == ["Reading/Dune.md"]
        # A note no rule takes is no record for a client that sees records only.
        loose = await call(session, "recall_context", {"query": "loose thought"})
        assert (loose["status"], loose["records"], loose["weak_match"]) == ("ok", [], True)
        # A rule added while the server runs is seen by its next call: rules are read fresh.
        cli("subject", "add", "people", "--tag", "people")
        people = await call(session, "recall_context", {"subject": "people", "query": "interviews"})
        assert paths(people) == ["Projects/Hiring.md"]
        cli("subject", "remove", "books")
        gone = await call(session, "list_subjects")
        assert [s["subject"] for s in gone["subjects"]] == ["build", "people"]
        books = await call(session, "recall_context", {"subject": "books", "query": "dune"})
        assert (books["records"], books["current_records"]) == ([], 0)
    assert snapshot(vault) == before  # nothing written in the vault


async def test_daily_notes_become_events_of_a_subject(vault: Path) -> None:
    cli("subject", "add", "journal", "--daily-notes")
    async with serving("cursor", None) as session:
        events = await call(session, "recall_activity", {"subject": "journal", "query": "caching"})
    assert paths(events) == ["Daily/2026-12-01.md"]


async def test_exposure_of_rule_subjects_holds_over_stdio_and_http(vault: Path) -> None:
    cli("subject", "add", "build", "--folder", "Projects/Build")
    cli("subject", "add", "books", "--folder", "Reading")
    cli("client", "expose", "limited", "books")
    cli("client", "expose", "whole", "vault")
    token = cli("client", "token", "limited").strip().split()[-1]
    async with serving("limited", None) as session:
        assert "build" in await call_error(session, "recall_context", {"subject": "build", "query": "bazel"})
        everything = await call(session, "recall_context", {"query": "bazel caching spice"})
        assert paths(everything) == ["Reading/Dune.md"]
    async with serving("whole", None) as session:
        # A client exposed the whole vault ranks every note, rule or not.
        loose = await call(session, "recall_context", {"query": "loose thought caching sand"})
        assert paths(loose)[0] == "Inbox.md"
    with running_endpoint() as endpoint:
        async with http_client(endpoint.url, token) as session:
            assert "build" in await call_error(session, "recall_context", {"subject": "build", "query": "bazel"})
            books = await call(session, "recall_context", {"subject": "books", "query": "sand"})
            assert paths(books) == ["Reading/Dune.md"]
            listed = await call(session, "list_subjects")
            assert [s["subject"] for s in listed["subjects"]] == ["books"]
