"""Which backend draws the tray here — the one place that decides — and, when none can, one
clear message instead of a traceback.

- macOS, Windows: pystray's native backends.
- Linux: our StatusNotifierItem over the session D-Bus when a panel hosts such items (KDE,
  GNOME with AppIndicator, XFCE, MATE, Cinnamon, LXQt, waybar, …; X11 and Wayland); else GTK's
  XEmbed status icon through pystray, when PyGObject can be imported (the `gtk` extra, or the
  system's python3-gi); else, if a session bus exists, the StatusNotifierItem anyway, waiting
  a moment for a panel that is still starting (login).
- `VAULT_RECALL_TRAY=sni|gtk|appindicator|xorg` overrides the choice; `PYSTRAY_BACKEND` alone
  still picks a pystray backend, as before.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from vault_recall.app.desktop import session_bus

if TYPE_CHECKING:
    from collections.abc import Callable

    from vault_recall.app.tray.menu import Action
    from vault_recall.app.tray.tray_app import TrayView

TRAY_ENV = "VAULT_RECALL_TRAY"
SNI = "sni"
PYSTRAY_BACKENDS = ("gtk", "appindicator", "xorg")
WATCHER = "org.kde.StatusNotifierWatcher"
WATCHER_WAIT_SECONDS = 3.0
GTK_PACKAGES = "python3-gi gir1.2-gtk-3.0 (Debian, Ubuntu), python3-gobject gtk3 (Fedora) or python-gobject gtk3 (Arch)"
# Where distributions put PyGObject for their own Python, tried when this environment has none.
SYSTEM_SITE_DIRS = (
    "/usr/lib/python3/dist-packages",
    f"/usr/lib/python3.{sys.version_info.minor}/site-packages",
    f"/usr/lib64/python3.{sys.version_info.minor}/site-packages",
)


@dataclass(frozen=True)
class Choice:
    backend: str | None  # sni | gtk | appindicator | xorg | native; None when no tray can run
    problem: str | None = None  # why not, and what to install


def _system_gi() -> bool:
    """Load the system's PyGObject (python3-gi) into this environment, when it was built for
    this Python: a venv does not see the system's packages, and PyGObject has no wheels.
    Only the `gi` package is taken, nothing else from the system's site folder."""
    tag = f"cpython-{sys.version_info.major}{sys.version_info.minor}"
    for site in SYSTEM_SITE_DIRS:
        package = Path(site) / "gi"
        if (package / "__init__.py").is_file() and any(package.glob(f"_gi.{tag}*.so")):
            spec = importlib.util.spec_from_file_location(
                "gi", package / "__init__.py", submodule_search_locations=[str(package)]
            )
            if spec is None or spec.loader is None:
                continue
            module = importlib.util.module_from_spec(spec)
            sys.modules["gi"] = module
            try:
                spec.loader.exec_module(module)
            except ImportError:
                del sys.modules["gi"]
                continue
            return True
    return False


def has_gtk() -> bool:
    """Can GTK 3 be used through PyGObject here (this environment's, or the system's)?"""
    try:
        import gi
    except ImportError:
        if not _system_gi():
            return False
        import gi
    try:
        with warnings.catch_warnings():
            # PyGObject before 3.44 loads through a finder Python 3.11 warns about; harmless.
            warnings.simplefilter("ignore", ImportWarning)
            gi.require_version("Gtk", "3.0")
            from gi.repository import Gtk  # noqa: F401
    except (ImportError, ValueError):
        return False
    return True


def _watcher(wait: float) -> bool:
    deadline = time.monotonic() + wait
    while True:
        if session_bus.has_owner(WATCHER):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.25)


def choose_backend(wait_for_panel: bool = False) -> Choice:
    """The backend for this desktop.  With `wait_for_panel`, a desktop whose panel may still
    be starting (a login) gets a few seconds before GTK-less machines are told what to install."""
    if not sys.platform.startswith("linux"):
        return Choice("native")  # pystray's macOS and Windows backends need nothing more
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return Choice(
            None,
            "there is no graphical session here (neither DISPLAY nor WAYLAND_DISPLAY is set), so there is no "
            "tray to show; run `vault-recall` from your desktop session",
        )
    wanted = os.environ.get(TRAY_ENV) or os.environ.get("PYSTRAY_BACKEND")
    bus = session_bus.address() is not None
    if wanted:
        return _override(wanted, bus)
    if bus and _watcher(0.0):
        return Choice(SNI)
    if has_gtk():
        return Choice("gtk")
    if bus and _watcher(WATCHER_WAIT_SECONDS if wait_for_panel else 0.0):
        return Choice(SNI)
    if bus:
        return Choice(
            None,
            "no panel on this desktop shows StatusNotifierItem icons (nothing owns org.kde.StatusNotifierWatcher "
            f"on the session bus) and GTK's XEmbed tray needs PyGObject: install {GTK_PACKAGES}, "
            "or `pip install 'vault-recall[gtk]'` in Vault Recall's environment",
        )
    return Choice(
        None,
        "there is no D-Bus session bus here (DBUS_SESSION_BUS_ADDRESS is not set) for a StatusNotifierItem "
        f"and GTK's XEmbed tray needs PyGObject: install {GTK_PACKAGES}",
    )


def _override(wanted: str, bus: bool) -> Choice:
    if wanted == SNI:
        if bus:
            return Choice(SNI)
        return Choice(None, f"{TRAY_ENV}=sni needs a D-Bus session bus, and DBUS_SESSION_BUS_ADDRESS is not set")
    if wanted not in PYSTRAY_BACKENDS:
        return Choice(None, f"{TRAY_ENV} must be one of sni, {', '.join(PYSTRAY_BACKENDS)}; got {wanted!r}")
    if wanted != "xorg" and not has_gtk():
        return Choice(None, f"the {wanted} tray needs PyGObject with GTK 3: install {GTK_PACKAGES}")
    return Choice(wanted)


def tray_problem() -> str | None:
    """None when a tray with a menu can run here; else what is missing and how to get it."""
    return choose_backend().problem


def open_view(choice: Choice, dispatch: Callable[[Action], None]) -> TrayView:
    """The view for `choice`; pystray's backend is fixed before pystray is first imported."""
    if choice.backend == SNI:
        from vault_recall.app.tray.sni_view import SniView

        return SniView(dispatch)
    if choice.backend in PYSTRAY_BACKENDS:
        os.environ["PYSTRAY_BACKEND"] = str(choice.backend)
    from vault_recall.app.tray.pystray_view import PystrayView

    return PystrayView(dispatch)


def run_tray(choice: Choice) -> None:
    """Show the tray with the chosen backend until Quit."""
    from vault_recall.app.tray.tray_app import TrayApp

    app = TrayApp(lambda dispatch: open_view(choice, dispatch))
    try:
        app.run()
    finally:
        app.endpoint.stop()  # an HTTP endpoint the tray started ends with it
