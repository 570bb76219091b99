"""Benchmark: fresh recall over real `vault-recall serve` processes, against ripgrep, one run.

    .venv/bin/python -m tests.bench                  # 1k, 10k and 50k notes
    .venv/bin/python -m tests.bench --sizes 1000     # the CI-sized run
    .venv/bin/python -m tests.bench --sizes 1000,10000,50000,100000 --json bench.json

For each vault size: a deterministic synthetic vault (tests/synthetic_vault.py, generated once
under --workdir), then over one real stdio server (MCP SDK client): `recall_context`,
`search_notes` and `list_subjects` round trips, p50 / p95 over calls with varying words;
`rg -l -i WORD` over the same vault with the same words, in the same run (skipped, with a
message, when ripgrep is absent), and the ratio ours / ripgrep; server start to first answer;
the server's peak RSS; and freshness: after each edit the next call must return the new
revision (counted).  Prints a table and writes JSON.  Nothing here asserts times.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.synthetic_vault import GENERATOR_VERSION, SUBJECTS, WORDS, generate

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class SizeResult:
    notes: int
    megabytes: float
    first_answer_ms: float
    recall_p50_ms: float
    recall_p95_ms: float
    search_p50_ms: float
    search_p95_ms: float
    list_subjects_p50_ms: float
    ripgrep_p50_ms: float | None
    ratio_recall_to_ripgrep: float | None
    peak_rss_mb: float | None
    fresh: int
    fresh_of: int
    calls: int = 0
    words: list[str] = field(default_factory=list)


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


def peak_rss_mb(home: Path) -> float | None:
    """The server's VmHWM, found through the pid its activity events carry (Linux only)."""
    from vault_recall.app.state.activity_view import reading

    with reading(home / "activity.sqlite3") as connection:
        if connection is None:
            return None
        row = connection.execute("SELECT pid FROM events ORDER BY id DESC LIMIT 1").fetchone()
    if row is None:
        return None
    try:
        status = Path(f"/proc/{row[0]}/status").read_text(encoding="utf-8")
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return None


def time_ripgrep(vault: Path, words: list[str]) -> list[float] | None:
    rg = shutil.which("rg")
    if rg is None:
        return None
    samples = []
    for word in words:
        started = time.perf_counter()
        subprocess.run([rg, "-l", "-i", word, str(vault)], stdout=subprocess.DEVNULL, check=False)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def measure_size(vault: Path, notes: int, megabytes: float, rounds: int, edits: int) -> SizeResult:
    words = [WORDS[(i * 7) % len(WORDS)] for i in range(rounds)]
    with tempfile.TemporaryDirectory() as home_name:
        home = Path(home_name)
        started = time.perf_counter()
        async with Client(serve_params(vault, home), read_timeout_seconds=120) as client:
            await client.call_tool("list_subjects", {})
            first = (time.perf_counter() - started) * 1000
            recall_ms: list[float] = []
            search_ms: list[float] = []
            list_ms: list[float] = []
            rg_ms: list[float] = []
            for index, word in enumerate(words):  # interleaved, so load drift hits both alike
                subject = SUBJECTS[index % len(SUBJECTS)]
                recall_ms.append(await _timed(client, "recall_context", {"subject": subject, "query": word}))
                search_ms.append(await _timed(client, "search_notes", {"query": word}))
                if index % 4 == 0:
                    list_ms.append(await _timed(client, "list_subjects", {}))
                sample = time_ripgrep(vault, [word])
                if sample is not None:
                    rg_ms += sample
            fresh = await _freshness(client, vault, edits)
            rss = peak_rss_mb(home)
    rg_p50 = statistics.median(rg_ms) if rg_ms else None
    recall_p50 = statistics.median(recall_ms)
    return SizeResult(
        notes=notes,
        megabytes=round(megabytes, 1),
        first_answer_ms=round(first, 1),
        recall_p50_ms=round(recall_p50, 1),
        recall_p95_ms=round(percentile(recall_ms, 0.95), 1),
        search_p50_ms=round(statistics.median(search_ms), 1),
        search_p95_ms=round(percentile(search_ms, 0.95), 1),
        list_subjects_p50_ms=round(statistics.median(list_ms), 1),
        ripgrep_p50_ms=round(rg_p50, 1) if rg_p50 is not None else None,
        ratio_recall_to_ripgrep=round(recall_p50 / rg_p50, 2) if rg_p50 else None,
        peak_rss_mb=rss,
        fresh=fresh,
        fresh_of=edits,
        calls=len(recall_ms) + len(search_ms) + len(list_ms),
        words=words,
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
    note.unlink()
    return fresh


def table(results: list[SizeResult]) -> str:
    head = (
        "notes",
        "MB",
        "first answer",
        "recall p50/p95",
        "search p50/p95",
        "list p50",
        "rg -l -i p50",
        "recall/rg",
        "peak RSS",
        "fresh",
    )
    rows = [head]
    for r in results:
        rows.append(
            (
                f"{r.notes:,}",
                f"{r.megabytes}",
                f"{r.first_answer_ms:.0f} ms",
                f"{r.recall_p50_ms:.0f} / {r.recall_p95_ms:.0f} ms",
                f"{r.search_p50_ms:.0f} / {r.search_p95_ms:.0f} ms",
                f"{r.list_subjects_p50_ms:.0f} ms",
                f"{r.ripgrep_p50_ms:.0f} ms" if r.ripgrep_p50_ms else "no rg",
                f"{r.ratio_recall_to_ripgrep:.2f}" if r.ratio_recall_to_ripgrep else "-",
                f"{r.peak_rss_mb} MB" if r.peak_rss_mb else "-",
                f"{r.fresh}/{r.fresh_of}",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |" for row in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


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


def run(sizes: list[int], workdir: Path, rounds: int, edits: int) -> list[SizeResult]:
    results = []
    for size in sizes:
        vault = workdir / f"vault-{size}"
        marker = vault / ".generated"
        saved = marker.read_text(encoding="utf-8").split() if marker.exists() else []
        if len(saved) != 2 or saved[0] != f"v{GENERATOR_VERSION}":
            shutil.rmtree(vault, ignore_errors=True)
            generated = generate(vault, size)
            marker.write_text(f"v{GENERATOR_VERSION} {generated.bytes}", encoding="utf-8")
            saved = ["", str(generated.bytes)]
        megabytes = int(saved[1]) / 1e6
        # One untimed pass warms the page cache, as for a vault in daily use.
        if shutil.which("rg"):
            subprocess.run(["rg", "-l", "-i", "warmup", str(vault)], stdout=subprocess.DEVNULL, check=False)
        results.append(anyio.run(measure_size, vault, size, megabytes, rounds, edits))
        if shutil.which("rg") is None:
            print("ripgrep (rg) is not installed: the ripgrep columns are empty", file=sys.stderr)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,50000", help="comma-separated note counts")
    parser.add_argument("--rounds", type=int, default=30, help="calls per tool and size (words vary)")
    parser.add_argument("--edits", type=int, default=20, help="freshness edits per size")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "vault-recall-bench")
    parser.add_argument("--json", type=Path, default=None, help="where to write the results (default: workdir)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    args.workdir.mkdir(parents=True, exist_ok=True)
    results = run(sizes, args.workdir, args.rounds, args.edits)
    print(table(results))
    out = args.json or args.workdir / "bench.json"
    out.write_text(
        json.dumps({"machine": machine(), "results": [asdict(r) for r in results]}, indent=2), encoding="utf-8"
    )
    print(f"\nJSON: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
