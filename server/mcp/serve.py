"""Entry point of one `vault-recall serve` process: one client, MCP over stdio.

stdout is the MCP wire: nothing else may write to it.  Logs go to stderr.

The MCP SDK and the tools load on a thread from the first instant, while the first line is
read and, when it is an `initialize` the SDK is certain to accept, answered at once
(early_initialize.py): the client's wait for that answer is no longer the SDK's import time.
"""

from __future__ import annotations

import gc
import importlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from vault_recall.server.config.client_id import CLIENT_ID_PATTERN
from vault_recall.server.mcp.early_initialize import EarlyInitialize, early_initialize

if TYPE_CHECKING:
    from vault_recall.server.activity.writer import ActivityWriter
    from vault_recall.server.mcp.tools import RecallServer

# What a server needs beyond this module, loaded on a thread while the first line is read.
SERVER_MODULES = ("anyio", "vault_recall.server.mcp.stdio", "vault_recall.server.mcp.tools")

# Clients stop their servers with SIGTERM and kill them a little later (Codex: 2 s after);
# the events still queued are written within this time, or lost rather than hang the stop.
STOP_FLUSH_SECONDS = 1.5
STOP_SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP")


def check_client_id(client: str) -> str | None:
    """None if `client` is a usable id, else the sentence saying why not."""
    if CLIENT_ID_PATTERN.fullmatch(client):
        return None
    return (
        f"client id {client!r} is not valid: use 1-64 lowercase letters, digits, '.', '_' or '-', "
        "starting with a letter or digit (e.g. claude-desktop)"
    )


def serve(client: str, vault: Path | None) -> int:
    """Run the stdio server until the client closes the connection; returns an exit code."""
    problem = check_client_id(client)
    if problem:
        sys.stderr.write(f"vault-recall serve: {problem}\n")
        return 2
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="vault-recall[%(process)d] %(message)s")
    with collector_paused():
        loading = threading.Thread(target=load_server_modules, name="load-sdk", daemon=True)
        loading.start()
        first = sys.stdin.buffer.readline()  # b"" when the client closed stdin at once
        answered = early_initialize(first)
        if answered is not None:
            sys.stdout.buffer.write(answered.line)
            sys.stdout.buffer.flush()
        loading.join()
        server = _build(client, vault)
    return _run(server, first, answered)


def load_server_modules() -> None:
    for name in SERVER_MODULES:
        importlib.import_module(name)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Start-up without the cyclic garbage collector, then what it made frozen.

    Loading the SDK makes ~90k objects (modules, its protocol models) that live as long as the
    process, and nothing to collect: the collector's ~200 passes over them while they are made
    were a tenth of start-up's time.  Frozen after, they are kept out of the collector's full
    passes too, which a recall over a large vault sets off.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _build(client: str, vault: Path | None) -> RecallServer:
    from vault_recall.server.config.call_scope import ServeOptions
    from vault_recall.server.mcp.tools import build_server

    options = ServeOptions(client=client, pinned_vault=vault.expanduser().absolute() if vault else None)
    return build_server(options)


def _run(server: RecallServer, first: bytes, answered: EarlyInitialize | None) -> int:
    import anyio

    open_worker_pool()
    try:
        anyio.run(_serve_stdio, server, first, answered)
    finally:
        server.activity.close()  # the last calls' events, before the process ends
        close_worker_pool()
    return 0


def open_worker_pool() -> None:
    """Let passes over a large vault use this process's pool of workers (started on the first
    such pass, not now: finding/pool.py).  `serve` and `http` alike."""
    from functools import partial

    from vault_recall.server.recall.finding.pool import RECALL_SHARES, imported, open_pool

    open_pool(warm=partial(imported, RECALL_SHARES))


def close_worker_pool() -> None:
    from vault_recall.server.recall.finding.pool import close_pool

    close_pool()


async def _serve_stdio(server: RecallServer, first: bytes, answered: EarlyInitialize | None) -> None:
    from vault_recall.server.mcp.stdio import serve_stdio

    stop_on_signals(server.activity)
    await serve_stdio(server, first=first, answered=answered)


def stop_on_signals(writer: ActivityWriter) -> None:
    """On SIGTERM, SIGINT or SIGHUP: write the queued activity (bounded), then die of the signal.

    The handler runs on the event loop between two steps (never inside a call handing an event
    over), so it cannot deadlock on the writer's queue.
    """
    if os.name == "nt":
        return  # no POSIX signals; closing stdin is how clients stop servers there
    import asyncio

    loop = asyncio.get_running_loop()
    for name in STOP_SIGNALS:
        number = getattr(signal, name)
        loop.add_signal_handler(number, _stop, writer, number)


def _stop(writer: ActivityWriter, number: int) -> None:
    writer.close(timeout=STOP_FLUSH_SECONDS)
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)  # the exit status says which signal ended the server
