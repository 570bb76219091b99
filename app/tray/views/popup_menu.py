"""The tray's menu drawn by us, for StatusNotifierItem hosts that give a left click to the item
as `Activate` and draw its dbusmenu only on a right click: LXQt's panel does, whatever
`ItemIsMenu` says.  A left click must show the same menu under every panel, so `Activate` (and
`ContextMenu`, from a host that draws no menu itself) pops this one up under the pointer.

GTK draws it, in a process of its own (`python -m vault_recall.app.tray.views.popup_menu`): the
StatusNotifierItem view runs an asyncio loop, not GTK's, and the tray may later move to GTK's
XEmbed icon on its main thread, which a GTK started on another thread would stand in the way
of.  The menu model goes in on stdin as JSON; the item chosen comes back on stdout as the
indexes leading to it ([2, 0]: the first item of the third item's submenu), nothing when the
menu was dismissed.  Only that path crosses: the action is the tray's own item's.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from vault_recall.app.tray.menu.items import Action, Item
from vault_recall.app.tray.views.panels import gtk_available, has_gtk

MODULE = "vault_recall.app.tray.views.popup_menu"
# Added to the first line's action when a click runs it where no menu of ours can be drawn.
CLICKED = "click"
WINDOW_CLASS = "vault-recall-menu"  # the menu window's X class: how a test (or a person's tools) finds it


def popup_command() -> list[str] | None:
    """How to start the popup, or None where it cannot run (no GTK for this Python; a frozen
    bundle, which has no `-m`)."""
    if getattr(sys, "frozen", False) or not gtk_available():
        return None
    return [sys.executable, "-I", "-m", MODULE]


def menu_payload(items: tuple[Item, ...]) -> list[dict[str, Any]]:
    """What the popup draws of each item (never its action)."""
    return [
        {
            "text": i.text,
            "enabled": i.enabled and (i.action is not None or i.submenu is not None),
            "checked": i.checked,
            "radio": i.radio,
            "submenu": menu_payload(i.submenu) if i.submenu is not None else None,
        }
        for i in items
    ]


def chosen_action(items: tuple[Item, ...], reply: str) -> Action | None:
    """The action of the item the popup's `reply` leads to; None for a dismissed menu, or a
    reply that leads to no enabled item with an action."""
    try:
        path = json.loads(reply) if reply.strip() else None
    except json.JSONDecodeError:
        return None
    if not isinstance(path, list) or not path or not all(isinstance(i, int) for i in path):
        return None
    level: tuple[Item, ...] | None = items
    item: Item | None = None
    for index in path:
        if level is None or not 0 <= index < len(level):
            return None
        item = level[index]
        level = item.submenu
    return item.action if item is not None and item.enabled else None


def _build(gtk: Any, entries: list[dict[str, Any]], path: list[int], chose: Any) -> Any:
    menu = gtk.Menu()
    for index, entry in enumerate(entries):
        if entry["text"] == "-":
            menu.append(gtk.SeparatorMenuItem())
            continue
        if entry["checked"] is None:
            widget = gtk.MenuItem(label=entry["text"])
        else:
            widget = gtk.CheckMenuItem(label=entry["text"])
            widget.set_draw_as_radio(entry["radio"])
            widget.set_active(entry["checked"])
        widget.set_use_underline(False)
        widget.set_sensitive(entry["enabled"])
        if entry["submenu"] is not None:
            widget.set_submenu(_build(gtk, entry["submenu"], [*path, index], chose))
        else:
            widget.connect("activate", chose([*path, index]))
        menu.append(widget)
    return menu


def main() -> int:
    """In the popup's process: draw the menu read from stdin under the pointer, print the path
    of the item chosen, end when the menu closes."""
    entries = json.load(sys.stdin)
    if not has_gtk():
        print("GTK 3 cannot be used here", file=sys.stderr)
        return 2
    from gi.repository import Gdk, GLib, Gtk

    def chose(path: list[int]) -> Any:
        def activated(_widget: Any) -> None:
            print(json.dumps(path), flush=True)

        return activated

    Gdk.set_program_class(WINDOW_CLASS)
    menu = _build(Gtk, entries, [], chose)
    # A chosen item is activated right after the menu deactivates: quit once that has run.
    menu.connect("deactivate", lambda _menu: GLib.idle_add(Gtk.main_quit))
    menu.show_all()
    # No trigger event reaches this process, so GTK would centre the menu on the screen: the old
    # call, with a position function, puts it at the pointer (the click on the icon), GTK
    # keeping it on the screen.
    _, x, y = Gdk.Display.get_default().get_default_seat().get_pointer().get_position()
    menu.popup(None, None, lambda *_: (x, y, True), None, 0, Gtk.get_current_event_time())
    Gtk.main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
