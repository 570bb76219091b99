"""Entry point of one `vault-recall serve` process: one client, MCP over stdio.

stdout is the MCP wire: nothing else may write to it.  Logs go to stderr.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import anyio

from vault_recall.server.config.call_scope import ServeOptions
from vault_recall.server.config.config_file import CLIENT_ID_PATTERN
from vault_recall.server.mcp.stdio import serve_stdio
from vault_recall.server.mcp.tools import build_server


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
    try:
        anyio.run(serve_stdio, server)
    finally:
        server.activity.close()  # the last calls' events, before the process ends
    return 0
