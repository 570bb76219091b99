"""Which tray hosts this Linux desktop has right now, and a watch that says when that changes.

Two kinds of panel show tray icons: a StatusNotifierItem host, whose watcher owns
`org.kde.StatusNotifierWatcher` on the session bus (KDE, XFCE, LXQt, GNOME's AppIndicator
extension, waybar, …), and an XEmbed tray, which owns the `_NET_SYSTEM_TRAY_S<screen>`
selection of the X screen (trayer, stalonetray, old panels; XFCE's and LXQt's panels are both).
`present_now` asks once; `HostWatch` follows both on a thread of its own, driven by events
only — the bus's NameOwnerChanged signal, and on X the `MANAGER` message a tray broadcasts when
it takes the selection and the `DestroyNotify` of the window that held it — so it costs nothing
while nothing changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vault_recall.app.app_errors import SessionBusError
from vault_recall.app.desktop import session_bus

log = logging.getLogger(__name__)

WATCHER = "org.kde.StatusNotifierWatcher"


@dataclass(frozen=True)
class Hosts:
    sni: bool  # a StatusNotifierWatcher is on the session bus
    xembed: bool  # an XEmbed tray holds the X screen's system tray selection


def _tray_selection(display: Any) -> Any:
    return display.intern_atom(f"_NET_SYSTEM_TRAY_S{display.get_default_screen()}")


def xembed_tray_present() -> bool:
    """Does an XEmbed tray hold this X screen's system tray selection (False without X)?"""
    if not os.environ.get("DISPLAY"):
        return False
    try:
        from Xlib import X, display

        connection = display.Display()
    except Exception:  # no X library, no server, refused: no XEmbed tray for us either way
        return False
    try:
        return bool(connection.get_selection_owner(_tray_selection(connection)) != X.NONE)
    finally:
        connection.close()


def present_now() -> Hosts:
    bus = session_bus.address() is not None
    return Hosts(sni=bus and session_bus.has_owner(WATCHER), xembed=xembed_tray_present())


class HostWatch:
    """Calls `changed(hosts)` (on its own thread) once at start and whenever a host comes or goes."""

    def __init__(self, changed: Callable[[Hosts], None]) -> None:
        self._changed = changed
        self._sni = False
        self._xembed = False
        self._told: Hosts | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="tray-hosts", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        loop, stopped = self._loop, self._stopped
        if loop is not None and stopped is not None:
            with contextlib.suppress(RuntimeError):  # its loop already ended
                loop.call_soon_threadsafe(stopped.set)

    def _tell(self) -> None:
        hosts = Hosts(self._sni, self._xembed)
        if hosts != self._told:
            self._told = hosts
            self._changed(hosts)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except Exception:  # the thread's entry point: without it the tray keeps its backend
            log.exception("watching for tray hosts failed")

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopped = asyncio.Event()
        bus = await self._watch_bus()
        x = self._watch_x()
        self._tell()
        try:
            await self._stopped.wait()
        finally:
            if bus is not None:
                bus.disconnect()
            if x is not None:
                self._loop.remove_reader(x.fileno())
                x.close()

    async def _watch_bus(self) -> Any:
        from dbus_fast import Message, MessageType

        try:
            bus = await session_bus.connect()
            rule = f"type='signal',sender='{session_bus.BUS}',member='NameOwnerChanged',arg0='{WATCHER}'"
            await session_bus.add_match(bus, rule)
        except SessionBusError:
            return None

        def on_message(message: Message) -> None:
            is_owner_change = message.message_type == MessageType.SIGNAL and message.member == "NameOwnerChanged"
            if is_owner_change and message.body[0] == WATCHER:
                self._sni = bool(message.body[2])
                self._tell()

        bus.add_message_handler(on_message)
        answer = await session_bus.call_on(
            bus, session_bus.BUS, session_bus.BUS_PATH, session_bus.BUS, "NameHasOwner", "s", [WATCHER]
        )
        self._sni = bool(answer[0])
        return bus

    def _watch_x(self) -> Any:
        if not os.environ.get("DISPLAY"):
            return None
        try:
            from Xlib import X, display

            connection = display.Display()
        except Exception:  # no X server to watch: there is no XEmbed tray for us
            return None
        # A tray window gone between our look and our request is a BadWindow error: expected.
        connection.set_error_handler(lambda *_: None)
        selection = _tray_selection(connection)
        manager = connection.intern_atom("MANAGER")
        root = connection.screen().root
        root.change_attributes(event_mask=X.StructureNotifyMask)  # MANAGER is sent to the root
        owner: list[Any] = [None]

        def look() -> None:
            window = connection.get_selection_owner(selection)
            if window == X.NONE:
                owner[0] = None
            else:
                owner[0] = window
                # Its DestroyNotify tells us the tray went away; a window already gone is ignored.
                window.change_attributes(event_mask=X.StructureNotifyMask)
            self._xembed = owner[0] is not None
            self._tell()

        def readable() -> None:
            again = False
            while connection.pending_events():
                event = connection.next_event()
                came = event.type == X.ClientMessage and event.client_type == manager
                went = event.type == X.DestroyNotify and owner[0] is not None and event.window == owner[0]
                if came or went:
                    again = True
            if again:
                look()

        look()
        assert self._loop is not None
        self._loop.add_reader(connection.fileno(), readable)
        connection.flush()
        return connection
