"""How long `vault-recall http` takes to stop on SIGTERM with a client connected: a session
with its GET stream open and six slow searches running (3,000 notes each).  Reports the time
from the signal to the process's end, and the lines it wrote to stderr.

    .venv/bin/python -m bench.http_stop              # 5 stops
    .venv/bin/python -m bench.http_stop --runs 10
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from tests.support.edited_vault import SLOW, make_vault, serving_over_http
from tests.support.http_e2e import running_endpoint
from tests.support.raw_peers import PROTOCOL, HttpPeer


async def one_stop(port: int, token: str, process: subprocess.Popen[str]) -> float:
    peer = await HttpPeer(port, token).open()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        (
            f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\nAccept: text/event-stream\r\n"
            f"Mcp-Session-Id: {peer._session}\r\nMcp-Protocol-Version: {PROTOCOL}\r\n\r\n"
        ).encode()
    )
    await reader.readuntil(b"\r\n\r\n")
    calls = [asyncio.create_task(peer.call(*SLOW)) for _ in range(6)]
    await asyncio.wait(calls, timeout=0.3)
    started = time.perf_counter()
    process.send_signal(signal.SIGTERM)
    await asyncio.get_running_loop().run_in_executor(None, process.wait)
    stopped = time.perf_counter() - started
    await asyncio.gather(*calls, return_exceptions=True)
    writer.close()
    return stopped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        os.environ["VAULT_RECALL_HOME"] = str(Path(folder) / "home")
        token = serving_over_http(make_vault(Path(folder) / "Work", fillers=3000))
        times: list[float] = []
        for _ in range(args.runs):
            with running_endpoint() as endpoint:
                times.append(asyncio.run(one_stop(endpoint.port, token, endpoint.process)))
            print(f"stopped in {times[-1]:.2f} s; stderr: {endpoint.log().strip()!r}")
    print(f"p50 {statistics.median(times):.2f} s, max {max(times):.2f} s over {len(times)} stops")


if __name__ == "__main__":
    main()
