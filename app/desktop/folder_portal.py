"""'Choose a folder' through the desktop portal (`org.freedesktop.portal.FileChooser`).

The portal shows the desktop's own dialog (GTK's on GNOME, Qt's on Plasma, …) on X11 and
Wayland alike, with nothing of ours to install.  The answer comes back later as a `Response`
signal on a request object whose path we can tell in advance, so we listen before we ask.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from vault_recall.app.app_errors import SessionBusError
from vault_recall.app.desktop import session_bus

PORTAL = "org.freedesktop.portal.Desktop"
PORTAL_PATH = "/org/freedesktop/portal/desktop"
FILE_CHOOSER = "org.freedesktop.portal.FileChooser"
REQUEST = "org.freedesktop.portal.Request"
DIRECTORY_SINCE = 3  # the FileChooser version that can choose folders
TITLE = "Choose your Obsidian vault"


# A portal that did not answer in time is asked again, but not more often than this: the
# tray asks whenever it builds its menu, and an unanswered call waits CALL_SECONDS.
ASK_AGAIN_SECONDS = 60.0
_known: bool | None = None  # the answer, once the bus has given one
_unanswered_at: float | None = None  # when the last unanswered question was asked


def available() -> bool:
    """A portal that can choose folders answers on this session's bus.  An answer either way
    is kept for the process; no answer (a timeout — the portal may still be starting, by
    D-Bus activation at login) is "no" for now and asked again after ASK_AGAIN_SECONDS."""
    global _known, _unanswered_at
    if _known is not None:
        return _known
    if _unanswered_at is not None and time.monotonic() - _unanswered_at < ASK_AGAIN_SECONDS:
        return False
    if session_bus.address() is None:
        _known = False
        return False
    try:
        reply = session_bus.call(
            PORTAL,
            PORTAL_PATH,
            session_bus.PROPERTIES,
            "Get",
            "ss",
            [FILE_CHOOSER, "version"],
            timeout=session_bus.CALL_SECONDS,
        )
    except SessionBusError as exc:
        if exc.answered:
            _known = False
        else:
            _unanswered_at = time.monotonic()
        return False
    version = reply[0]
    _known = isinstance(version.value, int) and version.value >= DIRECTORY_SINCE
    return _known


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
            raise SessionBusError("the session bus went away while the folder dialog was open")
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
