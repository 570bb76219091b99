"""What recording activity costs a tool call: the same calls against two servers, one whose
activity store is writable and one whose store cannot be opened, in the same run.

    .venv/bin/python -m bench.activity_overhead [--calls 200] [--vault PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.support.paths import SAMPLE_VAULT


def params(vault: Path, home: str) -> StdioServerParameters:
    script = Path(sys.executable).with_name("vault-recall")
    return StdioServerParameters(
        command=str(script),
        args=["serve", "--client", "bench", "--vault", str(vault)],
        env={**os.environ, "VAULT_RECALL_HOME": home},
    )


async def latencies(client: Client, calls: int) -> list[float]:
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        result = await client.call_tool("recall_context", {"subject": "build-system", "query": "bazel"})
        samples.append(time.perf_counter() - started)
        assert not result.is_error
    return samples


async def measure(calls: int, vault: Path) -> None:
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as blocked:
        # A folder where the store's file would be: the config still reads (as missing, so the
        # same defaults), only the activity store cannot be opened.
        (Path(blocked) / "activity.sqlite3").mkdir()
        async with Client(params(vault, home)) as writing, Client(params(vault, blocked)) as not_writing:
            with_store: list[float] = []
            without: list[float] = []
            for _ in range(calls // 20):  # interleaved rounds, so load drift hits both alike
                with_store += await latencies(writing, 20)
                without += await latencies(not_writing, 20)
    base = statistics.median(without)
    print(f"{len(with_store)} recall_context calls each, vault {vault}")
    print(f"  activity store unwritable  median {base * 1000:6.2f} ms")
    print(
        f"  activity recorded          median {statistics.median(with_store) * 1000:6.2f} ms"
        f"  ratio {statistics.median(with_store) / base:4.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--vault", type=Path, default=SAMPLE_VAULT)
    args = parser.parse_args()
    anyio.run(measure, args.calls, args.vault)


if __name__ == "__main__":
    main()
