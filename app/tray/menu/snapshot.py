"""Gathering the tray's state snapshot from the shared files, and the tray's own settings.

Reads the config, Obsidian's vault list and the activity store; never a note (health comes
from the server's read-only scan, run by the tray on a thread of its own).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path

from vault_recall.app.clients.catalogue import CLIENTS
from vault_recall.app.desktop import autostart, clipboard, folder_picker
from vault_recall.app.state.config_store import update_config
from vault_recall.app.state.health import HealthReport, rules_for
from vault_recall.app.state.note_revisions import revisions_now, vault_folders
from vault_recall.app.state.obsidian_vaults import discover_vaults
from vault_recall.app.state.sample_vault import sample_vault_path
from vault_recall.app.tray.menu.items import TrayState
from vault_recall.server import __version__
from vault_recall.server.activity.queries import latest_per_client, recent_events
from vault_recall.server.config.config_file import Config, VaultEntry, activity_path, load_config
from vault_recall.server.errors import ConfigError, VaultUnavailable
from vault_recall.server.recall.answers.rule_suggestions import SuggestedRule, suggest_rules
from vault_recall.server.vault.paths import display

TRAY_KEY = "tray"
# The toggles.  The same table also holds `start_endpoint`, the address of the HTTP endpoint the
# person left running (tray/endpoint.py), which is no toggle.
DEFAULT_SETTINGS = {"notify_recall": False, "notify_health": True, "notify_changed": True}
RECENT_EVENTS = 200


def tray_settings(config: Config) -> dict[str, bool]:
    stored = dict(config.extra).get(TRAY_KEY)
    settings = dict(DEFAULT_SETTINGS)
    if isinstance(stored, dict):
        settings.update({k: v for k, v in stored.items() if k in DEFAULT_SETTINGS and isinstance(v, bool)})
    return settings


def set_tray_setting(name: str, value: bool) -> None:
    def change(config: Config) -> Config:
        extra = dict(config.extra)
        stored = dict(extra.get(TRAY_KEY) or {}) if isinstance(extra.get(TRAY_KEY), dict) else {}
        stored[name] = value
        extra[TRAY_KEY] = stored
        return dataclasses.replace(config, extra=tuple(extra.items()))

    update_config(change)


def ensure_a_vault() -> None:
    """First run with nothing configured: the bundled sample vault is the active one, marked as
    the sample (every answer from it says so, and `vault add` replaces it as the active one).
    A sample vault added by an older tray, unmarked, is marked now."""

    def change(config: Config) -> Config:
        sample_path = sample_vault_path()
        if config.vaults:
            vaults = tuple(
                dataclasses.replace(v, sample=True) if not v.sample and Path(v.path) == sample_path else v
                for v in config.vaults
            )
            return dataclasses.replace(config, vaults=vaults)
        sample = VaultEntry(name="Sample vault", path=str(sample_path), sample=True)
        return dataclasses.replace(config, vaults=(sample,), active_vault=sample.name)

    # A broken config is shown in the menu; a missing sample vault is not worth failing for.
    with contextlib.suppress(ConfigError, FileNotFoundError, OSError):
        update_config(change)


@dataclass(frozen=True)
class Suggested:
    """Subject rules proposed for the vault at `path` (shown as HealthReport.path shows it)."""

    path: str
    rules: tuple[SuggestedRule, ...]


def look_for_suggestions(vault: Path | None, report: HealthReport) -> Suggested | None:
    """The subject rules the vault's folders, tags and properties suggest, for the tray's menu:
    looked for on a readable vault with no records (what its first menu offers) or with rules
    (what *Subjects from rules* offers beside them); a vault whose notes name their subjects
    and that has no rules is not read again for them.  One pass over the notes, on the health
    check's thread, never the menu's."""
    if vault is None or report.status == "unavailable" or report.path != display(vault):
        return None
    rules = rules_for(vault)
    if report.records and not rules:
        return Suggested(report.path, ())
    try:
        return Suggested(report.path, tuple(suggest_rules(vault, rules.rules)))
    except VaultUnavailable:
        return None


def gather(health: HealthReport | None, now: float | None = None, suggested: Suggested | None = None) -> TrayState:
    try:
        config = load_config()
        error = None
    except ConfigError as exc:
        config, error = Config(), str(exc)
    settings = tray_settings(config)
    try:
        sample: Path | None = sample_vault_path()
    except FileNotFoundError:
        sample = None
    store = activity_path()
    active = active_vault_path(config)
    if health is not None and (active is None or health.path != display(active)):
        health = None  # a report about another vault (just switched): "checking…" until the new one
    offers = suggested.rules if suggested is not None and health is not None and suggested.path == health.path else ()
    # A vault Obsidian remembers whose folder is gone cannot be picked: it is not offered.
    known = tuple(vault for vault in discover_vaults() if vault.path.is_dir())
    recent = tuple(recent_events(store, limit=RECENT_EVENTS))
    # The notes the menu may show, newest first, each read now for its "changed since" mark.
    shown = ((event.vault or "", path) for event in reversed(recent) for path, given in event.given() if given)
    return TrayState(
        config=config,
        config_error=error,
        health=health,
        suggestions=offers,
        known_vaults=known,
        recent=recent,
        revisions_now=revisions_now(shown, vault_folders(config, known)),
        clients=tuple(latest_per_client(store)),
        sample_vault=sample,
        notify_recall=settings["notify_recall"],
        notify_health=settings["notify_health"],
        notify_changed=settings["notify_changed"],
        start_at_login=autostart.is_enabled(),
        now=now if now is not None else time.time(),
        can_copy=clipboard.HAS_CLIPBOARD,
        can_pick_folder=folder_picker.can_pick_folder(),
        found_clients=frozenset(spec.id for spec in CLIENTS if spec.found_here()),
        version=__version__,
        gone_vaults=frozenset(v.name for v in config.vaults if not Path(v.path).expanduser().is_dir()),
    )


def current_vault_path() -> Path | None:
    """The active vault as the config says right now (None too when the config is broken)."""
    try:
        return active_vault_path(load_config())
    except ConfigError:
        return None


def active_vault_path(config: Config) -> Path | None:
    entry = config.vault(config.active_vault) if config.active_vault else None
    return Path(entry.path).expanduser() if entry else None
