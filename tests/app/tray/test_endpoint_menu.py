"""What the tray's menu says of its HTTP endpoint: why it stopped, and where its log is."""

from __future__ import annotations

from pathlib import Path

from vault_recall.app.tray.endpoint.status_items import EndpointShown, with_endpoint
from vault_recall.app.tray.menu.tree import SEPARATOR, Item

ENDPOINT = Item("HTTP endpoint", submenu=(Item("Not running", enabled=False), Item("Start", ("endpoint", "start"))))
MENU = (Item("Work — 3 notes"), ENDPOINT, Item("Quit", ("quit",)))


def test_nothing_is_added_before_the_endpoint_ever_ran() -> None:
    assert with_endpoint(MENU, EndpointShown()) == MENU


def test_the_endpoint_submenu_says_why_it_stopped_and_opens_its_log(tmp_path: Path) -> None:
    log = tmp_path / "logs/endpoint.log"
    menu = with_endpoint(MENU, EndpointShown("it was stopped by SIGKILL", log))
    assert menu[0] == MENU[0] and menu[2] == MENU[2]
    assert menu[1].submenu is not None and ENDPOINT.submenu is not None
    assert menu[1].submenu[:3] == (*ENDPOINT.submenu, SEPARATOR)
    added = menu[1].submenu[3:]
    assert [(i.text, i.action, i.enabled) for i in added] == [
        ("Stopped unexpectedly: it was stopped by SIGKILL", None, False),
        ("It is started again by itself", None, False),
        (f"Open its log ({log})", ("endpoint", "open_log"), True),
    ]


def test_a_long_reason_is_cut_in_the_menu() -> None:
    menu = with_endpoint(MENU, EndpointShown("x" * 200))
    assert menu[1].submenu is not None
    assert len(menu[1].submenu[3].text) < 100 and menu[1].submenu[3].text.endswith("…")
