"""The `vault-recall` command line.

Subcommands import what they need when they run, so `vault-recall serve` (started once per
AI client) loads only the server side: never the tray, pystray or Pillow.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from server import __version__

EXIT_CODES = """\
exit codes:
  0  success
  1  a check failed (demo: a step printed FAIL)
  2  bad command line
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vault-recall",
        description="Let every AI client on this computer recall the decisions kept in an Obsidian vault.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"vault-recall {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = commands.add_parser(
        "serve",
        help="run the MCP stdio server for one AI client (clients start this themselves)",
        description="Run one MCP server over stdio for one AI client. stdout carries the protocol; "
        "messages for people go to stderr.",
    )
    serve.add_argument("--client", required=True, metavar="ID", help="who is asking, e.g. cursor or claude-desktop")
    serve.add_argument("--vault", type=Path, metavar="PATH", help="the Obsidian vault folder to read")

    demo = commands.add_parser(
        "demo",
        help="show fresh recall across two clients on a copy of the sample vault",
        description="Copy the bundled sample vault to a temporary folder, start two `serve` processes as "
        "two MCP clients, and show freshness, scoping and the three statuses, one PASS/FAIL line per step.",
    )
    demo.add_argument("--keep", action="store_true", help="keep the temporary vault copy and print where it is")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "serve":
        from server.serve import serve

        return serve(args.client, args.vault)
    if args.command == "demo":
        from app.demo import run_demo

        return run_demo(keep=args.keep)
    parser.print_help(sys.stderr)
    return 2
