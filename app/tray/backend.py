"""Can this desktop show our tray, and with which pystray backend?  Answers before pystray is
imported, so a missing piece is one clear message instead of a traceback."""

from __future__ import annotations

import os
import sys

LINUX_PACKAGES = {
    "Debian/Ubuntu": "sudo apt-get install libgirepository1.0-dev libcairo2-dev gir1.2-gtk-3.0 "
    "gir1.2-ayatanaappindicator3-0.1",
    "Fedora": "sudo dnf install gobject-introspection-devel cairo-gobject-devel gtk3 libayatana-appindicator-gtk3",
    "Arch": "sudo pacman -S gobject-introspection cairo gtk3 libayatana-appindicator",
}


def _has_gi_module(name: str, version: str) -> bool:
    try:
        import gi

        gi.require_version(name, version)
        __import__(f"gi.repository.{name}")
    except (ImportError, ValueError):
        return False
    return True


def tray_problem() -> str | None:
    """None when a tray with a menu can run here; else what is missing and how to get it."""
    if not sys.platform.startswith("linux"):
        return None  # pystray's macOS and Windows backends need nothing more
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return (
            "there is no graphical session here (neither DISPLAY nor WAYLAND_DISPLAY is set), so there is no "
            "tray to show; run `vault-recall` from your desktop session"
        )
    if not _has_gi_module("Gtk", "3.0"):
        lines = "\n".join(f"  {distro}: {command}" for distro, command in LINUX_PACKAGES.items())
        return (
            "the tray menu needs PyGObject with GTK 3 (pystray's plain X11 backend cannot show a menu).\n"
            f"Install the system packages:\n{lines}\n"
            "then, in Vault Recall's environment: pip install 'vault-recall[gtk]'"
        )
    return None


def choose_backend() -> None:
    """Pick pystray's backend once, before it is imported (PYSTRAY_BACKEND wins if set)."""
    if not sys.platform.startswith("linux") or os.environ.get("PYSTRAY_BACKEND"):
        return
    # AppIndicator (GNOME with its extension, KDE, most panels) when present, else GTK's
    # XEmbed status icon (XFCE, MATE, trayer, ...).
    has_indicator = _has_gi_module("AyatanaAppIndicator3", "0.1") or _has_gi_module("AppIndicator3", "0.1")
    os.environ["PYSTRAY_BACKEND"] = "appindicator" if has_indicator else "gtk"
