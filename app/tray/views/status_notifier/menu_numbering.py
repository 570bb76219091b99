"""The menu model as `com.canonical.dbusmenu` sees it: numbered items with their properties.

Pure data, no D-Bus: `MenuNumbering.number` turns the tree of `Item`s into a `Layout` whose ids
stay the same for the same item across rebuilds (so a click that was on its way while the menu
changed lands on the item the person saw, or on nothing), and `changes` says what a host must
be told when the model changes: a new layout (items came or went) or only new properties.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vault_recall.app.tray.menu.tree import Action, Item

ROOT = 0
# What an item is, for its id: where it sits, and what it does; a submenu is known by its text,
# a line that does nothing by its place among such lines ("Last seen 2 min ago" → "3 min ago"
# is the same item with a new label).
Key = tuple[Any, ...]
# dbusmenu property values: str for label/type/toggle-type/children-display, bool, int.
Props = dict[str, str | bool | int]


@dataclass(frozen=True)
class Node:
    id: int
    props: Props
    children: tuple[int, ...] = ()
    action: Action | None = None
    enabled: bool = True


@dataclass(frozen=True)
class Layout:
    nodes: dict[int, Node]
    default: Action | None = None  # what Activate (a left click on some hosts) does

    def clickable(self, node_id: int) -> Action | None:
        """The action a click on `node_id` runs, or None (unknown id, disabled, no action)."""
        node = self.nodes.get(node_id)
        return node.action if node is not None and node.enabled else None


def escape_label(text: str) -> str:
    """dbusmenu labels mark a mnemonic with '_': a literal underscore is written twice."""
    return text.replace("_", "__")


def item_props(item: Item) -> Props:
    """Every property we use, always all of them: a host never has to remember a default."""
    if item.separator:
        return {"type": "separator", "visible": True}
    props: Props = {
        "type": "standard",
        "label": escape_label(item.text),
        "enabled": item.enabled,
        "visible": True,
        "toggle-type": "" if item.checked is None else ("radio" if item.radio else "checkmark"),
        "toggle-state": -1 if item.checked is None else int(item.checked),
    }
    if item.submenu is not None:
        props["children-display"] = "submenu"
    return props


@dataclass
class MenuNumbering:
    """Gives each item an id that lasts: the same place and action (or text) → the same id.

    Ids come from a counter and are never given to another item, so a click on an item that is
    gone finds no node and does nothing; the table holds the last menu's items only."""

    _ids: dict[Key, int] = field(default_factory=dict)
    _next: int = 1

    def number(self, items: tuple[Item, ...]) -> Layout:
        nodes: dict[int, Node] = {}
        used: dict[Key, int] = {}
        default: list[Action] = []

        def visit(level: tuple[Item, ...], parent: Key) -> tuple[int, ...]:
            seen: dict[Key, int] = {}
            ids = []
            for item in level:
                what = _what(item)
                occurrence = seen.get(what, 0)
                seen[what] = occurrence + 1
                key = (*parent, (what, occurrence))
                node_id = self._ids.get(key) or self._new_id()
                used[key] = node_id
                children = visit(item.submenu, key) if item.submenu is not None else ()
                nodes[node_id] = Node(node_id, item_props(item), children, item.action, item.enabled)
                if item.default and item.action and not default:
                    default.append(item.action)
                ids.append(node_id)
            return tuple(ids)

        top = visit(items, ())
        nodes[ROOT] = Node(ROOT, {"children-display": "submenu"}, top)
        self._ids = used
        return Layout(nodes, default[0] if default else None)

    def _new_id(self) -> int:
        self._next += 1
        return self._next - 1


def _what(item: Item) -> Key:
    if item.separator:
        return ("separator",)
    if item.action:
        return ("action", *item.action)
    return ("submenu", item.text) if item.submenu is not None else ("line",)


@dataclass(frozen=True)
class Changes:
    layout: bool  # items came, went or moved: the host must fetch the layout again
    props: dict[int, Props]  # otherwise: the properties that changed, per item


def changes(old: Layout | None, new: Layout) -> Changes:
    if old is None or {i: n.children for i, n in old.nodes.items()} != {i: n.children for i, n in new.nodes.items()}:
        return Changes(True, {})
    updated = {}
    for node_id, node in new.nodes.items():
        before = old.nodes[node_id].props
        diff = {name: value for name, value in node.props.items() if before.get(name) != value}
        if diff:
            updated[node_id] = diff
    return Changes(False, updated)
