"""Which backend the panels there call for, and following them while the tray runs — as data
and time, without the bus or X.

`preferred` is the choice for the panels there (running/backend_choice.py makes it at start); `gtk_available`
says whether GTK's icon could run without importing GTK, and `has_gtk` makes it usable
(GTK's icon, and the menu popup_menu.py draws).  While the tray
runs, `HostWatch` (desktop/tray_hosts.py) reports which tray hosts there are whenever that
changes, and the tray's watcher asks `HostFollower` once a second whether to move to another
backend (a StatusNotifierItem panel came, or only an XEmbed tray is left) and whether to tell
the person that no panel shows the icon.  A panel that restarts drops its host for a moment, so a
change must last before it counts: leaving the StatusNotifierItem (which every panel
restarting as SNI comes back to) takes longer than moving to it.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from vault_recall.app.desktop.tray_hosts import Hosts

# What draws the tray: our StatusNotifierItem, pystray's GTK, AppIndicator or Xlib icon on
# Linux, or pystray's own on macOS and Windows (backend.open_view opens each).
Backend = Literal["sni", "gtk", "appindicator", "xorg", "native"]
SNI: Final = "sni"
GTK_PACKAGES = "python3-gi gir1.2-gtk-3.0 (Debian, Ubuntu), python3-gobject gtk3 (Fedora) or python-gobject gtk3 (Arch)"
# Where distributions put PyGObject for their own Python, tried when this environment has none.
SYSTEM_SITE_DIRS = (
    "/usr/lib/python3/dist-packages",
    f"/usr/lib/python3.{sys.version_info.minor}/site-packages",
    f"/usr/lib64/python3.{sys.version_info.minor}/site-packages",
)
# Where GObject introspection finds GTK's typelib, besides GI_TYPELIB_PATH.
TYPELIB_DIRS = (
    f"{sys.prefix}/lib/girepository-1.0",
    "/usr/lib/girepository-1.0",
    "/usr/lib64/girepository-1.0",
    f"/usr/lib/{sys.implementation._multiarch}/girepository-1.0" if hasattr(sys.implementation, "_multiarch") else "",
)


@functools.cache
def gtk_available() -> bool:
    """Could GTK's XEmbed icon run here — PyGObject for this Python and GTK 3's typelib are
    installed — without importing GTK: a StatusNotifierItem tray asks whenever an XEmbed tray
    shows up, and importing GTK would cost it some 20 MB for nothing."""
    tag = f"cpython-{sys.version_info.major}{sys.version_info.minor}"
    own = importlib.util.find_spec("gi") is not None
    system = any(any((Path(site) / "gi").glob(f"_gi.{tag}*.so")) for site in SYSTEM_SITE_DIRS)
    if not (own or system):
        return False
    folders = [*os.environ.get("GI_TYPELIB_PATH", "").split(os.pathsep), *TYPELIB_DIRS]
    return any(folder and (Path(folder) / "Gtk-3.0.typelib").is_file() for folder in folders)


TO_SNI_SECONDS = 1.0
LEAVE_SNI_SECONDS = 5.0
# No panel for this long (a panel restarting takes a second or two): say what is missing.
MISSING_SECONDS = 5.0


def preferred(hosts: Hosts, gtk: Callable[[], bool]) -> Backend | None:
    """The backend these panels show, or None when no panel is there for any backend we have.
    `gtk` is asked only when an XEmbed tray alone is there (importing GTK costs memory)."""
    if hosts.sni:
        return SNI
    if hosts.xembed and gtk():
        return "gtk"
    return None


def missing_host(hosts: Hosts, gtk: Callable[[], bool]) -> str | None:
    """What keeps the icon from showing anywhere, in one sentence; None when a panel shows it."""
    if preferred(hosts, gtk) is not None:
        return None
    # Plain words: this is what a person reads in the notification (the bus names and X
    # selections behind it are in docs/troubleshooting.md).
    if hosts.xembed:
        return (
            "the panel here shows tray icons the old way (XEmbed), which needs GTK for Python, and that is not "
            f"installed: install {GTK_PACKAGES}, or use a panel with a status notifier area"
        )
    return (
        "no panel shows tray icons right now, so the icon cannot appear (recall goes on working): start your "
        "desktop's panel, or add its tray area (its status notifier plugin; on GNOME, the AppIndicator "
        "extension) — the icon appears by itself"
    )


@dataclass
class HostFollower:
    backend: Backend  # the view's backend now
    gtk: Callable[[], bool]  # can GTK's XEmbed icon be used here (asked only when it matters)
    hosts: Hosts | None = None
    since: float = 0.0  # when `hosts` became what it is
    told: bool = False  # the person was told no panel shows the icon, this time round

    def seen(self, hosts: Hosts, now: float) -> None:
        if hosts != self.hosts:
            self.hosts, self.since = hosts, now
            if preferred(hosts, self.gtk) is not None:
                self.told = False  # shown again: a later absence is news again

    def switch_to(self, now: float) -> Backend | None:
        """The backend to move to now, or None to stay."""
        if self.hosts is None:
            return None
        wanted = preferred(self.hosts, self.gtk)
        if wanted is None or wanted == self.backend:
            return None
        wait = TO_SNI_SECONDS if wanted == SNI else LEAVE_SNI_SECONDS
        return wanted if now - self.since >= wait else None

    def due_at(self) -> float | None:
        """When `switch_to` or `missing` may next answer otherwise, if the hosts stay as they are
        (monotonic); None: not before they change."""
        if self.hosts is None:
            return None
        times = []
        wanted = preferred(self.hosts, self.gtk)
        if wanted is not None and wanted != self.backend:
            times.append(self.since + (TO_SNI_SECONDS if wanted == SNI else LEAVE_SNI_SECONDS))
        if not self.told and wanted is None:
            times.append(self.since + MISSING_SECONDS)
        return min(times, default=None)

    def moved(self, backend: Backend) -> None:
        self.backend = backend

    def missing(self, now: float) -> str | None:
        """What to tell the person, once, when no panel has shown the icon for a while."""
        if self.told or self.hosts is None or now - self.since < MISSING_SECONDS:
            return None
        problem = missing_host(self.hosts, self.gtk)
        if problem is not None:
            self.told = True
        return problem


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


@functools.cache
def has_gtk() -> bool:
    """Can GTK 3 be used through PyGObject here (this environment's, or the system's)?  Asked
    once per process: the answer is what is installed."""
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
