"""'Choose a folder' through the desktop portal (`org.freedesktop.portal.FileChooser`).

The portal shows the desktop's own dialog (GTK's on GNOME, Qt's on Plasma, …) on X11 and
Wayland alike, with nothing of ours to install.  The answer comes back later as a `Response`
signal on a request object whose path we can tell in advance, so we listen before we ask.
"""

from __future__ import annotations

import asyncio
import functools
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from vault_recall.app.desktop import session_bus

PORTAL = "org.freedesktop.portal.Desktop"
PORTAL_PATH = "/org/freedesktop/portal/desktop"
FILE_CHOOSER = "org.freedesktop.portal.FileChooser"
REQUEST = "org.freedesktop.portal.Request"
DIRECTORY_SINCE = 3  # the FileChooser version that can choose folders
TITLE = "Choose your Obsidian vault"


@functools.cache
def available() -> bool:
    """A portal that can choose folders answers on this session's bus (asked once per process;
    the portal is started by D-Bus activation if it is installed but not running)."""
    if session_bus.address() is None:
        return False
    try:
        reply = session_bus.call(PORTAL, PORTAL_PATH, session_bus.PROPERTIES, "Get", "ss", [FILE_CHOOSER, "version"])
        version = reply[0]
    except session_bus.SessionBusError:
        return False
    return isinstance(version.value, int) and version.value >= DIRECTORY_SINCE


def choose_folder() -> Path | None:
    """Show the portal's folder dialog and wait for the person; None when they cancel.
    Raises SessionBusError when the portal cannot be asked."""
    return asyncio.run(_choose())


async def _choose() -> Path | None:
    from dbus_fast import Message, MessageType, Variant

    bus = await session_bus.connect()
    try:
        token = "vault_recall_" + secrets.token_hex(6)
        sender = (bus.unique_name or "").lstrip(":").replace(".", "_")
        expected = f"{PORTAL_PATH}/request/{sender}/{token}"
        answer: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        handles = {expected}

        def on_message(message: Message) -> None:
            is_response = message.message_type == MessageType.SIGNAL and message.member == "Response"
            if is_response and message.interface == REQUEST and message.path in handles and not answer.done():
                answer.set_result(list(message.body))

        bus.add_message_handler(on_message)
        await session_bus.add_match(bus, f"type='signal',interface='{REQUEST}',member='Response'")
        options = {
            "handle_token": Variant("s", token),
            "directory": Variant("b", True),
            "modal": Variant("b", True),
            "accept_label": Variant("s", "Use this vault"),
        }
        arguments = ["", TITLE, options]
        handle = await session_bus.call_on(bus, PORTAL, PORTAL_PATH, FILE_CHOOSER, "OpenFile", "ssa{sv}", arguments)
        handles.add(handle[0])  # portals older than 0.9 use a path of their own
        disconnected = asyncio.ensure_future(bus.wait_for_disconnect())  # type: ignore[no-untyped-call]
        done, _ = await asyncio.wait({answer, disconnected}, return_when=asyncio.FIRST_COMPLETED)
        disconnected.cancel()
        if answer not in done:
            raise session_bus.SessionBusError("the session bus went away while the folder dialog was open")
        code, results = answer.result()
        return folder_from(code, results)
    finally:
        bus.disconnect()


def folder_from(code: int, results: dict[str, Any]) -> Path | None:
    """The chosen folder from a portal Response: code 0 is 'chosen', 1 'cancelled', 2 'failed'."""
    uris = results.get("uris")
    chosen = uris.value if uris is not None and hasattr(uris, "value") else uris
    if code != 0 or not chosen:
        return None
    parts = urlsplit(str(chosen[0]))
    return Path(unquote(parts.path)) if parts.scheme == "file" else None
