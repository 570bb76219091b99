"""The menu served over D-Bus as `com.canonical.dbusmenu` (version 3), the menu protocol every
StatusNotifierItem host reads: KDE Plasma, GNOME's AppIndicator extension, XFCE, MATE,
Cinnamon, LXQt, waybar, …

The host fetches the tree with `GetLayout`, reads properties with `GetGroupProperties`, and
sends clicks with `Event`/`EventGroup`.  When the model changes we say so: `LayoutUpdated`
when items came or went, `ItemsPropertiesUpdated` when only labels, check marks or enabled
states changed.  Everything here runs on the tray's D-Bus event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from dbus_fast import DBusError, ErrorType, PropertyAccess, Variant
from dbus_fast.annotations import DBusSignature
from dbus_fast.service import ServiceInterface, dbus_method, dbus_property, dbus_signal

from vault_recall.app.tray.menu.tree import Action, Item
from vault_recall.app.tray.views.status_notifier.menu_numbering import ROOT, Layout, MenuNumbering, Props, changes

NoReply = Annotated[None, DBusSignature("")]  # a method or signal without arguments back

INTERFACE = "com.canonical.dbusmenu"
SIGNATURES = {"label": "s", "type": "s", "toggle-type": "s", "children-display": "s"}


def variant(name: str, value: str | bool | int) -> Variant:
    if isinstance(value, bool):
        return Variant("b", value)
    if isinstance(value, int):
        return Variant("i", value)
    return Variant(SIGNATURES.get(name, "s"), value)


def variants(props: Props, names: list[str] | None = None) -> dict[str, Variant]:
    """`props` as D-Bus values, only `names` if given (an empty list means every one)."""
    return {name: variant(name, value) for name, value in props.items() if not names or name in names}


class DBusMenu(ServiceInterface):
    def __init__(self, on_click: Callable[[Action], None]) -> None:
        super().__init__(INTERFACE)
        self._on_click = on_click
        self._numbering = MenuNumbering()
        self.layout: Layout = self._numbering.number(())
        self.revision = 1

    def show(self, items: tuple[Item, ...]) -> None:
        """Take a new menu model and tell hosts what changed."""
        new = self._numbering.number(items)
        diff = changes(self.layout, new)
        self.layout = new
        if diff.layout:
            self.revision += 1
            self.layout_updated(self.revision, ROOT)
        elif diff.props:
            self.items_properties_updated([[i, variants(p)] for i, p in diff.props.items()], [])

    def _tree(self, node_id: int, depth: int, names: list[str]) -> list[Any]:
        node = self.layout.nodes[node_id]
        below = node.children if depth != 0 else ()  # depth -1: all the way down
        children = [Variant("(ia{sv}av)", self._tree(child, depth - 1, names)) for child in below]
        return [node_id, variants(node.props, names), children]

    def _known(self, node_id: int) -> None:
        if node_id not in self.layout.nodes:
            raise DBusError(ErrorType.INVALID_ARGS, f"there is no menu item {node_id} (the menu has changed)")

    # -- properties -----------------------------------------------------------------------------

    @dbus_property(access=PropertyAccess.READ, name="Version")
    def version(self) -> Annotated[int, DBusSignature("u")]:
        return 3

    @dbus_property(access=PropertyAccess.READ, name="TextDirection")
    def text_direction(self) -> Annotated[str, DBusSignature("s")]:
        return "ltr"

    @dbus_property(access=PropertyAccess.READ, name="Status")
    def status(self) -> Annotated[str, DBusSignature("s")]:
        return "normal"

    @dbus_property(access=PropertyAccess.READ, name="IconThemePath")
    def icon_theme_path(self) -> Annotated[list[str], DBusSignature("as")]:
        return []

    # -- methods --------------------------------------------------------------------------------

    @dbus_method(name="GetLayout")
    def get_layout(
        self,
        parent_id: Annotated[int, DBusSignature("i")],
        recursion_depth: Annotated[int, DBusSignature("i")],
        property_names: Annotated[list[str], DBusSignature("as")],
    ) -> Annotated[list[Any], DBusSignature("u(ia{sv}av)")]:
        self._known(parent_id)
        return [self.revision, self._tree(parent_id, recursion_depth, property_names)]

    @dbus_method(name="GetGroupProperties")
    def get_group_properties(
        self,
        ids: Annotated[list[int], DBusSignature("ai")],
        property_names: Annotated[list[str], DBusSignature("as")],
    ) -> Annotated[list[list[Any]], DBusSignature("a(ia{sv})")]:
        wanted = ids or list(self.layout.nodes)
        return [[i, variants(self.layout.nodes[i].props, property_names)] for i in wanted if i in self.layout.nodes]

    @dbus_method(name="GetProperty")
    def get_property(
        self, node_id: Annotated[int, DBusSignature("i")], name: Annotated[str, DBusSignature("s")]
    ) -> Annotated[Variant, DBusSignature("v")]:
        self._known(node_id)
        props = self.layout.nodes[node_id].props
        if name not in props:
            raise DBusError(ErrorType.INVALID_ARGS, f"menu item {node_id} has no property {name!r}")
        return variant(name, props[name])

    @dbus_method(name="Event")
    def event(
        self,
        node_id: Annotated[int, DBusSignature("i")],
        event_id: Annotated[str, DBusSignature("s")],
        data: Annotated[Variant, DBusSignature("v")],
        timestamp: Annotated[int, DBusSignature("u")],
    ) -> NoReply:
        self._known(node_id)
        self._event(node_id, event_id)

    @dbus_method(name="EventGroup")
    def event_group(
        self, events: Annotated[list[list[Any]], DBusSignature("a(isvu)")]
    ) -> Annotated[list[int], DBusSignature("ai")]:
        unknown = [e[0] for e in events if e[0] not in self.layout.nodes]
        for node_id, event_id, _data, _timestamp in events:
            if node_id in self.layout.nodes:
                self._event(node_id, event_id)
        return unknown

    @dbus_method(name="AboutToShow")
    def about_to_show(self, node_id: Annotated[int, DBusSignature("i")]) -> Annotated[bool, DBusSignature("b")]:
        return False  # the layout is always current: hosts never need to fetch it again first

    @dbus_method(name="AboutToShowGroup")
    def about_to_show_group(
        self, ids: Annotated[list[int], DBusSignature("ai")]
    ) -> Annotated[list[list[int]], DBusSignature("aiai")]:
        return [[], [i for i in ids if i not in self.layout.nodes]]

    def _event(self, node_id: int, event_id: str) -> None:
        action = self.layout.clickable(node_id)
        if event_id == "clicked" and action is not None:
            self._on_click(action)

    # -- signals --------------------------------------------------------------------------------

    @dbus_signal(name="LayoutUpdated")
    def layout_updated(self, revision: int, parent: int) -> Annotated[list[int], DBusSignature("ui")]:
        return [revision, parent]

    @dbus_signal(name="ItemsPropertiesUpdated")
    def items_properties_updated(
        self, updated: list[list[Any]], removed: list[list[Any]]
    ) -> Annotated[list[list[list[Any]]], DBusSignature("a(ia{sv})a(ias)")]:
        return [updated, removed]
