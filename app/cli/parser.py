"""The `vault-recall` command line as argparse reads it: every command, its arguments and its
help.  Each command's handler is imported when the parser is built, never before: `serve`
does not come through here (main.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from vault_recall.app.cli.serve_command import SERVE_DESCRIPTION, serve_arguments
from vault_recall.server import __version__

EXIT_CODES = """\
exit codes:
  0  success (health: the vault is healthy)
  1  the command failed, one sentence on stderr (health: degraded; demo: a step failed)
  2  bad command line (health: the vault is unavailable)
"""


def build_parser() -> argparse.ArgumentParser:
    from vault_recall.app.cli import report_commands

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
        description=SERVE_DESCRIPTION,
    )
    serve_arguments(serve)

    from vault_recall.server.http.address import DEFAULT_LISTEN

    http = commands.add_parser(
        "http",
        help="serve every client that connects by URL, from one process (MCP Streamable HTTP)",
        description="Serve the same tools over MCP Streamable HTTP to many clients at once. Each client "
        "sends its own token (vault-recall client token ID) or, once you approve it, authorizes with OAuth; "
        "either names it as --client does for serve. Loopback only unless --listen names another address: "
        "then put TLS or a private network in front (docs/http.md in the source).",
    )
    http.add_argument(
        "--listen", default=DEFAULT_LISTEN, metavar="HOST:PORT", help=f"where to listen (default {DEFAULT_LISTEN})"
    )
    http.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another name clients reach this machine by (a Host header to accept), e.g. desktop.tailnet.ts.net",
    )
    http.add_argument(
        "--public-url",
        metavar="URL",
        help="the https address a proxy or tunnel gives this endpoint (e.g. https://desktop.tailnet.ts.net): OAuth "
        "metadata and redirects carry it, and its host is accepted; still listens on --listen only",
    )
    http.add_argument(
        "--no-oauth",
        action="store_true",
        help="offer no OAuth authorization (metadata, registration, approval): client tokens only",
    )
    http.add_argument(
        "--access-token-seconds",
        type=_token_seconds,
        default=3600,
        metavar="SECONDS",
        help="how long an OAuth access token lives before its app refreshes it (default 3600, 1-86400)",
    )
    http.add_argument(
        "--request-timeout",
        type=_seconds,
        default=10.0,
        metavar="SECONDS",
        help="how long one request may take to arrive whole before it gets 408 (default 10; slow-loris guard)",
    )

    demo = commands.add_parser(
        "demo",
        help="show fresh recall across two clients on a copy of the sample vault",
        description="Copy the bundled sample vault to a temporary folder, start two `serve` processes as "
        "two MCP clients, and show freshness, scoping and the three statuses, one PASS/FAIL line per step.",
    )
    demo.add_argument("--keep", action="store_true", help="keep the temporary vault copy and print where it is")

    _vault_commands(commands)
    from vault_recall.app.cli.subject_commands import add_subject_commands

    add_subject_commands(commands)
    _client_commands(commands)

    activity = commands.add_parser(
        "activity", help="show which client recalled what", description="Show recent tool calls, oldest first."
    )
    activity.add_argument("--client", metavar="ID", help="only this client's calls")
    activity.add_argument("--limit", type=_positive, default=20, metavar="N", help="how many (default 20)")
    activity.add_argument("--follow", action="store_true", help="keep printing new calls until Ctrl-C")
    activity.add_argument("--json", action="store_true", help="one JSON object per line")
    activity.set_defaults(handler=report_commands.activity)

    health = commands.add_parser(
        "health",
        help="check the vault: counts, invalid notes, oversized records, symlinks, duplicate names",
        description="Check the active vault (or --vault PATH) the way every client reads it. "
        "Exit code 0 healthy, 1 degraded (some notes are broken), 2 unavailable.",
    )
    health.add_argument("--vault", type=Path, metavar="PATH", help="check this folder instead of the active vault")
    health.add_argument("--json", action="store_true", help="the report as JSON")
    health.set_defaults(handler=report_commands.health)

    _client_config_commands(commands)

    from vault_recall.app.cli import tray_commands

    tray = commands.add_parser(
        "tray",
        help="the tray icon (what `vault-recall` with no command starts)",
        description="Show Vault Recall's tray icon: the vault and its health, who recalled what, client snippets. "
        "One tray runs per person: a second start asks the running one to show itself instead.",
    )
    tray.set_defaults(handler=tray_commands.tray)
    commands.add_parser(
        "quit", help="end the running tray", description="Ask the running tray to quit, and wait until it has."
    ).set_defaults(handler=tray_commands.quit_tray)
    commands.add_parser(
        "pause",
        help="pause recall: every client's calls answer `unavailable` until `resume`",
        description="Pause recall for every client (stdio and HTTP): each call answers `unavailable` with the "
        "reason 'paused by the person', and is recorded in the activity, until `vault-recall resume`.",
    ).set_defaults(handler=tray_commands.pause)
    commands.add_parser(
        "resume",
        help="resume recall after `pause`",
        description="End a pause: every client's next call reads the vault again.",
    ).set_defaults(handler=tray_commands.resume)

    desktop = commands.add_parser(
        "desktop",
        help="add or remove Vault Recall in the applications menu (Linux)",
        description="Install a per-user launcher (.desktop file and icons, XDG folders), or remove it.",
    )
    desktop.add_argument("action", choices=("install", "uninstall"))
    desktop.set_defaults(handler=_desktop)

    doctor = commands.add_parser(
        "doctor",
        help="check config, vault, activity store, tray, clipboard and installed clients",
        description="Check the whole chain on this machine and say what to fix. Exit 0: all fine; 1: something to fix.",
    )
    doctor.set_defaults(handler=_doctor)

    status = commands.add_parser("status", help="config, vaults, clients and last activity on one screen")
    status.set_defaults(handler=report_commands.status)
    return parser


def _vault_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from vault_recall.app.cli import config_commands

    vault = commands.add_parser("vault", help="list, add, choose or remove vaults", description="Manage vaults.")
    actions = vault.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("list", help="the vaults you added; * marks the active one").set_defaults(
        handler=config_commands.vault_list
    )
    add = actions.add_parser("add", help="add a vault folder (the first one becomes active)")
    add.add_argument("path", metavar="PATH", help="the vault folder (the one holding .obsidian/)")
    add.add_argument("--name", help="how to call it (default: the folder's name, as Obsidian does)")
    add.set_defaults(handler=config_commands.vault_add)
    use = actions.add_parser("use", help="make a vault the active one: every client's next call reads it")
    use.add_argument("name", metavar="NAME")
    use.set_defaults(handler=config_commands.vault_use)
    remove = actions.add_parser("remove", help="forget a vault (its folder is not touched)")
    remove.add_argument("name", metavar="NAME")
    remove.set_defaults(handler=config_commands.vault_remove)
    actions.add_parser("discover", help="the vaults Obsidian knows on this computer").set_defaults(
        handler=config_commands.vault_discover
    )
    languages = actions.add_parser(
        "languages",
        help="the languages a vault's notes are written in (recall matches words by their stems in these)",
        description="Show or set the languages a vault's notes are written in (English by default). Recall "
        "matches words by their stems and leaves out words such as 'the' or 'der' in these languages; a query "
        "written in another of them is recognised by itself. Known: english, german, french, spanish, italian, "
        "portuguese, dutch.",
    )
    languages.add_argument("name", metavar="NAME", help="the vault (see: vault-recall vault list)")
    languages.add_argument("languages", metavar="LANGUAGE", nargs="*", help="one or more; none: show them")
    languages.set_defaults(handler=config_commands.vault_languages)


def _client_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from vault_recall.app.cli import config_commands
    from vault_recall.server.config.config_file import ACTIVE

    client = commands.add_parser(
        "client", help="register clients and choose what each may see", description="Manage AI clients."
    )
    actions = client.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("list", help="registered clients, what they see, their last call").set_defaults(
        handler=config_commands.client_list
    )
    add = actions.add_parser("add", help="register a client id (as used in its `serve --client ID`)")
    add.add_argument("id", metavar="ID")
    add.add_argument("--vault", default=ACTIVE, metavar="NAME", help="a vault name, or 'active' (default)")
    add.set_defaults(handler=config_commands.client_add)
    expose = actions.add_parser(
        "expose",
        help="what a client may see: records (every subject's memory records), vault (every note), or SUBJECT…",
    )
    expose.add_argument("id", metavar="ID")
    expose.add_argument("rule", nargs="+", metavar="records|vault|SUBJECT")
    expose.set_defaults(handler=config_commands.client_expose)
    from vault_recall.app.cli import http_commands

    token = actions.add_parser(
        "token",
        help="make (or replace) the client's token for `vault-recall http`; printed once, only its hash is kept",
    )
    token.add_argument("id", metavar="ID")
    token.add_argument("--revoke", action="store_true", help="remove the token: refused from the next request on")
    token.set_defaults(handler=http_commands.client_token)
    from vault_recall.app.cli import grant_commands

    approve = actions.add_parser(
        "approve",
        help="let an app that authorizes with OAuth in (its browser page shows the CODE), as a client id",
    )
    approve.add_argument("code", metavar="CODE", help="the code the app's authorization page shows, e.g. ABCD-EFGH")
    approve.add_argument(
        "--as", dest="as_client", metavar="ID", help="the client id it acts as (default: from the app's name)"
    )
    approve.set_defaults(handler=grant_commands.approve_command)
    deny = actions.add_parser("deny", help="refuse an app waiting for approval")
    deny.add_argument("code", metavar="CODE")
    deny.set_defaults(handler=grant_commands.deny_command)
    actions.add_parser("grants", help="apps waiting for approval, and the OAuth grants given").set_defaults(
        handler=grant_commands.grants_command
    )
    revoke = actions.add_parser(
        "revoke", help="revoke a client's OAuth grants (or one GRANT): its tokens are refused from the next request on"
    )
    revoke.add_argument("target", metavar="ID|GRANT")
    revoke.set_defaults(handler=grant_commands.revoke_command)


def _client_config_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from vault_recall.app.cli import client_commands
    from vault_recall.app.cli.client_commands import PIN_ACTIVE
    from vault_recall.app.clients.snippets import FORMS
    from vault_recall.server.http.address import DEFAULT_URL

    pin_help = "put --vault in the entry: the active vault's folder, or PATH (default: follow the config)"
    snippet = commands.add_parser(
        "snippet",
        help="print the config snippet that makes a client start Vault Recall",
        description="Print a client's config entry for Vault Recall, in the client's own format.",
    )
    snippet.add_argument("client", nargs="?", metavar="CLIENT", help="a client id (see --list)")
    snippet.add_argument("--list", action="store_true", help="the clients, their forms and config files")
    snippet.add_argument(
        "--form",
        choices=FORMS,
        default="file",
        help="file (default), cli, link, or http (by URL, with a new token; never one an installed entry sends)",
    )
    snippet.add_argument("--url", metavar="URL", help=f"with --form http: the endpoint's URL (default {DEFAULT_URL})")
    snippet.add_argument(
        "--new-token",
        action="store_true",
        help="with --form http: make the new token even when an installed entry sends the client's current one",
    )
    snippet.add_argument("--pin-vault", nargs="?", const=PIN_ACTIVE, metavar="PATH", help=pin_help)
    snippet.set_defaults(handler=client_commands.snippet_command)

    install = commands.add_parser(
        "install",
        help="add Vault Recall to a client's config file (backed up, atomic, idempotent)",
        description="Merge our entry into the client's config file, keeping everything else; "
        "a file that does not parse is refused and the snippet printed instead.",
    )
    install.add_argument("client", metavar="CLIENT")
    install.add_argument("--dry-run", action="store_true", help="show the change as a diff, write nothing")
    install.add_argument("--config-file", metavar="PATH", help="the client's config file, if not the usual one")
    install.add_argument("--pin-vault", nargs="?", const=PIN_ACTIVE, metavar="PATH", help=pin_help)
    install.add_argument(
        "--allow-tools",
        action="store_true",
        help="also let the client run our read-only tools without asking (Claude Code, Gemini CLI, Cline)",
    )
    install.add_argument(
        "--form",
        choices=("file", "http"),
        default="file",
        help="file: the client starts `vault-recall serve` (default); http: it connects by URL with its token. "
        "Switching forms replaces our entry whole",
    )
    install.add_argument("--url", metavar="URL", help=f"with --form http: the endpoint's URL (default {DEFAULT_URL})")
    install.add_argument(
        "--new-token",
        action="store_true",
        help="with --form http: a new token even when the entry sends a valid one (kept otherwise)",
    )
    install.set_defaults(handler=client_commands.install_command)

    uninstall = commands.add_parser(
        "uninstall",
        help="remove only our entry from a client's config file",
        description="Remove only our entry (and our tools from the allow list). A URL entry's token is revoked "
        "when no other entry of ours sends it.",
    )
    uninstall.add_argument("client", metavar="CLIENT")
    uninstall.add_argument("--dry-run", action="store_true", help="show the change as a diff, write nothing")
    uninstall.add_argument("--config-file", metavar="PATH", help="the client's config file, if not the usual one")
    uninstall.set_defaults(handler=client_commands.uninstall_command)


def _desktop(args: argparse.Namespace) -> int:
    from vault_recall.app.desktop import launcher_entry

    if args.action == "install":
        written = launcher_entry.install()
        print(f"Added Vault Recall to the applications menu: {written[0]} (and {len(written) - 1} icons)")
    else:
        removed = launcher_entry.uninstall()
        print(f"Removed {len(removed)} file(s)" if removed else "Vault Recall was not in the applications menu")
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from vault_recall.app.cli.doctor import report, run_checks

    checks = run_checks()
    print(report(checks))
    return 0 if all(c.ok for c in checks) else 1


MAX_LIMIT = 100_000


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.5 <= value <= 300:
        raise argparse.ArgumentTypeError("must be a number of seconds from 0.5 to 300")
    return value


def _token_seconds(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 86400:
        raise argparse.ArgumentTypeError("must be a whole number of seconds from 1 to 86400")
    return int(text)


def _positive(text: str) -> int:
    value = int(text)
    if not 1 <= value <= MAX_LIMIT:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to {MAX_LIMIT:,}")
    return value
