"""The tray's menu as data: a pure function from a state snapshot to a tree of items.

Nothing here touches pystray, D-Bus, the disk or the clock: the tray (tray_app.py) gathers a
`TrayState` and calls `build_menu`; each backend draws the items (pystray's menu, or dbusmenu
over D-Bus), so a new item needs no backend work.  The tests check the items for every state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from vault_recall.app.clients.catalogue import CLIENTS, client_spec
from vault_recall.app.state.activity_view import ClientSummary, EventRow
from vault_recall.app.state.health import HealthReport
from vault_recall.app.state.note_revisions import NoteRef, change_of
from vault_recall.app.state.obsidian_vaults import KnownVault
from vault_recall.app.timefmt import ago
from vault_recall.app.tray import url_snippet
from vault_recall.app.tray.installed import Installed
from vault_recall.server.config.config_file import Config
from vault_recall.server.mcp.http_address import DEFAULT_URL

MAX_RECENT = 10
ADD_VAULT_HINT = "vault-recall vault add PATH"
MAX_PROBLEMS = 15
MAX_LABEL = 70
Action = tuple[str, ...]


@dataclass(frozen=True)
class Item:
    text: str
    action: Action | None = None
    checked: bool | None = None  # None: not a check item
    radio: bool = False
    enabled: bool = True
    submenu: tuple[Item, ...] | None = None
    default: bool = False  # what a left click on the icon does

    @property
    def separator(self) -> bool:
        return self.text == "-"


SEPARATOR = Item("-")


@dataclass(frozen=True)
class TrayState:
    config: Config
    config_error: str | None = None
    health: HealthReport | None = None  # None: still checking
    known_vaults: tuple[KnownVault, ...] = ()
    recent: tuple[EventRow, ...] = ()  # newest last
    clients: tuple[ClientSummary, ...] = ()
    sample_vault: Path | None = None
    notify_recall: bool = False
    notify_health: bool = True
    notify_changed: bool = True
    start_at_login: bool = False
    now: float = 0.0
    can_copy: bool = True  # a clipboard tool exists here
    can_pick_folder: bool = True  # a folder dialog exists here
    endpoint_url: str | None = None  # the HTTP endpoint's address while the tray runs it
    installed: Mapping[str, Installed] = field(default_factory=dict)  # client id → our entry in its file
    version: str = ""
    # Recalled notes' revisions read now (None: gone), for the "changed since" marks; a note
    # not in here gets no mark (its vault is not known here).
    revisions_now: Mapping[NoteRef, str | None] = field(default_factory=dict)


def status_of(state: TrayState) -> str:
    """ok | degraded | empty | unavailable | paused, for the icon."""
    if state.config_error:
        return "unavailable"
    if state.config.paused:
        return "paused"
    if state.health is None:
        return "unavailable"  # grey until the vault is known to be readable
    if state.health.status == "ok" and state.health.records == 0:
        return "empty"  # readable, but nothing to recall: amber, with the reason in the menu
    return state.health.status


STATUS_WORDS = {
    "ok": "healthy",
    "degraded": "some notes are broken",
    "empty": "no memory records yet",
    "unavailable": "unavailable",
    "paused": "recall is paused",
}


def tooltip(state: TrayState) -> str:
    if state.config_error:
        return "Vault Recall — the config file is broken"
    vault = state.config.active_vault or "no vault"
    last = f"; last recall {ago(state.recent[-1].ts, state.now)}" if state.recent else ""
    return _short(f"Vault Recall — {vault}: {STATUS_WORDS[status_of(state)]}{last}", 120)


def client_name(client_id: str) -> str:
    spec = client_spec(client_id)
    return spec.name if spec else client_id


def note_name(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name


def _short(text: str, limit: int = MAX_LABEL) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


MARKS = {"changed": " · changed since", "gone": " · gone since"}


def _marked(text: str, state: TrayState, vault: str, path: str, given: str | None) -> str:
    """A label for a recalled note, shortened, with " · changed since" (or " · gone since")
    kept whole at its end when the note is not what the client was given any more."""
    change = change_of((vault, path), given, state.revisions_now)
    mark = MARKS[change] if change else ""
    return _short(text, MAX_LABEL - len(mark)) + mark


def build_menu(state: TrayState) -> tuple[Item, ...]:
    if state.config_error:
        return (
            Item(_short(f"Config broken: {state.config_error}", 100), enabled=False),
            Item("Show the config file", ("show_config",)),
            SEPARATOR,
            Item("Quit Vault Recall", ("quit",)),
        )
    items: list[Item] = [Item(_health_line(state), ("open_vault",), default=True), *_notices(state)]
    problems = _problems(state)
    if problems and state.health is not None:
        count = len(state.health.problems) + len(state.health.too_large)
        items.append(Item(f"Problems ({count:,})", submenu=problems))
    items += [
        SEPARATOR,
        Item("Vault", submenu=_vault_menu(state)),
        Item("Recent recalls", submenu=_recent_menu(state)),
        Item("Clients", submenu=_clients_menu(state)),
        Item("HTTP endpoint", submenu=_endpoint_menu(state)),
        SEPARATOR,
        Item("Pause recall", ("toggle", "paused"), checked=state.config.paused),
        Item("Notify on recall", ("toggle", "notify_recall"), checked=state.notify_recall),
        Item("Notify on health change", ("toggle", "notify_health"), checked=state.notify_health),
        Item("Notify when a recalled note changes", ("toggle", "notify_changed"), checked=state.notify_changed),
        Item("Start at login", ("toggle", "start_at_login"), checked=state.start_at_login),
        SEPARATOR,
        Item("Help", submenu=_help_menu(state)),
        Item("Quit Vault Recall", ("quit",)),
    ]
    return tuple(items)


def _notices(state: TrayState) -> list[Item]:
    """Lines under the health line saying what the person should know first."""
    items = []
    if state.config.paused:
        items.append(Item("Recall is paused: clients get 'unavailable'", ("toggle", "paused")))
    if _sample_active(state):
        items.append(Item("This is the sample vault, not yours: choose yours…", ("help", "vault")))
    elif not state.config.active_vault:
        items.append(Item("Choose your vault under Vault, or: vault-recall vault add PATH", enabled=False))
    if state.health is not None and state.health.status == "ok" and state.health.records == 0:
        items.append(Item("No memory records yet: what is a record?", ("help", "records")))
    return items


def _help_menu(state: TrayState) -> tuple[Item, ...]:
    return (
        Item("What is a memory record?", ("help", "records")),
        Item("Getting started", ("help", "")),
        Item("Show all activity", ("show_activity",)),
        Item("Run doctor", ("doctor",)),
        SEPARATOR,
        Item(f"Vault Recall {state.version}".strip(), enabled=False),
    )


def _is_sample(entry_path: str, sample: bool, state: TrayState) -> bool:
    return sample or (state.sample_vault is not None and Path(entry_path) == state.sample_vault)


def _sample_active(state: TrayState) -> bool:
    active = state.config.vault(state.config.active_vault) if state.config.active_vault else None
    return active is not None and _is_sample(active.path, active.sample, state)


def _health_line(state: TrayState) -> str:
    if not state.config.active_vault:
        return "No vault yet"
    if state.health is None:
        return _short(f"{state.config.active_vault} — checking…", 90)
    return _short(state.health.summary(state.config.active_vault), 90)


def _problems(state: TrayState) -> tuple[Item, ...]:
    if state.health is None or state.health.status == "unavailable":
        return ()
    items = [
        Item(_short(f"{note_name(p['path'])} — {_without_path(p['path'], p['reason'])}", 90), ("open_note", p["path"]))
        for p in state.health.problems[:MAX_PROBLEMS]
    ]
    items += [
        Item(
            _short(f"{note_name(t['path'])} — too large to recall ({t['bytes']:,} bytes)", 90), ("open_note", t["path"])
        )
        for t in state.health.too_large[: max(0, MAX_PROBLEMS - len(items))]
    ]
    hidden = len(state.health.problems) + len(state.health.too_large) - len(items)
    if hidden > 0:
        items.append(Item(f"… and {hidden} more (vault-recall health)", enabled=False))
    return tuple(items)


def _without_path(path: str, reason: str) -> str:
    """'Notes/N.md, line 3: x' → 'line 3: x' (the menu names the note already)."""
    return reason[len(path) :].lstrip(",: ") if reason.startswith(path) else reason


def _vault_menu(state: TrayState) -> tuple[Item, ...]:
    active = state.config.vault(state.config.active_vault) if state.config.active_vault else None
    active_path = Path(active.path).expanduser() if active else None
    items: list[Item] = []
    known_paths = {vault.path for vault in state.known_vaults}
    added = [v for v in state.config.vaults if Path(v.path).expanduser() not in known_paths]
    mine = [v for v in added if not _is_sample(v.path, v.sample, state)]
    samples = [v for v in added if _is_sample(v.path, v.sample, state)]
    # Two vaults of one name (two "Notes" folders) are told apart by where they are.
    names = [v.name for v in state.known_vaults] + [v.name for v in mine]
    if state.known_vaults:
        items.append(Item("Obsidian's vaults", enabled=False))
    for vault in state.known_vaults:
        label = _with_place(vault.name, vault.path) if names.count(vault.name) > 1 else vault.name
        action = ("use_path", str(vault.path), vault.name)
        items.append(Item(_short(label), action, checked=vault.path == active_path, radio=True))
    if mine:
        items.append(Item("Added by hand" if state.known_vaults else "Your vaults", enabled=False))
    for entry in mine:
        label = _with_place(entry.name, Path(entry.path)) if names.count(entry.name) > 1 else entry.name
        items.append(
            Item(_short(label), ("use", entry.name), checked=entry.name == state.config.active_vault, radio=True)
        )
    if samples:
        items.append(Item("Bundled with Vault Recall", enabled=False))
    for entry in samples:
        checked = entry.name == state.config.active_vault
        items.append(Item("Sample vault (examples, not your notes)", ("use", entry.name), checked=checked, radio=True))
    if state.can_pick_folder:
        choose = Item("Choose folder…", ("choose_folder",))
    else:  # no portal, zenity or kdialog: the command that does it, copied
        choose = Item(f"Add a folder: {ADD_VAULT_HINT} (copy)", ("copy_add_vault",), enabled=state.can_copy)
    items += [
        SEPARATOR,
        choose,
        Item("Open in Obsidian", ("open_vault",), enabled=active is not None),
        Item("Show folder", ("show_folder",), enabled=active is not None),
    ]
    return tuple(items)


def _with_place(name: str, path: Path) -> str:
    """'Notes (~/work)': a vault's name with the folder it is in."""
    parent = path.expanduser().parent
    home = Path.home()
    where = f"~/{parent.relative_to(home)}" if parent.is_relative_to(home) and parent != home else str(parent)
    return f"{name} ({'~' if parent == home else where})"


TOOL_WORDS = {
    "recall_context": "recall",
    "recall_activity": "history",
    "read_note": "read",
    "search_notes": "search",
    "get_backlinks": "backlinks",
    "list_subjects": "subjects",
}


def asked(event: EventRow) -> str:
    """What the client asked, short: 'recall “bazel cache”', 'search “deploy”', 'read'."""
    words = TOOL_WORDS.get(event.tool, event.tool)
    if event.query:
        query = event.query if len(event.query) <= 30 else event.query[:29].rstrip() + "…"
        return f"{words} “{query}”"
    return f"{words} {event.subject}" if event.subject and event.tool != "read_note" else words


def _recent_menu(state: TrayState) -> tuple[Item, ...]:
    recalls = [e for e in reversed(state.recent) if e.returned][:MAX_RECENT]
    items: list[Item] = []
    for event in recalls:
        path, given = event.given()[0]
        # The question goes last: it is what a short label cuts first.
        text = f"{client_name(event.client)} · {note_name(path)} · {ago(event.ts, state.now)} · {asked(event)}"
        items.append(Item(_marked(text, state, event.vault or "", path, given), ("open_note", path, event.vault or "")))
    if not items:
        items.append(Item("No recalls yet", enabled=False))
    return (*items, SEPARATOR, Item("Show all activity", ("show_activity",)))


def _clients_menu(state: TrayState) -> tuple[Item, ...]:
    seen = {s.client: s for s in state.clients}
    registered = [c.id for c in state.config.clients]
    ids = registered + sorted((set(seen) | set(state.installed)) - set(registered))
    items = [Item(_short(client_name(cid)), submenu=_client_menu(state, cid, seen.get(cid))) for cid in ids]
    if not items:
        items.append(Item("No clients yet", enabled=False))
    shown = set(ids)
    addable = tuple(Item(spec.name, ("add_client", spec.id)) for spec in CLIENTS if spec.id not in shown)
    items += [SEPARATOR, Item("Add client", submenu=addable or (Item("Every client is added", enabled=False),))]
    return tuple(items)


def _installed_line(installed: Installed | None) -> str:
    if installed is None:
        return "Not installed"
    where = url_snippet.shown_path(installed.path)
    return f"Installed by URL in {where}" if installed.by_url else f"Installed in {where}"


def _endpoint_menu(state: TrayState) -> tuple[Item, ...]:
    """`vault-recall http` run by the tray: its address while it runs, start and stop."""
    if state.endpoint_url is None:
        return (
            Item("Not running", enabled=False),
            Item(f"Start at {DEFAULT_URL}", ("endpoint", "start")),
        )
    return (
        Item(_short(f"Serving at {state.endpoint_url}"), enabled=False),
        Item("Copy address", ("copy_text", state.endpoint_url), enabled=state.can_copy),
        Item("Stop", ("endpoint", "stop")),
    )


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
        Item(_marked(f"Recalled: {note_name(p)}", state, vault, p, given), ("open_note", p, vault))
        for p, (vault, given) in list(notes.items())[:5]
    ]
    entry = state.config.client(client_id)
    installed = state.installed.get(client_id)
    if spec is not None and not spec.paste_only:
        items.insert(1, Item(_short(_installed_line(installed)), enabled=False))
    items.append(SEPARATOR)
    if spec is not None:
        items.append(Item("Copy config snippet", ("copy_snippet", client_id), enabled=state.can_copy))
        if not spec.paste_only:
            items.append(Item(f"Install into {spec.name}", ("install", client_id)))
        if installed is not None:
            items.append(Item(f"Uninstall from {spec.name}", ("uninstall", client_id)))
        if spec.http is not None:
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
        sees += [Item(_short(f"Only {s}"), ("expose_toggle", client_id, s), checked=s in chosen) for s in subjects]
    items.append(Item("Sees", submenu=tuple(sees)))
    return tuple(items)
