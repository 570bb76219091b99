"""Benchmark: Vault Recall and the MCP servers people install instead, same vaults, same questions.

    .venv/bin/python -m bench.peers                                         # the 10,000-note generated vault
    .venv/bin/python -m bench.peers --sizes 10000 --vault /tmp/obsidian-hub  # and a public vault
    .venv/bin/python -m bench.peers --sizes 1000 --rounds 5 --servers vault-recall,mcpvault

The peers are npm packages at pinned versions, installed into `.peers/` (never committed, and
not by `.ci/run`: this is no part of the test suite); a peer that is not installed, or whose
Node is too old, is skipped with the reason:

    npm install --prefix .peers --no-save --no-audit --no-fund --ignore-scripts \\
        obsidian-mcp@2.0.1 @bitbonsai/mcpvault@0.16.0 mcp-obsidian@1.0.0 \\
        @modelcontextprotocol/server-filesystem@2026.8.31

A public vault: `git clone --depth 1 https://github.com/obsidian-community/obsidian-hub
/tmp/obsidian-hub` (6,571 notes), or Obsidian's help vault (obsidianmd/obsidian-help).

Every server is a real process spoken to through the MCP SDK's stdio client, each on a copy of
the vault of its own (bench/vault_copies.py).  The questions (bench/peer_questions.py) are
chosen once per vault — each round is about another note — and mapped to each server's own
tools (bench/peer_catalogue.py; a question a server has no tool for is not asked).  Rounds are
interleaved: every question goes to every server in turn, the order rotating, then to
`rg -l -i -F` over the same vault as the floor (for a read by path, which rg cannot answer, a
bare Python MCPServer reading the file: bench/baseline_server.py), so that the machine's drift
hits all alike.
Measured: p50 / p95 of each question on each server, and whether each answer held what was
asked; start → `initialize` answered and start → first answer (read by path) from fresh
processes; freshness (after each save of a note, does the very next read, and search, see the
new text?); what each server left in its copy of the vault; idle and peak RSS (VmRSS after the
first answer, VmHWM at the end).  Prints tables and writes JSON.  Nothing here asserts times.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, ExitStack
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import TextContent

from bench.peer_catalogue import (
    PEERS_DIR,
    QUESTIONS,
    SERVERS,
    Ask,
    Ready,
    Skipped,
    default_node,
    environment,
    prepare,
)
from bench.peer_questions import Case, Plan, answered, choose
from bench.tools import load_average, memory_mb, percentile, ripgrep
from bench.vault_copies import Changes, changes, copy_vault, snapshot
from tests.support.synthetic_vault import GENERATOR_VERSION, generate

BARE_SERVER = Path(__file__).resolve().parent / "baseline_server.py"  # Python and the MCP SDK, nothing else
BARE = "bare MCPServer"
BARE_LOG = "bare-mcpserver"
CALL_TIMEOUT = 600.0  # seconds; a slow peer on a big vault is measured, not cut off
FRESH_NOTE = "Peer bench fresh note.md"
FRESH_TEMP = ".peer-bench-fresh.tmp"
# The floor for each question: `rg -l -i -F` for the same string, over the same vault — and
# for a read by path, a bare MCPServer reading the file (BARE_READ), since rg reads no note back.
BARE_READ = "bare MCPServer read"
FLOORS = {
    "rare phrase": "phrase",
    "common word": "word",
    "title": "title",
    "tags/subjects": "word",
    "backlinks": "title",
    "recall": "word",
}


@dataclass
class Cell:
    """One question on one server."""

    tool: str
    p50_ms: float
    p95_ms: float
    calls: int
    answered: int  # answers that held what was asked
    errors: list[str] = field(default_factory=list)  # the first few that did not


@dataclass
class QuestionResult:
    question: str
    floor: str | None
    floor_p50_ms: float | None
    floor_p95_ms: float | None
    servers: dict[str, Cell]


@dataclass
class ServerResult:
    name: str
    version: str
    initialize_p50_ms: float
    initialize_p95_ms: float
    first_answer_p50_ms: float
    first_answer_p95_ms: float
    idle_rss_mb: float | None
    peak_rss_mb: float | None
    fresh_read: int
    fresh_search: int | None  # None: no content search
    fresh_of: int
    left: dict[str, list[str]]  # added, changed, removed in its copy
    missing_tools: list[str] = field(default_factory=list)


@dataclass
class VaultResult:
    label: str
    path: str
    notes: int
    megabytes: float
    rounds: int
    words: list[str]
    subjects: int
    questions: list[QuestionResult]
    servers: list[ServerResult]
    load: list[float]  # the machine's load average, before and after
    # Start-up of the Python SDK alone (bench/baseline_server.py), in the same interleaved starts:
    # initialize p50 / p95, first answer p50 / p95, in ms.
    bare_start_ms: list[float] = field(default_factory=list)


@dataclass
class Live:
    """A server started for the rounds."""

    ready: Ready
    client: Client
    pid: int | None
    copy: Path
    idle_rss_mb: float | None
    missing: set[str]


# -- processes ---------------------------------------------------------------------------------


def children() -> set[int]:
    """This process's children now (Linux: /proc)."""
    me = f"\nPPid:\t{os.getpid()}\n"
    found = set()
    with contextlib.suppress(OSError):
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    if me in (entry / "status").read_text(encoding="utf-8"):
                        found.add(int(entry.name))
    return found


def rotated(items: list[str], by: int) -> list[str]:
    """The servers in another order each time, so no one always goes first after the floor."""
    shift = by % len(items) if items else 0
    return items[shift:] + items[:shift]


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


def warm(folder: Path) -> None:
    """Read every file once, untimed, as for a vault in daily use (the page cache)."""
    for base, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError), open(os.path.join(base, name), "rb") as file:
                while file.read(1 << 20):
                    pass


def write_fresh(copy: Path, number: int) -> Case:
    """Save the fresh note anew the way editors save (a new file renamed over the old one)."""
    marker = f"freshmark{number:04d}q"
    temp = copy / FRESH_TEMP
    temp.write_text(f"# Peer bench fresh note\n\nThe {marker} edit of this note.\n", encoding="utf-8")
    os.replace(temp, copy / FRESH_NOTE)
    return Case(FRESH_NOTE, FRESH_NOTE.removesuffix(".md"), marker, marker, None)


# -- one call ----------------------------------------------------------------------------------


@dataclass
class Answer:
    ms: float
    text: str
    error: bool


async def ask(client: Client, question: Ask) -> Answer:
    started = time.perf_counter()
    try:
        result = await client.call_tool(question.tool, question.arguments, read_timeout_seconds=CALL_TIMEOUT)
    except Exception as error:  # a server that fails or dies is measured as failing, not fatal
        return Answer((time.perf_counter() - started) * 1000, f"{type(error).__name__}: {error}", True)
    elapsed = (time.perf_counter() - started) * 1000
    return Answer(elapsed, text_of(result), bool(result.is_error))


def _params(ready: Ready, copy: Path, home: Path) -> StdioServerParameters:
    command = ready.command(copy)
    return StdioServerParameters(
        command=command[0], args=command[1:], env=environment(ready.server, home), cwd=str(copy.parent)
    )


@contextlib.asynccontextmanager
async def started(ready: Ready, copy: Path, home: Path, log: TextIO) -> AsyncIterator[Client]:
    transport = stdio_client(_params(ready, copy, home), errlog=log)
    async with Client(transport, read_timeout_seconds=CALL_TIMEOUT) as client:
        yield client


# -- one vault ---------------------------------------------------------------------------------


async def measure_vault(
    label: str, source: Path, ready: list[Ready], rounds: int, starts: int, edits: int, workdir: Path
) -> VaultResult:
    load = load_average()
    plan = choose(source, rounds)
    slug = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
    home = workdir / "homes" / slug
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    _expose_every_note(home)
    copies = {r.server.name: workdir / "copies" / slug / r.server.name for r in ready}
    before = {}
    for r in ready:
        copy_vault(source, copies[r.server.name])
        write_fresh(copies[r.server.name], 0)
        before[r.server.name] = snapshot(copies[r.server.name])
        warm(copies[r.server.name])
    warm(source)
    (workdir / "logs").mkdir(parents=True, exist_ok=True)
    with ExitStack() as files:
        log: dict[str, TextIO] = {
            name: files.enter_context(open(workdir / "logs" / f"{slug}-{name}.log", "w", encoding="utf-8"))
            for name in [*copies, BARE_LOG]
        }
        initialize, first = await _starts(ready, copies, home, log, plan.cases[0], starts)
        async with AsyncExitStack() as stack:
            live: dict[str, Live] = {}
            for r in ready:
                live[r.server.name] = await _start_live(stack, r, copies[r.server.name], home, log, plan.cases[0])
            bare = await stack.enter_async_context(
                Client(
                    stdio_client(
                        StdioServerParameters(command=sys.executable, args=[str(BARE_SERVER)]), errlog=log[BARE_LOG]
                    ),
                    read_timeout_seconds=CALL_TIMEOUT,
                )
            )
            questions = await _rounds(live, plan, source, bare)
            peaks = {name: memory_mb(server.pid, "VmHWM") for name, server in live.items()}
            fresh = {name: await _freshness(server, edits) for name, server in live.items()}
    servers = []
    for name, server in live.items():
        left = changes(before[name], snapshot(copies[name]), frozenset({FRESH_NOTE}))
        servers.append(
            ServerResult(
                name=name,
                version=server.ready.version,
                initialize_p50_ms=_ms(statistics.median(initialize[name])),
                initialize_p95_ms=_ms(percentile(initialize[name], 0.95)),
                first_answer_p50_ms=_ms(statistics.median(first[name])),
                first_answer_p95_ms=_ms(percentile(first[name], 0.95)),
                idle_rss_mb=server.idle_rss_mb,
                peak_rss_mb=peaks[name],
                fresh_read=fresh[name][0],
                fresh_search=fresh[name][1],
                fresh_of=edits,
                left=_left(left),
                missing_tools=sorted(server.missing),
            )
        )
        shutil.rmtree(copies[name], ignore_errors=True)  # five copies of a big vault add up
    return VaultResult(
        label=label,
        path=str(source),
        notes=plan.notes,
        megabytes=plan.megabytes,
        rounds=rounds,
        words=list(plan.words),
        subjects=len(plan.subjects),
        questions=questions,
        servers=servers,
        load=[round(x, 2) for x in load + load_average()],
        bare_start_ms=[
            _ms(statistics.median(initialize[BARE])),
            _ms(percentile(initialize[BARE], 0.95)),
            _ms(statistics.median(first[BARE])),
            _ms(percentile(first[BARE], 0.95)),
        ],
    )


def _ms(value: float) -> float:
    return round(value * 1000, 1)


def _left(found: Changes) -> dict[str, list[str]]:
    return {"added": list(found.added), "changed": list(found.changed), "removed": list(found.removed)}


def _expose_every_note(home: Path) -> None:
    """The peers see every note, so ours does too (by default a client sees memory records only)."""
    script = Path(sys.executable).with_name("vault-recall")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "vault_recall.app"]
    subprocess.run(
        [*command, "client", "expose", "bench", "vault"],
        env={**os.environ, "VAULT_RECALL_HOME": str(home)},
        stdout=subprocess.DEVNULL,
        check=True,
    )


async def _starts(
    ready: list[Ready], copies: dict[str, Path], home: Path, log: dict[str, TextIO], case: Case, starts: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Start → initialize answered and start → first answer (read by path), fresh processes; and
    the same for a bare MCPServer answering `ping`, the floor of any Python MCP server."""
    initialize: dict[str, list[float]] = {name: [] for name in [*(r.server.name for r in ready), BARE]}
    first: dict[str, list[float]] = {name: [] for name in initialize}
    by_name = {r.server.name: r for r in ready}
    for number in range(starts):
        for name in rotated(list(initialize), number):
            if name == BARE:
                params = StdioServerParameters(command=sys.executable, args=[str(BARE_SERVER)])
                transport = stdio_client(params, errlog=log[BARE_LOG])
                question = Ask("ping", {})
            else:
                r = by_name[name]
                transport = stdio_client(_params(r, copies[name], home), errlog=log[name])
                question = r.server.asks["read by path"](case, copies[name])
            begun = time.perf_counter()
            try:
                async with Client(transport, read_timeout_seconds=CALL_TIMEOUT) as client:
                    initialize[name].append(time.perf_counter() - begun)
                    await ask(client, question)
                    first[name].append(time.perf_counter() - begun)
            except Exception as error:  # one sentence, and where to look, rather than a task group's traceback
                where = log[BARE_LOG if name == BARE else name].name
                raise SystemExit(f"{name} did not start ({type(error).__name__}); its stderr is in {where}") from error
    return initialize, first


async def _start_live(
    stack: AsyncExitStack, r: Ready, copy: Path, home: Path, log: dict[str, TextIO], case: Case
) -> Live:
    known = children()
    client = await stack.enter_async_context(started(r, copy, home, log[r.server.name]))
    new = children() - known
    pid = min(new) if len(new) == 1 else None
    offered = {tool.name for tool in (await client.list_tools()).tools}
    missing = {q for q, asker in r.server.asks.items() if asker(case, copy).tool not in offered}
    await ask(client, r.server.asks["read by path"](case, copy))  # untimed: the first call loads what calls need
    return Live(r, client, pid, copy, memory_mb(pid, "VmRSS"), missing)


async def _rounds(live: dict[str, Live], plan: Plan, source: Path, bare: Client) -> list[QuestionResult]:
    times: dict[tuple[str, str], list[float]] = {}
    good: dict[tuple[str, str], int] = {}
    errors: dict[tuple[str, str], list[str]] = {}
    tools: dict[tuple[str, str], str] = {}
    floors: dict[str, list[float]] = {}
    for number, case in enumerate(plan.cases):
        for index, question in enumerate(QUESTIONS):
            if question == "recall" and case.subject is None:
                continue  # a vault without memory records has nothing to recall
            for name in rotated(list(live), number + index):
                server = live[name]
                asker = server.ready.server.asks.get(question)
                if asker is None or question in server.missing:
                    continue
                call = asker(case, server.copy)
                answer = await ask(server.client, call)
                key = (question, name)
                tools[key] = call.tool
                times.setdefault(key, []).append(answer.ms)
                if not answer.error and answered(question, case, answer.text):
                    good[key] = good.get(key, 0) + 1
                elif len(errors.setdefault(key, [])) < 3:
                    errors[key].append(answer.text[:300])
            if question in FLOORS:
                floor = ripgrep(source, getattr(case, FLOORS[question]))
                if floor is not None:
                    floors.setdefault(question, []).append(floor)
            elif question == "read by path":
                answer = await ask(bare, Ask("read", {"path": str(source / case.path)}))
                if not answer.error and answered(question, case, answer.text):
                    floors.setdefault(question, []).append(answer.ms)
    floor_of = {"read by path": BARE_READ}
    results = []
    for question in QUESTIONS:
        cells = {
            name: Cell(
                tool=tools[(question, name)],
                p50_ms=round(statistics.median(values), 1),
                p95_ms=round(percentile(values, 0.95), 1),
                calls=len(values),
                answered=good.get((question, name), 0),
                errors=errors.get((question, name), []),
            )
            for name in live
            if (values := times.get((question, name)))
        }
        if not cells:
            continue
        floor_times = floors.get(question)
        results.append(
            QuestionResult(
                question=question,
                floor=f"rg -l -i -F {FLOORS[question].upper()}" if question in FLOORS else floor_of.get(question),
                floor_p50_ms=round(statistics.median(floor_times), 1) if floor_times else None,
                floor_p95_ms=round(percentile(floor_times, 0.95), 1) if floor_times else None,
                servers=cells,
            )
        )
    return results


async def _freshness(server: Live, edits: int) -> tuple[int, int | None]:
    """Save the fresh note `edits` times; count the reads, and searches, that saw each save."""
    asks = server.ready.server.asks
    searches = asks.get("rare phrase") if "rare phrase" not in server.missing else None
    read = searched = 0
    for number in range(1, edits + 1):
        case = write_fresh(server.copy, number)
        answer = await ask(server.client, asks["read by path"](case, server.copy))
        read += not answer.error and answered("read by path", case, answer.text)
        if searches is not None:
            answer = await ask(server.client, searches(case, server.copy))
            searched += not answer.error and answered("rare phrase", case, answer.text)
    return read, searched if searches is not None else None


# -- tables ------------------------------------------------------------------------------------


def _time(ms: float | None) -> str:
    if ms is None:
        return "—"
    return f"{ms:,.0f}" if ms >= 10 else f"{ms:.1f}"


def _rss(idle: float | None, peak: float | None) -> str:
    return "—" if idle is None or peak is None else f"{idle} / {peak} MB"  # read from /proc: Linux only


def _markdown(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |" for row in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return lines


def question_table(result: VaultResult, names: list[str]) -> list[str]:
    rows = [["question (p50 / p95 ms)", *names, "floor", "ours / fastest peer", "ours / floor"]]
    for q in result.questions:
        row = [q.question]
        for name in names:
            cell = q.servers.get(name)
            if cell is None:
                row.append("—")
                continue
            text = f"{_time(cell.p50_ms)} / {_time(cell.p95_ms)}"
            if cell.answered < cell.calls:
                text += f" ({cell.calls - cell.answered} of {cell.calls} wrong)"
            row.append(text)
        row.append(f"{_time(q.floor_p50_ms)} / {_time(q.floor_p95_ms)}" if q.floor_p50_ms is not None else "—")
        ours = q.servers.get("vault-recall")
        peers = [c.p50_ms for n, c in q.servers.items() if n != "vault-recall" and c.answered == c.calls]
        row.append(f"{ours.p50_ms / min(peers):.2f}" if ours and peers else "—")
        row.append(f"{ours.p50_ms / q.floor_p50_ms:.1f}" if ours and q.floor_p50_ms else "—")
        rows.append(row)
    return _markdown(rows)


def server_table(result: VaultResult) -> list[str]:
    rows = [
        [
            "server",
            "version",
            "start → initialize",
            "start → first answer",
            "idle / peak RSS",
            "fresh (read, search)",
            "left in the vault",
        ]
    ]
    for s in result.servers:
        left = s.left["added"] + s.left["changed"] + s.left["removed"]
        shown = f"{len(left)}: " + ", ".join(left[:3]) + (" …" if len(left) > 3 else "") if left else "nothing"
        search = f"{s.fresh_search}/{s.fresh_of}" if s.fresh_search is not None else "—"
        rows.append(
            [
                s.name,
                s.version,
                f"{_time(s.initialize_p50_ms)} / {_time(s.initialize_p95_ms)} ms",
                f"{_time(s.first_answer_p50_ms)} / {_time(s.first_answer_p95_ms)} ms",
                _rss(s.idle_rss_mb, s.peak_rss_mb),
                f"{s.fresh_read}/{s.fresh_of}, {search}",
                shown,
            ]
        )
    if result.bare_start_ms:
        init50, init95, first50, first95 = result.bare_start_ms
        rows.append(
            [
                f"({BARE}: Python + MCP SDK)",
                "",
                f"{_time(init50)} / {_time(init95)} ms",
                f"{_time(first50)} / {_time(first95)} ms",
                "",
                "",
                "",
            ]
        )
    return _markdown(rows)


def tools_table(names: list[str]) -> list[str]:
    """Which tool answers which question, for each server."""
    servers = [s for s in SERVERS if s.name in names]
    rows = [["question", *[s.name for s in servers]]]
    for question in QUESTIONS:
        rows.append([question, *[f"`{s.how[question]}`" if question in s.how else "—" for s in servers]])
    return _markdown(rows)


def report(results: list[VaultResult], names: list[str]) -> str:
    lines: list[str] = []
    for result in results:
        lines += [
            f"{result.label}: {result.notes:,} notes, {result.megabytes} MB, {result.rounds} rounds, "
            f"common words {', '.join(result.words)}, load average {result.load}",
            "",
            *question_table(result, names),
            "",
            *server_table(result),
            "",
        ]
        for s in result.servers:
            if s.missing_tools:
                lines.append(f"{s.name}: no tool for {', '.join(s.missing_tools)} (its tool list changed?)")
        for q in result.questions:
            for name, cell in q.servers.items():
                if cell.errors:
                    lines.append(f"{name}, {q.question}: {cell.errors[0][:160]!r}")
    return "\n".join([*lines, "Which tool answers which question:", "", *tools_table(names)])


# -- the run -----------------------------------------------------------------------------------


def machine(node: Path | None) -> dict[str, Any]:
    def first_line(command: list[str]) -> str | None:
        with contextlib.suppress(OSError):
            done = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
            return done.stdout.strip().splitlines()[0] if done.stdout.strip() else None
        return None

    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "system": platform.platform(),
        "cpus": os.cpu_count(),
        "node": first_line([str(node), "--version"]) if node else None,
        "ripgrep": first_line(["rg", "--version"]) if shutil.which("rg") else None,
    }


def synthetic(workdir: Path, size: int) -> Path:
    """The generated vault of `size` notes under `workdir`, made anew when missing or stale
    (the same folder `bench.tools` keeps, so one generation serves both)."""
    vault = workdir / f"vault-{size}"
    marker = vault / ".generated"
    saved = marker.read_text(encoding="utf-8").split() if marker.exists() else []
    if len(saved) != 2 or saved[0] != f"v{GENERATOR_VERSION}":
        shutil.rmtree(vault, ignore_errors=True)
        made = generate(vault, size)
        marker.write_text(f"v{GENERATOR_VERSION} {made.bytes}", encoding="utf-8")
    return vault


def vaults(sizes: list[int], given: list[Path], workdir: Path) -> Iterator[tuple[str, Path]]:
    for size in sizes:
        yield f"synthetic ({size:,} notes)", synthetic(workdir, size)
    for path in given:
        yield path.resolve().name, path.resolve()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000", help="generated vaults, comma-separated note counts ('' for none)")
    parser.add_argument("--vault", type=Path, action="append", default=[], help="a vault to ask about (repeatable)")
    parser.add_argument("--rounds", type=int, default=10, help="rounds of questions per vault (each about a note)")
    parser.add_argument("--starts", type=int, default=5, help="fresh starts per server for the start-up figures")
    parser.add_argument("--edits", type=int, default=5, help="saves of a note per server for freshness")
    parser.add_argument("--servers", default=",".join(s.name for s in SERVERS), help="comma-separated")
    parser.add_argument("--peers-dir", type=Path, default=PEERS_DIR, help="the node_modules holding the peers")
    parser.add_argument("--node", type=Path, default=None, help="Node to run the peers (default: Node 22 of .ci/run)")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "vault-recall-bench")
    parser.add_argument("--json", type=Path, default=None, help="where to write the results (default: workdir)")
    args = parser.parse_args(argv)
    wanted = [name.strip() for name in args.servers.split(",") if name.strip()]
    unknown = set(wanted) - {s.name for s in SERVERS}
    if unknown:
        parser.error(f"no server named {', '.join(sorted(unknown))}")
    node = args.node or default_node()
    prepared = [prepare(s, args.peers_dir, node) for s in SERVERS if s.name in wanted]
    ready = [p for p in prepared if isinstance(p, Ready)]
    skipped = [p for p in prepared if isinstance(p, Skipped)]
    for s in skipped:
        print(f"skipped {s.server.name}: {s.reason}", file=sys.stderr)
    for r in ready:
        if r.warning:
            print(f"warning: {r.warning}", file=sys.stderr)
    if not ready:
        print("no server to ask", file=sys.stderr)
        return 1
    workdir = args.workdir.resolve()
    if any(r.server.name == "mcp-obsidian" for r in ready) and str(workdir) != str(workdir).lower():
        print(f"warning: mcp-obsidian lowercases its vault path; {workdir} is not lowercase", file=sys.stderr)
    workdir.mkdir(parents=True, exist_ok=True)
    about = machine(node)  # the date the run began
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    results = [
        anyio.run(measure_vault, label, path, ready, args.rounds, args.starts, args.edits, workdir / "peers")
        for label, path in vaults(sizes, args.vault, workdir)
    ]
    names = [r.server.name for r in ready]
    print(report(results, names))
    for s in skipped:
        print(f"skipped {s.server.name}: {s.reason}")
    out = args.json or workdir / "peers.json"
    out.write_text(
        json.dumps(
            {
                "machine": about,
                "servers": [{"name": r.server.name, "version": r.version, "warning": r.warning} for r in ready],
                "skipped": [{"name": s.server.name, "reason": s.reason} for s in skipped],
                "results": [asdict(r) for r in results],
            },
            indent=2,
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    print(f"\nJSON: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
