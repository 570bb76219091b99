"""The menu model as dbusmenu numbers it: ids that last, what a change tells hosts, what a click
runs.  Pure data; the bus itself is exercised in tests/desktop/test_tray_sni.py."""

from __future__ import annotations

from vault_recall.app.tray.menu.items import TrayState
from vault_recall.app.tray.menu.tree import SEPARATOR, Item, build_menu
from vault_recall.app.tray.views.status_notifier.menu_numbering import (
    ROOT,
    Layout,
    MenuNumbering,
    changes,
    escape_label,
)
from vault_recall.server.config.config_file import Config, VaultEntry


def menu(
    health_line: str = "Work — 3 notes", notify: bool = False, last_seen: str = "Last seen just now"
) -> tuple[Item, ...]:
    return (
        Item(health_line, ("open_vault",), default=True),
        SEPARATOR,
        Item(
            "Clients",
            submenu=(
                Item(
                    "Cursor",
                    submenu=(Item(last_seen, enabled=False), Item("Copy config snippet", ("copy_snippet", "cursor"))),
                ),
            ),
        ),
        Item("Notify on recall", ("toggle", "notify_recall"), checked=notify),
        Item("Quit Vault Recall", ("quit",)),
    )


def node_by_label(layout: Layout, label: str) -> int:
    return next(i for i, n in layout.nodes.items() if n.props.get("label") == label)


def test_every_item_of_the_model_becomes_one_node_under_the_root() -> None:
    layout = MenuNumbering().number(menu())
    assert len(layout.nodes) == 1 + 8  # the root and every item, submenus' included
    top = layout.nodes[ROOT].children
    assert [layout.nodes[i].props.get("label", "-") for i in top] == [
        "Work — 3 notes",
        "-",
        "Clients",
        "Notify on recall",
        "Quit Vault Recall",
    ]
    assert layout.nodes[top[1]].props == {"type": "separator", "visible": True}
    assert layout.nodes[top[2]].props["children-display"] == "submenu"
    assert layout.default == ("open_vault",)


def test_check_and_radio_items_carry_their_toggle_type_and_state() -> None:
    items = (
        Item("On", ("toggle", "a"), checked=True),
        Item("Off", ("toggle", "b"), checked=False),
        Item("Work", ("use", "Work"), checked=True, radio=True),
        Item("Plain", ("quit",)),
    )
    layout = MenuNumbering().number(items)
    props = [layout.nodes[i].props for i in layout.nodes[ROOT].children]
    assert [(p["toggle-type"], p["toggle-state"]) for p in props] == [
        ("checkmark", 1),
        ("checkmark", 0),
        ("radio", 1),
        ("", -1),
    ]


def test_underscores_in_labels_are_not_taken_for_mnemonics() -> None:
    assert escape_label("my_note_v2") == "my__note__v2"
    layout = MenuNumbering().number((Item("Recalled: my_note", ("open_note", "my_note.md")),))
    assert layout.nodes[layout.nodes[ROOT].children[0]].props["label"] == "Recalled: my__note"


def test_a_new_label_or_check_mark_is_a_property_change_on_the_same_ids() -> None:
    numbering = MenuNumbering()
    before = numbering.number(menu())
    after = numbering.number(menu("Work — 4 notes", notify=True, last_seen="Last seen 2 min ago"))
    diff = changes(before, after)
    assert not diff.layout
    assert diff.props == {
        node_by_label(before, "Work — 3 notes"): {"label": "Work — 4 notes"},
        node_by_label(before, "Notify on recall"): {"toggle-state": 1},
        node_by_label(before, "Last seen just now"): {"label": "Last seen 2 min ago"},
    }


def test_items_that_come_or_go_are_a_new_layout_and_the_others_keep_their_ids() -> None:
    numbering = MenuNumbering()
    before = numbering.number(menu())
    grown = (*menu()[:3], Item("HTTP endpoint", ("toggle", "http"), checked=False), *menu()[3:])
    after = numbering.number(grown)
    assert changes(before, after).layout
    for label in ("Work — 3 notes", "Clients", "Copy config snippet", "Quit Vault Recall"):
        assert node_by_label(before, label) == node_by_label(after, label)
    new = node_by_label(after, "HTTP endpoint")
    assert new not in before.nodes
    assert after.clickable(new) == ("toggle", "http")  # a new model item needs no backend work


def test_a_click_on_an_item_that_is_gone_or_disabled_does_nothing() -> None:
    numbering = MenuNumbering()
    before = numbering.number(menu())
    copy = node_by_label(before, "Copy config snippet")
    assert before.clickable(copy) == ("copy_snippet", "cursor")
    after = numbering.number(menu()[:2])
    assert after.clickable(copy) is None
    again = numbering.number(menu())
    assert node_by_label(again, "Copy config snippet") != copy  # ids are never handed out twice
    assert again.clickable(node_by_label(again, "Last seen just now")) is None  # disabled
    assert again.clickable(12345) is None


def test_the_whole_tray_menu_numbers_without_losing_an_item() -> None:
    state = TrayState(config=Config(vaults=(VaultEntry("Work", "/v/work"),), active_vault="Work"))
    items = build_menu(state)

    def count(level: tuple[Item, ...]) -> int:
        return sum(1 + count(i.submenu or ()) for i in level)

    numbering = MenuNumbering()
    layout = numbering.number(items)
    assert len(layout.nodes) == 1 + count(items)
    same = changes(layout, numbering.number(items))
    assert not same.layout and not same.props  # nothing changed: hosts are told nothing
