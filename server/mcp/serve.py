"""Entry point of one `vault-recall serve` process: one client, MCP over stdio.

stdout is the MCP wire: nothing else may write to it.  Logs go to stderr.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import signal
import sys
from pathlib import Path

import anyio

from vault_recall.server.activity.store import ActivityWriter
from vault_recall.server.config.call_scope import ServeOptions
from vault_recall.server.config.client_id import CLIENT_ID_PATTERN
from vault_recall.server.mcp.stdio import serve_stdio
from vault_recall.server.mcp.tools import RecallServer, build_server

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
    options = ServeOptions(client=client, pinned_vault=vault.expanduser().absolute() if vault else None)
    server = build_server(options)
    # What start-up made (modules, the SDK's models: ~90k objects) lives as long as the process:
    # kept out of the collector's full passes, which a recall over a large vault sets off.
    gc.freeze()
    try:
        anyio.run(_serve_stdio, server)
    finally:
        server.activity.close()  # the last calls' events, before the process ends
    return 0


async def _serve_stdio(server: RecallServer) -> None:
    stop_on_signals(server.activity)
    await serve_stdio(server)


def stop_on_signals(writer: ActivityWriter) -> None:
    """On SIGTERM, SIGINT or SIGHUP: write the queued activity (bounded), then die of the signal.

    The handler runs on the event loop between two steps (never inside a call handing an event
    over), so it cannot deadlock on the writer's queue.
    """
    if os.name == "nt":
        return  # no POSIX signals; closing stdin is how clients stop servers there
    loop = asyncio.get_running_loop()
    for name in STOP_SIGNALS:
        number = getattr(signal, name)
        loop.add_signal_handler(number, _stop, writer, number)


def _stop(writer: ActivityWriter, number: int) -> None:
    writer.close(timeout=STOP_FLUSH_SECONDS)
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)  # the exit status says which signal ended the server
