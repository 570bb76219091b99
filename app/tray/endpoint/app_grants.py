"""The tray's part in OAuth on the endpoint: apps waiting for the person's approval (a
notification when one starts waiting, and menu items with its name and code to approve or deny
it), the grants given (to revoke), and grants revoked because a used code or refresh token was
presented again (a replay: told once in a notification, and in the menu for a week, since
nothing else says why the app lost its access).  Self-contained: the menu shows
`with_approvals(...)` of the snapshot, the watcher calls `ApprovalNotices.poll`, the worker
`approval_action`.

The store (server/oauth/store.py) is shared with the endpoint and the command line, so
an approval here and `vault-recall client approve CODE` are the same act.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import assert_never

from vault_recall.app.desktop.notifications import Notify
from vault_recall.app.desktop.store_watch import LookAgain
from vault_recall.app.state.config_store import register
from vault_recall.app.tray.menu.items import is_approval_action
from vault_recall.app.tray.menu.tree import SEPARATOR, Action, Item
from vault_recall.app.tray.notices import as_sentence
from vault_recall.server.errors import ApprovalError, OAuthStoreError
from vault_recall.server.oauth import approvals as oauth_approvals
from vault_recall.server.oauth import store as oauth_store
from vault_recall.server.oauth import tokens as oauth_tokens

log = logging.getLogger(__name__)

MAX_SHOWN = 10


@dataclass(frozen=True)
class Waiting:
    code: str
    name: str
    client: str  # the client id it is approved as from here


@dataclass(frozen=True)
class Granted:
    grant: str
    client: str
    name: str


@dataclass(frozen=True)
class Replayed:
    grant: str
    client: str
    name: str
    why: str  # why it was revoked, a clause


@dataclass(frozen=True)
class Approvals:
    waiting: tuple[Waiting, ...] = ()
    granted: tuple[Granted, ...] = ()
    replayed: tuple[Replayed, ...] = ()


def read_approvals(now: float | None = None) -> Approvals:
    """The store as it is now; nothing (and a line in the log) when it cannot be read, and
    nothing, without creating it, when no app ever authorized."""
    if not oauth_store.store_path().exists():
        return Approvals()
    try:
        waiting = oauth_approvals.pending_requests(now=now)
        granted = oauth_tokens.grants()
        replayed = oauth_tokens.replayed_grants(now=now)
    except OAuthStoreError as exc:
        log.warning("%s", exc)
        return Approvals()
    return Approvals(
        waiting=tuple(Waiting(r.approval_code, r.name, r.suggested_client) for r in waiting),
        granted=tuple(Granted(g.id, g.client, g.app_name) for g in granted),
        replayed=tuple(Replayed(g.id, g.client, g.app_name, g.why_revoked()) for g in replayed),
    )


def with_approvals(items: tuple[Item, ...], approvals: Approvals) -> tuple[Item, ...]:
    """The menu with our entry second, under the health line: nothing when no app ever
    authorized; else one submenu whose label says how many apps wait, each with its name and
    code to approve or deny, then the grants to revoke."""
    if not approvals.waiting and not approvals.granted and not approvals.replayed:
        return items
    children: list[Item] = []
    for waiting in approvals.waiting[:MAX_SHOWN]:
        name = _short(waiting.name)
        children.append(Item(f"Approve “{name}” as {waiting.client} ({waiting.code})", ("oauth_approve", waiting.code)))
        children.append(Item(f"Deny “{name}” ({waiting.code})", ("oauth_deny", waiting.code)))
    if approvals.granted:
        if children:
            children.append(SEPARATOR)
        for granted in approvals.granted[:MAX_SHOWN]:
            children.append(
                Item(f"Revoke “{_short(granted.name)}” ({granted.client})", ("oauth_revoke", granted.grant))
            )
    if approvals.replayed:
        if children:
            children.append(SEPARATOR)
        for replayed in approvals.replayed[-MAX_SHOWN:]:
            children.append(
                Item(f"“{_short(replayed.name)}” lost its access: a replay ({replayed.client})", enabled=False)
            )
    count = len(approvals.waiting)
    label = f"Apps waiting for approval ({count})" if count else "Apps connected with OAuth"
    return (*items[:1], Item(label, submenu=tuple(children)), *items[1:])


def _short(name: str, limit: int = 40) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


# The tray's notify: a short summary, and a body saying the rest.


def approval_action(action: Action, notify: Notify) -> bool:
    """Run a menu action of ours; False when the action is not one of them.  A refusal (the
    request was answered or expired meanwhile) is told as a notification."""
    name, *args = action
    if not is_approval_action(name):
        return False
    try:
        match name:
            case "oauth_approve":
                request, grant = oauth_approvals.approve(args[0])
                register(grant.client)
                notify(f"Approved “{request.name}” as {grant.client}", "Its browser page returns it to the app.")
            case "oauth_deny":
                request = oauth_approvals.deny(args[0])
                notify(f"Denied “{request.name}”", "Its browser page tells the app it was denied.")
            case "oauth_revoke":
                for grant in oauth_tokens.revoke(args[0]):
                    notify(f"Revoked “{grant.app_name}” ({grant.client})", "Its next request is refused.")
            case _:
                assert_never(name)
    except (ApprovalError, OAuthStoreError) as exc:
        notify("The app's approval did not change", as_sentence(str(exc)))
    return True


class ApprovalNotices:
    """Tells the person once about each app that starts waiting for approval, and about each
    grant a replay revoked."""

    def __init__(self) -> None:
        self._seen: set[str] | None = None
        self._replays: set[str] | None = None

    def poll(self, notify: Notify, approvals: Approvals) -> bool:
        """True when what waits changed (the menu needs a refresh)."""
        codes = {w.code for w in approvals.waiting}
        replays = {r.grant for r in approvals.replayed}
        if self._seen is None or self._replays is None:
            # Before the tray looked: in the menu, not news.
            self._seen, self._replays = codes, replays
            return False
        for new in (w for w in approvals.waiting if w.code not in self._seen):
            notify(
                f"“{new.name}” asks to recall your notes (code {new.code})",
                f"Approve or deny it in the menu, or run: vault-recall client approve {new.code}",
            )
        for cut in (r for r in approvals.replayed if r.grant not in self._replays):
            notify(
                f"“{cut.name}” lost its access to your notes",
                f"Its grant ({cut.client}) was revoked because {cut.why}. Connect the app again if it is yours.",
            )
        changed = codes != self._seen or replays != self._replays
        self._seen, self._replays = codes, replays
        return changed


# Pending approvals expire: what the menu lists is read again this often besides every write.
APPROVALS_SECONDS = 60.0


class ApprovalsWatch:
    """The approvals as the menu shows them, read again when the OAuth store is written (on the
    tray's watcher thread), and soon after once more: a write wakes the tray as it reaches the
    store's log, a moment before SQLite shows it to readers (desktop/store_watch.py)."""

    def __init__(self, notify: Notify) -> None:
        self._notify = notify
        self.approvals = read_approvals()
        self._notices = ApprovalNotices()
        self._notices.poll(notify, self.approvals)
        self._due = 0.0  # monotonic time of the next read by time
        self._again = LookAgain(APPROVALS_SECONDS)

    def look(self, written: bool, now: float) -> bool:
        """Read them when `written` (the store was) or due; True when the menu changes."""
        if not (written or now >= self.due_at()):
            return False
        self._due = now + APPROVALS_SECONDS
        approvals = read_approvals()
        changed = self._notices.poll(self._notify, approvals) or approvals != self.approvals
        self.approvals = approvals
        self._again.looked(written, changed)
        return changed

    def due_at(self) -> float:
        return min(self._due, self._again.at or self._due)
