"""Benchmark: every tool over real `vault-recall serve` processes, against ripgrep, one run.

    .venv/bin/python -m bench.tools                  # 1k, 10k and 50k notes, and a real-shaped vault
    .venv/bin/python -m bench.tools --sizes 1000 --real 0      # the CI-sized run
    .venv/bin/python -m bench.tools --sizes 1000,10000,50000,100000 --json bench.json

For each vault — deterministic synthetic vaults (tests/support/synthetic_vault.py) of each size, and one
shaped like a vault kept for years (`--real N` notes: long notes, many links, attachments,
folders six deep, text that is not ASCII), generated once under --workdir — one real stdio
server (MCP SDK client) answers every tool: `recall_context`, `recall_activity`,
`list_subjects`, `search_notes` (a common word, and a note's title), `read_note` (by vault
path and by name) and `get_backlinks`.  Each call is timed round trip (p50 / p95) and as the
server timed it (its activity event), and compared with its baseline run right after it in the
same run: `rg -l -i WORD` over the same vault for the same word, phrase or name (skipped, with a
message, when ripgrep is absent) — for `read_note`, listing the vault in this process
(`list_notes`), since reading one note needs the listing and that note.  Also: server start to
first answer; peak RSS per tool (the server's VmHWM, reset before each tool through
/proc/PID/clear_refs) against the idle server; and freshness: after each edit the next call
must return the new revision (counted).  Prints a table and writes JSON.  Nothing here asserts
times.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.support.synthetic_vault import (
    GENERATOR_VERSION,
    REAL_GENERATOR_VERSION,
    SUBJECTS,
    WORDS,
    generate,
    generate_realistic,
)
from vault_recall.server.vault.listing import list_notes


@dataclass
class ToolResult:
    """One tool on one vault: round trips, the server's own times, its baseline, its memory."""

    tool: str
    baseline: str
    p50_ms: float
    p95_ms: float
    server_p50_ms: float | None
    baseline_p50_ms: float | None
    ratio: float | None  # p50 / baseline p50
    peak_rss_mb: float | None
    calls: int


@dataclass
class SizeResult:
    vault: str
    notes: int
    megabytes: float
    first_answer_ms: float
    idle_rss_mb: float | None
    fresh: int
    fresh_of: int
    tools: list[ToolResult] = field(default_factory=list)
    load: list[float] = field(default_factory=list)  # the machine's load average, before and after


def load_average() -> list[float]:
    """The system's 1, 5 and 15 minute load, shown beside the figures; none on Windows."""
    if sys.platform == "win32":
        return []
    return list(os.getloadavg())


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def serve_params(vault: Path, home: Path) -> StdioServerParameters:
    script = Path(sys.executable).with_name("vault-recall")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "vault_recall.app"]
    return StdioServerParameters(
        command=command[0],
        args=[*command[1:], "serve", "--client", "bench", "--vault", str(vault)],
        env={**os.environ, "VAULT_RECALL_HOME": str(home)},
    )


def server_pid() -> int | None:
    """The pid of the serve process this process started (Linux: its child in /proc)."""
    me = str(os.getpid())
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text(encoding="utf-8")
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if f"\nPPid:\t{me}\n" in status and b"serve" in cmdline:
            return int(entry.name)
    return None


def memory_mb(pid: int | None, field_name: str) -> float | None:
    """VmRSS or VmHWM of a process, in MB (Linux only)."""
    if pid is None:
        return None
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith(f"{field_name}:"):
            return round(int(line.split()[1]) / 1024, 1)
    return None


def reset_peak(pid: int | None) -> None:
    """Start the process's peak RSS anew (Linux 4.0+: writing 5 to clear_refs)."""
    if pid is None:
        return
    with contextlib.suppress(OSError):
        Path(f"/proc/{pid}/clear_refs").write_text("5", encoding="ascii")


def ripgrep(vault: Path, query: str) -> float | None:
    """One `rg -l -i QUERY VAULT` (fixed string, as our tools take it), in ms."""
    rg = shutil.which("rg")
    if rg is None:
        return None
    started = time.perf_counter()
    subprocess.run([rg, "-l", "-i", "-F", "--", query, str(vault)], stdout=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - started) * 1000


def listing(vault: Path) -> float:
    started = time.perf_counter()
    list_notes(vault)
    return (time.perf_counter() - started) * 1000


@dataclass
class Plan:
    """One tool's calls on one vault: the arguments of each and the baseline run beside it."""

    label: str
    tool: str
    arguments: list[dict[str, Any]]
    baseline: str
    baseline_of: Callable[[dict[str, Any]], float | None]


def plans(vault: Path, rounds: int) -> list[Plan]:
    words = [WORDS[(i * 7) % len(WORDS)] for i in range(rounds)]
    subjects = [SUBJECTS[i % len(SUBJECTS)] for i in range(rounds)]
    paths = list_notes(vault).paths
    # Records spread over the vault (the bench client sees records, the default); titles are
    # unique in both generators, so `rg` finds few files.
    chosen: list[str] = []
    step = 0
    while len(chosen) < rounds and step < 50 * rounds:
        path = paths[(step * 7919 + len(paths) // 3) % len(paths)]
        step += 1
        with open(vault / path, "rb") as note:
            if b"\nsubject:" in note.read(1024) and path not in chosen:
                chosen.append(path)
    titles = [path.rsplit("/", 1)[-1].removesuffix(".md") for path in chosen]

    def rg(key: str) -> Callable[[dict[str, Any]], float | None]:
        return lambda arguments: ripgrep(vault, arguments[key])

    def words_rg(arguments: dict[str, Any]) -> float | None:
        return ripgrep(vault, arguments.get("query") or arguments.get("subject") or "")

    return [
        Plan(
            "recall_context",
            "recall_context",
            [{"subject": s, "query": w} for s, w in zip(subjects, words, strict=True)],
            "rg -l -i WORD",
            words_rg,
        ),
        Plan("recall_activity", "recall_activity", [{"subject": s} for s in subjects], "rg -l -i SUBJECT", words_rg),
        Plan(
            "list_subjects", "list_subjects", [{} for _ in words], "rg -l -i WORD", lambda _: ripgrep(vault, words[0])
        ),
        Plan("search_notes (word)", "search_notes", [{"query": w} for w in words], "rg -l -i WORD", rg("query")),
        Plan("search_notes (title)", "search_notes", [{"query": t} for t in titles], "rg -l -i TITLE", rg("query")),
        Plan("read_note (path)", "read_note", [{"note": p} for p in chosen], "listing", lambda _: listing(vault)),
        Plan("read_note (name)", "read_note", [{"note": t} for t in titles], "listing", lambda _: listing(vault)),
        Plan("get_backlinks", "get_backlinks", [{"note": t} for t in titles], "rg -l -i NAME", rg("note")),
    ]


def server_times(home: Path) -> dict[str, list[float]]:
    """The duration of every call the server recorded, per tool, in call order."""
    from vault_recall.server.activity.queries import count_events, recent_events

    store = home / "activity.sqlite3"
    times: dict[str, list[float]] = {}
    for event in recent_events(store, limit=count_events(store)):
        times.setdefault(event.tool, []).append(event.duration_ms)
    return times


async def measure_vault(label: str, vault: Path, notes: int, megabytes: float, rounds: int, edits: int) -> SizeResult:
    load_before = load_average()
    plan_list = plans(vault, rounds)
    with tempfile.TemporaryDirectory() as home_name:
        home = Path(home_name)
        started = time.perf_counter()
        async with Client(serve_params(vault, home), read_timeout_seconds=300) as client:
            await client.call_tool("list_subjects", {})
            first = (time.perf_counter() - started) * 1000
            pid = server_pid()
            idle = memory_mb(pid, "VmHWM")
            measured: list[tuple[Plan, list[float], list[float], float | None]] = []
            for plan in plan_list:
                reset_peak(pid)
                own: list[float] = []
                base: list[float] = []
                for arguments in plan.arguments:  # interleaved, so load drift hits both alike
                    own.append(await _timed(client, plan.tool, arguments))
                    sample = plan.baseline_of(arguments)
                    if sample is not None:
                        base.append(sample)
                measured.append((plan, own, base, memory_mb(pid, "VmHWM")))
            fresh = await _freshness(client, vault, edits)
        recorded = server_times(home)
    results = []
    consumed: dict[str, int] = {"list_subjects": 1}  # the first answer
    for plan, own, base, peak in measured:
        begin = consumed.get(plan.tool, 0)
        consumed[plan.tool] = begin + len(own)
        server = recorded.get(plan.tool, [])[begin : begin + len(own)]
        p50 = statistics.median(own)
        base_p50 = statistics.median(base) if base else None
        results.append(
            ToolResult(
                tool=plan.label,
                baseline=plan.baseline,
                p50_ms=round(p50, 1),
                p95_ms=round(percentile(own, 0.95), 1),
                server_p50_ms=round(statistics.median(server), 1) if len(server) == len(own) else None,
                baseline_p50_ms=round(base_p50, 1) if base_p50 is not None else None,
                ratio=round(p50 / base_p50, 2) if base_p50 else None,
                peak_rss_mb=peak,
                calls=len(own),
            )
        )
    return SizeResult(
        vault=label,
        notes=notes,
        megabytes=round(megabytes, 1),
        first_answer_ms=round(first, 1),
        idle_rss_mb=idle,
        fresh=fresh,
        fresh_of=edits,
        tools=results,
        load=[round(x, 2) for x in load_before + load_average()],
    )


async def _timed(client: Client, tool: str, args: dict[str, Any]) -> float:
    started = time.perf_counter()
    result = await client.call_tool(tool, args)
    elapsed = (time.perf_counter() - started) * 1000
    if result.is_error:
        raise RuntimeError(f"{tool} failed: {result.content}")
    return elapsed


async def _freshness(client: Client, vault: Path, edits: int) -> int:
    """Edit one record `edits` times; count the calls that returned the new revision at once."""
    note = vault / "Bench/Fresh note.md"
    note.parent.mkdir(exist_ok=True)
    fresh = 0
    previous = None
    for number in range(edits):
        text = f"---\nsubject: build-system\n---\nfreshmarker edit number {number}\n"
        temp = note.with_name("Fresh note.md.tmp")
        temp.write_text(text, encoding="utf-8")
        os.replace(temp, note)  # saved the way editors save
        result = await client.call_tool("recall_context", {"subject": "build-system", "query": "freshmarker"})
        records = (result.structured_content or {}).get("records", [])
        current = records[0]["revision"] if records else None
        if records and f"edit number {number}\n" in records[0]["text"] and current != previous:
            fresh += 1
        previous = current
    note.unlink(missing_ok=True)  # never made when there were no edits (--edits 0)
    return fresh


def table(results: list[SizeResult]) -> str:
    head = ("vault", "tool", "p50 / p95", "server p50", "baseline", "baseline p50", "ratio", "peak RSS")
    rows = [head]
    for r in results:
        name = f"{r.vault} ({r.notes:,} notes, {r.megabytes} MB)"
        for t in r.tools:
            rows.append(
                (
                    name,
                    t.tool,
                    f"{t.p50_ms:.0f} / {t.p95_ms:.0f} ms",
                    f"{t.server_p50_ms:.0f} ms" if t.server_p50_ms is not None else "-",
                    t.baseline,
                    f"{t.baseline_p50_ms:.0f} ms" if t.baseline_p50_ms is not None else "no rg",
                    f"{t.ratio:.2f}" if t.ratio is not None else "-",
                    f"{t.peak_rss_mb} MB" if t.peak_rss_mb is not None else "-",
                )
            )
            name = ""
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |" for row in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    notes = [
        f"{r.vault}: first answer {r.first_answer_ms:.0f} ms, idle RSS {r.idle_rss_mb} MB, "
        f"fresh {r.fresh}/{r.fresh_of}, load average {r.load}"
        for r in results
    ]
    return "\n".join([*lines, "", *notes])


def machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "system": platform.platform(),
        "cpus": os.cpu_count(),
        "ripgrep": subprocess.run(["rg", "--version"], capture_output=True, text=True, check=False).stdout.splitlines()[
            0
        ]
        if shutil.which("rg")
        else None,
    }


def prepared(workdir: Path, name: str, version: str, make: Callable[[Path], int]) -> tuple[Path, float]:
    """The vault `name` under `workdir`, generated anew when missing or made by another version."""
    vault = workdir / name
    marker = vault / ".generated"
    saved = marker.read_text(encoding="utf-8").split() if marker.exists() else []
    if len(saved) != 2 or saved[0] != version:
        shutil.rmtree(vault, ignore_errors=True)
        size = make(vault)
        marker.write_text(f"{version} {size}", encoding="utf-8")
        saved = [version, str(size)]
    # One untimed pass warms the page cache, as for a vault in daily use.
    if shutil.which("rg"):
        subprocess.run(["rg", "-l", "-i", "warmup", str(vault)], stdout=subprocess.DEVNULL, check=False)
    return vault, int(saved[1]) / 1e6


def generate_bytes(notes: int, vault: Path) -> int:
    return generate(vault, notes).bytes


def run(sizes: list[int], real: int, workdir: Path, rounds: int, edits: int) -> list[SizeResult]:
    results = []
    for size in sizes:
        vault, megabytes = prepared(workdir, f"vault-{size}", f"v{GENERATOR_VERSION}", partial(generate_bytes, size))
        results.append(anyio.run(measure_vault, "synthetic", vault, size, megabytes, rounds, edits))
    if real:
        vault, megabytes = prepared(
            workdir, f"real-{real}", f"r{REAL_GENERATOR_VERSION}", lambda v: generate_realistic(v, real).bytes
        )
        results.append(anyio.run(measure_vault, "real-shaped", vault, real, megabytes, rounds, edits))
    if shutil.which("rg") is None:
        print("ripgrep (rg) is not installed: the ripgrep columns are empty", file=sys.stderr)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,50000", help="comma-separated note counts")
    parser.add_argument("--real", type=int, default=6500, help="notes of the real-shaped vault (0: none)")
    parser.add_argument("--rounds", type=int, default=20, help="calls per tool and vault (arguments vary)")
    parser.add_argument("--edits", type=int, default=20, help="freshness edits per size")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "vault-recall-bench")
    parser.add_argument("--json", type=Path, default=None, help="where to write the results (default: workdir)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    args.workdir.mkdir(parents=True, exist_ok=True)
    results = run(sizes, args.real, args.workdir, args.rounds, args.edits)
    print(table(results))
    out = args.json or args.workdir / "bench.json"
    out.write_text(
        json.dumps({"machine": machine(), "results": [asdict(r) for r in results]}, indent=2), encoding="utf-8"
    )
    print(f"\nJSON: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
