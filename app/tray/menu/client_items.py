"""The client parts of the tray menu, as data: *Connect a client ▸* (one click installs our
entry into a client's config file) and *Clients ▸* (each client seen, registered or installed:
what it recalled, its entry, snippets, what it sees).

Clients found on this computer (their config folder exists) come first in *Connect*, under a
heading of their own; a connected client is checked.
"""

from __future__ import annotations

from vault_recall.app.clients.catalogue import CLIENTS, client_spec
from vault_recall.app.timefmt import ago
from vault_recall.app.tray.installed import Installed
from vault_recall.app.tray.menu import url_snippet
from vault_recall.app.tray.menu.items import SEPARATOR, Item, TrayState, marked, note_name, short
from vault_recall.server.activity.event_rows import ClientSummary

CONNECT = "Connect a client"
FOUND_HEADING = "Found on this computer"
OTHERS_HEADING = "Not found here"


def connect_menu(state: TrayState) -> tuple[Item, ...]:
    """Every client of the catalogue, those found on this computer first; one click connects
    it (installs our entry, or copies it where a client keeps servers in its settings only)."""
    found = [spec for spec in CLIENTS if spec.id in state.found_clients]
    others = [spec for spec in CLIENTS if spec.id not in state.found_clients]
    items: list[Item] = []
    for heading, specs in ((FOUND_HEADING, found), (OTHERS_HEADING, others)):
        if not specs:
            continue
        if items:
            items.append(SEPARATOR)
        if found:  # with nothing found, a heading would only say so
            items.append(Item(heading, enabled=False))
        items += [
            Item(
                spec.name,
                ("connect", spec.id),
                checked=spec.id in state.installed,
                enabled=_can_connect(state, spec.id),
            )
            for spec in specs
        ]
    return tuple(items)


def _can_connect(state: TrayState, client_id: str) -> bool:
    spec = client_spec(client_id)
    return spec is not None and (not spec.paste_only or state.can_copy)  # a paste-only client's entry is copied


def clients_menu(state: TrayState) -> tuple[Item, ...]:
    seen = {s.client: s for s in state.clients}
    registered = [c.id for c in state.config.clients]
    ids = registered + sorted((set(seen) | set(state.installed)) - set(registered))
    items = [Item(short(state.name_of(cid)), submenu=_client_menu(state, cid, seen.get(cid))) for cid in ids]
    if not items:
        items.append(Item(f"No clients yet: {CONNECT} connects one", enabled=False))
    return tuple(items)


def _installed_line(installed: Installed | None) -> str:
    if installed is None:
        return "Not installed"
    where = url_snippet.shown_path(installed.path)
    return f"Installed by URL in {where}" if installed.by_url else f"Installed in {where}"


def _client_menu(state: TrayState, client_id: str, summary: ClientSummary | None) -> tuple[Item, ...]:
    spec = client_spec(client_id)
    calls = f"{summary.calls:,} call{'s' if summary.calls != 1 else ''}" if summary else ""
    last = f"Last seen {ago(summary.last_ts, state.now)} · {calls}" if summary else "Not seen yet"
    items: list[Item] = [Item(last, enabled=False)]
    notes: dict[str, tuple[str, str | None]] = {}  # path → the vault and revision of its latest recall
    for event in reversed(state.recent):
        if event.client == client_id:
            for path, given in event.given():
                notes.setdefault(path, (event.vault or "", given))
    items += [
        Item(marked(f"Recalled: {note_name(p)}", state, vault, p, given), ("open_note", p, vault))
        for p, (vault, given) in list(notes.items())[:5]
    ]
    entry = state.config.client(client_id)
    installed = state.installed.get(client_id)
    if spec is not None and not spec.paste_only:
        items.insert(1, Item(short(_installed_line(installed)), enabled=False))
    items.append(SEPARATOR)
    if spec is not None:
        items.append(Item("Copy config snippet", ("copy_snippet", client_id), enabled=state.can_copy))
        if not spec.paste_only:
            items.append(Item(f"Install into {spec.name}", ("install", client_id)))
        if installed is not None:
            items.append(Item(f"Uninstall from {spec.name}", ("uninstall", client_id)))
        if spec.http is not None:
            items.append(Item("Install by URL", ("install_http", client_id)))
            label = url_snippet.label(installed, entry)
            items.append(Item(label, ("copy_http_snippet", client_id), enabled=state.can_copy))
    exposure = entry.exposure if entry else "records"
    sees = [
        Item(
            "Memory records of every subject",
            ("expose", client_id, "records"),
            checked=exposure == "records",
            radio=True,
        ),
        Item("Every note of the vault", ("expose", client_id, "vault"), checked=exposure == "vault", radio=True),
    ]
    chosen = exposure if isinstance(exposure, tuple) else ()
    known = tuple(s["subject"] for s in state.health.subjects) if state.health else ()
    subjects = sorted(set(known) | set(chosen))
    if subjects:
        sees.append(SEPARATOR)
        sees += [Item(short(f"Only {s}"), ("expose_toggle", client_id, s), checked=s in chosen) for s in subjects]
    items.append(Item("Sees", submenu=tuple(sees)))
    return tuple(items)
