"""The tray drawn by pystray: its native backends on macOS and Windows, and GTK's XEmbed status
icon (or AppIndicator) on Linux desktops whose panel has no StatusNotifierItem host.  Under GTK a
left click shows the menu, as under a StatusNotifierItem panel.

The backend is chosen before this module is imported (`running/backend_choice.py` sets PYSTRAY_BACKEND).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from typing import Any

from vault_recall.app.desktop.icon import render_icon
from vault_recall.app.tray.menu.tree import Action, Item
from vault_recall.app.tray.views.protocol import Shown

log = logging.getLogger(__name__)


class PystrayView:
    def __init__(self, dispatch: Callable[[Action], None]) -> None:
        import pystray  # imported here: the backend was chosen before

        self._pystray = pystray
        self._dispatch = dispatch
        self._lock = threading.Lock()
        self.icon = pystray.Icon("vault-recall", render_icon("unavailable", size=64), "Vault Recall")
        if os.environ.get("PYSTRAY_BACKEND") == "gtk":
            _left_click_shows_the_menu(self.icon)

    def show(self, shown: Shown) -> None:
        image = render_icon(shown.status, recalling=shown.recalling, size=64)
        menu = self._pystray.Menu(*[self._item(i) for i in shown.items])
        with self._lock:
            self.icon.icon = image
            self.icon.title = shown.tooltip
            self.icon.menu = menu
            self.icon.update_menu()

    def notify(self, message: str) -> bool:
        if not getattr(self.icon, "HAS_NOTIFICATION", False):
            return False
        try:
            self.icon.notify(message, "Vault Recall")
        except Exception:  # notification services come and go, and pystray's errors share no base
            log.warning("could not show a notification: %s", message)
            return False
        return True

    def run(self, started: Callable[[], None]) -> None:
        def setup(icon: Any) -> None:
            icon.visible = True
            started()

        self.icon.run(setup=setup)

    def stop(self) -> None:
        """End `run`.  GTK's icon is taken off the panel first: the tray may go on with another
        view (a StatusNotifierItem panel came), and a stopped GTK icon would stay docked.  The
        other backends (macOS, Windows) never hand over to another view, and touch their icon
        only from their own thread, so they are just stopped."""
        if os.environ.get("PYSTRAY_BACKEND") != "gtk":
            self.icon.stop()
            return
        from gi.repository import GLib

        self.icon.visible = False  # queued on GTK's loop, like the stop after it
        GLib.idle_add(lambda: bool(self.icon.stop()))

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
                self._dispatch(action)

        checked = None if item.checked is None else (lambda _menu_item, value=item.checked: value)
        return pystray.MenuItem(
            item.text, run, checked=checked, radio=item.radio, enabled=item.enabled, default=item.default
        )


def _left_click_shows_the_menu(icon: Any) -> None:
    """GTK's status icon runs the menu's default item on a left click (pystray's way) and shows
    the menu only on a right click; a StatusNotifierItem panel shows the menu on either.  The
    tray's menu is the whole app, so a left click shows it here too: the same menu everywhere.
    pystray keeps the GTK icon and its menu handler to itself, hence the guard."""
    status_icon = getattr(icon, "_status_icon", None)
    activate = getattr(icon, "_on_status_icon_activate", None)
    popup = getattr(icon, "_on_status_icon_popup_menu", None)
    if status_icon is None or activate is None or popup is None:
        log.warning("pystray's GTK icon changed: a left click runs the default item instead of showing the menu")
        return
    status_icon.disconnect_by_func(activate)
    status_icon.connect("activate", lambda shown: popup(shown, 1, 0))
