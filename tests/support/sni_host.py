"""A panel played by the tests on a real `dbus-daemon`: the StatusNotifierWatcher items register
with, the host that reads an item and walks its dbusmenu, a notification service and the
desktop portal's folder dialog.  Everything goes over the bus as a real panel's would
(dbus-fast, the same library the tray uses, but none of the tray's code)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from dbus_fast import Message, MessageType, Variant
from dbus_fast.aio import MessageBus

WATCHER = "org.kde.StatusNotifierWatcher"
ITEM = "org.kde.StatusNotifierItem"
MENU = "com.canonical.dbusmenu"
NOTIFICATIONS = "org.freedesktop.Notifications"
PORTAL = "org.freedesktop.portal.Desktop"
PORTAL_PATH = "/org/freedesktop/portal/desktop"
FILE_CHOOSER = "org.freedesktop.portal.FileChooser"
PROPERTIES = "org.freedesktop.DBus.Properties"
WAIT = 30.0


@dataclass
class SessionBus:
    address: str
    pid: int

    def stop(self) -> None:
        with suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGTERM)


def start_session_bus() -> SessionBus:
    """A private session bus (its own dbus-daemon), never the desktop's."""
    out = subprocess.run(
        ["dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout.split()
    return SessionBus(out[0], int(out[1]))


async def call(
    bus: MessageBus, destination: str, path: str, interface: str, member: str, sig: str = "", body: Any = ()
) -> Any:
    reply = await asyncio.wait_for(
        bus.call(
            Message(
                destination=destination, path=path, interface=interface, member=member, signature=sig, body=list(body)
            )
        ),
        WAIT,
    )
    assert reply is not None
    if reply.message_type == MessageType.ERROR:
        raise CallError(reply.error_name or "", reply.body[0] if reply.body else "")
    return reply.body


class CallError(Exception):
    def __init__(self, name: str, text: str) -> None:
        super().__init__(f"{name}: {text}")
        self.name = name


def unwrap(value: Any) -> Any:
    """Variants (and variants inside lists and dicts) as plain Python values."""
    if isinstance(value, Variant):
        return unwrap(value.value)
    if isinstance(value, list):
        return [unwrap(v) for v in value]
    if isinstance(value, dict):
        return {k: unwrap(v) for k, v in value.items()}
    return value


@dataclass
class Panel:
    """The watcher (on a connection of its own, so it can 'restart') and the host."""

    address: str
    host: MessageBus
    watcher: MessageBus | None = None
    registrations: list[tuple[str, str]] = field(default_factory=list)  # (sender, service)
    signals: list[tuple[str, str, list[Any]]] = field(default_factory=list)  # (path, member, body)
    notifications: list[list[Any]] = field(default_factory=list)
    folder_requests: list[dict[str, Any]] = field(default_factory=list)
    folder_answer: str | None = None  # the folder the played portal 'chooses'
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    # -- the watcher ----------------------------------------------------------------------------

    async def start_watcher(self) -> None:
        bus = await MessageBus(bus_address=self.address).connect()

        def handle(message: Message) -> Message | None:
            if message.message_type == MessageType.METHOD_CALL and message.interface == WATCHER:
                if message.member == "RegisterStatusNotifierItem":
                    self.registrations.append((message.sender or "", message.body[0]))
                    self._poke()
                    return Message.new_method_return(message)
                if message.member == "RegisterStatusNotifierHost":
                    return Message.new_method_return(message)
            return None

        bus.add_message_handler(handle)
        await bus.request_name(WATCHER)
        self.watcher = bus

    def stop_watcher(self) -> None:
        """The panel goes away: its connection closes and the watcher's name is free."""
        assert self.watcher is not None
        self.watcher.disconnect()
        self.watcher = None

    # -- services the tray uses -----------------------------------------------------------------

    async def offer_services(self) -> None:
        def handle(message: Message) -> Message | None:
            if message.message_type != MessageType.METHOD_CALL:
                if message.message_type == MessageType.SIGNAL and message.sender != "org.freedesktop.DBus":
                    self.signals.append((message.path or "", message.member or "", list(message.body)))
                    self._poke()
                return None
            if message.interface == NOTIFICATIONS and message.member == "Notify":
                self.notifications.append(list(message.body))
                self._poke()
                return Message.new_method_return(message, "u", [len(self.notifications)])
            asks_version = message.interface == PROPERTIES and message.body == [FILE_CHOOSER, "version"]
            if message.path == PORTAL_PATH and asks_version and message.member == "Get":
                return Message.new_method_return(message, "v", [Variant("u", 4)])
            if message.interface == FILE_CHOOSER and message.member == "OpenFile":
                return self._open_file(message)
            return None

        self.host.add_message_handler(handle)
        await self.host.request_name(NOTIFICATIONS)
        await self.host.request_name(PORTAL)

    def _open_file(self, message: Message) -> Message:
        options = unwrap(message.body[2])
        self.folder_requests.append(options)
        sender = (message.sender or "").lstrip(":").replace(".", "_")
        handle = f"{PORTAL_PATH}/request/{sender}/{options['handle_token']}"
        results = {"uris": Variant("as", [f"file://{self.folder_answer}"])} if self.folder_answer else {}
        code = 0 if self.folder_answer else 1

        def respond() -> None:
            self.host.send(
                Message.new_signal(handle, "org.freedesktop.portal.Request", "Response", "ua{sv}", [code, results])
            )

        asyncio.get_running_loop().call_later(0.2, respond)  # the person takes a moment to choose
        self._poke()
        return Message.new_method_return(message, "o", [handle])

    # -- the host -------------------------------------------------------------------------------

    async def listen_to(self, sender: str) -> None:
        await call(
            self.host,
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus",
            "AddMatch",
            "s",
            [f"type='signal',sender='{sender}'"],
        )

    async def item_properties(self, service: str) -> dict[str, Any]:
        (props,) = await call(self.host, service, "/StatusNotifierItem", PROPERTIES, "GetAll", "s", [ITEM])
        return {k: v.value for k, v in props.items()}

    async def item_call(self, service: str, member: str, sig: str = "", body: Any = ()) -> Any:
        return await call(self.host, service, "/StatusNotifierItem", ITEM, member, sig, body)

    async def menu_call(self, service: str, member: str, sig: str = "", body: Any = ()) -> Any:
        return await call(self.host, service, "/MenuBar", MENU, member, sig, body)

    async def layout(self, service: str) -> tuple[int, dict[str, Any]]:
        revision, tree = await self.menu_call(service, "GetLayout", "iias", [0, -1, []])
        return revision, as_node(tree)

    async def click(self, service: str, node_id: int) -> None:
        await self.menu_call(service, "Event", "isvu", [node_id, "clicked", Variant("i", 0), 0])

    # -- waiting --------------------------------------------------------------------------------

    def _poke(self) -> None:
        self._changed.set()

    async def eventually(self, read: Callable[[], Awaitable[Any]], check: Callable[[Any], bool], what: str) -> Any:
        """Read something from the tray again each time it sends a signal, until `check` holds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT
        while True:
            self.signals.clear()  # before reading: a change after the read is news
            value = await read()
            if check(value):
                return value
            left = deadline - loop.time()
            if left <= 0:
                raise AssertionError(f"timed out after {WAIT:.0f} s waiting for {what}; last: {value!r:.300}")
            with suppress(AssertionError):
                await self.until(lambda: self.signals, what, min(left, 5.0))

    async def until(self, check: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
        """Wait (bounded) until `check()` is true; it is looked at whenever the bus brings news,
        and at least every half second (for effects on disk)."""

        async def loop() -> Any:
            while True:
                result = check()
                if result:
                    return result
                self._changed.clear()
                with suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), 0.5)

        try:
            return await asyncio.wait_for(loop(), timeout)
        except TimeoutError:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}") from None


def as_node(tree: list[Any]) -> dict[str, Any]:
    node_id, props, children = tree
    node = {"id": node_id, **unwrap(props)}
    node["children"] = [as_node(unwrap(child)) for child in children]
    return node


def find_node(node: dict[str, Any], *labels: str) -> dict[str, Any]:
    """The item at `labels` (menu texts as the person reads them) under `node`."""
    for child in node["children"]:
        if child.get("label", "").replace("__", "_") == labels[0]:
            return child if len(labels) == 1 else find_node(child, *labels[1:])
    shown = [c.get("label") for c in node["children"]]
    raise AssertionError(f"{labels[0]!r} is not in the menu: {shown}")


def as_model(node: dict[str, Any]) -> list[dict[str, Any]]:
    """The layout in the shape of the tray's menu dump (tray_app.menu_as_data), to compare."""
    items: list[dict[str, Any]] = []
    for child in node["children"]:
        if child.get("type") == "separator":
            items.append({"text": "-", "checked": None, "enabled": True, "submenu": None})
            continue
        toggle = child.get("toggle-type", "")
        items.append(
            {
                "text": child["label"].replace("__", "_"),
                "checked": None if not toggle else child["toggle-state"] == 1,
                "enabled": child.get("enabled", True),
                "submenu": as_model(child) if child.get("children-display") == "submenu" else None,
            }
        )
    return items


@asynccontextmanager
async def panel(address: str) -> AsyncIterator[Panel]:
    host = await MessageBus(bus_address=address).connect()
    played = Panel(address, host)
    try:
        await played.offer_services()
        await played.start_watcher()
        yield played
    finally:
        if played.watcher is not None:
            played.watcher.disconnect()
        host.disconnect()
