"""The grants of `vault-recall http`'s OAuth and what they issue: an authorization code used
once (a second use revokes its grant), access tokens, and refresh tokens rotated on use (a
rotated one presented again revokes the grant); which of our clients an access token acts as;
revoking a grant, by the app at /revoke or by the person.  Kept in the OAuth store
(server/oauth/store.py).
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from typing import Any, Literal, assert_never

from vault_recall.server.errors import GrantGone, OAuthStoreError
from vault_recall.server.oauth.resources import same_resource
from vault_recall.server.oauth.store import (
    ACCESS_PREFIX,
    ACCESS_SECONDS,
    CODE_PREFIX,
    MAX_SECRET_LENGTH,
    REFRESH_PREFIX,
    REFRESH_REUSE_SECONDS,
    REFRESH_SECONDS,
    connect,
    new_secret,
    secret_hash,
)

# Why a grant was revoked: a replay (someone presented a used code or refresh token again), the
# person (`client revoke`, the tray), or the app itself (/revoke).  Kept in grants.revoked_why.
RevokedWhy = Literal["code_replayed", "refresh_replayed", "by_person", "by_app"]
REPLAYS: tuple[RevokedWhy, ...] = ("code_replayed", "refresh_replayed")
TokenKind = Literal["access", "refresh"]
# A grant revoked for a replay is told (`client grants`, the tray, doctor) for this long after.
REPLAY_TOLD_SECONDS = 7 * 24 * 60 * 60


@dataclass(frozen=True)
class Grant:
    id: str
    client: str  # our client id: exposure, activity and changed-since of every call
    app_client_id: str
    app_name: str
    created: float
    last_used: float | None
    revoked: float | None
    revoked_why: RevokedWhy | None = None  # None: live, or revoked before reasons were kept

    @property
    def replayed(self) -> bool:
        return self.revoked_why in REPLAYS

    def why_revoked(self) -> str:
        """Why it was revoked, as a clause the person reads ('' while it is live)."""
        match self.revoked_why:
            case "code_replayed":
                return "its authorization code was presented a second time (a replay: someone may have copied it)"
            case "refresh_replayed":
                return "a refresh token it had used was presented again (a replay: someone may have copied it)"
            case "by_person":
                return "you revoked it"
            case "by_app":
                return "the app revoked it"
            case None:
                return "it was revoked" if self.revoked is not None else ""
            case _:
                assert_never(self.revoked_why)


@dataclass(frozen=True)
class Code:
    grant_id: str
    client_id: str
    redirect_uri: str
    redirect_explicit: bool
    code_challenge: str
    scopes: tuple[str, ...]
    resource: str
    expires: float
    used: float | None


@dataclass(frozen=True)
class Token:
    kind: TokenKind
    grant_id: str
    client_id: str  # the app's OAuth client id
    client: str  # our client id, from its grant
    scopes: tuple[str, ...]
    resource: str
    expires: float
    used: float | None
    revoked: bool


@dataclass(frozen=True)
class Issued:
    """A fresh pair: the only time the two tokens exist outside the client."""

    access_token: str
    refresh_token: str
    expires_in: int
    scopes: tuple[str, ...]


def load_code(code: str) -> Code | None:
    if not code.startswith(CODE_PREFIX) or len(code) > MAX_SECRET_LENGTH:
        return None
    with connect(write=False) as db:
        row = db.execute(
            "SELECT grant_id, client_id, redirect_uri, redirect_explicit, code_challenge, scopes, resource, "
            "expires, used FROM codes WHERE sha256 = ?",
            (secret_hash(code),),
        ).fetchone()
    if row is None:
        return None
    grant, client_id, redirect, explicit, challenge, scopes, resource, expires, used = row
    return Code(grant, client_id, redirect, bool(explicit), challenge, tuple(scopes.split()), resource, expires, used)


def exchange_code(code: str, *, access_seconds: int = ACCESS_SECONDS, now: float | None = None) -> Issued:
    """Tokens for a code, once.  A code used a second time revokes its grant: it was replayed."""
    now = time.time() if now is None else now
    # A refusal is raised only after the transaction is committed: the revocation must stay.
    with connect() as db:
        row = db.execute(
            "SELECT grant_id, scopes, resource, expires, used, client_id FROM codes WHERE sha256 = ?",
            (secret_hash(code),),
        ).fetchone()
        refused, issued = None, None
        if row is None:
            refused = "authorization code does not exist"
        else:
            grant_id, scopes, resource, expires, used, client_id = row
            if used is not None:
                revoke_grant(db, grant_id, now, "code_replayed")
                refused = "authorization code was already used; the grant it made is revoked"
            elif expires < now:
                refused = "authorization code has expired"
            else:
                db.execute("UPDATE codes SET used = ? WHERE sha256 = ?", (now, secret_hash(code)))
                if grant_live(db, grant_id):
                    issued = _issue(db, grant_id, client_id, tuple(scopes.split()), resource, now, access_seconds)
                else:
                    refused = "the grant was revoked"
    if issued is None:
        raise GrantGone(refused or "authorization code does not exist")
    return issued


def exchange_refresh(
    token: str, scopes: tuple[str, ...], *, access_seconds: int = ACCESS_SECONDS, now: float | None = None
) -> Issued:
    """A new pair for a refresh token, which is used up (rotation).  A used one presented again
    after REFRESH_REUSE_SECONDS revokes the grant: either the client or someone who copied the
    token is replaying it."""
    now = time.time() if now is None else now
    with connect() as db:
        row = db.execute(
            "SELECT grant_id, client_id, resource, expires, used FROM tokens WHERE sha256 = ? AND kind = 'refresh'",
            (secret_hash(token),),
        ).fetchone()
        refused, issued = None, None
        if row is None:
            refused = "refresh token does not exist"
        else:
            grant_id, client_id, resource, expires, used = row
            if used is not None and now - used > REFRESH_REUSE_SECONDS:
                revoke_grant(db, grant_id, now, "refresh_replayed")
                refused = "refresh token was already used (a replay); the grant is revoked: authorize again"
            elif expires < now:
                refused = "refresh token has expired"
            elif not grant_live(db, grant_id):
                refused = f"the grant was revoked: {_revoked_why(db, grant_id)}; authorize again"
            else:
                if used is None:
                    db.execute("UPDATE tokens SET used = ? WHERE sha256 = ?", (now, secret_hash(token)))
                issued = _issue(db, grant_id, client_id, scopes, resource, now, access_seconds)
    if issued is None:
        raise GrantGone(refused or "refresh token does not exist")
    return issued


def _issue(
    db: sqlite3.Connection,
    grant_id: str,
    client_id: str,
    scopes: tuple[str, ...],
    resource: str,
    now: float,
    access_seconds: int,
) -> Issued:
    access, refresh = new_secret(ACCESS_PREFIX), new_secret(REFRESH_PREFIX)
    pair: tuple[tuple[str, TokenKind, int], ...] = (
        (access, "access", access_seconds),
        (refresh, "refresh", REFRESH_SECONDS),
    )
    for secret, kind, lifetime in pair:
        db.execute(
            "INSERT INTO tokens (sha256, kind, grant_id, client_id, scopes, resource, expires, used) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, NULL)",
            (secret_hash(secret), kind, grant_id, client_id, " ".join(scopes), resource, now + lifetime),
        )
    return Issued(access_token=access, refresh_token=refresh, expires_in=access_seconds, scopes=scopes)


def load_token(token: str) -> Token | None:
    """An access or refresh token as stored, with its grant's client (None: not one of ours)."""
    if not token.startswith((ACCESS_PREFIX, REFRESH_PREFIX)) or len(token) > MAX_SECRET_LENGTH:
        return None
    with connect(write=False) as db:
        row = db.execute(
            "SELECT t.kind, t.grant_id, t.client_id, g.client, t.scopes, t.resource, t.expires, t.used, g.revoked "
            "FROM tokens t JOIN grants g ON g.id = t.grant_id WHERE t.sha256 = ?",
            (secret_hash(token),),
        ).fetchone()
    if row is None:
        return None
    kind, grant_id, client_id, client, scopes, resource, expires, used, revoked = row
    return Token(
        token_kind(kind),
        grant_id,
        client_id,
        client,
        tuple(scopes.split()),
        resource,
        expires,
        used,
        revoked is not None,
    )


def client_of_access_token(token: str, resource: str, *, now: float | None = None) -> tuple[str | None, str]:
    """(our client id, '') for a live access token issued for `resource` (the MCP endpoint's URL
    at the address the request came by: resources.py), else (None, why it is refused)."""
    now = time.time() if now is None else now
    if not token.startswith(ACCESS_PREFIX) or len(token) > MAX_SECRET_LENGTH:
        return None, "this access token is not valid: it is not one this endpoint issued"
    # Every request with an access token comes here: one connection, a write only once a minute.
    with connect(write=False) as db:
        row = db.execute(
            "SELECT t.grant_id, g.client, t.expires, g.revoked, g.revoked_why, g.last_used, t.resource FROM tokens t "
            "JOIN grants g ON g.id = t.grant_id WHERE t.sha256 = ? AND t.kind = 'access'",
            (secret_hash(token),),
        ).fetchone()
        if row is None:
            return None, "this access token is not valid: it is not one this endpoint issued"
        grant_id, client, expires, revoked, revoked_why, last_used, issued_for = row
        if not same_resource(issued_for, resource):
            return None, (
                f"this access token was issued for {issued_for}, not for {resource}: "
                "authorize at this address to use it"
            )
        if revoked is not None:
            return (
                None,
                f"this access token's grant was revoked: {_told_app(revoke_reason(revoked_why))}; authorize again",
            )
        if expires < now:
            return None, "this access token has expired; refresh it"
        stale = last_used is None or last_used < now - 60
    if stale:  # what `client grants` shows as the grant's last use, to the minute
        with connect() as db:
            db.execute("UPDATE grants SET last_used = ? WHERE id = ?", (now, grant_id))
    return str(client), ""


def revoke_token(token: str, *, now: float | None = None) -> None:
    """What the app asks for at /revoke: the whole grant goes, both its tokens and its refreshes."""
    now = time.time() if now is None else now
    found = load_token(token)
    if found is not None:
        with connect() as db:
            revoke_grant(db, found.grant_id, now, "by_app")


# Grants: what the person sees and revokes.


_GRANT_COLUMNS = "id, client, app_client_id, app_name, created, last_used, revoked, revoked_why"


def _grant(row: sqlite3.Row | tuple[Any, ...]) -> Grant:
    """A grant as read with _GRANT_COLUMNS."""
    id_, client, app_client_id, app_name, created, last_used, revoked, why = row
    return Grant(id_, client, app_client_id, app_name, created, last_used, revoked, revoke_reason(why))


def revoke_reason(stored: object) -> RevokedWhy | None:
    """Why a row's grant was revoked, as the closed set it is (revoke_grant writes only these;
    a newer store is refused).  None: none kept — a live grant, or one a store of version 1
    revoked."""
    match stored:
        case None:
            return None
        case "code_replayed" | "refresh_replayed" | "by_person" | "by_app":
            return stored
        case _:
            raise OAuthStoreError(f"the OAuth store holds a grant revoked for an unknown reason {stored!r}")


def token_kind(stored: object) -> TokenKind:
    """A row's token kind, as the closed set it is (_issue writes only these)."""
    match stored:
        case "access" | "refresh":
            return stored
        case _:
            raise OAuthStoreError(f"the OAuth store holds a token of an unknown kind {stored!r}")


def grants(*, include_revoked: bool = False) -> list[Grant]:
    with connect(write=False) as db:
        rows = db.execute(
            f"SELECT {_GRANT_COLUMNS} FROM grants "
            + ("" if include_revoked else "WHERE revoked IS NULL ")
            + "ORDER BY created"
        ).fetchall()
    return [_grant(row) for row in rows]


def grant_resources() -> dict[str, frozenset[str]]:
    """The resources (the endpoint's URL at one of its addresses) each grant was asked for and
    issued codes and tokens for, by grant id: a grant's tokens are taken only there.  A grant
    whose request, codes and tokens are all gone is in none."""
    found: dict[str, set[str]] = {}
    with connect(write=False) as db:
        rows = db.execute(
            "SELECT grant_id, resource FROM requests WHERE grant_id IS NOT NULL "
            "UNION SELECT grant_id, resource FROM codes UNION SELECT grant_id, resource FROM tokens"
        ).fetchall()
    for grant_id, resource in rows:
        found.setdefault(str(grant_id), set()).add(str(resource))
    return {grant_id: frozenset(resources) for grant_id, resources in found.items()}


def replayed_grants(*, now: float | None = None) -> list[Grant]:
    """Grants revoked for a replay in the last REPLAY_TOLD_SECONDS, oldest first: the person is
    told of them, since nothing else says why the app lost its access."""
    now = time.time() if now is None else now
    with connect(write=False) as db:
        rows = db.execute(
            f"SELECT {_GRANT_COLUMNS} FROM grants WHERE revoked_why IN (?, ?) AND revoked >= ? ORDER BY revoked",
            (*REPLAYS, now - REPLAY_TOLD_SECONDS),
        ).fetchall()
    return [_grant(row) for row in rows]


def revoke(target: str, *, now: float | None = None) -> list[Grant]:
    """Revoke every live grant of our client id `target`, or the grant with that id; returns them."""
    now = time.time() if now is None else now
    with connect() as db:
        rows = db.execute(
            f"SELECT {_GRANT_COLUMNS} FROM grants WHERE revoked IS NULL AND (client = ? OR id = ?)",
            (target, target),
        ).fetchall()
        for row in rows:
            revoke_grant(db, row[0], now, "by_person")
    return [_grant(row) for row in rows]


def grant_live(db: sqlite3.Connection, grant_id: str) -> bool:
    row = db.execute("SELECT revoked FROM grants WHERE id = ?", (grant_id,)).fetchone()
    return row is not None and row[0] is None


def _revoked_why(db: sqlite3.Connection, grant_id: str) -> str:
    row = db.execute("SELECT revoked_why FROM grants WHERE id = ?", (grant_id,)).fetchone()
    return _told_app(revoke_reason(row[0] if row is not None else None))


def _told_app(why: RevokedWhy | None) -> str:
    """Why a grant went, as the app is told when it next uses it: the person's command only
    when the person revoked it, so that an app (and whoever reads its log) learns what to do."""
    match why:
        case "code_replayed":
            return "its authorization code was presented a second time (a replay)"
        case "refresh_replayed":
            return "a refresh token it had used was presented again (a replay)"
        case "by_person":
            return "the person revoked it (vault-recall client revoke)"
        case "by_app":
            return "the app revoked it (at /revoke)"
        case None:
            return "it was revoked"
        case _:
            assert_never(why)


def revoke_grant(db: sqlite3.Connection, grant_id: str, now: float, why: RevokedWhy) -> None:
    # The tokens stay (until they expire) so a request carrying one is told it was revoked.
    db.execute("UPDATE grants SET revoked = ?, revoked_why = ? WHERE id = ? AND revoked IS NULL", (now, why, grant_id))
