"""What the tray app and its backends (pystray's, in pystray_icon.py, or our
StatusNotifierItem, in status_notifier/bus_view.py) agree on: what is drawn, and what a backend does."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from vault_recall.app.desktop.icon import IconStatus
from vault_recall.app.tray.menu.tree import Action, Item
from vault_recall.app.tray.views.panels import Backend


@dataclass(frozen=True)
class Shown:
    """Everything a backend draws: the icon's state, the tooltip and the menu model."""

    status: IconStatus
    recalling: bool  # a client recalled a moment ago (the blue dot)
    tooltip: str
    items: tuple[Item, ...]


class TrayView(Protocol):
    """What a backend (pystray's, or our StatusNotifierItem) does for the tray."""

    def show(self, shown: Shown) -> None:
        """Draw `shown`; called from any thread."""

    def notify(self, message: str) -> bool:
        """Show a notification the backend's own way; False when it has none."""

    def run(self, started: Callable[[], None]) -> None:
        """Show the icon and block until `stop`; call `started` once it is up."""

    def stop(self) -> None:
        """End `run`; called from any thread."""


# backend, dispatch → the view drawing the tray with that backend (backend.open_view)
ViewFactory = Callable[[Backend, Callable[[Action], None]], TrayView]


def menu_as_data(items: tuple[Item, ...]) -> list[dict[str, Any]]:
    """The menu model as JSON data (the tray writes it for tests and debugging: MENU_DUMP_ENV)."""
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


def dump_menu(items: tuple[Item, ...], path: str | None) -> None:
    """Write the menu model to `path` as JSON, whole or not at all (nothing when None)."""
    if path:
        temp = path + ".tmp"
        Path(temp).write_text(json.dumps(menu_as_data(items), ensure_ascii=False), encoding="utf-8")
        os.replace(temp, path)
