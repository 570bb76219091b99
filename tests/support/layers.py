"""The layer order, written once: `tests/project/test_layers.py` checks the imports against it,
and `tests/project/test_layer_order_written.py` checks every place the docs and docstrings
write the order out (a chain `a ← b ← …`, or a list of the rooms) against it."""

from __future__ import annotations

# Lower first: each layer imports only those before it.
SERVER_ORDER = ("vault", "obsidian", "recall", "config", "oauth", "activity", "mcp", "http")
APP_ORDER = ("state", "clients", "desktop", "tray", "cli")
# Inside `server/recall/`: its own modules, then rooms that import none of each other, then those
# above them.
RECALL_ORDER = (("finding", "ranking"), ("answers",))
# Inside `app/tray/`, the same way: the menu's model, what fills and acts on it, what runs them.
TRAY_ORDER = (("menu",), ("news", "actions", "endpoint", "views"), ("running",))


def below(order: tuple[str, ...]) -> dict[str, set[str]]:
    """Each layer of `order` and the layers it may import: every one before it."""
    return {layer: set(order[:n]) for n, layer in enumerate(order)}


def inner_below(order: tuple[tuple[str, ...], ...]) -> dict[str, set[str]]:
    """Each inner room and those it may import: every room of the tiers before its own."""
    return {room: {lower for tier in order[:n] for lower in tier} for n, rooms in enumerate(order) for room in rooms}
