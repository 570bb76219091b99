"""What the request deadline (server/http/deadline.py) buys: a slow-loris peer against uvicorn's
own h11 protocol and against ours, on 127.0.0.1.

    .venv/bin/python -m bench.slow_request [--deadline 2] [--watch 8] [--every 0.5]

A peer opens a connection and sends a request's head one short header line every `--every`
seconds, never ending it.  For each protocol: how long the server kept the connection open
(up to `--watch` seconds, then the peer gives up) and what it answered.  uvicorn's own keeps it
for as long as the peer goes on (its keep-alive timeout is for the time between requests, and
none of its settings bounds the time one request takes to arrive); ours answers `408` and
closes it at the deadline.  docs/architecture.md's decision on the deadline cites this.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from vault_recall.server.http.deadline import DeadlineH11Protocol

Scope = MutableMapping[str, Any]


async def app(scope: Scope, receive: Callable[[], Awaitable[Any]], send: Callable[[Any], Awaitable[None]]) -> None:
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


async def held_open(protocol: type[H11Protocol], watch: float, every: float) -> tuple[float, str]:
    """Seconds the server kept a slow-loris connection open, and the status line it sent."""
    config = uvicorn.Config(app, host="127.0.0.1", port=0, http=protocol, log_level="critical", lifespan="off")
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    started = time.monotonic()
    writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    answer = b""
    try:
        n = 0
        while time.monotonic() - started < watch:
            with contextlib.suppress(TimeoutError):
                chunk = await asyncio.wait_for(reader.read(1024), timeout=every)
                answer += chunk
                if not chunk:
                    break  # the server closed it
            writer.write(f"X-Slow-{n}: a\r\n".encode())
            n += 1
            await writer.drain()
    except ConnectionError:
        pass
    held = time.monotonic() - started
    writer.close()
    server.should_exit = True
    await serving
    status = answer.split(b"\r\n", 1)[0].decode() or "nothing"
    return held, status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.slow_request", description=__doc__.split("\n")[0])
    parser.add_argument("--deadline", type=float, default=2.0, help="our protocol's deadline, seconds")
    parser.add_argument("--watch", type=float, default=8.0, help="how long the peer goes on, seconds")
    parser.add_argument("--every", type=float, default=0.5, help="seconds between two header lines")
    options = parser.parse_args(argv)
    ours = type("Ours", (DeadlineH11Protocol,), {"request_seconds": options.deadline})
    print(f"a header line every {options.every} s, for up to {options.watch} s")
    for name, protocol in (("uvicorn h11", H11Protocol), (f"ours, {options.deadline:g} s deadline", ours)):
        held, status = asyncio.run(held_open(protocol, options.watch, options.every))
        print(f"{name:<28} connection held {held:5.1f} s, answered: {status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
