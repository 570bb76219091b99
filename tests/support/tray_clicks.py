"""Clicking through the tray's GTK menu as a person does, with xdotool on Xvfb: whether the
panel's StatusNotifierWatcher is up, where the icon is on a screenshot, whether a menu is
drawn, and the keys that walk the menu to an item."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

# The strip below the panel's right end, where the tray's menu opens, on the tests' screens
# (1024 pixels wide): `import -crop` takes it.
MENU_AREA = "300x60+724+40"


def watcher_running(env: Mapping[str, str]) -> bool:
    """Whether the session bus of `env` has the StatusNotifierWatcher the panel runs: a panel
    still starting must not be spoken to on its bus (gtk-sni-tray-standalone has died of a
    method call answered while it started)."""
    asked = (
        "dbus-send",
        "--session",
        "--print-reply",
        "--dest=org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus.NameHasOwner",
        "string:org.kde.StatusNotifierWatcher",
    )
    done = subprocess.run(asked, env=dict(env), capture_output=True, text=True, timeout=30, check=False)
    return "boolean true" in done.stdout


def icon_at(screenshot: Path, colours: Iterable[tuple[int, int, int]]) -> tuple[int, int] | None:
    """The centre of our icon, drawn in one of `colours`, in the panel at the top right; None
    while it is not drawn there."""
    from PIL import Image

    image = Image.open(screenshot).convert("RGB")
    wanted = set(colours)
    hits = [
        (x, y)
        for y in range(0, 40)
        for x in range(image.width - 300, image.width)
        if any(all(abs(a - b) < 30 for a, b in zip(image.getpixel((x, y)), c, strict=True)) for c in wanted)  # type: ignore[arg-type]
    ]
    if not hits:
        return None
    xs, ys = [x for x, _ in hits], [y for _, y in hits]
    return (min(xs) + max(xs)) // 2, (min(ys) + max(ys)) // 2


def find_icon(screenshot: Path, colours: Iterable[tuple[int, int, int]]) -> tuple[int, int]:
    """The centre of our icon on `screenshot`, which must show it."""
    found = icon_at(screenshot, colours)
    assert found is not None, f"the tray icon is not on screen ({screenshot})"
    return found


def icon_shown(desktop: Any, colours: Iterable[tuple[int, int, int]]) -> bool:
    """Is our icon drawn on the panel now?  The tray's menu can be ready before the panel has
    drawn the icon it registered (a loaded machine): wait on this before clicking it."""
    shot = desktop.root / "icon-probe.png"
    shot.unlink(missing_ok=True)  # a shot that failed leaves none, never the last one
    desktop.run("import", "-window", "root", str(shot))
    return shot.exists() and icon_at(shot, colours) is not None


def menu_drawn(crop: Path) -> bool:
    """Is a menu drawn in this crop of MENU_AREA: is the (black) screen there no longer black?"""
    from PIL import Image

    image = Image.open(crop).convert("L")
    pixels = [image.getpixel((x, y)) for x in range(0, image.width, 3) for y in range(0, image.height, 3)]
    return sum(1 for p in pixels if isinstance(p, int) and p > 100) > 60


def keys_to(menu: list[dict[str, Any]], *labels: str) -> list[str]:
    """Keys that walk a GTK menu to the item at `labels`: Down moves over enabled items only,
    Right opens a submenu on its first enabled item, Return activates."""
    keys: list[str] = []
    level = menu
    for depth, label in enumerate(labels):
        selectable = [i for i in level if i["text"] != "-" and i["enabled"]]
        index = next(n for n, i in enumerate(selectable) if i["text"] == label)
        keys += ["Down"] * (index + (0 if depth else 1))
        item = selectable[index]
        if item["submenu"] is not None and depth < len(labels) - 1:
            keys.append("Right")
            level = item["submenu"]
    return [*keys, "Return"]


def popup_open(env: Mapping[str, str]) -> bool:
    """Is the tray's own menu (app/tray/views/popup_menu.py: a left click a panel sends as `Activate`)
    drawn on the screen of `env`?"""
    from vault_recall.app.tray.views.popup_menu import WINDOW_CLASS

    asked = ("xdotool", "search", "--onlyvisible", "--class", WINDOW_CLASS)
    done = subprocess.run(asked, env=dict(env), capture_output=True, text=True, timeout=30, check=False)
    return bool(done.stdout.strip())
