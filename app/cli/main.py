"""The `vault-recall` command line.

Subcommands import what they need when they run, so `vault-recall serve` (started once per
AI client, which waits for its first answer) loads only the server side: never the other
commands, the tray, pystray or Pillow.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence

from vault_recall.app.app_errors import CommandError
from vault_recall.app.cli.serve_command import SERVE_DESCRIPTION, serve_arguments


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; a reader that stops reading (`vault-recall status | head -3`) ends it
    quietly, with the command's own exit code (0 when it went well)."""
    _survive_any_encoding()
    try:
        code = _run(argv)
        sys.stdout.flush()  # here, not at exit: a closed pipe is then ours to handle
        return code
    except SystemExit:  # --help, --version and usage errors, printed by argparse
        _flush_quietly()
        raise
    except BrokenPipeError:
        _detach_stdout()
        return 0


def _survive_any_encoding() -> None:
    """Print what the console's encoding cannot hold as a backslash escape instead of failing.

    A Windows console piped (or Python told PYTHONIOENCODING=cp1252) encodes in its code page,
    which lacks "→", most scripts and every emoji: printing one raised UnicodeEncodeError, after
    the command had done its work.  Escapes rather than "?": nothing is lost (a vault's path or an
    app's name can still be read back), and in a snippet's JSON or TOML `\\uXXXX` is the same
    character.  The encoding is kept: UTF-8 consoles print everything as before."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            stream.reconfigure(errors="backslashreplace")


def _flush_quietly() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _detach_stdout()


def _detach_stdout() -> None:
    """Point stdout at the null device, so the interpreter's last flush cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _run(argv: Sequence[str] | None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["serve"]:  # the client waits for its first answer: parse nothing else
        serve_parser = argparse.ArgumentParser(prog="vault-recall serve", description=SERVE_DESCRIPTION)
        serve_arguments(serve_parser)
        serving = serve_parser.parse_args(words[1:])
        from vault_recall.server.mcp.serve import serve

        return serve(serving.client, serving.vault)
    from vault_recall.app.cli.parser import build_parser
    from vault_recall.server.errors import ConfigError

    parser = build_parser()
    args = parser.parse_args(words)
    if args.command == "http":
        from vault_recall.server.http.endpoint import run_endpoint

        return run_endpoint(
            args.listen,
            args.allow_host,
            args.request_timeout,
            args.public_url,
            not args.no_oauth,
            args.access_token_seconds,
        )
    if args.command == "demo":
        from vault_recall.app.cli.demo import run_demo

        return run_demo(keep=args.keep)
    from vault_recall.app.cli.tray_commands import tray

    handler = getattr(args, "handler", tray)  # no command: the tray
    try:
        code: int = handler(args)
    except ConfigError as exc:
        print(f"vault-recall: {exc} (nothing was changed; fix the file or move it away)", file=sys.stderr)
        return 1
    except CommandError as exc:
        print(f"vault-recall: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        raise  # the reader went away: not an error (main)
    except OSError as exc:
        print(f"vault-recall: {exc.filename or ''}: {exc.strerror}", file=sys.stderr)
        return 1
    return code
