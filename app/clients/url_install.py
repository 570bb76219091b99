"""Installing a client's entry for `vault-recall http` (the URL form) into its config file, as
a plain function with a typed result: `vault-recall install ID --form http` prints it, the
tray's *Install by URL* says it in a notification.

The token our entry already sends is kept while it is valid; otherwise a new one is made,
written into the file, and only then made valid.  The file is made readable by its owner only
first: it holds the token (or, for Codex, the address of an endpoint that takes one).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_recall.app.app_errors import InstallError, SnippetError, UrlInstallFailed
from vault_recall.app.clients.catalogue import ClientSpec
from vault_recall.app.clients.install import Plan, apply, current_entry, plan_install
from vault_recall.app.clients.snippets import http_spec
from vault_recall.app.clients.url_token import url_token
from vault_recall.app.state.config_store import issue_token
from vault_recall.app.state.config_store import new_token as new_token_text
from vault_recall.server.config.bearer_tokens import client_of_token
from vault_recall.server.config.config_file import Config, load_config


@dataclass(frozen=True)
class UrlInstall:
    """What installing by URL did."""

    plan: Plan
    backup: Path | None  # the old file, kept beside it (None: a new file, or nothing changed)
    token: str  # the token the entry sends now
    kept: bool  # the valid token the entry sent already (else a new one was made)
    replaced: bool  # a token the client had before stopped working


def token_in_environment(spec: ClientSpec) -> bool:
    """Whether the client reads its token from an environment variable (Codex), not its entry."""
    return spec.http is not None and "bearer_token_env_var" in spec.http("", "")


def check_url_form(spec: ClientSpec, url: str) -> None:
    """Refuse a client with no URL form, or a URL it cannot take, before any token is made."""
    try:
        http_spec(spec, url, "")
    except SnippetError as exc:
        raise InstallError(str(exc)) from None


def valid_token_sent(spec: ClientSpec, path: Path, config: Config) -> str | None:
    """The token our entry in `path` sends now, if it is this client's valid token."""
    existing = existing_entry(spec, path)
    sends = url_token(spec, existing, path) if existing is not None else None
    if sends is None or sends.token is None:
        return None
    return sends.token if client_of_token(config, sends.token) == spec.id else None


def existing_entry(spec: ClientSpec, path: Path) -> dict[str, object] | None:
    try:
        target = path.resolve() if path.is_symlink() else path
        text = target.read_text(encoding="utf-8") if target.is_file() else ""
        return current_entry(spec, text.removeprefix("\ufeff"), str(path))
    except (OSError, UnicodeDecodeError, InstallError):
        return None  # the install itself says what is wrong with the file


def plan_url_entry(spec: ClientSpec, url: str, token: str, path: Path, extra: dict[str, Any] | None = None) -> Plan:
    return plan_install(http_spec(spec, url, token), [], path, extra)


def install_by_url(
    spec: ClientSpec, url: str, path: Path, new_token: bool = False, extra: dict[str, Any] | None = None
) -> UrlInstall:
    """Write the URL entry into `path`.  Raises InstallError (one sentence), or UrlInstallFailed
    when the file could not be written after the token was made."""
    config = load_config()  # a broken config of ours stops the install before the client's file is touched
    check_url_form(spec, url)
    kept = None if new_token else valid_token_sent(spec, path, config)
    token = kept or new_token_text()
    _private(path)
    plan = plan_url_entry(spec, url, token, path, extra)
    try:
        backup = apply(plan)
    except InstallError as exc:
        if not kept:  # the snippet to paste must work: its token is made valid now
            issue_token(spec.id, token)
        raise UrlInstallFailed(str(exc), token) from None
    replaced = False
    if not kept:
        _, replaced = issue_token(spec.id, token)
    return UrlInstall(plan=plan, backup=backup, token=token, kept=kept is not None, replaced=replaced)


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
