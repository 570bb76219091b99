"""`vault-recall client token`, and snippets and install in the URL form (`--form http`): what a
client needs to reach `vault-recall http` — the endpoint's URL and its own bearer token.

Tokens are the person's to manage: nothing here replaces a token an installed entry sends
without being asked to (`--new-token`, `client token ID`), and then it names the entries cut
off; an install keeps the valid token our entry already sends; removing our URL entry revokes
its token unless another entry of ours sends it; every message says where the token is.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from vault_recall.app.app_errors import CommandError, InstallError, SnippetError, UrlInstallFailed
from vault_recall.app.cli.config_commands import require_client_id
from vault_recall.app.clients.catalogue import TOKEN_ENV, ClientSpec
from vault_recall.app.clients.snippets import http_snippet, http_spec
from vault_recall.app.clients.url_install import (
    check_url_form,
    install_by_url,
    plan_url_entry,
    token_in_environment,
    valid_token_sent,
)
from vault_recall.app.clients.url_token import InstalledUrlEntry, entries_using, url_token
from vault_recall.app.state.config_store import issue_token, revoke_token
from vault_recall.app.state.config_store import new_token as new_token_text
from vault_recall.server.config.bearer_tokens import client_of_token
from vault_recall.server.config.config_file import Config, load_config
from vault_recall.server.errors import ConfigError
from vault_recall.server.http.address import DEFAULT_URL


def client_token(args: argparse.Namespace) -> int:
    """Create or rotate a client's token (stdout: the token alone, for scripts), or revoke it.
    Either way, the installed entries that send the old token are named: they are refused now."""
    require_client_id(args.id)
    using = _entries_sending(args.id, load_config())
    cut_off = "".join(f"\nThe entry in {u.path} sent it and is refused from now on." for u in using)
    again = f" (`vault-recall install {using[0].spec.id} --form http` gives it a new one)" if using else ""
    if args.revoke:
        if revoke_token(args.id):
            print(f"Revoked the token of client {args.id!r}: the endpoint refuses it from its next request on{cut_off}")
        else:
            print(f"Client {args.id!r} has no token; nothing changed")
        return 0
    token, replaced = issue_token(args.id)
    print(token)
    old = f" The old one stops working on its next request.{cut_off}{again}" if replaced else ""
    print(
        f"This is client {args.id!r}'s token for `vault-recall http`, shown only this once.{old}\n"
        "The client sends it as the header 'Authorization: Bearer <token>' (Codex: from the variable "
        f"{TOKEN_ENV}); `vault-recall install {args.id} --form http` instead makes a token and writes it "
        "into the client's config itself.",
        file=sys.stderr,
    )
    return 0


def snippet_http(spec: ClientSpec, url: str, new_token: bool = False) -> int:
    """Print the URL entry with a new token for the client — unless an installed entry sends the
    client's token now: a new one would cut that entry off, so that takes --new-token."""
    try:
        http_spec(spec, url, "")  # refuses a client with no URL form before a token is made
    except SnippetError as exc:
        raise CommandError(str(exc)) from None
    config = load_config()
    using = _entries_sending(spec.id, config)
    if using and not new_token:
        where = using[0].path
        raise CommandError(
            f"{spec.id}'s token is the one its entry in {where} sends, and a snippet comes with a new token, which "
            f"would get that entry refused from its next call; that entry already is the snippet — copy it from there, "
            f"or run `vault-recall snippet {spec.id} --form http --new-token` to make a new token anyway"
        )
    token, replaced = issue_token(spec.id)
    print(http_snippet(spec, url, token), end="")
    if token_in_environment(spec):
        _codex_export(token, f"{spec.name} reads it from the environment, not from the entry above")
    else:
        print(f"The token is in the entry above, in its Authorization header (new for {spec.id}).", file=sys.stderr)
    if replaced:
        _old_token_gone(spec.id, using)
    return 0


def install_http(
    spec: ClientSpec,
    url: str,
    path: Path,
    dry_run: bool,
    new_token: bool = False,
    extra: dict[str, Any] | None = None,
) -> int:
    """Write the URL entry into the client's config file, made readable by its owner only (it
    holds the token).  The token the entry sends already is kept while it is valid; otherwise
    (or with --new-token) a new one is made, written into the file, and only then made valid."""
    if dry_run:
        return _dry_run(spec, url, path, new_token, extra)
    try:
        done = install_by_url(spec, url, path, new_token, extra)
    except UrlInstallFailed as exc:
        print(f"Paste this into the file yourself:\n\n{http_snippet(spec, url, exc.token)}", file=sys.stderr)
        if token_in_environment(spec):
            _codex_export(exc.token, f"{spec.name} reads it from the environment")
        raise CommandError(str(exc)) from None
    except InstallError as exc:
        raise CommandError(str(exc)) from None
    plan, backup, token, kept = done.plan, done.backup, done.token, done.kept
    in_file = not token_in_environment(spec)
    if not plan.changes:
        print(f"{spec.name}: {path} already reaches the endpoint at {url} this way; nothing changed")
    else:
        verb = "Replaced the Vault Recall entry in" if plan.replaced else "Added Vault Recall to"
        print(f"{verb} {path} (by URL: {url})" + (f" (old file kept as {backup.name})" if backup else ""))
        held = f"it holds {spec.id}'s token" if in_file else f"{spec.name}'s token is not in it but in the environment"
        print(f"{path} is readable by you only: {held}.")
    if not in_file:
        if kept:
            print(f"{spec.name} reads its token from ${TOKEN_ENV}, which this shell sets to {spec.id}'s token: kept.")
        else:
            _codex_export(token, f"{spec.name} reads it from the environment, not from {path}")
    elif kept:
        print(f"Its token is the one already in the Authorization header of the entry in {path}: kept.")
    else:
        print(f"Its token is in the Authorization header of the entry in {path} (a new one for {spec.id}).")
    if done.replaced:
        print(f"{spec.id}'s old token stops working on its next request.")
    if plan.changes or not kept:
        print(f"Start the endpoint (vault-recall http, or the tray), then restart {spec.name}.")
    return 0


def _dry_run(spec: ClientSpec, url: str, path: Path, new_token: bool, extra: dict[str, Any] | None) -> int:
    config = load_config()  # a broken config of ours stops the install before the client's file is touched
    try:
        check_url_form(spec, url)
        kept = None if new_token else valid_token_sent(spec, path, config)
        token = kept or new_token_text()
        plan = plan_url_entry(spec, url, token, path, extra)
    except InstallError as exc:
        raise CommandError(str(exc)) from None
    shown = "<the token it sends now, kept>" if kept else "<new token>"
    print(plan.diff().replace(token, shown) or f"{path} already has this entry; nothing would change")
    if not kept:
        print(f"(a new token for {spec.id} would be made and written where '<new token>' stands)", file=sys.stderr)
    return 0


def forget_token(spec: ClientSpec, removed: dict[str, object] | None, path: Path, dry_run: bool) -> None:
    """After our URL entry left `path`: revoke the token it sent, unless another entry of ours
    (in any client's usual file) still sends it.  A stdio entry sends no token: nothing to do."""
    sends = url_token(spec, removed, path) if removed is not None else None
    if sends is None:
        return
    try:
        config = load_config()
    except ConfigError as exc:
        print(f"note: {spec.id}'s token was left as it is: {exc}", file=sys.stderr)
        return
    owner = client_of_token(config, sends.token) if sends.token else spec.id
    entry = config.client(owner) if owner else None
    if owner is None or entry is None or entry.token_sha256 is None:
        return  # it sent no valid token: nothing to revoke
    here = path.resolve()
    others = [other for other in _entries_sending(owner, config) if other.path.resolve() != here]
    if others:
        print(f"Kept {owner}'s token: the entry in {others[0].path} still sends it.")
    elif dry_run:
        print(f"({owner}'s token would be revoked: no other entry of ours sends it)", file=sys.stderr)
    elif revoke_token(owner):
        print(f"Revoked {owner}'s token: no other entry of ours sends it, so no copy of it (backups included) works.")


def _entries_sending(client_id: str, config: Config) -> list[InstalledUrlEntry]:
    """The installed URL entries sending `client_id`'s token (none when it has no token)."""
    entry = config.client(client_id)
    if entry is None or entry.token_sha256 is None:
        return []
    return entries_using(client_id, lambda token: client_of_token(config, token))


def _old_token_gone(client_id: str, using: list[InstalledUrlEntry]) -> None:
    note = f"{client_id}'s old token stops working on its next request"
    if using:
        note += f"; the entry in {using[0].path} sends it, so put the new one there too"
    print(note + ".", file=sys.stderr)


def _codex_export(token: str, why: str) -> None:
    print(
        f"\nIts token: {why}. Start it with {TOKEN_ENV} set, e.g. keep\n"
        f"  export {TOKEN_ENV}={token}\n"
        "in a file only you can read (chmod 600) and source it from your shell's profile.",
        file=sys.stderr,
    )


def url_of(args: argparse.Namespace) -> str:
    url: str = getattr(args, "url", None) or DEFAULT_URL
    if not url.startswith(("http://", "https://")):
        raise CommandError(f"--url {url!r} must start with http:// or https://")
    return url
