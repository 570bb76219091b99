"""Start-up of `vault-recall serve` against a bare MCPServer, in the same run.

Two figures per server, each from a fresh process per sample:

- start → `initialize` answered: what a client such as Codex waits for before it lists tools
  (raw JSON-RPC lines on the process's pipes, nothing else in the way);
- start → first tool call answered, through the SDK's stdio client.

And, on Linux, the CPU time the server process spent from its start to answering its first
call (/proc), which a loaded machine stretches much less than wall time.

Reported: p50 and p95 of each and the ratio of medians (ours / baseline), so the figure means
the same on a slow machine and a fast one.  Samples are interleaved, so drift in the machine's
load hits every case alike.

    .venv/bin/python -m bench.first_answer [--runs 15] [--vault PATH]
    .venv/bin/python -m bench.first_answer --vault /tmp/obsidian-hub --whole-vault "kanban board" \
        [--before DIR]

`--whole-vault QUERY`: the recall asked is `recall_context(query=QUERY)` over the whole vault
(the client exposed every note, in a home of its own), as a first call on a large vault.
`--before DIR`: an earlier tree's `vault-recall serve` too (DIR on PYTHONPATH, as
tests/support/earlier_tree.py writes it), in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.support.paths import REPO_ROOT, SAMPLE_VAULT

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}


def to_initialize(argv: list[str]) -> float:
    """Seconds from starting `argv` to reading its answer to `initialize`."""
    started = time.perf_counter()
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
    server.stdin.flush()
    line = server.stdout.readline()
    elapsed = time.perf_counter() - started
    server.stdin.close()
    server.wait(timeout=60)
    server.stdout.close()
    assert json.loads(line).get("result"), line
    return elapsed


def cpu_to_first_call(argv: list[str], env: dict[str, str], tool: str, args: dict[str, object]) -> float:
    """CPU seconds (user and system, all threads) the server process spent from its start to
    answering its first call, `initialize` first (raw JSON-RPC lines; Linux's /proc): the
    machine's load stretches wall time, much less the work done."""
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert server.stdin is not None and server.stdout is not None
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": args}}
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    server.stdin.write("".join(json.dumps(m) + "\n" for m in (INITIALIZE, initialized, call)).encode())
    server.stdin.flush()
    while json.loads(server.stdout.readline()).get("id") != 2:
        pass
    used = 0.0
    if sys.platform == "linux":  # measure() asks only there
        fields = Path(f"/proc/{server.pid}/stat").read_text().rsplit(")", 1)[1].split()
        used = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    server.stdin.close()
    server.wait(timeout=60)
    server.stdout.close()
    return used


async def to_first_call(params: StdioServerParameters, tool: str, args: dict[str, object]) -> float:
    started = time.perf_counter()
    async with Client(params, read_timeout_seconds=60) as client:
        result = await client.call_tool(tool, args)
        elapsed = time.perf_counter() - started
        assert not result.is_error, result
    return elapsed


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


async def measure(runs: int, vault: Path, whole_vault: str | None = None, before: Path | None = None) -> None:
    ours = [str(Path(sys.executable).with_name("vault-recall")), "serve", "--client", "bench", "--vault", str(vault)]
    bare = [sys.executable, str(REPO_ROOT / "bench" / "baseline_server.py")]
    # Every server runs from compiled bytecode, as an installed one does: with
    # PYTHONDONTWRITEBYTECODE set (as in some test shells) our tree's modules were compiled
    # again at every start, a few hundred ms of the first call the SDK's installed files never pay.
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    trees = [REPO_ROOT / "server", REPO_ROOT / "app", *([before] if before is not None else [])]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *map(str, trees)], stdout=subprocess.DEVNULL, check=False)
    recall: dict[str, object] = {"subject": "build-system", "query": "bazel"}
    if whole_vault is not None:
        env["VAULT_RECALL_HOME"] = tempfile.mkdtemp(prefix="first-answer-")
        subprocess.run([ours[0], "client", "expose", "bench", "vault"], env=env, stdout=subprocess.DEVNULL, check=True)
        recall = {"query": whole_vault}
    envs: dict[str, dict[str, str]] = {}
    calls: dict[str, tuple[list[str], str, dict[str, object]]] = {
        "bare MCPServer, ping": (bare, "ping", {}),
        "vault-recall serve, list_subjects": (ours, "list_subjects", {}),
        "vault-recall serve, recall_context": (ours, "recall_context", recall),
    }
    if before is not None:
        earlier = [sys.executable, "-m", "vault_recall.app", *ours[1:]]
        envs["before: serve, recall_context"] = {**env, "PYTHONPATH": str(before)}
        calls["before: serve, recall_context"] = (earlier, "recall_context", recall)
    initialize: dict[str, list[float]] = {"bare MCPServer": [], "vault-recall serve": []}
    first: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(runs):
        initialize["bare MCPServer"].append(to_initialize(bare))
        initialize["vault-recall serve"].append(to_initialize(ours))
        for name, (argv, tool, args) in calls.items():
            params = StdioServerParameters(command=argv[0], args=argv[1:], env=envs.get(name, env))
            first[name].append(await to_first_call(params, tool, args))
    cpu: dict[str, list[float]] = {}
    if sys.platform == "linux":
        for _ in range(runs):
            for name, (argv, tool, args) in calls.items():
                cpu.setdefault(name, []).append(cpu_to_first_call(argv, envs.get(name, env), tool, args))
    print(f"{runs} runs each, vault {vault}, recall {recall}")
    for title, samples, base_name in (
        ("start → initialize answered", initialize, "bare MCPServer"),
        ("start → first tool call answered", first, "bare MCPServer, ping"),
        ("CPU of the server process, start → first call answered (Linux)", cpu, "bare MCPServer, ping"),
    ):
        if not samples:
            continue
        base = statistics.median(samples[base_name])
        print(title)
        for name, values in samples.items():
            median = statistics.median(values)
            print(
                f"  {name:36} p50 {median * 1000:7.1f} ms  p95 {p95(values) * 1000:7.1f} ms  ratio {median / base:4.2f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--vault", type=Path, default=SAMPLE_VAULT)
    parser.add_argument("--whole-vault", metavar="QUERY", help="recall QUERY over the whole vault")
    parser.add_argument("--before", type=Path, help="an earlier tree, put first on PYTHONPATH")
    args = parser.parse_args()
    anyio.run(measure, args.runs, args.vault, args.whole_vault, args.before)


if __name__ == "__main__":
    main()
