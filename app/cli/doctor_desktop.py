"""`vault-recall doctor`'s desktop checks: the tray backend and a panel to show it, the folder
dialog and the clipboard its menu uses — or one note where there is no desktop at all."""

from __future__ import annotations

import sys

from vault_recall.app.cli.doctor_check import Check
from vault_recall.app.desktop import clipboard, folder_picker, tray_hosts
from vault_recall.app.tray.running.backend_choice import graphical_session, tray_problem
from vault_recall.app.tray.views.panels import gtk_available, missing_host


def desktop_checks() -> list[Check]:
    """The tray and what its menu uses — or, where no desktop is (a server, an SSH session),
    one note: clients' `serve` and `http` need none, so nothing there is broken."""
    if not graphical_session():
        return [
            Check(
                "tray",
                True,
                "no graphical session here (neither DISPLAY nor WAYLAND_DISPLAY is set): no tray, folder dialog "
                "or clipboard to check; clients' `serve` and `http` need none",
                "run `vault-recall doctor` in your desktop session to check the tray there",
                note=True,
            )
        ]
    return [_tray(), _folder_dialog(), _clipboard()]


def _tray() -> Check:
    problem = tray_problem()
    if problem is not None:
        return Check("tray", False, problem.splitlines()[0], "see docs/tray.md, Linux desktops, in the source")
    if not sys.platform.startswith("linux"):
        return Check("tray", True, "a tray with a menu can run here")
    hosts = tray_hosts.present_now()
    missing = missing_host(hosts, gtk_available)
    if missing is not None:
        return Check("tray", False, missing, "start your desktop's panel, or add its tray (status notifier) plugin")
    which = "a panel hosting StatusNotifierItems" if hosts.sni else "an XEmbed tray (GTK's icon is used)"
    return Check("tray", True, f"{which} shows the icon here")


def _folder_dialog() -> Check:
    if folder_picker.can_pick_folder():
        return Check("folder dialog", True, "the tray's Choose folder… can show one")
    # The tray copies the `vault add` command instead, which works: nothing is broken.
    return Check(
        "folder dialog",
        True,
        "no folder dialog here (no desktop portal, zenity or kdialog): the tray's menu copies the "
        "`vault-recall vault add` command instead",
        "for a dialog, install xdg-desktop-portal-gtk or zenity",
        note=True,
    )


def _clipboard() -> Check:
    command = clipboard.copy_command()
    if command is None:
        return Check("clipboard", False, "no clipboard tool found", "install xclip (X11) or wl-clipboard (Wayland)")
    return Check("clipboard", True, f"copies with {command[0]}")
