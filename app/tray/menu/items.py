"""The tray menu's data: the items a backend draws, the state snapshot the menu is built from,
and the small pieces of wording every submenu shares (names of clients and notes, labels kept
short, the "changed since" marks).

Pure data and functions; tree.py builds the menu from these, client_items.py its client parts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeGuard, get_args

from vault_recall.app.clients.catalogue import client_spec
from vault_recall.app.state.health import HealthReport
from vault_recall.app.state.note_revisions import NoteRef, change_of
from vault_recall.app.state.obsidian_vaults import KnownVault
from vault_recall.app.tray.installed import Installed
from vault_recall.server.activity.event_rows import ClientSummary, EventRow
from vault_recall.server.config.config_file import Config
from vault_recall.server.obsidian.note import note_title
from vault_recall.server.recall.answers.rule_suggestions import SuggestedRule

MAX_LABEL = 70

# Every action a menu item can ask for, a closed set: each kind is one module's to run, and that
# module's `match` on it ends in `assert_never`, so a kind added here and not handled fails mypy.
VaultActionName = Literal[
    "use",
    "use_path",
    "choose_folder",
    "copy_add_vault",
    "open_vault",
    "show_folder",
    "open_note",
    "show_config",
    "toggle",
    "expose",
    "expose_toggle",
    "help",
    "show_activity",
    "doctor",
]  # actions/perform.py
ClientActionName = Literal[
    "connect", "install", "install_http", "uninstall", "copy_snippet", "copy_http_snippet", "add_client"
]  # actions/client_setup.py
SubjectActionName = Literal["add_rule", "remove_rule"]  # actions/rule_changes.py
EndpointActionName = Literal["endpoint", "copy_text"]  # endpoint/process.py
ApprovalActionName = Literal["oauth_approve", "oauth_deny", "oauth_revoke"]  # endpoint/app_grants.py
QuitActionName = Literal["quit"]  # running/tray_app.py
ActionName = Literal[
    VaultActionName, ClientActionName, SubjectActionName, EndpointActionName, ApprovalActionName, QuitActionName
]
# The kind, then its arguments (a client's id, a path, a subject…).
Action = tuple[ActionName, *tuple[str, ...]]


def is_vault_action(name: ActionName) -> TypeGuard[VaultActionName]:
    return name in get_args(VaultActionName)


def is_client_action(name: ActionName) -> TypeGuard[ClientActionName]:
    return name in get_args(ClientActionName)


def is_subject_action(name: ActionName) -> TypeGuard[SubjectActionName]:
    return name in get_args(SubjectActionName)


def is_endpoint_action(name: ActionName) -> TypeGuard[EndpointActionName]:
    return name in get_args(EndpointActionName)


def is_approval_action(name: ActionName) -> TypeGuard[ApprovalActionName]:
    return name in get_args(ApprovalActionName)


@dataclass(frozen=True)
class Item:
    text: str
    action: Action | None = None
    checked: bool | None = None  # None: not a check item
    radio: bool = False
    enabled: bool = True
    submenu: tuple[Item, ...] | None = None
    default: bool = False  # what a host that activates the icon instead of showing the menu does

    @property
    def separator(self) -> bool:
        return self.text == "-"


SEPARATOR = Item("-")


@dataclass(frozen=True)
class TrayState:
    config: Config
    config_error: str | None = None
    health: HealthReport | None = None  # None: still checking
    # Subject rules the active vault's folders, tags and properties suggest (rule_suggestions),
    # looked for beside the health check; () while none are known.
    suggestions: tuple[SuggestedRule, ...] = ()
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
    found_clients: frozenset[str] = frozenset()  # clients whose config folder exists on this computer
    app_names: Mapping[str, str] = field(default_factory=dict)  # client id → the app an OAuth grant names
    version: str = ""
    # Recalled notes' revisions read now (None: gone), for the "changed since" marks; a note
    # not in here gets no mark (its vault is not known here).
    revisions_now: Mapping[NoteRef, str | None] = field(default_factory=dict)
    # The configured vaults whose folder is not there now (gone, its disk unplugged): the Vault
    # menu says so rather than list them as added by hand.
    gone_vaults: frozenset[str] = frozenset()

    def name_of(self, client_id: str) -> str:
        return client_name(client_id, self.app_names)


def client_name(client_id: str, app_names: Mapping[str, str] | None = None) -> str:
    """How a person knows a client: the catalogue's name, else the name of the app an OAuth
    grant acts as it for ("MCP Inspector" for mcp-inspector), else its id."""
    spec = client_spec(client_id)
    if spec is not None:
        return spec.name
    return (app_names or {}).get(client_id) or client_id


def note_name(path: str) -> str:
    return note_title(path)


def short(text: str, limit: int = MAX_LABEL) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


MARKS = {"changed": " · changed since", "gone": " · gone since"}


def mark_of(state: TrayState, vault: str, path: str, given: str | None) -> str:
    """ " · changed since" (or " · gone since") when the note is not what the client was given
    any more, else ""."""
    change = change_of((vault, path), given, state.revisions_now)
    return MARKS[change] if change else ""


def marked(text: str, state: TrayState, vault: str, path: str, given: str | None) -> str:
    """A label for a recalled note, shortened, with its mark (`mark_of`) kept whole at its end."""
    mark = mark_of(state, vault, path, given)
    return short(text, MAX_LABEL - len(mark)) + mark


# A title is never cut shorter than this to fit the rest of a line, …
MIN_TITLE = 12
# … and is cut only where less than this much of what follows it would show (" · recall “b…"),
# then far enough for that much to show whole (" · recall “bazel”").
REST_SHOWN, REST_KEPT = 10, 16


def fitted(head: str, title: str, tail: str, rest: str, limit: int = MAX_LABEL) -> str:
    """`head`, `title` and `tail` whole, then as much of `rest` as fits `limit`; the title is
    cut (with '…') only where too little of `rest` would show: 'Cursor · A long tit… · 2 min
    ago · recall “q”'."""
    line = f"{head}{title}{tail}"
    if len(line) + min(len(rest), REST_SHOWN) > limit:
        room = max(MIN_TITLE, limit - len(head) - len(tail) - min(len(rest), REST_KEPT))
        line = f"{head}{short(title, room)}{tail}"
    return short(line + rest, limit)
