"""What each menu action does, whichever backend shows the menu.

`perform` runs on the tray's action worker (never on a backend's UI thread): it may read and
write the config, start the opener or a dialog, and tell the person through `notify`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from vault_recall.app.clients.catalogue import client_spec
from vault_recall.app.clients.install import apply, plan_install
from vault_recall.app.clients.launch import serve_argv
from vault_recall.app.clients.snippets import file_snippet
from vault_recall.app.desktop import autostart, clipboard, folder_picker, opener
from vault_recall.app.state.config_store import register, update_config
from vault_recall.app.tray import state as tray_state
from vault_recall.app.tray.menu import Action, TrayState
from vault_recall.server.config.config_file import ClientEntry, Config, ConfigError, VaultEntry, config_path
from vault_recall.server.obsidian.uri import obsidian_uri
from vault_recall.server.vault.listing import vault_name


@dataclasses.dataclass(frozen=True)
class ActionContext:
    state: TrayState  # what the menu showed when the item was clicked
    notify: Callable[[str], None]
    dispatch: Callable[[Action], None]  # for actions that finish later (a folder dialog)


def perform(action: Action, context: ActionContext) -> None:
    """Run one menu action.  Raises ConfigError, InstallError or OSError with a sentence the
    person can act on; the worker shows it as a notification."""
    name, *args = action
    config = context.state.config
    vault = tray_state.active_vault_path(config)
    folder_name = vault_name(vault) if vault else ""  # how Obsidian knows the vault
    if name == "use":
        update_config(lambda c: _use(c, args[0]))
    elif name == "use_path":
        update_config(lambda c: _use_path(c, Path(args[0]), args[1]))
    elif name == "choose_folder":
        folder_picker.choose_folder(lambda folder: _chosen(folder, context.dispatch))
    elif name == "open_vault" and vault is not None:
        opener.open_target(f"obsidian://open?vault={quote(folder_name, safe='')}")
    elif name == "show_folder" and vault is not None:
        opener.open_target(str(vault))
    elif name == "open_note":
        opener.open_target(obsidian_uri(args[1] if len(args) > 1 and args[1] else folder_name, args[0]))
    elif name == "show_config":
        opener.open_target(str(config_path().parent))
    elif name == "toggle":
        _toggle(args[0], context.state)
    elif name == "add_client":
        register(args[0])
    elif name == "copy_snippet":
        spec = client_spec(args[0])
        if spec is not None and clipboard.copy_text(file_snippet(spec, serve_argv(spec.id))):
            context.notify(f"{spec.name} config snippet copied")
    elif name == "install":
        spec = client_spec(args[0])
        path = spec.config_file() if spec else None
        if spec is not None and path is not None:
            backup = apply(plan_install(spec, serve_argv(spec.id), path))
            register(spec.id)
            kept = f" (old file kept as {backup.name})" if backup else ""
            context.notify(f"Vault Recall added to {path}{kept}; restart {spec.name}")
    elif name == "expose":
        update_config(lambda c: _expose(c, args[0], args[1]))
    elif name == "expose_toggle":
        update_config(lambda c: _expose_toggle(c, args[0], args[1]))


def _chosen(folder: Path | None, dispatch: Callable[[Action], None]) -> None:
    if folder is not None:
        dispatch(("use_path", str(folder), folder.name or str(folder)))


def _toggle(setting: str, state: TrayState) -> None:
    if setting == "start_at_login":
        if autostart.is_enabled():
            autostart.disable()
        else:
            autostart.enable()
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
