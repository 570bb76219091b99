"""Start-to-first-answer of `vault-recall serve`, against a bare MCPServer in the same run.

Each sample spawns a fresh process, connects with the SDK's stdio client, makes one tool call
and waits for its answer.  Reported: the median of each and their ratio (ours / baseline), so
the figure means the same on a slow machine and a fast one.

    .venv/bin/python bench/first_answer.py [--runs 15] [--vault PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


async def first_answer(params: StdioServerParameters, tool: str, args: dict[str, object]) -> float:
    started = time.perf_counter()
    async with Client(params, read_timeout_seconds=60) as client:
        result = await client.call_tool(tool, args)
        elapsed = time.perf_counter() - started
        assert not result.is_error, result
    return elapsed


async def measure(runs: int, vault: Path) -> None:
    script = Path(sys.executable).with_name("vault-recall")
    ours = StdioServerParameters(
        command=str(script), args=["serve", "--client", "bench", "--vault", str(vault)], env=dict(os.environ)
    )
    baseline = StdioServerParameters(
        command=sys.executable, args=[str(HERE / "baseline_server.py")], env=dict(os.environ)
    )
    cases = {
        "baseline (bare MCPServer, ping)": (baseline, "ping", {}),
        "vault-recall serve, list_subjects": (ours, "list_subjects", {}),
        "vault-recall serve, recall_context": (ours, "recall_context", {"subject": "build-system", "query": "bazel"}),
    }
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(runs):  # interleaved, so drift in machine load hits every case alike
        for name, (params, tool, args) in cases.items():
            samples[name].append(await first_answer(params, tool, args))
    base = statistics.median(samples["baseline (bare MCPServer, ping)"])
    print(f"{runs} runs each, vault {vault}")
    for name, values in samples.items():
        median = statistics.median(values)
        print(
            f"  {name:40} median {median * 1000:7.1f} ms  min {min(values) * 1000:7.1f} ms  ratio {median / base:4.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--vault", type=Path, default=ROOT / "assets" / "sample-vault")
    args = parser.parse_args()
    anyio.run(measure, args.runs, args.vault)


if __name__ == "__main__":
    main()
