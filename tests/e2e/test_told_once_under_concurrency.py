"""`changed_since_recalled` over real `serve` and `http` processes, with the calls of one client
overlapping, cancelled and hung up on while notes are edited: every change is told exactly once,
only in answers that arrived, and `was` is always a revision the client was given."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import random
import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.e2e import vault_recall_command
from tests.support.edited_vault import NOTES, SLOW, WORDS, edit, make_vault, note_text, serving_over_http
from tests.support.http_e2e import running_endpoint
from tests.support.mid_call import no_pass_over, seen_mid_call
from tests.support.raw_peers import Answer, HttpPeer, StdioPeer
from tests.support.told_ledger import FIELD, Ledger

pytestmark = [pytest.mark.e2e]


class Editor:
    """Edits random notes, each time with new bytes, replacing the file whole (as a sync tool
    does), until stopped."""

    def __init__(self, vault: Path, rng: random.Random) -> None:
        self.vault = vault
        self.rng = rng
        self.edits = 0
        self._stop = asyncio.Event()

    async def run(self) -> None:
        scratch = self.vault.parent / "scratch.tmp"
        while not self._stop.is_set():
            self.edits += 1
            number = self.rng.randrange(len(NOTES))
            scratch.write_text(note_text(number, self.edits), encoding="utf-8")
            os.replace(scratch, self.vault / NOTES[number])
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), self.rng.uniform(0.005, 0.05))

    def stop(self) -> None:
        self._stop.set()


TOOLS = ("recall_context", "recall_context", "read_note", "list_subjects", "search_notes", "get_backlinks")


def random_call(rng: random.Random) -> tuple[str, dict[str, Any]]:
    note = f"Note {rng.randrange(len(NOTES)):02d}"
    tool = rng.choice(TOOLS)
    if tool == "recall_context":
        query = rng.choice((None, *WORDS))
        budget = rng.choice((512, 2048, 8192))
        return tool, {"subject": "alpha", "query": query, "limit": rng.randint(1, 6), "budget": budget}
    if tool == "read_note":
        return tool, {"note": note, "budget": rng.choice((1024, 4096))}
    if tool == "search_notes":
        return tool, {"query": rng.choice(WORDS), "limit": 5, "budget": rng.choice((512, 4096)), "subject": "alpha"}
    if tool == "get_backlinks":
        return tool, {"note": note, "limit": 5, "budget": rng.choice((1024, 4096))}
    return tool, {}


Call = Callable[[str, dict[str, Any], random.Random], Awaitable[Answer]]


async def stress(call: Call, vault: Path, seed: int, rounds: int) -> tuple[Ledger, list[Answer]]:
    """`rounds` rounds of 6-16 calls of one client at once, notes edited all along; then calls
    until one tells nothing.  Returns what the client received, and every answer (or none)."""
    rng = random.Random(seed)
    ledger = Ledger()
    answers: list[Answer] = []
    editor = Editor(vault, random.Random(seed + 1))
    editing = asyncio.create_task(editor.run())
    try:
        for _ in range(rounds):
            calls = [random_call(rng) for _ in range(rng.randint(6, 16))]
            answers += await asyncio.gather(*(call(tool, arguments, rng) for tool, arguments in calls))
    finally:
        editor.stop()
        await editing
    for _ in range(30):  # each answer tells at most 10, within its budget
        quiet = await call("list_subjects", {}, random.Random(0))
        answers.append(quiet)
        assert quiet.result is not None
        if FIELD not in quiet.result:
            break
    for answer in answers:
        if answer.result is not None:
            ledger.received(answer.result)
    assert editor.edits > 20
    return ledger, answers


def test_over_stdio_each_change_is_told_exactly_once_with_calls_overlapping_and_cancelled(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "Work")
    command = [*vault_recall_command(), "serve", "--client", "stress", "--vault", str(vault)]

    async def scenario() -> tuple[Ledger, list[Answer], list[dict[str, Any]]]:
        async with StdioPeer(command) as peer:

            async def call(tool: str, arguments: dict[str, Any], rng: random.Random) -> Answer:
                cancel = rng.uniform(0.0, 0.3) if rng.random() < 0.4 else None
                return await peer.call(tool, arguments, cancel_after=cancel)

            ledger, answers = await stress(call, vault, seed=25, rounds=14)
            return ledger, answers, peer.unmatched

    ledger, answers, unmatched = asyncio.run(scenario())
    assert unmatched == []  # no answer came for a request after its cancel was read
    assert ledger.broken_promises(vault, NOTES) == []
    assert len(ledger.told) > 10, "too few changes were told to say anything"
    assert any(a.result is None for a in answers), "no call was cancelled while it ran"


def test_over_http_each_change_is_told_exactly_once_with_calls_overlapping_cancelled_and_hung_up_on(
    tmp_path: Path,
) -> None:
    vault = make_vault(tmp_path / "Work")
    token = serving_over_http(vault)
    with running_endpoint() as endpoint:

        async def scenario() -> tuple[Ledger, list[Answer]]:
            # Two sessions of the one client (two windows of it): what it was told is per client.
            peers = [await HttpPeer(endpoint.port, token).open() for _ in range(2)]

            async def call(tool: str, arguments: dict[str, Any], rng: random.Random) -> Answer:
                peer = rng.choice(peers)
                fate = rng.random()
                if fate < 0.25:
                    return await peer.call(tool, arguments, cancel_after=rng.uniform(0.0, 0.3))
                if fate < 0.5:
                    return await peer.call(tool, arguments, hang_up_after=rng.uniform(0.0, 0.3))
                return await peer.call(tool, arguments)

            return await stress(call, vault, seed=27, rounds=14)

        ledger, answers = asyncio.run(scenario())
    assert "Traceback" not in endpoint.log(), endpoint.log()  # hang-ups are the client's, told in a line
    assert ledger.broken_promises(vault, NOTES) == []
    assert len(ledger.told) > 10, "too few changes were told to say anything"
    assert any(a.result is None for a in answers), "no call was hung up on or cancelled while it ran"


def tellings(answers: list[Answer], path: str) -> list[tuple[str, str | None]]:
    return [
        (change["was"], change["now"])
        for answer in answers
        if answer.result is not None
        for change in answer.result.get(FIELD, [])
        if change["path"] == path
    ]


Caller = Callable[[str, dict[str, Any]], Awaitable[Answer]]


async def one_change_then_six_calls_at_once(call: Caller, vault: Path) -> None:
    """Twenty times: recall a note, edit it, then six calls at once — exactly one tells the change."""
    for trial in range(1, 21):
        given = (await call("read_note", {"note": "Note 00"})).result
        assert given is not None
        edit(vault, 0, trial)
        answers = await asyncio.gather(*(call("list_subjects", {}) for _ in range(6)))
        assert tellings(list(answers), NOTES[0]) == [(given["revision"], revision_now(vault, 0))], trial


def revision_now(vault: Path, number: int) -> str:
    return hashlib.sha256((vault / NOTES[number]).read_bytes()).hexdigest()


def test_over_stdio_one_change_is_told_in_exactly_one_of_six_calls_made_at_once(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "Work", fillers=100)

    async def scenario() -> None:
        async with StdioPeer([*vault_recall_command(), "serve", "--client", "six", "--vault", str(vault)]) as peer:
            await one_change_then_six_calls_at_once(peer.call, vault)

    asyncio.run(scenario())


def test_over_http_one_change_is_told_in_exactly_one_of_six_calls_made_at_once(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "Work", fillers=100)
    token = serving_over_http(vault)
    with running_endpoint() as endpoint:

        async def scenario() -> None:
            peer = await HttpPeer(endpoint.port, token).open()
            await one_change_then_six_calls_at_once(peer.call, vault)

        asyncio.run(scenario())


def events(home: Path, tool: str) -> int:
    store = home / "activity.sqlite3"
    if not store.exists():
        return 0
    with sqlite3.connect(store) as db:
        try:
            return int(db.execute("SELECT count(*) FROM events WHERE tool = ?", (tool,)).fetchone()[0])
        except sqlite3.OperationalError:  # no table yet
            return 0


async def until_recorded(home: Path, tool: str, count: int) -> None:
    """Until the server has finished `count` calls of `tool` (their activity rows are written
    when a call is over, answered or not)."""
    deadline = time.monotonic() + 120
    while events(home, tool) < count:
        assert time.monotonic() < deadline, f"the server never finished {count} calls of {tool}"
        await asyncio.sleep(0.05)


async def an_answer_lost_tells_nothing(
    call: Caller,
    lost: Callable[[], Awaitable[Answer]],
    vault: Path,
    home: Path,
) -> None:
    """Read a note, edit it, lose the answer of a slow call (cancelled, or hung up on), and,
    once the server is done with that call, the next answer tells the change; after one more
    edit, the change told is from the revision the client was last told of."""
    given = (await call("read_note", {"note": "Note 03"})).result
    assert given is not None
    for attempt in range(1, 4):
        edit(vault, 3, attempt)
        slow = await lost()
        await until_recorded(home, SLOW[0], attempt)
        if slow.result is None:
            break
        # The call answered before it could be cancelled: its answer told the change; again.
        assert tellings([slow], NOTES[3]), slow.message
        given = {"revision": revision_now(vault, 3)}
    else:
        pytest.fail("the slow call answered every time before it was cancelled")
    next_answer = await call("list_subjects", {})
    assert tellings([next_answer], NOTES[3]) == [(given["revision"], revision_now(vault, 3))]
    told = revision_now(vault, 3)
    edit(vault, 3, 100)
    assert tellings([await call("list_subjects", {})], NOTES[3]) == [(told, revision_now(vault, 3))]


def test_over_stdio_a_change_told_in_an_answer_cancelled_is_told_in_the_next_one(
    tmp_path: Path, vault_recall_home: Path
) -> None:
    vault = make_vault(tmp_path / "Work", fillers=3000)

    async def scenario() -> None:
        async with StdioPeer([*vault_recall_command(), "serve", "--client", "c", "--vault", str(vault)]) as peer:

            async def cancelled() -> Answer:
                await no_pass_over(peer.pid, vault)  # the last call's pass is over
                return await peer.call(*SLOW, cancel_after=seen_mid_call(peer.pid, vault))

            await an_answer_lost_tells_nothing(peer.call, cancelled, vault, vault_recall_home)

    asyncio.run(scenario())


@pytest.mark.parametrize("how", ["cancelled", "hung up on"])
def test_over_http_a_change_told_in_an_answer_lost_is_told_in_the_next_one(
    tmp_path: Path, vault_recall_home: Path, how: str
) -> None:
    vault = make_vault(tmp_path / "Work", fillers=3000)
    token = serving_over_http(vault)
    with running_endpoint() as endpoint:

        async def scenario() -> None:
            peer = await HttpPeer(endpoint.port, token).open()

            async def lost() -> Answer:
                pid = endpoint.process.pid
                await no_pass_over(pid, vault)  # the last call's pass is over
                if how == "cancelled":
                    return await peer.call(*SLOW, cancel_after=seen_mid_call(pid, vault))
                return await peer.call(*SLOW, hang_up_after=seen_mid_call(pid, vault))

            await an_answer_lost_tells_nothing(peer.call, lost, vault, vault_recall_home)

        asyncio.run(scenario())
