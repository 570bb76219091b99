"""What the tray's menu says of its HTTP endpoint beyond start and stop: why it ended, while it
waits to be started again, and where its log is (an item that opens it).  Added to the
*HTTP endpoint* submenu that menu/tree.py builds, as app_grants.py adds its own entry: the menu stays
a pure function of the snapshot, and this one of the endpoint's state.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from vault_recall.app.tray.menu.tree import SEPARATOR, Item
from vault_recall.app.tray.menu.url_snippet import shown_path

WHY_CHARACTERS = 70


@dataclass(frozen=True)
class EndpointShown:
    crashed: str | None = None  # why it ended by itself, while it waits to be started again
    log: Path | None = None  # its log file, once there is one


def with_endpoint(items: tuple[Item, ...], shown: EndpointShown) -> tuple[Item, ...]:
    """`items` with the endpoint's submenu told why it stopped and where its log is."""
    added: list[Item] = []
    if shown.crashed is not None:
        why = shown.crashed if len(shown.crashed) <= WHY_CHARACTERS else shown.crashed[: WHY_CHARACTERS - 1] + "…"
        added.append(Item(f"Stopped unexpectedly: {why}", enabled=False))
        added.append(Item("It is started again by itself", enabled=False))
    if shown.log is not None:
        added.append(Item(f"Open its log ({shown_path(shown.log)})", ("endpoint", "open_log")))
    if not added:
        return items
    return tuple(_extended(item, added) for item in items)


def _extended(item: Item, added: list[Item]) -> Item:
    if not item.submenu or not any(child.action and child.action[0] == "endpoint" for child in item.submenu):
        return item
    return replace(item, submenu=(*item.submenu, SEPARATOR, *added))
