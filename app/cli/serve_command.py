"""`vault-recall serve`'s own command line: parsed before anything else is imported, because
the AI client that started it waits for its first answer (main.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

SERVE_DESCRIPTION = (
    "Run one MCP server over stdio for one AI client. stdout carries the protocol; "
    "messages for people go to stderr. The vault and what the client may see are read from the "
    "config on every call, unless --vault pins a vault folder."
)


def serve_arguments(serve: argparse.ArgumentParser) -> None:
    serve.add_argument("--client", required=True, metavar="ID", help="who is asking, e.g. cursor or claude-desktop")
    serve.add_argument("--vault", type=Path, metavar="PATH", help="pin this vault folder instead of the config's")
