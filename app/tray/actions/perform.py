"""What each menu action does, whichever backend shows the menu.

`perform` runs on the tray's action worker (never on a backend's UI thread): it may read and
write the config, start the opener or a dialog, and tell the person through `notify` — a short
summary and, where there is more to say (where a token went, which file changed), a body.
"""

from __future__ import annotations

import dataclasses
import shlex
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, assert_never
from urllib.parse import quote

from vault_recall.app.clients.launch import launcher
from vault_recall.app.desktop import autostart, clipboard, folder_picker, opener
from vault_recall.app.desktop.notifications import Notify
from vault_recall.app.state.config_store import update_config
from vault_recall.app.state.note_revisions import revisions_now, vault_folders
from vault_recall.app.state.pause import set_paused
from vault_recall.app.tray.actions import pages
from vault_recall.app.tray.actions.client_setup import client_action
from vault_recall.app.tray.actions.rule_changes import subject_action
from vault_recall.app.tray.menu import snapshot as tray_state
from vault_recall.app.tray.menu.items import TrayState, is_vault_action
from vault_recall.app.tray.menu.tree import Action
from vault_recall.app.tray.notices import PAUSED_NOTICE, RESUMED_NOTICE
from vault_recall.server import __version__
from vault_recall.server.activity.queries import count_events, recent_events
from vault_recall.server.config.config_file import (
    ClientEntry,
    ClientExposure,
    Config,
    VaultEntry,
    activity_path,
    config_path,
    named_exposure,
)
from vault_recall.server.errors import ConfigError
from vault_recall.server.obsidian.resolve import obsidian_uri
from vault_recall.server.vault.listing import vault_name

# The whole activity page holds at most this many calls (the newest); the store keeps up to
# 100,000 and a browser would choke on a page of them all.
ACTIVITY_PAGE_EVENTS = 10_000
DOCTOR_SECONDS = 180.0


@dataclasses.dataclass(frozen=True)
class ActionContext:
    state: TrayState  # what the menu showed when the item was clicked
    notify: Notify
    dispatch: Callable[[Action], None]  # for actions that finish later (a folder dialog)


def perform(action: Action, context: ActionContext) -> None:
    """Run one menu action.  Raises ConfigError, InstallError, RuleChangeError or OSError with a
    sentence the person can act on; the worker shows it as a notification."""
    name, *args = action
    state, notify = context.state, context.notify
    config = state.config
    vault = tray_state.active_vault_path(config)
    folder_name = vault_name(vault) if vault else ""  # how Obsidian knows the vault
    if client_action(action, state, notify) or subject_action(action, state, notify):
        return
    if not is_vault_action(name):
        # The endpoint's, the approvals' and quit are the tray's to run before it calls here.
        raise ValueError(f"{name!r} is not an action perform runs")
    match name:
        case "use":
            update_config(lambda c: _use(c, args[0]))
        case "use_path":
            update_config(lambda c: _use_path(c, Path(args[0]), args[1]))
        case "choose_folder":
            if not folder_picker.choose_folder(lambda folder: _chosen(folder, context.dispatch)):
                _copy_add_vault(notify)  # the dialog went away since the menu was built
        case "copy_add_vault":
            _copy_add_vault(notify)
        case "open_vault":
            # Also a left click sent as Activate where the tray can draw no menu of its own
            # (status_notifier/bus_view.py marks it): a person who meant the menu is told where it is.
            if vault is not None:
                uri = f"obsidian://open?vault={quote(folder_name, safe='')}"
                _open(uri, notify, "Obsidian links", vault, MENU_HINT if args[-1:] == ["click"] else "")
        case "show_folder":
            if vault is not None:
                _open(str(vault), notify, "folders", vault)
        case "open_note":
            where = args[1] if len(args) > 1 and args[1] else folder_name
            folder = vault_folders(config, state.known_vaults).get(where)
            _open(obsidian_uri(where, args[0]), notify, "Obsidian links", folder / args[0] if folder else Path(args[0]))
        case "show_config":
            _open(str(config_path().parent), notify, "folders", config_path().parent)
        case "toggle":
            _toggle(args[0], state, notify)
        case "expose":
            update_config(lambda c: _expose(c, args[0], args[1]))
        case "expose_toggle":
            update_config(lambda c: _expose_toggle(c, args[0], args[1]))
        case "help":
            _open_page("help", _help(), notify, args[0] if args else "")
        case "show_activity":
            _open_page("activity", _activity(config), notify)
        case "doctor":
            threading.Thread(target=_doctor, args=(notify,), name="tray-doctor", daemon=True).start()
        case _:
            assert_never(name)


MENU_HINT = "For Vault Recall's menu, right-click the icon."


def _open(target: str, notify: Notify, what: str, shown: Path, more: str = "") -> None:
    """Open `target`; when nothing here opens it, say so and where the thing is."""

    def failed() -> None:
        hint = " (is Obsidian installed?)" if what == "Obsidian links" else ""
        notify(f"Nothing here opens {what}{hint}", f"It is {shown}." + (f" {more}" if more else ""))

    opener.open_target(target, failed)


def _open_page(name: str, html: str, notify: Notify, anchor: str = "") -> None:
    path = pages.write_page(name, html)
    target = path.as_uri() + (f"#{anchor}" if anchor else "")
    opener.open_target(target, lambda: notify("Nothing here opens web pages", f"The page is {path}"))


def _help() -> str:
    command = shlex.join(launcher())
    return pages.help_page(__version__, command, config_path(), activity_path())


def _activity(config: Config) -> str:
    store = activity_path()
    events = list(reversed(recent_events(store, limit=ACTIVITY_PAGE_EVENTS)))
    notes = [(e.vault or "", path) for e in events for path, given in e.given() if given]
    now = revisions_now(notes, vault_folders(config), limit=1000)
    return pages.activity_page(events, count_events(store), now, config.activity.keep_query_text)


def _doctor(notify: Notify) -> None:
    """`vault-recall doctor` as a process of its own (it starts each installed client's entry),
    its report opened as a page."""
    try:
        done = subprocess.run(
            [*launcher(), "doctor"], capture_output=True, text=True, timeout=DOCTOR_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        notify("The doctor could not run", str(exc))
        return
    report = done.stdout + (f"\n{done.stderr}" if done.stderr.strip() else "")
    failing = sum(1 for line in done.stdout.splitlines() if line.startswith("FAIL"))
    _open_page("doctor", pages.doctor_page(report, done.returncode), notify)
    if failing:
        notify(f"Doctor: {failing} thing{'s' if failing != 1 else ''} to fix", "Its report is open in your browser.")
    else:
        notify("Doctor: nothing to fix", "Its report is open in your browser.")


def _copy_add_vault(notify: Notify) -> None:
    command = shlex.join([*launcher(), "vault", "add"]) + " "
    if clipboard.copy_text(command):
        notify(
            "No folder dialog here: the command is copied",
            "Paste it in a terminal and add your vault's folder: " + command + "~/path/to/vault",
        )
    else:
        notify("No folder dialog here", "In a terminal: " + command + "~/path/to/vault")


def _chosen(folder: Path | None, dispatch: Callable[[Action], None]) -> None:
    if folder is not None:
        dispatch(("use_path", str(folder), folder.name or str(folder)))


def _toggle(setting: str, state: TrayState, notify: Notify) -> None:
    if setting == "start_at_login":
        if autostart.is_enabled():
            autostart.disable()
        else:
            autostart.enable()
    elif setting == "paused":
        if set_paused(not state.config.paused):
            notify(*(RESUMED_NOTICE if state.config.paused else PAUSED_NOTICE))
    else:
        current = getattr(state, setting)
        tray_state.set_tray_setting(setting, not current)


def _use(config: Config, name: str) -> Config:
    if config.vault(name) is None:
        raise ConfigError(config_path(), None, f"there is no vault named {name!r}")
    return _replace(config, active_vault=name)


def _use_path(config: Config, path: Path, name: str) -> Config:
    name = name.strip() or str(path)  # a drive or '/' has no folder name
    if not path.is_dir():
        raise ConfigError(config_path(), None, f"{path} is not a folder (any more)")
    for entry in config.vaults:
        if Path(entry.path).expanduser() == path:
            return _replace(config, active_vault=entry.name)
    unique = name
    number = 2
    while config.vault(unique) is not None:
        unique = f"{name} ({number})"
        number += 1
    return _replace(config, vaults=(*config.vaults, VaultEntry(unique, str(path))), active_vault=unique)


def _client(config: Config, client_id: str) -> ClientEntry:
    return config.client(client_id) or ClientEntry(id=client_id)


def _with_client(config: Config, entry: ClientEntry) -> Config:
    others = tuple(c for c in config.clients if c.id != entry.id)
    if config.client(entry.id) is None:
        return _replace(config, clients=(*others, entry))
    return _replace(config, clients=tuple(entry if c.id == entry.id else c for c in config.clients))


def _expose(config: Config, client_id: str, word: str) -> Config:
    rule = named_exposure(word)
    if rule is None:
        raise ConfigError(config_path(), None, f"{word!r} is not an exposure: use 'records' or 'vault'")
    return _with_client(config, dataclasses.replace(_client(config, client_id), exposure=rule))


def _expose_toggle(config: Config, client_id: str, subject: str) -> Config:
    entry = _client(config, client_id)
    chosen = list(entry.exposure) if isinstance(entry.exposure, tuple) else []
    chosen = [s for s in chosen if s != subject] if subject in chosen else [*chosen, subject]
    rule: ClientExposure = tuple(chosen) if chosen else "records"
    return _with_client(config, dataclasses.replace(entry, exposure=rule))


def _replace(config: Config, **changes: Any) -> Config:
    return dataclasses.replace(config, **changes)
