"""Load on `vault-recall http` against the same calls over stdio, in the same run.

N clients make M tool calls each, all at once, while notes of the vault are being edited:
first against one `vault-recall http` process (each client with its own token, over real HTTP
on 127.0.0.1), then against N `vault-recall serve` processes (one per client, as stdio clients
run them).  Reports failed calls, activity rows lost (every call must leave exactly one, under
its client's id) and call latency p50/p95 for each transport.

    .venv/bin/python -m bench.http_load                      # 16 clients x 200 calls
    .venv/bin/python -m bench.http_load --clients 4 --calls 20 --json out.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from tests.support.e2e import serve_params
from tests.support.http_e2e import http_client, running_endpoint
from tests.support.paths import SAMPLE_VAULT
from vault_recall.server.activity.queries import latest_per_client

# The mix each client repeats: recall, search, read, list, history, backlinks.
CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("recall_context", {"subject": "build-system", "query": "bazel"}),
    ("search_notes", {"query": "release"}),
    ("read_note", {"note": "Bazel decision"}),
    ("list_subjects", {}),
    ("recall_activity", {"subject": "build-system"}),
    ("get_backlinks", {"note": "CI cache"}),
)
EDITED = ("Projects/Build/Build decision.md", "Projects/Release/Release cadence.md", "Team/Code review rules.md")


@dataclasses.dataclass
class Phase:
    transport: str
    latencies: list[float] = dataclasses.field(default_factory=list)
    failed: int = 0
    failures: list[str] = dataclasses.field(default_factory=list)
    rows: dict[str, int] = dataclasses.field(default_factory=dict)
    seconds: float = 0.0

    def summary(self, clients: int, calls: int) -> dict[str, Any]:
        ordered = sorted(self.latencies)
        expected = clients * calls
        return {
            "transport": self.transport,
            "calls": expected,
            "answered": len(self.latencies),
            "failed": self.failed,
            "activity_rows": sum(self.rows.values()),
            "lost_rows": sum(max(0, calls - self.rows.get(c, 0)) for c in self.rows)
            + calls * (clients - len(self.rows)),
            "extra_rows": sum(max(0, n - calls) for n in self.rows.values()),
            "p50_ms": round(statistics.median(ordered) * 1000, 2) if ordered else None,
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 2) if ordered else None,
            "calls_per_second": round(len(ordered) / self.seconds, 1) if self.seconds else None,
            "failures": self.failures[:5],
        }


async def edit_notes(vault: Path, stop: anyio.Event, edits: list[int], in_place: bool) -> None:
    """Rewrite one note every 20 ms until told to stop: saved whole (a temporary file renamed
    over it), or with --in-place truncated and written again, so a call may catch it half
    written (then a name found only in its properties, an alias, can be missing for that call)."""
    originals = {name: (vault / name).read_text(encoding="utf-8") for name in EDITED}
    n = 0
    while not stop.is_set():
        name = EDITED[n % len(EDITED)]
        text = originals[name] + f"\n\nEdit {n}.\n"
        if in_place:
            (vault / name).write_text(text, encoding="utf-8")
        else:
            temporary = vault / ".edit.tmp"
            temporary.write_text(text, encoding="utf-8")
            os.replace(temporary, vault / name)
        n += 1
        edits[0] = n
        with anyio.move_on_after(0.02):
            await stop.wait()


async def run_phase(
    phase: Phase,
    clients: int,
    calls: int,
    session_of: Callable[[int], AbstractAsyncContextManager[Client]],
    vault: Path,
    in_place: bool,
) -> None:
    stop = anyio.Event()
    edits = [0]

    async def one_client(index: int) -> None:
        try:
            async with session_of(index) as session:
                for n in range(calls):
                    tool, args = CALLS[(n + index) % len(CALLS)]
                    started = time.perf_counter()
                    try:
                        result = await session.call_tool(tool, args)
                    except Exception as exc:  # a failed call is counted, not fatal to the run
                        phase.failed += 1
                        phase.failures.append(f"{tool}: {type(exc).__name__}: {exc}")
                        continue
                    phase.latencies.append(time.perf_counter() - started)
                    if result.is_error:
                        phase.failed += 1
                        phase.failures.append(f"{tool}: tool error {result.content}")
        except Exception as exc:  # the session itself failed: every call it had left fails
            phase.failed += calls
            phase.failures.append(f"client {index}: {type(exc).__name__}: {exc}")

    started = time.perf_counter()
    async with anyio.create_task_group() as outer:
        outer.start_soon(edit_notes, vault, stop, edits, in_place)
        async with anyio.create_task_group() as group:
            for index in range(clients):
                group.start_soon(one_client, index)
        stop.set()
    phase.seconds = time.perf_counter() - started


def count_rows(store: Path, prefix: str) -> dict[str, int]:
    """The events each client whose id starts with `prefix` has in the store."""
    return {summary.client: summary.calls for summary in latest_per_client(store) if summary.client.startswith(prefix)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--calls", type=int, default=200, help="calls per client")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--in-place", action="store_true", help="edit notes by truncating and rewriting them")
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="vault-recall-load-"))
    home = work / "home"
    home.mkdir()
    os.environ["VAULT_RECALL_HOME"] = str(home)
    vault = work / "Load vault"
    shutil.copytree(SAMPLE_VAULT, vault)
    from vault_recall.app.state.config_store import issue_token, update_config
    from vault_recall.server.config.config_file import ClientEntry, Config, VaultEntry, activity_path

    http_ids = [f"http-{i}" for i in range(args.clients)]
    stdio_ids = [f"stdio-{i}" for i in range(args.clients)]
    update_config(
        lambda c: Config(
            vaults=(VaultEntry("Load", str(vault)),),
            active_vault="Load",
            clients=tuple(ClientEntry(cid) for cid in http_ids + stdio_ids),
        )
    )
    tokens = [issue_token(cid)[0] for cid in http_ids]
    phases = [Phase("http"), Phase("stdio")]
    try:
        with running_endpoint() as endpoint:

            def over_http(index: int) -> AbstractAsyncContextManager[Client]:
                return http_client(endpoint.url, tokens[index], name=f"load-{index}")

            anyio.run(run_phase, phases[0], args.clients, args.calls, over_http, vault, args.in_place)
        # The endpoint has stopped (SIGTERM): its writer stored every queued event first.

        @asynccontextmanager
        async def over_stdio(index: int) -> AsyncIterator[Client]:
            async with Client(serve_params(stdio_ids[index], None), read_timeout_seconds=120) as session:
                yield session

        anyio.run(run_phase, phases[1], args.clients, args.calls, over_stdio, vault, args.in_place)
        phases[0].rows = count_rows(activity_path(), "http-")
        phases[1].rows = count_rows(activity_path(), "stdio-")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    results = [p.summary(args.clients, args.calls) for p in phases]
    how = "truncated and rewritten in place" if args.in_place else "saved whole (renamed over)"
    print(f"{args.clients} clients x {args.calls} calls each, a note {how} every 20 ms meanwhile\n")
    print("transport | calls | failed | activity rows | lost | p50 ms | p95 ms | calls/s (sessions' start included)")
    for r in results:
        print(
            f"{r['transport']:<9} | {r['calls']:>5} | {r['failed']:>6} | {r['activity_rows']:>13} "
            f"| {r['lost_rows']:>4} | {r['p50_ms']:>6} | {r['p95_ms']:>6} | {r['calls_per_second']}"
        )
        for failure in r["failures"]:
            print(f"  {failure}")
    http, stdio = results
    if http["p50_ms"] and stdio["p50_ms"]:
        print(f"\nhttp/stdio: p50 {http['p50_ms'] / stdio['p50_ms']:.2f}, p95 {http['p95_ms'] / stdio['p95_ms']:.2f}")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"clients": args.clients, "calls": args.calls, "results": results}, indent=2)
        )
    ok = all(r["failed"] == 0 and r["lost_rows"] == 0 and r["extra_rows"] == 0 for r in results)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
