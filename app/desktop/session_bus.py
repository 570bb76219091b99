"""The desktop session's D-Bus, through dbus-fast (pure Python with wheels: nothing to compile).

Linux and the BSDs only; elsewhere (or without a session bus) `address()` is None and every
caller falls back to something else.  `call` is for the few one-off questions and commands the
desktop code sends (is a name there, show a notification); it opens its own short connection,
so it can be used from any thread that is not running an event loop.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_recall.app.app_errors import SessionBusError

if TYPE_CHECKING:
    from dbus_fast.aio import MessageBus

BUS = "org.freedesktop.DBus"
BUS_PATH = "/org/freedesktop/DBus"
PROPERTIES = "org.freedesktop.DBus.Properties"
CALL_SECONDS = 5.0


def address() -> str | None:
    """Where the session bus listens, or None when there is none (or no D-Bus library)."""
    try:
        import dbus_fast  # noqa: F401
    except ImportError:
        return None
    configured = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    if configured:
        return configured
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and (Path(runtime) / "bus").is_socket():  # systemd's per-user bus
        return f"unix:path={Path(runtime) / 'bus'}"
    return None


async def connect() -> MessageBus:
    """A new connection to the session bus (raises SessionBusError when there is none)."""
    from dbus_fast import DBusFastError
    from dbus_fast.aio import MessageBus

    where = address()
    if where is None:
        raise SessionBusError("there is no D-Bus session bus here")
    try:
        bus = await asyncio.wait_for(MessageBus(bus_address=where).connect(), CALL_SECONDS)
    except (OSError, TimeoutError, DBusFastError) as exc:
        raise SessionBusError(f"cannot connect to the D-Bus session bus at {where}: {exc}") from exc
    survive_full_buffers(bus)
    return bus


class _SendsWhatFits:
    """The bus's socket as dbus-fast's writer sees it: a send buffer that is full ("try again",
    EAGAIN) has taken nothing yet, instead of an error.

    dbus-fast's writer takes that error for a broken connection and drops it — the tray's item
    and menu vanish from the panel — when the panel is slow to read what it asked for (the
    icon's pixmaps, some 140 kB, on every change of colour).  Told "nothing sent", the writer
    does what it does for any partial write: it waits until the socket can take more.  (No
    file descriptors are ever sent here, the one thing a retried `sendmsg` would lose.)"""

    __slots__ = ("_socket",)

    def __init__(self, sock: Any) -> None:
        self._socket = sock

    def send(self, data: Any) -> int:
        try:
            return int(self._socket.send(data))
        except BlockingIOError:
            return 0

    def sendmsg(self, buffers: Any, ancdata: Any) -> int:
        try:
            return int(self._socket.sendmsg(buffers, ancdata))
        except BlockingIOError:
            return 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._socket, name)


def survive_full_buffers(bus: MessageBus) -> None:
    """Let `bus` (dbus-fast's asyncio bus) wait out a full send buffer instead of dropping the
    connection; a version of dbus-fast without that writer is left as it is."""
    writer = getattr(bus, "_writer", None)
    sock = getattr(writer, "sock", None)
    if sock is not None and not isinstance(sock, _SendsWhatFits):
        writer.sock = _SendsWhatFits(sock)  # type: ignore[union-attr]


async def call_on(
    bus: MessageBus,
    destination: str,
    path: str,
    interface: str,
    member: str,
    signature: str = "",
    body: list[Any] | None = None,
    timeout: float = CALL_SECONDS,
) -> list[Any]:
    """One method call on an open connection; its reply's arguments, or SessionBusError."""
    from dbus_fast import Message, MessageType

    message = Message(
        destination=destination, path=path, interface=interface, member=member, signature=signature, body=body or []
    )
    try:
        reply = await asyncio.wait_for(bus.call(message), timeout)
    except TimeoutError as exc:
        raise SessionBusError(f"{destination} did not answer {member} within {timeout:.0f} s") from exc
    if reply is None or reply.message_type == MessageType.ERROR:
        detail = reply.body[0] if reply is not None and reply.body else "no reply"
        raise SessionBusError(
            f"{destination} refused {member}: {reply.error_name if reply else ''} {detail}".strip(),
            answered=reply is not None,
        )
    return list(reply.body)


def call(
    destination: str,
    path: str,
    interface: str,
    member: str,
    signature: str = "",
    body: list[Any] | None = None,
    timeout: float = CALL_SECONDS,
) -> list[Any]:
    """`call_on` over a connection of its own, from plain (non-async) code."""

    async def once() -> list[Any]:
        bus = await connect()
        try:
            return await call_on(bus, destination, path, interface, member, signature, body, timeout)
        finally:
            bus.disconnect()

    return asyncio.run(once())


def has_owner(name: str) -> bool:
    """Is some program holding `name` on the session bus right now?"""
    try:
        return bool(call(BUS, BUS_PATH, BUS, "NameHasOwner", "s", [name])[0])
    except SessionBusError:
        return False


async def add_match(bus: MessageBus, rule: str) -> None:
    """Ask the bus to send us the signals `rule` describes."""
    await call_on(bus, BUS, BUS_PATH, BUS, "AddMatch", "s", [rule])
