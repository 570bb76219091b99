"""`vault-recall snippet`, `install` and `uninstall`: getting a client to start us."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from vault_recall.app.app_errors import CommandError, InstallError, SnippetError
from vault_recall.app.cli import http_commands
from vault_recall.app.clients.allow_list import claude_settings_file, entry_allowance, has_allow_list, plan_claude_allow
from vault_recall.app.clients.catalogue import CLIENTS, ClientSpec, client_spec
from vault_recall.app.clients.install import Plan, apply, current_entry, plan_install, plan_uninstall
from vault_recall.app.clients.launch import serve_argv
from vault_recall.app.clients.snippets import file_snippet, forms_of, snippet
from vault_recall.app.state.config_store import register
from vault_recall.server.config.config_file import load_config
from vault_recall.server.errors import ConfigError
from vault_recall.server.vault.paths import display, is_displayable

PIN_ACTIVE = "active"


def _spec(client_id: str) -> ClientSpec:
    spec = client_spec(client_id)
    if spec is None:
        known = ", ".join(c.id for c in CLIENTS)
        raise CommandError(f"unknown client {client_id!r}; known clients: {known}")
    return spec


def _pinned(value: str | None) -> Path | None:
    """--pin-vault alone pins the active vault; --pin-vault PATH pins that folder."""
    if value is None:
        return None
    if value != PIN_ACTIVE:
        path = Path(value).expanduser().absolute()
        if not is_displayable(str(path)):
            raise CommandError(f"{display(path)} is not a UTF-8 path, which client config files cannot hold")
        if not path.is_dir():
            raise CommandError(f"{path} is not a folder")
        return path
    config = load_config()
    active = config.vault(config.active_vault) if config.active_vault else None
    if active is None:
        raise CommandError("there is no active vault to pin; give a folder: --pin-vault PATH")
    return Path(active.path).expanduser().absolute()


def snippet_command(args: argparse.Namespace) -> int:
    if args.list or not args.client:
        print("client id        name                      forms           config file on this computer")
        for spec in CLIENTS:
            where = spec.paste_only or str(spec.config_file())
            print(f"{spec.id:<16} {spec.name:<25} {','.join(forms_of(spec)):<15} {where}")
        return 0
    spec = _spec(args.client)
    if args.form == "http":
        return http_commands.snippet_http(spec, http_commands.url_of(args), getattr(args, "new_token", False))
    argv = serve_argv(spec.id, _pinned(args.pin_vault))
    try:
        text = snippet(spec, argv, args.form)
    except SnippetError as exc:
        raise CommandError(str(exc)) from None
    print(text, end="" if text.endswith("\n") else "\n")
    try:
        added = register(spec.id)
    except ConfigError as exc:
        print(f"note: {spec.id} is not registered in the config: {exc}", file=sys.stderr)
        return 0
    if added:  # on stderr: stdout is the snippet alone, to paste or pipe
        said = f"Registered client {spec.id!r} in Vault Recall's config: its calls show under that name"
        print(said, file=sys.stderr)
    return 0


def install_command(args: argparse.Namespace) -> int:
    spec = _spec(args.client)
    if spec.paste_only:
        print(file_snippet(spec, serve_argv(spec.id, _pinned(args.pin_vault))), end="")
        raise CommandError(
            f"{spec.name} keeps its servers in its settings only: paste the above into {spec.paste_only}"
        )
    path = Path(args.config_file).expanduser() if args.config_file else spec.config_file()
    if path is None:
        raise CommandError(f"{spec.name} has no known config file on this system; give one with --config-file")
    load_config()  # a broken config of ours stops the install before the client's file is touched
    allow = bool(getattr(args, "allow_tools", False))
    if allow and not has_allow_list(spec):
        raise CommandError(f"{spec.name} keeps no allow list this tool edits; it asks you before running a tool")
    extra = entry_allowance(spec) if allow else None
    try:
        settings = plan_claude_allow(claude_settings_file(), allow=True) if allow and spec.id == "claude-code" else None
    except InstallError as exc:
        raise CommandError(str(exc)) from None
    if getattr(args, "form", "file") == "http":
        url = http_commands.url_of(args)
        code = http_commands.install_http(spec, url, path, args.dry_run, getattr(args, "new_token", False), extra)
        _allow(spec, settings, args.dry_run)
        return code
    argv = serve_argv(spec.id, _pinned(args.pin_vault))
    try:
        plan = plan_install(spec, argv, path, extra)
    except InstallError as exc:
        print(f"Paste this into {path} yourself:\n\n{file_snippet(spec, argv)}", file=sys.stderr)
        raise CommandError(str(exc)) from None
    if args.dry_run:
        print(plan.diff() or f"{path} already has this entry; nothing would change")
        _allow(spec, settings, dry_run=True)
        return 0
    if not plan.changes:
        print(f"{spec.name}: {path} already starts Vault Recall this way; nothing changed")
    else:
        try:
            backup = apply(plan)
        except InstallError as exc:
            print(f"Paste this into {path} yourself:\n\n{file_snippet(spec, argv)}", file=sys.stderr)
            raise CommandError(str(exc)) from None
        verb = "Replaced the Vault Recall entry in" if plan.replaced else "Added Vault Recall to"
        print(f"{verb} {path}" + (f" (old file kept as {backup.name})" if backup else ""))
        # From a URL entry to `serve`: the token it sent is sent by nobody now, unless another entry does.
        http_commands.forget_token(spec, _entry_in(spec, plan.before, plan.path), plan.path, dry_run=False)
    _allow(spec, settings, dry_run=False)
    if register(spec.id):
        print(f"Registered client {spec.id!r}: its calls show under that name")
    if plan.changes:  # an unchanged entry is what the client already runs
        print(f"Restart {spec.name} (or reload its MCP servers) to start using it.")
    return 0


def _allow(spec: ClientSpec, settings: Plan | None, dry_run: bool) -> None:
    """Add our tools to Claude Code's allow list (the plan made before the entry was written)."""
    if settings is None:
        return
    if dry_run:
        print(settings.diff() or f"{settings.path} already allows our tools; nothing would change")
    elif settings.changes:
        try:
            apply(settings)
        except InstallError as exc:
            raise CommandError(str(exc)) from None
        print(f"Allowed {spec.name} to run Vault Recall's read-only tools without asking ({settings.path})")
    else:
        print(f"{settings.path} already allows Vault Recall's tools; nothing changed")


def _entry_in(spec: ClientSpec, text: str | None, path: Path) -> dict[str, Any] | None:
    """Our entry in a file's text as it was read for a plan (None: none, or no file)."""
    try:
        return current_entry(spec, (text or "").removeprefix("\ufeff"), str(path))
    except InstallError:
        return None


def uninstall_command(args: argparse.Namespace) -> int:
    spec = _spec(args.client)
    path = Path(args.config_file).expanduser() if args.config_file else spec.config_file()
    if path is None or spec.paste_only:
        raise CommandError(f"{spec.name} has no config file this tool edits; remove the entry in its settings")
    try:
        plan = plan_uninstall(spec, path)
    except InstallError as exc:
        raise CommandError(str(exc)) from None
    removed = _entry_in(spec, plan.before, plan.path)
    if args.dry_run:
        print(plan.diff() or f"{path} has no Vault Recall entry; nothing would change")
        if plan.changes:
            http_commands.forget_token(spec, removed, plan.path, dry_run=True)
        return 0
    if not plan.changes or plan.before is None:
        print(f"{path} has no Vault Recall entry; nothing changed")
        return 0
    try:
        backup = apply(plan)
    except InstallError as exc:
        raise CommandError(str(exc)) from None
    print(f"Removed Vault Recall from {path}" + (f" (old file kept as {backup.name})" if backup else ""))
    http_commands.forget_token(spec, removed, plan.path, dry_run=False)
    _disallow(spec)
    return 0


def _disallow(spec: ClientSpec) -> None:
    """Take exactly our rules out of Claude Code's allow list, if an install put them there."""
    if spec.id != "claude-code":
        return
    try:
        settings = plan_claude_allow(claude_settings_file(), allow=False)
        if settings.changes and settings.before is not None:
            apply(settings)
            print(f"Removed Vault Recall's tools from the allow list in {settings.path}")
    except InstallError as exc:
        print(f"note: {exc}", file=sys.stderr)
