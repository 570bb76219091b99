"""Which client id of ours each OAuth app is offered when the person approves it without
`--as`: a known client its catalogue id (server/oauth/known_apps.py), any other app its name
made an id, in ASCII where it has an ASCII form, with a short suffix of the whole name where
part of it has none — and never an id another app's grant holds, so that two unrelated apps
never share one client's exposure, activity and memory of what changed.  Read from the grants
in the OAuth store (server/oauth/store.py); approvals.py gives the grant.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import unicodedata

from vault_recall.server.oauth.known_apps import KNOWN_APPS, known_client
from vault_recall.server.oauth.store import connect

KNOWN_CLIENTS = frozenset(client for client, _ in KNOWN_APPS)
UNNAMED = "an unnamed app"  # the name shown for an app that registered without one
# What a client id made of a name ends with when part of the name had no ASCII form.
_SUFFIX_LENGTH = 6


def suggested_client_id(name: str) -> str:
    """The client id an app of this name is offered before any other app is considered: the
    catalogue's id of a known client ('Claude Code (vault-recall)' → 'claude-code',
    server/oauth/known_apps.py), else its name as a slug ('Desk app' → 'desk-app', 'Café' →
    'cafe').  What of the name has no ASCII form (Arabic, Chinese, an emoji) adds a short suffix
    made of the whole name, so that two such names never make one id ('界界界' →
    'oauth-app-…', 'Notes 界' → 'notes-…')."""
    known = known_client(name)
    if known is not None:
        return known
    ascii_form = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower()
    lost = any(unicodedata.category(c)[0] in "LNS" for c in unicodedata.normalize("NFKD", name) if not c.isascii())
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_form).strip("-")
    suffix = hashlib.sha256(_identity(name).encode("utf-8", "surrogatepass")).hexdigest()[:_SUFFIX_LENGTH]
    if not slug:
        return f"oauth-app-{suffix}"
    slug = slug[: 64 - (_SUFFIX_LENGTH + 1 if lost else 0)].strip("-")
    return f"{slug}-{suffix}" if lost else slug


def _identity(name: str) -> str:
    return unicodedata.normalize("NFKC", name).strip().casefold()


def same_app(one: str, other: str) -> bool:
    """Whether two registrations' names are one app: one known client's (its own name, or one
    that makes its id: 'Claude Code'), or the same name (an app that connects again registers
    again).  An unnamed app is nobody in particular."""
    known = suggested_client_id(one)
    if known in KNOWN_CLIENTS:
        return known == suggested_client_id(other)
    return _identity(one) == _identity(other) and _identity(one) not in ("", UNNAMED)


def other_apps_of(client: str, name: str) -> list[str]:
    """The names of other apps whose grants (live or revoked) are for `client`: an approval with
    `--as` may join them, and is told so."""
    with connect(write=False) as db:
        rows = db.execute("SELECT DISTINCT app_name FROM grants WHERE client = ? ORDER BY created", (client,))
        return [row[0] for row in rows if not same_app(name, row[0])]


def free_client_id(db: sqlite3.Connection, name: str) -> str:
    """The id an app of this name is offered: a known client its catalogue id, always (an
    app you approved as that id before is that client, you said); any other app
    `suggested_client_id(name)`, or the first of it with '-2', '-3' … that no other app's grant
    holds (live or revoked: a client id's exposure, activity and changed-since memory outlive a
    grant).  Two unrelated apps are never offered one id; an app connecting again is offered
    its own."""
    base = suggested_client_id(name)
    if base in KNOWN_CLIENTS:
        return base
    number = 1
    while True:  # ends: past as many tries as there are grants, one id is held by none
        tail = "" if number == 1 else f"-{number}"
        candidate = base[: 64 - len(tail)].rstrip("-") + tail
        holders = [row[0] for row in db.execute("SELECT DISTINCT app_name FROM grants WHERE client = ?", (candidate,))]
        if all(same_app(name, holder) for holder in holders):
            return candidate
        number += 1
