"""Desktop notifications over the freedesktop.org `org.freedesktop.Notifications` service.

Every Linux desktop has one (GNOME Shell, Plasma, XFCE's and MATE's daemons, dunst, mako, …).
Where there is no session bus (macOS, Windows) `notify` says False and the tray uses its
pystray backend's own notifications instead.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from vault_recall.app.app_errors import SessionBusError
from vault_recall.app.desktop import session_bus

log = logging.getLogger(__name__)

SERVICE = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
APP_NAME = "Vault Recall"
SHOW_MILLISECONDS = 8000

# How the tray tells a person something, a summary and a body: `notify` here, or the pystray
# backend's own notifications where there is no session bus.
Notify = Callable[[str, str], None]


def notify(summary: str, body: str = "") -> bool:
    """Show a notification; True when the desktop's notification service took it."""
    if session_bus.address() is None:
        return False
    from dbus_fast import Variant

    hints = {"desktop-entry": Variant("s", "vault-recall"), "urgency": Variant("y", 1)}
    try:
        session_bus.call(
            SERVICE,
            PATH,
            SERVICE,
            "Notify",
            "susssasa{sv}i",
            [APP_NAME, 0, "vault-recall", summary, body, [], hints, SHOW_MILLISECONDS],
        )
    except SessionBusError as exc:
        log.warning("could not show a notification (%s): %s", exc, summary)
        return False
    return True
