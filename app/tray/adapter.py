"""The pystray adapter: turns the menu model into pystray's menu, runs actions, keeps it fresh.

A background thread polls cheap signs of change (the activity store's newest event id, the
config file's time, the vault folder's times) once a second; health is re-checked on a thread
of its own every minute and whenever the vault changes, so neither a slow disk nor a big vault
ever blocks the menu.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import queue
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from vault_recall.app.clients.catalogue import client_spec
from vault_recall.app.clients.install import InstallError, apply, plan_install
from vault_recall.app.clients.launch import serve_argv
from vault_recall.app.clients.snippets import file_snippet
from vault_recall.app.desktop import autostart, clipboard, folder_picker, opener
from vault_recall.app.desktop.icon import render_icon
from vault_recall.app.state.activity_view import newest_event_id, recent_events
from vault_recall.app.state.config_store import register, update_config
from vault_recall.app.state.health import HealthReport, check_health
from vault_recall.app.tray import state as tray_state
from vault_recall.app.tray.endpoint import EndpointError, EndpointProcess, endpoint_action
from vault_recall.app.tray.menu import Item, build_menu, client_name, note_name, status_of, tooltip
from vault_recall.server.config.config_file import (
    ClientEntry,
    Config,
    ConfigError,
    VaultEntry,
    activity_path,
    config_path,
)
from vault_recall.server.obsidian.uri import obsidian_uri
from vault_recall.server.vault.listing import vault_name

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0
# Health is re-checked when the vault's folder changes, when a recall reports another status,
# and otherwise every 30 checks' worth of time: 15 s for a small vault, up to 5 min for a huge one.
HEALTH_MIN_SECONDS, HEALTH_MAX_SECONDS, HEALTH_COST_FACTOR = 15.0, 300.0, 30.0
RECALL_MARK_SECONDS = 3.0
# Set to a file path, the tray writes its current menu model there as JSON (tests, debugging).
MENU_DUMP_ENV = "VAULT_RECALL_TRAY_MENU_DUMP"


def menu_as_data(items: tuple[Item, ...]) -> list[dict[str, Any]]:
    return [
        {
            "text": i.text,
            "action": list(i.action) if i.action else None,
            "checked": i.checked,
            "enabled": i.enabled,
            "submenu": menu_as_data(i.submenu) if i.submenu is not None else None,
        }
        for i in items
    ]


class TrayApp:
    """Three threads touch it: GTK's (menu clicks, which only queue actions), the watcher (polls
    and refreshes) and the action worker (runs actions, then refreshes).  Gathering state reads
    files and happens outside the lock; only swapping the icon's menu and image is locked."""

    def __init__(self) -> None:
        import pystray  # imported here: the backend was chosen before (tray_backend)

        self._pystray = pystray
        self._lock = threading.Lock()
        self._health: HealthReport | None = None
        self._checking = False
        self._stop = threading.Event()
        self._actions: queue.Queue[tuple[str, ...]] = queue.Queue()
        newest = newest_event_id(activity_path())
        self._last_event = newest or 0
        self._recall_until = 0.0
        self._fingerprint: Any = None
        self._config_mtime: int | None = None
        self._next_health = 0.0
        self.endpoint = EndpointProcess()
        self.state = tray_state.gather(None)
        self.icon = pystray.Icon("vault-recall", self._image(self.state), tooltip(self.state), self._menu(self.state))

    # -- running ------------------------------------------------------------------------------

    def run(self) -> None:
        self.icon.run(setup=self._setup)

    def _setup(self, icon: Any) -> None:
        icon.visible = True
        threading.Thread(target=self._watch, name="tray-watch", daemon=True).start()
        threading.Thread(target=self._work, name="tray-actions", daemon=True).start()

    def _watch(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            try:
                self._poll()
            except Exception:  # the thread's entry point: keep watching whatever happened
                log.exception("tray refresh failed")

    def _work(self) -> None:
        while not self._stop.is_set():
            action = self._actions.get()
            try:
                self._do(action)
            except (ConfigError, InstallError, EndpointError, OSError) as exc:
                self._notify(str(exc))
                log.warning("%s: %s", action[0], exc)
            except Exception:  # the thread's entry point: the next click must still work
                log.exception("tray action %s failed", action[0])
            if not self._stop.is_set():
                self.refresh()

    def _poll(self) -> None:
        changed = False
        newest = newest_event_id(activity_path())
        if newest is not None and newest != self._last_event:  # None: the store is busy, not empty
            self._on_recalls(newest)
            changed = True
        try:
            mtime: int | None = config_path().stat().st_mtime_ns
        except OSError:
            mtime = None
        if mtime != self._config_mtime:
            self._config_mtime = mtime
            self._next_health = 0.0  # the active vault may have changed:
            self.refresh()  # read it now, so the health check below is for the right one
        vault = tray_state.active_vault_path(self.state.config)
        fingerprint = tray_state.vault_fingerprint(vault)
        if fingerprint != self._fingerprint:
            self._fingerprint = fingerprint
            self._next_health = 0.0
        if time.monotonic() >= self._next_health and not self._checking:
            self._start_health_check(vault)
        if self._recall_until and time.monotonic() > self._recall_until:
            self._recall_until = 0.0
            changed = True
        if changed:
            self.refresh()

    def _on_recalls(self, newest: int) -> None:
        after = self._last_event if newest > self._last_event else 0  # a recreated store starts over
        events = recent_events(activity_path(), limit=50, after_id=after)
        self._last_event = newest
        if self._health is not None and any(e.status not in (None, "error", self._health.status) for e in events):
            self._next_health = 0.0  # a server just saw the vault differently: look again now
        fresh = [e for e in events if e.returned]
        if not fresh:
            return
        self._recall_until = time.monotonic() + RECALL_MARK_SECONDS
        if self.state.notify_recall:
            latest = fresh[-1]
            self._notify(f"{client_name(latest.client)} recalled {note_name(latest.returned[0])}")

    def _start_health_check(self, vault: Path | None) -> None:
        self._checking = True
        self._next_health = time.monotonic() + HEALTH_MAX_SECONDS

        def check() -> None:
            try:
                started = time.monotonic()
                report = check_health(vault, "no vault is chosen yet")
                cost = time.monotonic() - started
                if self._next_health:  # 0 means a change asked for another look meanwhile: keep it
                    self._next_health = time.monotonic() + min(
                        HEALTH_MAX_SECONDS, max(HEALTH_MIN_SECONDS, HEALTH_COST_FACTOR * cost)
                    )
                before = self._health
                if vault != tray_state.current_vault_path():
                    self._next_health = 0.0  # the vault changed meanwhile: check the new one
                    return
                self._health = report
                same_vault = before is not None and before.path == report.path
                if same_vault and before.status != report.status and self.state.notify_health:  # type: ignore[union-attr]
                    self._notify(report.summary(self.state.config.active_vault))
                self.refresh()
            except Exception:  # the thread's entry point
                log.exception("health check failed")
            finally:
                self._checking = False

        threading.Thread(target=check, name="tray-health", daemon=True).start()

    def refresh(self) -> None:
        """Rebuild state, menu, icon and tooltip from fresh data."""
        state = dataclasses.replace(tray_state.gather(self._health), endpoint_url=self.endpoint.url)
        if state.health is None and self._health is not None:
            self._next_health = 0.0  # the report was about another vault: check this one
        image, title, menu = self._image(state), tooltip(state), self._menu(state)
        with self._lock:
            self.state = state
            self.icon.icon = image
            self.icon.title = title
            self.icon.menu = menu
            self.icon.update_menu()

    def _image(self, state: Any) -> Any:
        return render_icon(status_of(state), recalling=bool(self._recall_until), size=64)

    def _notify(self, message: str) -> None:
        if getattr(self.icon, "HAS_NOTIFICATION", False):
            try:
                self.icon.notify(message, "Vault Recall")
            except Exception:  # notification daemons come and go; the tray must not
                log.warning("could not show a notification: %s", message)

    # -- the menu -----------------------------------------------------------------------------

    def _menu(self, state: Any) -> Any:
        items = build_menu(state)
        dump = os.environ.get(MENU_DUMP_ENV)
        if dump:
            temp = dump + ".tmp"
            Path(temp).write_text(json.dumps(menu_as_data(items), ensure_ascii=False), encoding="utf-8")
            os.replace(temp, dump)
        return self._pystray.Menu(*[self._item(i) for i in items])

    def _item(self, item: Item) -> Any:
        pystray = self._pystray
        if item.separator:
            return pystray.Menu.SEPARATOR
        if item.submenu is not None:
            return pystray.MenuItem(
                item.text, pystray.Menu(*[self._item(i) for i in item.submenu]), enabled=item.enabled
            )
        action = item.action

        def run(icon: Any, menu_item: Any) -> None:
            if action:
                self.dispatch(action)

        checked = None if item.checked is None else (lambda _menu_item, value=item.checked: value)
        return pystray.MenuItem(
            item.text, run, checked=checked, radio=item.radio, enabled=item.enabled, default=item.default
        )

    # -- actions ------------------------------------------------------------------------------

    def dispatch(self, action: tuple[str, ...]) -> None:
        """Called on GTK's thread: hand the action to the worker so no click waits on a disk."""
        if action == ("quit",):
            self._stop.set()
            self._actions.put(action)  # wakes the worker so it can end
            self.icon.stop()
            return
        self._actions.put(action)

    def _do(self, action: tuple[str, ...]) -> None:
        name, *args = action
        config = self.state.config
        vault = tray_state.active_vault_path(config)
        folder_name = vault_name(vault) if vault else ""  # how Obsidian knows the vault
        if name == "quit":
            self.endpoint.stop()
            return
        if endpoint_action(action, self.endpoint, self._notify):
            return
        if name == "use":
            update_config(lambda c: _use(c, args[0]))
        elif name == "use_path":
            update_config(lambda c: _use_path(c, Path(args[0]), args[1]))
        elif name == "choose_folder":
            folder_picker.choose_folder(self._chosen)
        elif name == "open_vault" and vault is not None:
            opener.open_target(f"obsidian://open?vault={quote(folder_name, safe='')}")
        elif name == "show_folder" and vault is not None:
            opener.open_target(str(vault))
        elif name == "open_note":
            opener.open_target(obsidian_uri(args[1] if len(args) > 1 and args[1] else folder_name, args[0]))
        elif name == "show_config":
            opener.open_target(str(config_path().parent))
        elif name == "toggle":
            self._toggle(args[0])
        elif name == "add_client":
            register(args[0])
        elif name == "copy_snippet":
            spec = client_spec(args[0])
            if spec is not None and clipboard.copy_text(file_snippet(spec, serve_argv(spec.id))):
                self._notify(f"{spec.name} config snippet copied")
        elif name == "install":
            spec = client_spec(args[0])
            path = spec.config_file() if spec else None
            if spec is not None and path is not None:
                backup = apply(plan_install(spec, serve_argv(spec.id), path))
                register(spec.id)
                kept = f" (old file kept as {backup.name})" if backup else ""
                self._notify(f"Vault Recall added to {path}{kept}; restart {spec.name}")
        elif name == "expose":
            update_config(lambda c: _expose(c, args[0], args[1]))
        elif name == "expose_toggle":
            update_config(lambda c: _expose_toggle(c, args[0], args[1]))

    def _chosen(self, folder: Path | None) -> None:
        if folder is not None:
            self.dispatch(("use_path", str(folder), folder.name or str(folder)))

    def _toggle(self, setting: str) -> None:
        if setting == "start_at_login":
            if autostart.is_enabled():
                autostart.disable()
            else:
                autostart.enable()
        else:
            current = getattr(self.state, setting)
            tray_state.set_tray_setting(setting, not current)


def _use(config: Config, name: str) -> Config:
    if config.vault(name) is None:
        raise ConfigError(config_path(), None, f"there is no vault named {name!r}")
    return _replace(config, active_vault=name)


def _use_path(config: Config, path: Path, name: str) -> Config:
    name = name.strip() or str(path)  # a drive or '/' has no folder name
    if not path.is_dir():
        raise ConfigError(config_path(), None, f"{path} is not a folder")
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


def _expose(config: Config, client_id: str, rule: str) -> Config:
    return _with_client(config, dataclasses.replace(_client(config, client_id), exposure=rule))


def _expose_toggle(config: Config, client_id: str, subject: str) -> Config:
    entry = _client(config, client_id)
    chosen = list(entry.exposure) if isinstance(entry.exposure, tuple) else []
    chosen = [s for s in chosen if s != subject] if subject in chosen else [*chosen, subject]
    rule: str | tuple[str, ...] = tuple(chosen) if chosen else "records"
    return _with_client(config, dataclasses.replace(entry, exposure=rule))


def _replace(config: Config, **changes: Any) -> Config:
    return dataclasses.replace(config, **changes)
