"""Which backend draws the tray here — the one place that decides — and, when none can, one
clear message instead of a traceback.

- macOS, Windows: pystray's native backends.
- Linux: our StatusNotifierItem over the session D-Bus when a panel hosts such items (KDE,
  GNOME with AppIndicator, XFCE, MATE, Cinnamon, LXQt, waybar, …; X11 and Wayland); else GTK's
  XEmbed status icon through pystray when an XEmbed tray is there and PyGObject can be
  imported (the `gtk` extra, or the system's python3-gi); with no panel at all yet, the
  StatusNotifierItem if a session bus exists (it registers when a panel starts), else GTK's.
  While it runs, the tray follows the panels that come and go (views/panels.py;
  tray_app.py switches the view), so starting before the panel is never a reason to stay hidden.
- `VAULT_RECALL_TRAY=sni|gtk|appindicator|xorg` overrides the choice, and the tray then stays
  with it; `PYSTRAY_BACKEND` alone still picks a pystray backend, as before.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, assert_never

from vault_recall.app.desktop import session_bus, tray_hosts
from vault_recall.app.tray.views.panels import GTK_PACKAGES, SNI, Backend, has_gtk, preferred

if TYPE_CHECKING:
    from collections.abc import Callable

    from vault_recall.app.tray.menu.tree import Action
    from vault_recall.app.tray.views.protocol import TrayView

TRAY_ENV = "VAULT_RECALL_TRAY"
PYSTRAY_BACKENDS: tuple[Backend, ...] = ("gtk", "appindicator", "xorg")
WATCHER = tray_hosts.WATCHER


@dataclass(frozen=True)
class Choice:
    backend: Backend | None  # None when no tray can run
    problem: str | None = None  # why not, and what to install
    follow: bool = False  # chosen for the panels there now: follow them as they come and go


def graphical_session() -> bool:
    """Whether a desktop is here to show a tray on: always on macOS and Windows; on Linux, an X
    or Wayland display named in the environment."""
    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def choose_backend() -> Choice:
    """The backend for this desktop, for the panels there now (the tray then follows them)."""
    if not sys.platform.startswith("linux"):
        return Choice("native")  # pystray's macOS and Windows backends need nothing more
    if not graphical_session():
        return Choice(
            None,
            "there is no graphical session here (neither DISPLAY nor WAYLAND_DISPLAY is set), so there is no "
            "tray to show; run `vault-recall` from your desktop session",
        )
    wanted = os.environ.get(TRAY_ENV) or os.environ.get("PYSTRAY_BACKEND")
    bus = session_bus.address() is not None
    if wanted:
        return _override(wanted, bus)
    chosen = preferred(tray_hosts.present_now(), has_gtk)
    if chosen is not None:
        return Choice(chosen, follow=True)
    if bus:
        return Choice(SNI, follow=True)  # registers with the first panel that starts
    if has_gtk():
        return Choice("gtk", follow=True)  # GTK's icon docks into the first XEmbed tray that starts
    return Choice(
        None,
        "there is no D-Bus session bus here (DBUS_SESSION_BUS_ADDRESS is not set) for a StatusNotifierItem "
        f"and GTK's XEmbed tray needs PyGObject: install {GTK_PACKAGES}",
    )


def _override(wanted: str, bus: bool) -> Choice:
    match wanted:
        case "sni":
            if bus:
                return Choice(SNI)
            return Choice(None, f"{TRAY_ENV}=sni needs a D-Bus session bus, and DBUS_SESSION_BUS_ADDRESS is not set")
        case "gtk" | "appindicator":
            if not has_gtk():
                return Choice(None, f"the {wanted} tray needs PyGObject with GTK 3: install {GTK_PACKAGES}")
            return Choice(wanted)
        case "xorg":
            return Choice(wanted)
        case _:
            return Choice(None, f"{TRAY_ENV} must be one of sni, {', '.join(PYSTRAY_BACKENDS)}; got {wanted!r}")


def tray_problem() -> str | None:
    """None when a tray with a menu can run here; else what is missing and how to get it."""
    return choose_backend().problem


def open_view(backend: Backend, dispatch: Callable[[Action], None]) -> TrayView:
    """The view for `backend`; pystray's backend is fixed before pystray is first imported."""
    match backend:
        case "sni":
            from vault_recall.app.tray.views.status_notifier.bus_view import SniView

            return SniView(dispatch)
        case "gtk" | "appindicator" | "xorg":
            if backend != "xorg" and not has_gtk():  # loads the system's PyGObject into a bare venv
                raise RuntimeError(f"the {backend} tray needs PyGObject with GTK 3: install {GTK_PACKAGES}")
            os.environ["PYSTRAY_BACKEND"] = backend
        case "native":
            pass  # pystray's own backend on macOS and Windows
        case _:
            assert_never(backend)
    from vault_recall.app.tray.views.pystray_icon import PystrayView

    return PystrayView(dispatch)


def run_tray(choice: Choice) -> None:
    """Show the tray with the chosen backend until Quit."""
    from vault_recall.app.tray.running.tray_app import TrayApp

    assert choice.backend is not None
    app = TrayApp(open_view, choice.backend, follow=choice.follow)
    try:
        app.run()
    finally:
        app.endpoint.stop()  # an HTTP endpoint the tray started ends with it
