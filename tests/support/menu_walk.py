"""Walking the tray's pure menu model in tests: its lines' texts, the lines it opens with, and
an item found by its path of texts."""

from __future__ import annotations

from vault_recall.app.tray.menu.tree import Item


def texts(items: tuple[Item, ...]) -> list[str]:
    return [i.text for i in items]


def first_lines(menu: tuple[Item, ...]) -> list[str]:
    """The lines above the first separator: what the icon's menu opens with."""
    return texts(menu)[: texts(menu).index("-")]


def find(items: tuple[Item, ...], *path: str) -> Item:
    for item in items:
        if item.text == path[0]:
            return item if len(path) == 1 else find(item.submenu or (), *path[1:])
    raise AssertionError(f"{path[0]!r} not in {texts(items)}")
