"""The tray as a StatusNotifierItem with a dbusmenu menu, on the session bus (dbus-fast).

One asyncio loop on the main thread owns the connection and both exported objects; other
threads hand it new looks with `show` (thread-safe).  The item registers with the panel's
StatusNotifierWatcher, and again whenever a watcher appears (the panel restarted, or it
started after us), so the icon comes back by itself.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Callable

from dbus_fast import Message, MessageType
from dbus_fast.aio import MessageBus

from vault_recall.app.desktop import session_bus
from vault_recall.app.tray.dbusmenu import DBusMenu
from vault_recall.app.tray.menu import Action
from vault_recall.app.tray.sni_item import ITEM_PATH, MENU_PATH, StatusNotifierItem
from vault_recall.app.tray.tray_app import Shown

log = logging.getLogger(__name__)

WATCHER = "org.kde.StatusNotifierWatcher"
WATCHER_PATH = "/StatusNotifierWatcher"


class SniView:
    def __init__(self, dispatch: Callable[[Action], None]) -> None:
        self._dispatch = dispatch
        self.menu = DBusMenu(dispatch)
        self.item = StatusNotifierItem(self._activate)
        self.name = f"org.kde.StatusNotifierItem-{os.getpid()}-1"
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped: asyncio.Event | None = None
        self._pending: Shown | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.registrations = 0

    # -- TrayView -------------------------------------------------------------------------------

    def show(self, shown: Shown) -> None:
        loop = self._loop
        if loop is None:
            self._pending = shown  # before run: drawn as soon as the objects are exported
            return
        loop.call_soon_threadsafe(self._show, shown)

    def notify(self, message: str) -> bool:
        return False  # notifications go through org.freedesktop.Notifications (desktop/notifications.py)

    def run(self, started: Callable[[], None]) -> None:
        asyncio.run(self._main(started))

    def stop(self) -> None:
        loop, stopped = self._loop, self._stopped
        if loop is not None and stopped is not None:
            loop.call_soon_threadsafe(stopped.set)

    # -- on the loop ----------------------------------------------------------------------------

    def _show(self, shown: Shown) -> None:
        self.item.show(shown.status, shown.recalling, shown.tooltip)
        self.menu.show(shown.items)

    def _activate(self) -> None:
        if self.menu.layout.default is not None:
            self._dispatch(self.menu.layout.default)

    async def _main(self, started: Callable[[], None]) -> None:
        self._stopped = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        if self._pending is not None:
            self._show(self._pending)
        bus = await session_bus.connect()
        bus.export(ITEM_PATH, self.item)
        bus.export(MENU_PATH, self.menu)
        await bus.request_name(self.name)
        bus.add_message_handler(self._on_message(bus))
        rule = f"type='signal',sender='{session_bus.BUS}',member='NameOwnerChanged',arg0='{WATCHER}'"
        await session_bus.add_match(bus, rule)
        for number in (signal.SIGINT, signal.SIGTERM):
            self._loop.add_signal_handler(number, self._stopped.set)
        await self._register(bus)
        started()
        disconnected = asyncio.ensure_future(bus.wait_for_disconnect())  # type: ignore[no-untyped-call]
        stopped = asyncio.ensure_future(self._stopped.wait())
        await asyncio.wait({disconnected, stopped}, return_when=asyncio.FIRST_COMPLETED)
        if disconnected.done():
            log.warning("the D-Bus session ended; the tray ends with it")
        else:
            disconnected.cancel()
            bus.disconnect()

    def _on_message(self, bus: MessageBus) -> Callable[[Message], None]:
        def handle(message: Message) -> None:
            if (
                message.message_type == MessageType.SIGNAL
                and message.member == "NameOwnerChanged"
                and message.body[0] == WATCHER
                and message.body[2]
            ):
                # A (new) panel took the watcher's name: register with it.
                task = asyncio.ensure_future(self._register(bus))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

        return handle

    async def _register(self, bus: MessageBus) -> None:
        try:
            await session_bus.call_on(
                bus, WATCHER, WATCHER_PATH, WATCHER, "RegisterStatusNotifierItem", "s", [self.name]
            )
        except session_bus.SessionBusError as exc:
            log.warning("no panel shows tray icons yet (%s); the icon appears when one starts", exc)
            return
        self.registrations += 1
