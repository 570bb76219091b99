"""The tray's menu as data: a pure function from a state snapshot to a tree of items.

Nothing here touches pystray, D-Bus, the disk or the clock: the tray (running/tray_app.py) gathers a
`TrayState` and calls `build_menu`; each backend draws the items (pystray's menu, or dbusmenu
over D-Bus), so a new item needs no backend work.  The tests check the items for every state.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from vault_recall.app.desktop.icon import IconStatus
from vault_recall.app.state.obsidian_vaults import last_opened
from vault_recall.app.timefmt import ago
from vault_recall.app.tray.menu.client_items import CONNECT, clients_menu, connect_menu
from vault_recall.app.tray.menu.items import (
    MAX_LABEL,
    SEPARATOR,
    Action,
    Item,
    TrayState,
    client_name,
    fitted,
    mark_of,
    note_name,
    short,
)
from vault_recall.app.tray.menu.subject_items import RULES_MENU, first_menu_suggestions, rules_menu
from vault_recall.app.tray.notices import NO_RECORDS, PAUSED_BANNER, SAMPLE, is_folder_problem, menu_problem_line
from vault_recall.server.activity.event_rows import EventRow
from vault_recall.server.http.address import DEFAULT_URL

__all__ = ["SEPARATOR", "Action", "Item", "build_menu", "client_name", "note_name", "status_of", "tooltip"]

MAX_RECENT = 10
ADD_VAULT_HINT = "vault-recall vault add PATH"
MAX_PROBLEMS = 15


def status_of(state: TrayState) -> IconStatus:
    """What the icon shows."""
    if state.config_error:
        return "unavailable"
    if state.config.paused:
        return "paused"
    if state.health is None:
        return "unavailable"  # grey until the vault is known to be readable
    if state.health.no_records_yet:
        # Readable, but nothing to recall: amber, with the reason in the menu — before a few
        # broken notes, which a real vault has (15 of obsidian-hub's 6,571) and its menu lists.
        return "empty"
    return state.health.status


STATUS_WORDS: dict[IconStatus, str] = {
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
    return short(f"Vault Recall — {vault}: {STATUS_WORDS[status_of(state)]}{last}", 120)


def build_menu(state: TrayState) -> tuple[Item, ...]:
    if state.config_error:
        return (
            Item(short(f"Config broken: {state.config_error}", 100), enabled=False),
            Item("Show the config file", ("show_config",)),
            SEPARATOR,
            Item("Quit Vault Recall", ("quit",)),
        )
    items: list[Item] = [Item(_health_line(state), ("open_vault",), default=True)]
    for step in FIRST_STEPS:
        items += step(state)
    problems = _problems(state)
    if problems and state.health is not None:
        count = len(state.health.problems) + len(state.health.too_large)
        items.append(Item(f"Problems ({count:,})", submenu=problems))
    items += [
        SEPARATOR,
        Item("Vault", submenu=_vault_menu(state)),
        Item("Recent recalls", submenu=_recent_menu(state)),
        Item("Clients", submenu=clients_menu(state)),
        Item(CONNECT, submenu=connect_menu(state)),
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


# The first menu's first steps, under the health line: what a person should know or do first.
# Each step is a pure function of the snapshot giving its lines (none when it has nothing to
# say), shown in the order of FIRST_STEPS.


def _paused(state: TrayState) -> list[Item]:
    return [Item(PAUSED_BANNER, ("toggle", "paused"))] if state.config.paused else []


def _your_vault(state: TrayState) -> list[Item]:
    """On the sample vault, or none: the person's own vault — the one Obsidian last opened, in
    one click — else the folder dialog; never a page to read first."""
    sample = _sample_active(state)
    if not sample and state.config.active_vault:
        return []
    items = [Item(SAMPLE, enabled=False)] if sample else []
    mine = last_opened([v for v in state.known_vaults if not _is_sample(str(v.path), False, state)])
    if mine is not None:
        items.append(Item(short(f"Use your vault '{mine.name}'"), ("use_path", str(mine.path), mine.name)))
    elif state.can_pick_folder:
        items.append(Item("Choose your vault's folder…", ("choose_folder",)))
    else:  # no portal, zenity or kdialog: the command that does it, copied
        items.append(Item(f"Add your vault: {ADD_VAULT_HINT} (copy)", ("copy_add_vault",), enabled=state.can_copy))
    return items


def _something_to_recall(state: TrayState) -> list[Item]:
    if state.health is not None and state.health.no_records_yet:
        return [Item(NO_RECORDS, ("help", "records"))]
    return []


def _subjects_it_suggests(state: TrayState) -> list[Item]:
    """A vault with no records: the subjects its folders, tags and properties already suggest,
    one click each with the notes it takes (subject_items.py)."""
    return first_menu_suggestions(state)


FIRST_STEPS = (_paused, _your_vault, _subjects_it_suggests, _something_to_recall)


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
        return short(f"{state.config.active_vault} — checking…", 90)
    return short(state.health.summary(state.config.active_vault), 90)


def _problems(state: TrayState) -> tuple[Item, ...]:
    if state.health is None or state.health.status == "unavailable":
        return ()
    # A folder that cannot be read is named by its path and opens nothing: no app could show it.
    items = [
        Item(short(menu_problem_line(p["path"], p["reason"]), 90), ("open_note", p["path"]))
        if not is_folder_problem(p["path"])
        else Item(short(menu_problem_line(p["path"], p["reason"]), 90), enabled=False)
        for p in state.health.problems[:MAX_PROBLEMS]
    ]
    items += [
        Item(
            short(f"{note_name(t['path'])} — too large to recall ({t['bytes']:,} bytes)", 90), ("open_note", t["path"])
        )
        for t in state.health.too_large[: max(0, MAX_PROBLEMS - len(items))]
    ]
    hidden = len(state.health.problems) + len(state.health.too_large) - len(items)
    if hidden > 0:
        items.append(Item(f"… and {hidden} more (vault-recall health)", enabled=False))
    return tuple(items)


def _vault_menu(state: TrayState) -> tuple[Item, ...]:
    active = state.config.vault(state.config.active_vault) if state.config.active_vault else None
    active_path = Path(active.path).expanduser() if active else None
    items: list[Item] = []
    known_paths = {vault.path for vault in state.known_vaults}
    added = [v for v in state.config.vaults if Path(v.path).expanduser() not in known_paths]
    mine = [v for v in added if not _is_sample(v.path, v.sample, state) and v.name not in state.gone_vaults]
    gone = [v for v in added if not _is_sample(v.path, v.sample, state) and v.name in state.gone_vaults]
    samples = [v for v in added if _is_sample(v.path, v.sample, state)]
    # Two vaults of one name (two "Notes" folders) are told apart by where they are.
    names = [v.name for v in state.known_vaults] + [v.name for v in mine]
    if state.known_vaults:
        items.append(Item("Obsidian's vaults", enabled=False))
    for vault in state.known_vaults:
        label = _with_place(vault.name, vault.path) if names.count(vault.name) > 1 else vault.name
        action: Action = ("use_path", str(vault.path), vault.name)
        items.append(Item(short(label), action, checked=vault.path == active_path, radio=True))
    if mine:
        items.append(Item("Added by hand" if state.known_vaults else "Your vaults", enabled=False))
    for entry in mine:
        label = _with_place(entry.name, Path(entry.path)) if names.count(entry.name) > 1 else entry.name
        items.append(
            Item(short(label), ("use", entry.name), checked=entry.name == state.config.active_vault, radio=True)
        )
    if gone:  # listed (the active one stays checked) but not as added by hand: their folder is not there
        items.append(Item("Folder not found — put it back to use it", enabled=False))
    for entry in gone:
        label = short(_with_place(entry.name, Path(entry.path)))
        items.append(Item(label, ("use", entry.name), checked=entry.name == state.config.active_vault, radio=True))
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
        Item(RULES_MENU, submenu=rules_menu(state)),
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


def recall_notice(latest: EventRow, name_of: Callable[[str], str]) -> tuple[str, str]:
    """The notification of a recall (*Notify on recall*): who recalled which note, and what it asked."""
    others = len(latest.returned) - 1
    more = f" and {others} more note{'s' if others != 1 else ''}" if others else ""
    return f"{name_of(latest.client)} recalled {note_name(latest.returned[0])}", f"{asked(latest)}{more}"


def _recent_menu(state: TrayState) -> tuple[Item, ...]:
    recalls = [e for e in reversed(state.recent) if e.returned][:MAX_RECENT]
    items: list[Item] = []
    for event in recalls:
        path, given = event.given()[0]
        # The question goes last: it is what a short label cuts first.
        # The note's title is cut before the time; the question goes last, cut first.
        mark = mark_of(state, event.vault or "", path, given)
        head, tail = f"{state.name_of(event.client)} · ", f" · {ago(event.ts, state.now)}"
        text = fitted(head, note_name(path), tail, f" · {asked(event)}", MAX_LABEL - len(mark)) + mark
        items.append(Item(text, ("open_note", path, event.vault or "")))
    if not items:
        items.append(Item("No recalls yet", enabled=False))
    return (*items, SEPARATOR, Item("Show all activity", ("show_activity",)))


def _endpoint_menu(state: TrayState) -> tuple[Item, ...]:
    """`vault-recall http` run by the tray: its address while it runs, start and stop."""
    if state.endpoint_url is None:
        return (
            Item("Not running", enabled=False),
            Item(f"Start at {DEFAULT_URL}", ("endpoint", "start")),
        )
    return (
        Item(short(f"Serving at {state.endpoint_url}"), enabled=False),
        Item("Copy address", ("copy_text", state.endpoint_url), enabled=state.can_copy),
        Item("Stop", ("endpoint", "stop")),
    )
