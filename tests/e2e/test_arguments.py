"""Every bad argument of every tool is a tool error with one clear sentence, over a real server."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.support.e2e import call, call_error, serving

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

GOOD: dict[str, Any] = {"subject": "build-system", "query": "bazel"}

BAD_CALLS: list[tuple[str, dict[str, Any], str | None]] = [
    ("recall_context", {"query": "bazel"}, None),  # no subject: everything the client may see
    ("recall_context", {**GOOD, "subject": "Build System"}, "subject 'Build System' is not a subject slug"),
    ("recall_context", {**GOOD, "subject": ""}, "subject '' is not a subject slug"),
    ("recall_context", {**GOOD, "subject": "a" * 65}, "is not a subject slug"),
    ("recall_context", {**GOOD, "subject": "../etc"}, "is not a subject slug"),
    ("recall_context", {**GOOD, "subject": 42}, "subject must be text"),
    ("recall_context", {**GOOD, "subject": None}, None),  # null is no subject
    ("recall_context", {**GOOD, "query": "word " * 101}, "query is 505 characters long; the limit is 500"),
    ("recall_context", {**GOOD, "query": ["bazel"]}, "query must be text"),
    ("recall_context", {**GOOD, "budget": 511}, "budget must be a whole number from 512 to 65536; got 511"),
    ("recall_context", {**GOOD, "budget": 65537}, "budget must be a whole number from 512 to 65536; got 65537"),
    ("recall_context", {**GOOD, "budget": -1}, "budget must be a whole number from 512 to 65536"),
    ("recall_context", {**GOOD, "budget": "lots"}, "budget must be a whole number from 512 to 65536; got 'lots'"),
    ("recall_context", {**GOOD, "budget": 1024.5}, "budget must be a whole number"),
    ("recall_context", {**GOOD, "limit": 0}, "limit must be a whole number from 1 to 20; got 0"),
    ("recall_context", {**GOOD, "limit": 21}, "limit must be a whole number from 1 to 20; got 21"),
    ("recall_context", {**GOOD, "limit": "3"}, None),  # lenient JSON: "3" is read as 3
    ("recall_context", {**GOOD, "match": "most"}, "match must be 'any' or 'all'; got 'most'"),
    # A value is shown as JSON writes it, as it was sent: null, true, a list — not Python's None.
    ("recall_context", {**GOOD, "match": None}, "match must be 'any' or 'all'; got null"),
    ("recall_context", {**GOOD, "budget": True}, "budget must be a whole number from 512 to 65536; got true"),
    ("recall_context", {**GOOD, "query": ["bazel", None]}, 'query must be text (or left out); got ["bazel", null]'),
    (
        "recall_context",
        {**GOOD, "budjet": 512},
        "recall_context does not take 'budjet' (did you mean 'budget'?); it takes subject, query",
    ),
    ("recall_context", {**GOOD, "Limit": 5}, "does not take 'Limit' (did you mean 'limit'?)"),
    ("recall_context", {**GOOD, "budget_bytes": 900}, "does not take 'budget_bytes' (did you mean 'budget'?)"),
    ("recall_context", {**GOOD, "section": "Why"}, "recall_context does not take 'section'; it takes"),
    ("recall_activity", {"subject": "build-system", "onOrAfter": "2026-01-01"}, "(did you mean 'on_or_after'?)"),
    ("list_subjects", {"subject": "x"}, "list_subjects does not take 'subject'; it takes no arguments"),
    ("recall_activity", {}, "subject is required"),
    ("recall_activity", {"subject": "Nope!"}, "is not a subject slug"),
    ("recall_activity", {"subject": "build-system", "on_or_after": "2026-02-30"}, "on_or_after must be a real date"),
    ("recall_activity", {"subject": "build-system", "on_or_after": "14/03/2026"}, "on_or_after must be a real date"),
    (
        "recall_activity",
        {"subject": "build-system", "on_or_after": 20260314},
        "on_or_after must be text (or left out); got 20260314",
    ),
    ("recall_activity", {"subject": "build-system", "query": 7}, "query must be text"),
    ("recall_activity", {"subject": "build-system", "limit": 51}, "limit must be a whole number from 1 to 50"),
    ("recall_activity", {"subject": "build-system", "budget": 100}, "budget must be a whole number from 512 to 65536"),
    ("read_note", {}, "note is required"),
    ("read_note", {"note": ""}, "note is empty"),
    ("read_note", {"note": "x" * 4097}, "note is 4097 characters long; the limit is 4096"),
    ("read_note", {"note": ["a"]}, "note must be text"),
    ("read_note", {"note": "../../etc/passwd"}, "no note '../../etc/passwd' that this client can read"),
    ("read_note", {"note": "Build decision", "section": "Nope"}, "has no section 'Nope'; its headings are"),
    ("read_note", {"note": "Build decision", "budget": 512}, "budget must be a whole number from 1024 to 65536"),
    ("read_note", {"note": "Build decision", "section": "x" * 501}, "section must be a heading of at most 500"),
    ("search_notes", {}, "query is required"),
    ("search_notes", {"query": " "}, "query is empty"),
    ("search_notes", {"query": "x" * 201}, "query is 201 characters long; the limit is 200"),
    ("search_notes", {"query": "a\nb"}, "spans lines"),
    ("search_notes", {"query": "x", "limit": 101}, "limit must be a whole number from 1 to 100"),
    ("search_notes", {"query": "x", "budget": 0}, "budget must be a whole number from 512 to 65536"),
    ("search_notes", {"query": "x", "subject": "NOPE"}, "is not a subject slug"),
    ("get_backlinks", {}, "note is required"),
    ("get_backlinks", {"note": "Missing note"}, "no note 'Missing note' that this client can read"),
    ("get_backlinks", {"note": "CI cache", "limit": 0}, "limit must be a whole number from 1 to 200"),
    ("get_backlinks", {"note": "CI cache", "limt": 2}, "get_backlinks does not take 'limt' (did you mean 'limit'?)"),
    ("get_backlinks", {"note": "CI cache", "depth": 2}, None),  # not one of ours: ignored
    ("get_backlinks", {"note": "CI cache", "offset": -1}, "offset must be a whole number from 0 to 10000000"),
    ("get_backlinks", {"note": "CI cache", "budget": 100}, "budget must be a whole number from 1024 to 65536"),
    ("no_such_tool", {}, "no_such_tool"),
]


@pytest.fixture
async def session(shared_sample: Path) -> AsyncIterator[Client]:
    async with serving("cursor", shared_sample) as client:
        yield client


async def test_every_bad_argument_is_one_clear_sentence(session: Client) -> None:
    seen: list[str] = []
    for tool, args, words in BAD_CALLS:
        if words is None:
            await call(session, tool, args)
            continue
        message = await call_error(session, tool, args)
        seen.append(message)
        assert words in message, (tool, args, message)
        assert "\n" not in message, message
        for noise in ("pydantic", "Traceback", "validation error", "errors.pydantic.dev", "input_value"):
            assert noise not in message, message
    # The server keeps answering after every refusal.
    assert (await call(session, "recall_context", GOOD))["status"] == "ok"
    assert len(seen) == len([c for c in BAD_CALLS if c[2] is not None])


# Arguments clients add to every tool's schema for themselves, as their docs or source show.
CLIENT_INJECTED: list[tuple[str, object]] = [
    ("wait_for_previous", True),  # Gemini CLI: run this call after the previous ones of the turn
    ("wait_for_previous", False),
]


@pytest.mark.parametrize(("name", "value"), CLIENT_INJECTED)
async def test_arguments_clients_add_for_themselves_never_fail_a_call(
    session: Client, name: str, value: object
) -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("recall_context", {**GOOD, "budget": 2048}),
        ("list_subjects", {}),
        ("recall_activity", {"subject": "build-system"}),
        ("read_note", {"note": "Build decision"}),
        ("search_notes", {"query": "bazel"}),
        ("get_backlinks", {"note": "Build decision"}),
    ]
    for tool, args in calls:
        plain = await call(session, tool, args)
        injected = await call(session, tool, {**args, name: value})
        assert injected == plain, tool


async def test_a_huge_unknown_name_is_shortened_in_the_error(session: Client) -> None:
    message = await call_error(session, "recall_context", {**GOOD, "budget" + "x" * 10_000_000: 1})
    assert len(message) < 300, len(message)
    assert "…" in message


async def test_ten_thousand_unknown_names_make_one_short_sentence(session: Client) -> None:
    names = {f"limit{i}": i for i in range(10_000)}
    message = await call_error(session, "recall_context", {**GOOD, **names})
    assert len(message) < 400, len(message)
    assert "9,995 more" in message
