"""A left click that reaches the StatusNotifierItem as `Activate` (LXQt's panel sends it, and
draws the item's dbusmenu only on a right click) shows the same menu, drawn by us: the model
crosses to the popup without its actions, and the path of the item chosen comes back and runs
that item's action (app/tray/views/popup_menu.py, status_notifier/bus_view.py).  The popup itself is played here by a
process that answers as GTK's would; tests/desktop draws it under the real panels."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from vault_recall.app.tray.menu.tree import Action, Item
from vault_recall.app.tray.views.popup_menu import chosen_action, menu_payload
from vault_recall.app.tray.views.status_notifier import bus_view
from vault_recall.app.tray.views.status_notifier.bus_view import SniView

MENU = (
    Item("Work — 3 notes", ("open_vault",), default=True),
    Item("-"),
    Item(
        "Vault",
        submenu=(
            Item("Work", ("use", "Work"), checked=True, radio=True),
            Item("Home", ("use", "Home"), checked=False, radio=True),
            Item("Off", ("use", "Off"), enabled=False),
        ),
    ),
    Item("No recalls yet", enabled=False),
)


def test_the_popup_gets_the_menu_without_its_actions() -> None:
    payload = menu_payload(MENU)
    assert "use" not in json.dumps(payload) and "open_vault" not in json.dumps(payload)
    assert [(e["text"], e["enabled"]) for e in payload] == [
        ("Work — 3 notes", True),
        ("-", False),
        ("Vault", True),
        ("No recalls yet", False),
    ]
    assert payload[2]["submenu"][1] == {
        "text": "Home",
        "enabled": True,
        "checked": False,
        "radio": True,
        "submenu": None,
    }


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        ("[0]\n", ("open_vault",)),
        ("[2, 1]\n", ("use", "Home")),
        ("", None),  # dismissed
        ("[2, 2]", None),  # disabled
        ("[2]", None),  # a submenu is no action
        ("[9]", None),
        ("[2, -1]", None),
        ("not json", None),
        ('{"a": 1}', None),
    ],
)
def test_the_path_chosen_leads_to_the_items_own_action(reply: str, action: Action | None) -> None:
    assert chosen_action(MENU, reply) == action


def _clicked(monkeypatch: pytest.MonkeyPatch, command: list[str] | None) -> list[Action]:
    dispatched: list[Action] = []
    monkeypatch.setattr(bus_view, "popup_command", lambda: command)

    async def click() -> None:
        view = SniView(dispatched.append)
        view.menu.show(MENU)
        view._items = MENU  # as `show` leaves them once on the bus
        view.item.activate(10, 10)  # the host's left click
        view.item.activate(10, 10)  # a second click while the menu is open opens no second one
        assert view._popup is not None
        await view._popup
        assert view.popups == (0 if command is None else 1)

    asyncio.run(click())
    return dispatched


def test_a_left_click_the_host_sends_as_activate_shows_the_menu_and_runs_the_item_chosen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Played popup: reads the menu as GTK's would, and the person chooses Vault ▸ Home.
    script = "import json, sys; menu = json.load(sys.stdin); assert menu[2]['text'] == 'Vault'; print('[2, 1]')"
    assert _clicked(monkeypatch, [sys.executable, "-c", script]) == [("use", "Home")]
    assert _clicked(monkeypatch, [sys.executable, "-c", "import sys; sys.stdin.read()"]) == []  # dismissed


def test_where_no_menu_can_be_drawn_a_left_click_runs_the_first_line() -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert _clicked(monkeypatch, None) == [("open_vault", "click")]
        failing = [sys.executable, "-c", "import sys; sys.exit(2)"]
        assert _clicked(monkeypatch, failing) == [("open_vault", "click")]
