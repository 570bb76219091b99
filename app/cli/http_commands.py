"""`vault-recall client token`, and snippets and install in the URL form (`--form http`): what a
client needs to reach `vault-recall http` — the endpoint's URL and its own bearer token."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path

from vault_recall.app.cli.config_commands import CommandError, check_client_id
from vault_recall.app.clients.catalogue import TOKEN_ENV, ClientSpec
from vault_recall.app.clients.install import InstallError, Plan, apply, current_entry, plan_install, plan_uninstall
from vault_recall.app.clients.snippets import SnippetError, http_snippet, http_spec
from vault_recall.app.state.config_store import issue_token, revoke_token
from vault_recall.server.config.config_file import load_config
from vault_recall.server.mcp.http_address import DEFAULT_URL

# Keys only a stdio entry has: an entry of ours holding one is replaced whole, not merged into.
_STDIO_KEYS = frozenset({"command", "args", "cmd", "env", "envs", "env_keys"})


def client_token(args: argparse.Namespace) -> int:
    """Create or rotate a client's token (stdout: the token alone, for scripts), or revoke it."""
    check_client_id(args.id)
    if args.revoke:
        if revoke_token(args.id):
            print(f"Revoked the token of client {args.id!r}: the endpoint refuses it from its next request on")
        else:
            print(f"Client {args.id!r} has no token; nothing changed")
        return 0
    token, replaced = issue_token(args.id)
    print(token)
    old = " The old one stops working on its next request." if replaced else ""
    print(
        f"This is client {args.id!r}'s token for `vault-recall http`, shown only this once.{old}\n"
        "The client sends it as the header 'Authorization: Bearer <token>'; "
        f"`vault-recall install {args.id} --form http` writes it into the client's config for you.",
        file=sys.stderr,
    )
    return 0


def snippet_http(spec: ClientSpec, url: str) -> int:
    """Print the URL entry with a new token for the client (said on stderr: the old one stops working)."""
    try:
        http_spec(spec, url, "")  # refuses a client with no URL form before a token is made
    except SnippetError as exc:
        raise CommandError(str(exc)) from None
    token, replaced = issue_token(spec.id)
    print(http_snippet(spec, url, token), end="")
    _token_note(spec, token, replaced)
    return 0


def install_http(spec: ClientSpec, url: str, path: Path, dry_run: bool) -> int:
    """Write the URL entry, with a new token, into the client's config file, made readable by its
    owner only (it holds the token)."""
    load_config()  # a broken config of ours stops the install before the client's file is touched
    try:
        placeholder = http_spec(spec, url, "<new token>")
    except SnippetError as exc:
        raise CommandError(str(exc)) from None
    existing = _existing_entry(spec, path)
    stdio_before = existing is not None and bool(_STDIO_KEYS & set(existing))
    if dry_run:
        plan = _plan(placeholder, path)
        print(plan.diff() or f"{path} already has this entry; nothing would change")
        print(f"(a new token for {spec.id} would be made and written where '<new token>' stands)", file=sys.stderr)
        return 0
    token, replaced = issue_token(spec.id)
    target = http_spec(spec, url, token)
    if stdio_before:  # switching from `serve` to the URL: our old entry goes first, whole
        _apply(plan_uninstall(spec, path), spec, url, token)
    _private(path)
    plan = _plan(target, path)
    backup = _apply(plan, spec, url, token)
    verb = "Replaced the Vault Recall entry in" if stdio_before or plan.replaced else "Added Vault Recall to"
    print(f"{verb} {path} (by URL: {url})" + (f" (old file kept as {backup.name})" if backup else ""))
    print(f"{path} is readable by you only: it holds {spec.id}'s token.")
    _token_note(spec, token, replaced)
    print(f"Start the endpoint (vault-recall http, or the tray), then restart {spec.name}.")
    return 0


def _existing_entry(spec: ClientSpec, path: Path) -> dict[str, object] | None:
    try:
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        return current_entry(spec, text.removeprefix("\ufeff"), str(path))
    except (OSError, UnicodeDecodeError, InstallError):
        return None  # the install itself says what is wrong with the file


def _plan(spec: ClientSpec, path: Path) -> Plan:
    try:
        return plan_install(spec, [], path)
    except InstallError as exc:
        raise CommandError(str(exc)) from None


def _apply(plan: Plan, spec: ClientSpec, url: str, token: str) -> Path | None:
    try:
        return apply(plan)
    except InstallError as exc:
        print(f"Paste this into the file yourself:\n\n{http_snippet(spec, url, token)}", file=sys.stderr)
        raise CommandError(str(exc)) from None


def _private(path: Path) -> None:
    """Take group and other permissions off the client's config before the token goes in (the
    backup made beside it then gets the same)."""
    target = path.resolve() if path.is_symlink() else path
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        return  # a new file is written 0600
    if mode & 0o077:
        os.chmod(target, mode & 0o700)


def _token_note(spec: ClientSpec, token: str, replaced: bool) -> None:
    old = " (its old token stops working on its next request)" if replaced else ""
    if spec.id == "codex":
        print(
            f"\nCodex reads the token from the environment: start it with {TOKEN_ENV} set, e.g. keep\n"
            f"  export {TOKEN_ENV}={token}\n"
            "in a file only you can read (chmod 600) and source it from your shell's profile." + old,
            file=sys.stderr,
        )
    else:
        print(f"A new token was made for {spec.id}{old}; it is in the entry above.", file=sys.stderr)


def url_of(args: argparse.Namespace) -> str:
    url: str = getattr(args, "url", None) or DEFAULT_URL
    if not url.startswith(("http://", "https://")):
        raise CommandError(f"--url {url!r} must start with http:// or https://")
    return url
