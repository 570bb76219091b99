"""`vault-recall doctor`: check the whole chain on this machine and say what to fix.

config readable → vault readable → activity store writable → tray backend → clipboard → each
installed client's entry, started as that client starts it (the same command, the environment
that client gives a server), reaching this config and this activity store (clients/probe.py).
"""

from __future__ import annotations

import os
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_recall.app.clients.catalogue import CLIENTS, ClientSpec
from vault_recall.app.clients.install import InstallError, current_entry, read_existing
from vault_recall.app.clients.probe import entry_argv, probe
from vault_recall.app.desktop import clipboard, folder_picker, tray_hosts
from vault_recall.app.state.activity_view import store_problem
from vault_recall.app.state.health import check_health
from vault_recall.app.tray.backend import tray_problem
from vault_recall.app.tray.panels import gtk_available, missing_host
from vault_recall.server.activity.store import ActivityStoreError, connect
from vault_recall.server.config.call_scope import ServeOptions, current_scope
from vault_recall.server.config.config_file import ConfigError, activity_path, config_path, load_config
from vault_recall.server.vault.listing import vault_name


@dataclass(frozen=True)
class Check:
    what: str
    ok: bool
    detail: str
    fix: str = ""


def run_checks() -> list[Check]:
    checks = [_config()]
    if checks[0].ok:
        checks.append(_vault())
    checks += [_activity(), _tray(), _folder_dialog(), _clipboard(), *_clients()]
    return checks


def _config() -> Check:
    path = config_path()
    try:
        config = load_config()
    except ConfigError as exc:
        return Check("config", False, str(exc), "fix that line (Vault Recall never overwrites a broken config)")
    where = str(path) if path.exists() else f"{path} (not created yet: defaults)"
    if config.paused:
        return Check(
            "config", False, f"{where}: recall is paused (every call answers `unavailable`)", "vault-recall resume"
        )
    return Check("config", True, f"{where}; {len(config.vaults)} vault(s), {len(config.clients)} client(s)")


def _vault() -> Check:
    scope = current_scope(ServeOptions(client="vault-recall-doctor"))
    report = check_health(scope.vault, scope.why or "no vault is configured")
    if report.status == "unavailable":
        return Check("vault", False, report.summary(), "vault-recall vault add PATH, or fix the folder named above")
    if report.status == "degraded":
        return Check("vault", True, report.summary() + " (see vault-recall health)")
    if scope.notice is not None:
        return Check(
            "vault", False, report.summary() + ": the bundled sample vault, not yours", "vault-recall vault add PATH"
        )
    if report.records == 0:
        return Check(
            "vault",
            False,
            report.summary() + ": no note names a `subject` in its properties yet, so there is nothing to recall",
            "see README: Memory records (a note with `subject: some-topic` in its properties is one)",
        )
    return Check("vault", True, report.summary())


def _activity() -> Check:
    path = activity_path()
    problem = store_problem(path)
    if problem is not None:
        sentence, _, fix = problem.partition("; ")
        return Check("activity", False, sentence, fix or "move it away")
    try:
        connection = connect(path)
        connection.close()
    except (sqlite3.Error, OSError, ValueError, ActivityStoreError) as exc:
        return Check(
            "activity",
            False,
            f"{path} cannot be written: {exc}",
            f"make {path.parent} writable for you (calls still answer; activity is not recorded)",
        )
    return Check("activity", True, f"{path} is writable")


def _tray() -> Check:
    problem = tray_problem()
    if problem is not None:
        return Check("tray", False, problem.splitlines()[0], "see README: The tray (Linux desktop requirements)")
    if not sys.platform.startswith("linux"):
        return Check("tray", True, "a tray with a menu can run here")
    hosts = tray_hosts.present_now()
    missing = missing_host(hosts, gtk_available)
    if missing is not None:
        return Check("tray", False, missing, "start your desktop's panel, or add its tray (status notifier) plugin")
    which = "a panel hosting StatusNotifierItems" if hosts.sni else "an XEmbed tray (GTK's icon is used)"
    return Check("tray", True, f"{which} shows the icon here")


def _folder_dialog() -> Check:
    if folder_picker.can_pick_folder():
        return Check("folder dialog", True, "the tray's Choose folder… can show one")
    return Check(
        "folder dialog",
        False,
        "no folder dialog here (no desktop portal, zenity or kdialog): the tray's Choose folder… shows the command",
        "install xdg-desktop-portal-gtk or zenity, or add the vault with: vault-recall vault add PATH",
    )


def _clipboard() -> Check:
    command = clipboard.copy_command()
    if command is None:
        return Check("clipboard", False, "no clipboard tool found", "install xclip (X11) or wl-clipboard (Wayland)")
    return Check("clipboard", True, f"copies with {command[0]}")


def _clients() -> list[Check]:
    checks = []
    for spec in CLIENTS:
        path = spec.config_file()
        if path is None or not path.exists():
            continue
        try:
            entry = current_entry(spec, read_existing(path) or "", str(path))
        except InstallError as exc:
            checks.append(Check(f"client {spec.id}", False, str(exc), f"fix {path} by hand"))
            continue
        if entry is None:
            continue
        checks.append(_answers(spec, path, entry))
    return checks


def _answers(spec: ClientSpec, path: Path, entry: dict[str, Any]) -> Check:
    """Start the entry as its client does and check it reaches this config and store."""
    what = f"client {spec.id}"
    reinstall = f"vault-recall install {spec.id} (from the shell whose config you mean)"
    argv = entry_argv(spec, entry)
    if not argv or not Path(argv[0]).is_absolute():
        return Check(what, False, f"{path} starts {argv[:1]!r}, not an absolute path", reinstall)
    if not (Path(argv[0]).is_file() and os.access(argv[0], os.X_OK)):
        return Check(what, False, f"{path} starts {argv[0]}, which does not exist or cannot run", reinstall)
    pinned = argv[argv.index("--vault") + 1] if "--vault" in argv[:-1] else None
    client = argv[argv.index("--client") + 1] if "--client" in argv[:-1] else spec.id
    scope = current_scope(ServeOptions(client=client, pinned_vault=Path(pinned) if pinned else None))
    expected = vault_name(scope.vault) if scope.vault is not None else None
    result = probe(spec, entry, expected, activity_path())
    return Check(what, result.ok, f"{path}: {result.detail}", "" if result.ok else reinstall)


def report(checks: list[Check]) -> str:
    width = max(len(c.what) for c in checks)
    lines = []
    for check in checks:
        lines.append(f"{'ok  ' if check.ok else 'FAIL'}  {check.what:<{width}}  {check.detail}")
        if not check.ok and check.fix:
            lines.append(f"      {'':<{width}}  fix: {check.fix}")
    return "\n".join(lines)
