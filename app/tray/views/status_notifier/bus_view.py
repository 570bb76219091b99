"""The tray as a StatusNotifierItem with a dbusmenu menu, on the session bus (dbus-fast).

One asyncio loop on the main thread owns the connection and both exported objects; other
threads hand it new looks with `show` (thread-safe).  The item registers with the panel's
StatusNotifierWatcher, and again whenever a watcher appears (the panel restarted, or it
started after us), so the icon comes back by itself.  A panel takes the watcher's name a
moment before it can take registrations (it answers `UnknownObject` or `ServiceUnknown` until
its object is exported), so a refused registration is tried again, sooner first, until the
watcher takes it or goes away.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import signal
import subprocess
from collections.abc import Callable

from dbus_fast import Message, MessageType
from dbus_fast.aio import MessageBus

from vault_recall.app.app_errors import SessionBusError
from vault_recall.app.desktop import session_bus
from vault_recall.app.tray.menu.tree import Action, Item
from vault_recall.app.tray.views.popup_menu import CLICKED, chosen_action, menu_payload, popup_command
from vault_recall.app.tray.views.protocol import Shown
from vault_recall.app.tray.views.status_notifier.dbusmenu import DBusMenu
from vault_recall.app.tray.views.status_notifier.notifier_item import ITEM_PATH, MENU_PATH, StatusNotifierItem

log = logging.getLogger(__name__)

WATCHER = "org.kde.StatusNotifierWatcher"
WATCHER_PATH = "/StatusNotifierWatcher"
# Pauses between registrations a new watcher refused: short first (its object is usually there
# within milliseconds), then once a second, for as long as that watcher owns the name.
RETRY_SECONDS = (0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0)
# After a refusal, a registration waits (this long at most) for the panel's host to be set up
# with its watcher: a host that lists the items while one registers may show that one twice.
HOST_WAIT_SECONDS = 1.5
# … and a moment more once it is: a host's own widgets may still be reading the list then.
HOST_SETTLE_SECONDS = 0.3


class SniView:
    instances = 0

    def __init__(self, dispatch: Callable[[Action], None]) -> None:
        self._dispatch = dispatch
        self.menu = DBusMenu(dispatch)
        self.item = StatusNotifierItem(self._activate, self._pop_up)
        self._items: tuple[Item, ...] = ()  # the menu model shown now
        self._popup: asyncio.Task[None] | None = None  # our own menu, while it is open
        self._popup_process: asyncio.subprocess.Process | None = None
        self.popups = 0  # menus of ours shown (tests wait for it)
        SniView.instances += 1  # a view made again (back from GTK's) takes a name of its own
        self.name = f"org.kde.StatusNotifierItem-{os.getpid()}-{SniView.instances}"
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped: asyncio.Event | None = None
        self._pending: Shown | None = None
        self._registering: asyncio.Task[None] | None = None
        self._on_bus = False  # the objects are exported on a live connection: looks may be sent
        self.registrations = 0

    # -- TrayView -------------------------------------------------------------------------------

    def show(self, shown: Shown) -> None:
        loop = self._loop
        if loop is None:
            self._pending = shown  # before run: drawn as soon as the objects are exported
            return
        try:
            loop.call_soon_threadsafe(self._show, shown)
        except RuntimeError:
            # Its loop has closed: this view stopped (Quit, or a move to another backend) while
            # a click was still being handled.  The next view, if any, draws the state afresh.
            log.debug("a look came after the StatusNotifierItem view stopped")

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
        if not self._on_bus:
            # Before the connection (drawn once exported), or after it closed: a look handed
            # over as Quit disconnected still runs on this loop, and its signals would be
            # written to a closed socket.
            self._pending = shown
            return
        self.item.show(shown.status, shown.recalling, shown.tooltip)
        self.menu.show(shown.items)
        self._items = shown.items

    def _activate(self) -> None:
        """A click where no menu of ours can be drawn: the menu's first line (open the vault),
        marked as a click, so a failure to open says where the menu is."""
        if self.menu.layout.default is not None:
            self._dispatch((*self.menu.layout.default, CLICKED))

    def _pop_up(self) -> None:
        """A click the host did not turn into the menu: ours, one at a time (a second click
        while it is open is the one that closes it)."""
        if self._popup is None or self._popup.done():
            self._popup = asyncio.ensure_future(self._run_popup(self._items))

    async def _run_popup(self, items: tuple[Item, ...]) -> None:
        command = popup_command()
        if command is None:
            log.info("no GTK here to draw the menu on a left click: the click opens the vault")
            self._activate()
            return
        process = await asyncio.create_subprocess_exec(
            *command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self._popup_process = process
        self.popups += 1
        try:
            out, err = await process.communicate(json.dumps(menu_payload(items)).encode())
        finally:
            self._popup_process = None
        if process.returncode != 0:
            log.warning("the menu could not be shown (%s): %s", process.returncode, err.decode(errors="replace"))
            self._activate()
            return
        action = chosen_action(items, out.decode(errors="replace"))
        if action is not None:
            self._dispatch(action)

    async def _main(self, started: Callable[[], None]) -> None:
        self._stopped = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        bus = await session_bus.connect()
        bus.export(ITEM_PATH, self.item)
        bus.export(MENU_PATH, self.menu)
        self._on_bus = True
        if self._pending is not None:
            self._show(self._pending)
        await bus.request_name(self.name)
        bus.add_message_handler(self._on_message(bus))
        rule = f"type='signal',sender='{session_bus.BUS}',member='NameOwnerChanged',arg0='{WATCHER}'"
        await session_bus.add_match(bus, rule)
        for number in (signal.SIGINT, signal.SIGTERM):
            self._loop.add_signal_handler(number, self._stopped.set)
        owner = await self._owner(bus)
        if owner is not None:
            self._register_soon(bus, owner)
        started()
        disconnected = asyncio.ensure_future(bus.wait_for_disconnect())  # type: ignore[no-untyped-call]
        stopped = asyncio.ensure_future(self._stopped.wait())
        await asyncio.wait({disconnected, stopped}, return_when=asyncio.FIRST_COMPLETED)
        self._on_bus = False
        if self._popup_process is not None and self._popup_process.returncode is None:
            self._popup_process.kill()  # a menu of ours left open as the tray ends goes with it
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
            ):
                # A (new) panel took the watcher's name: register with it.  Or the name is free:
                # stop asking the one that left (the next owner starts its own round).
                self._register_soon(bus, message.body[2] or None)

        return handle

    def _register_soon(self, bus: MessageBus, owner: str | None) -> None:
        if self._registering is not None:
            self._registering.cancel()
        self._registering = asyncio.ensure_future(self._register(bus, owner)) if owner else None

    async def _owner(self, bus: MessageBus) -> str | None:
        try:
            reply = await session_bus.call_on(
                bus, session_bus.BUS, session_bus.BUS_PATH, session_bus.BUS, "GetNameOwner", "s", [WATCHER]
            )
        except SessionBusError:
            return None  # nobody owns it
        return str(reply[0])

    async def _host_ready(self, bus: MessageBus, owner: str) -> bool:
        try:
            reply = await session_bus.call_on(
                bus,
                owner,
                WATCHER_PATH,
                session_bus.PROPERTIES,
                "Get",
                "ss",
                [WATCHER, "IsStatusNotifierHostRegistered"],
            )
        except SessionBusError:
            return False
        return reply[0].value is True

    async def _register(self, bus: MessageBus, owner: str) -> None:
        """Register with the watcher `owner` (a unique bus name), again and again while it refuses."""
        loop = asyncio.get_running_loop()
        refused_at: float | None = None
        ready_at: float | None = None
        for attempt in itertools.count():
            if refused_at is not None:
                await asyncio.sleep(RETRY_SECONDS[min(attempt, len(RETRY_SECONDS) - 1)])
                if await self._owner(bus) != owner:
                    return  # that watcher is gone; its successor's NameOwnerChanged starts anew
                if ready_at is None and await self._host_ready(bus, owner):
                    ready_at = loop.time()
                settled = ready_at is not None and loop.time() - ready_at >= HOST_SETTLE_SECONDS
                if loop.time() - refused_at < HOST_WAIT_SECONDS and not settled:
                    continue
            try:
                await session_bus.call_on(
                    bus, owner, WATCHER_PATH, WATCHER, "RegisterStatusNotifierItem", "s", [self.name]
                )
            except SessionBusError as exc:
                if refused_at is None:
                    refused_at = loop.time()
                    log.info("the panel did not take the icon yet (%s); asking again", exc)
                continue
            self.registrations += 1
            return
