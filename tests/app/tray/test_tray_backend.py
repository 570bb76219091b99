"""Which tray backend runs where, and what the tray says when none can."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.parts import need
from vault_recall.app.desktop import session_bus, tray_hosts
from vault_recall.app.tray.running import backend_choice
from vault_recall.app.tray.running.backend_choice import tray_problem
from vault_recall.app.tray.views.panels import SYSTEM_SITE_DIRS, Backend


def test_without_a_graphical_session_the_tray_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    problem = tray_problem()
    assert problem is not None and "no graphical session" in problem


def linux_desktop(
    monkeypatch: pytest.MonkeyPatch, *, bus: bool, watcher: bool, gtk: bool, xembed: bool = False
) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("DISPLAY", ":99")
    for name in ("VAULT_RECALL_TRAY", "PYSTRAY_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(session_bus, "address", lambda: "unix:path=/run/user/1000/bus" if bus else None)
    monkeypatch.setattr(session_bus, "has_owner", lambda name: watcher and name == "org.kde.StatusNotifierWatcher")
    monkeypatch.setattr(tray_hosts, "xembed_tray_present", lambda: xembed)
    monkeypatch.setattr(backend_choice, "has_gtk", lambda: gtk)


@pytest.mark.parametrize(
    ("bus", "watcher", "gtk", "xembed", "chosen"),
    [
        (True, True, True, True, "sni"),  # a panel hosts StatusNotifierItems: ours, even where GTK is there
        (True, True, False, False, "sni"),
        (True, False, True, True, "gtk"),  # an XEmbed-only panel (trayer, old XFCE): GTK's status icon
        (True, False, True, False, "sni"),  # no panel yet: the item registers when one starts
        (True, False, False, False, "sni"),
        (False, False, True, False, "gtk"),
    ],
)
def test_the_backend_is_the_statusnotifieritem_where_a_panel_hosts_one_else_gtk(
    monkeypatch: pytest.MonkeyPatch, bus: bool, watcher: bool, gtk: bool, xembed: bool, chosen: Backend
) -> None:
    linux_desktop(monkeypatch, bus=bus, watcher=watcher, gtk=gtk, xembed=xembed)
    assert backend_choice.choose_backend() == backend_choice.Choice(chosen, follow=True)


def test_without_a_session_bus_or_pygobject_the_tray_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    linux_desktop(monkeypatch, bus=False, watcher=False, gtk=False)
    problem = tray_problem()
    assert problem is not None and "no D-Bus session bus" in problem and "python3-gi" in problem


def test_the_environment_overrides_the_choice_and_a_wrong_value_is_one_sentence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    linux_desktop(monkeypatch, bus=True, watcher=True, gtk=True)
    monkeypatch.setenv("VAULT_RECALL_TRAY", "gtk")
    assert backend_choice.choose_backend() == backend_choice.Choice("gtk")
    monkeypatch.setenv("VAULT_RECALL_TRAY", "gtx")
    assert tray_problem() == "VAULT_RECALL_TRAY must be one of sni, gtk, appindicator, xorg; got 'gtx'"
    monkeypatch.delenv("VAULT_RECALL_TRAY")
    monkeypatch.setenv("PYSTRAY_BACKEND", "appindicator")  # as before: pystray's backend by name
    assert backend_choice.choose_backend() == backend_choice.Choice("appindicator")
    linux_desktop(monkeypatch, bus=False, watcher=False, gtk=False)
    monkeypatch.setenv("VAULT_RECALL_TRAY", "sni")
    assert tray_problem() == "VAULT_RECALL_TRAY=sni needs a D-Bus session bus, and DBUS_SESSION_BUS_ADDRESS is not set"


def test_the_system_pygobject_is_found_for_this_python_when_there_is_one() -> None:
    """Debian's python3-gi and gir1.2-gtk-3.0 (what .ci/run installs) serve a venv that has no
    PyGObject of its own."""
    need("python3-gi", "gtk")
    code = (
        "from vault_recall.app.tray.running.backend_choice import has_gtk; works = has_gtk(); "
        "import gi; print(works, gi.__file__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    works, where = done.stdout.split()
    assert works == "True"
    # This environment's own PyGObject (the gtk extra) if it has one, else the system's.
    assert where.startswith(sys.prefix) or str(Path(where).parent.parent) in SYSTEM_SITE_DIRS
