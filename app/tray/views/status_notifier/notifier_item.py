"""The icon served over D-Bus as a StatusNotifierItem (`org.kde.StatusNotifierItem`), the tray
protocol of today's Linux desktops, X11 and Wayland alike.

The icon travels as pixmaps (ARGB32, network byte order) at every size a panel may draw,
HiDPI included, so no icon theme is needed; the menu is the `com.canonical.dbusmenu` object
at `MENU_PATH`.  `ItemIsMenu` tells hosts that a click shows the menu (the menu is the whole
app); a host that sends `Activate` anyway (LXQt's panel, on a left click) or `ContextMenu` gets
the same menu popped up by us (views/popup_menu.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from dbus_fast import PropertyAccess
from dbus_fast.annotations import DBusSignature
from dbus_fast.service import ServiceInterface, dbus_method, dbus_property, dbus_signal
from PIL import Image

from vault_recall.app.desktop.icon import IconStatus, render_icon
from vault_recall.app.tray.views.status_notifier.dbusmenu import NoReply

INTERFACE = "org.kde.StatusNotifierItem"
ITEM_PATH = "/StatusNotifierItem"
MENU_PATH = "/MenuBar"
# Panels draw 16-24 px (22 on Plasma, 16 on GNOME), some 32-48; twice that on HiDPI screens.
PIXMAP_SIZES = (16, 22, 24, 32, 44, 48, 64, 96, 128)
Pixmap = list[Any]  # (width, height, ARGB32 bytes)


def pixmap(image: Image.Image) -> Pixmap:
    """One (iiay) pixmap: RGBA pixels reordered to A, R, G, B bytes per pixel."""
    red, green, blue, alpha = image.convert("RGBA").split()
    return [image.width, image.height, Image.merge("RGBA", (alpha, red, green, blue)).tobytes()]


def pixmaps(status: IconStatus, recalling: bool) -> list[Pixmap]:
    return [pixmap(render_icon(status, recalling, size)) for size in PIXMAP_SIZES]


class StatusNotifierItem(ServiceInterface):
    def __init__(self, activate: Callable[[], None], menu: Callable[[], None]) -> None:
        super().__init__(INTERFACE)
        self._activate = activate
        self._menu = menu
        self._look: tuple[str, bool] | None = None
        self._pixmaps: list[Pixmap] = []
        self._tooltip = "Vault Recall"

    def show(self, status: IconStatus, recalling: bool, tooltip: str) -> None:
        """Take the icon's state and tooltip; tell hosts about whichever changed."""
        if (status, recalling) != self._look:
            first = self._look is None
            self._look = (status, recalling)
            self._pixmaps = pixmaps(status, recalling)
            if not first:
                self.new_icon()
        if tooltip != self._tooltip:
            self._tooltip = tooltip
            self.new_tool_tip()

    # -- properties -----------------------------------------------------------------------------

    @dbus_property(access=PropertyAccess.READ, name="Category")
    def category(self) -> Annotated[str, DBusSignature("s")]:
        return "ApplicationStatus"

    @dbus_property(access=PropertyAccess.READ, name="Id")
    def id(self) -> Annotated[str, DBusSignature("s")]:
        return "vault-recall"

    @dbus_property(access=PropertyAccess.READ, name="Title")
    def title(self) -> Annotated[str, DBusSignature("s")]:
        return "Vault Recall"

    @dbus_property(access=PropertyAccess.READ, name="Status")
    def status(self) -> Annotated[str, DBusSignature("s")]:
        return "Active"  # the icon's colour carries the vault's state; Passive would hide it

    @dbus_property(access=PropertyAccess.READ, name="WindowId")
    def window_id(self) -> Annotated[int, DBusSignature("i")]:
        return 0

    @dbus_property(access=PropertyAccess.READ, name="IconName")
    def icon_name(self) -> Annotated[str, DBusSignature("s")]:
        return ""  # no theme icon: the pixmaps are the icon

    @dbus_property(access=PropertyAccess.READ, name="IconThemePath")
    def icon_theme_path(self) -> Annotated[str, DBusSignature("s")]:
        return ""

    @dbus_property(access=PropertyAccess.READ, name="IconPixmap")
    def icon_pixmap(self) -> Annotated[list[Pixmap], DBusSignature("a(iiay)")]:
        return self._pixmaps

    @dbus_property(access=PropertyAccess.READ, name="OverlayIconName")
    def overlay_icon_name(self) -> Annotated[str, DBusSignature("s")]:
        return ""

    @dbus_property(access=PropertyAccess.READ, name="OverlayIconPixmap")
    def overlay_icon_pixmap(self) -> Annotated[list[Pixmap], DBusSignature("a(iiay)")]:
        return []

    @dbus_property(access=PropertyAccess.READ, name="AttentionIconName")
    def attention_icon_name(self) -> Annotated[str, DBusSignature("s")]:
        return ""

    @dbus_property(access=PropertyAccess.READ, name="AttentionIconPixmap")
    def attention_icon_pixmap(self) -> Annotated[list[Pixmap], DBusSignature("a(iiay)")]:
        return []

    @dbus_property(access=PropertyAccess.READ, name="AttentionMovieName")
    def attention_movie_name(self) -> Annotated[str, DBusSignature("s")]:
        return ""

    @dbus_property(access=PropertyAccess.READ, name="ToolTip")
    def tool_tip(self) -> Annotated[list[Any], DBusSignature("(sa(iiay)ss)")]:
        # Hosts show "title: text" or title above text: the title says whose tooltip it is.
        return ["", [], "Vault Recall", self._tooltip.removeprefix("Vault Recall — ")]

    @dbus_property(access=PropertyAccess.READ, name="ItemIsMenu")
    def item_is_menu(self) -> Annotated[bool, DBusSignature("b")]:
        return True

    @dbus_property(access=PropertyAccess.READ, name="Menu")
    def menu(self) -> Annotated[str, DBusSignature("o")]:
        return MENU_PATH

    # -- methods --------------------------------------------------------------------------------

    @dbus_method(name="Activate")
    def activate(self, x: Annotated[int, DBusSignature("i")], y: Annotated[int, DBusSignature("i")]) -> NoReply:
        """A left click the host did not turn into its menu (LXQt's panel): the menu, ours."""
        self._menu()

    @dbus_method(name="SecondaryActivate")
    def secondary_activate(
        self, x: Annotated[int, DBusSignature("i")], y: Annotated[int, DBusSignature("i")]
    ) -> NoReply:
        self._activate()

    @dbus_method(name="ContextMenu")
    def context_menu(self, x: Annotated[int, DBusSignature("i")], y: Annotated[int, DBusSignature("i")]) -> NoReply:
        """Sent by a host that draws no dbusmenu itself: the menu, ours."""
        self._menu()

    @dbus_method(name="Scroll")
    def scroll(
        self, delta: Annotated[int, DBusSignature("i")], orientation: Annotated[str, DBusSignature("s")]
    ) -> NoReply:
        """Scrolling over the icon means nothing here."""

    # -- signals --------------------------------------------------------------------------------

    @dbus_signal(name="NewIcon")
    def new_icon(self) -> NoReply:
        return None

    @dbus_signal(name="NewToolTip")
    def new_tool_tip(self) -> NoReply:
        return None

    @dbus_signal(name="NewTitle")
    def new_title(self) -> NoReply:
        return None

    @dbus_signal(name="NewStatus")
    def new_status(self, status: str) -> Annotated[str, DBusSignature("s")]:
        return status
