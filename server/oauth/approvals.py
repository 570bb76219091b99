"""What the person approves in `vault-recall http`'s OAuth: apps registered by dynamic client
registration, and each authorization as a request waiting for the person's approval (the app's
name and a short code to compare), answered by `approve` or `deny` from the command line or the
tray — nothing else approves one.  An approved request becomes a grant, and its browser page is
handed one authorization code.  Kept in the OAuth store (server/oauth/store.py).
"""

from __future__ import annotations

import hmac
import re
import secrets
import sqlite3
import time
from dataclasses import dataclass
from typing import Literal, get_args

from vault_recall.server.config.client_id import CLIENT_ID_PATTERN
from vault_recall.server.errors import ApprovalError, OAuthStoreError
from vault_recall.server.oauth.client_ids import free_client_id
from vault_recall.server.oauth.store import (
    CODE_PREFIX,
    CODE_SECONDS,
    MAX_PENDING,
    MAX_SECRET_LENGTH,
    REQUEST_SECONDS,
    connect,
    new_secret,
    prune,
    secret_hash,
)
from vault_recall.server.oauth.tokens import Grant

# The person reads and types the approval code: no 0/O, 1/I/L, and case does not matter.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
_APPROVAL_CODE = re.compile(r"[A-Z2-9]{4}-?[A-Z2-9]{4}")


# A request waits (pending) until the person approves or denies it; an approved one is done
# once its code went to the browser.
RequestStatus = Literal["pending", "approved", "denied", "done"]
REQUEST_STATUSES: tuple[RequestStatus, ...] = get_args(RequestStatus)


def request_status(stored: object) -> RequestStatus:
    """The status a row holds, as the closed set it is (the store writes only these)."""
    for status in REQUEST_STATUSES:
        if stored == status:
            return status
    raise OAuthStoreError(f"the OAuth store holds a request with an unknown status {stored!r}")


@dataclass(frozen=True)
class App:
    """An app registered by dynamic client registration (its metadata as JSON, without secret)."""

    client_id: str
    name: str
    info: str
    secret_sha256: str | None


@dataclass(frozen=True)
class Request:
    """An authorization the person has to approve (status pending) or has answered."""

    approval_code: str
    client_id: str
    name: str
    redirect_uri: str
    redirect_explicit: bool
    code_challenge: str
    state: str | None
    scopes: tuple[str, ...]
    resource: str
    issuer: str
    created: float
    status: RequestStatus
    grant_id: str | None
    # The client id it is approved as unless the person says otherwise (`free_client_id`), as
    # the store was when the request was read.
    suggested_client: str = ""

    def expired(self, now: float) -> bool:
        return self.status == "pending" and now > self.created + REQUEST_SECONDS


def new_approval_code() -> str:
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
    return f"{raw[:4]}-{raw[4:]}"


def normal_approval_code(text: str) -> str | None:
    """'abcd efgh', 'ABCDEFGH', 'abcd-efgh' → 'ABCD-EFGH'; None for what cannot be a code."""
    compact = re.sub(r"[\s-]", "", text.strip().upper())
    if not _APPROVAL_CODE.fullmatch(compact):
        return None
    return f"{compact[:4]}-{compact[4:]}"


# Apps (dynamic client registration).


def register_app(client_id: str, name: str, info: str, secret: str | None, *, now: float | None = None) -> None:
    now = time.time() if now is None else now
    with connect() as db:
        prune(db, now)
        db.execute(
            "INSERT INTO apps (client_id, name, secret_sha256, info, created) VALUES (?, ?, ?, ?, ?)",
            (client_id, name, secret_hash(secret) if secret else None, info, now),
        )


def get_app(client_id: str) -> App | None:
    if len(client_id) > MAX_SECRET_LENGTH:
        return None
    with connect(write=False) as db:
        row = db.execute(
            "SELECT client_id, name, info, secret_sha256 FROM apps WHERE client_id = ?", (client_id,)
        ).fetchone()
    return App(*row) if row else None


def secret_matches(app: App, presented: str | None) -> bool:
    """A confidential app's secret, compared by hash in constant time."""
    if app.secret_sha256 is None:
        return True
    if not presented or len(presented) > MAX_SECRET_LENGTH:
        return False
    return hmac.compare_digest(secret_hash(presented).encode("ascii"), app.secret_sha256.encode("ascii"))


# Requests: what the person approves.


def open_request(
    app: App,
    *,
    redirect_uri: str,
    redirect_explicit: bool,
    code_challenge: str,
    state: str | None,
    scopes: tuple[str, ...],
    resource: str,
    issuer: str,
    now: float | None = None,
) -> tuple[str, Request]:
    """A new request waiting for approval; returns its handle (for the browser's page) and it."""
    now = time.time() if now is None else now
    handle = secrets.token_urlsafe(24)
    with connect() as db:
        prune(db, now)
        # Only requests the person can still answer count: an expired one waits for nobody.
        waiting = db.execute(
            "SELECT COUNT(*) FROM requests WHERE status = 'pending' AND created >= ?", (now - REQUEST_SECONDS,)
        ).fetchone()[0]
        if waiting >= MAX_PENDING:
            raise ApprovalError(
                f"{waiting} authorizations are already waiting for approval; approve or deny them first "
                "(vault-recall client grants)"
            )
        for _ in range(8):
            code = new_approval_code()
            if db.execute("SELECT 1 FROM requests WHERE approval_code = ?", (code,)).fetchone() is None:
                break
        request = Request(
            approval_code=code,
            client_id=app.client_id,
            name=app.name,
            redirect_uri=redirect_uri,
            redirect_explicit=redirect_explicit,
            code_challenge=code_challenge,
            state=state,
            scopes=scopes,
            resource=resource,
            issuer=issuer,
            created=now,
            status="pending",
            grant_id=None,
        )
        db.execute(
            "INSERT INTO requests (id_sha256, approval_code, client_id, name, redirect_uri, redirect_explicit, "
            "code_challenge, state, scopes, resource, issuer, created, status, grant_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', NULL)",
            (
                secret_hash(handle),
                code,
                app.client_id,
                app.name,
                redirect_uri,
                int(redirect_explicit),
                code_challenge,
                state,
                " ".join(scopes),
                resource,
                issuer,
                now,
            ),
        )
    return handle, request


_REQUEST_COLUMNS = (
    "approval_code, client_id, name, redirect_uri, redirect_explicit, code_challenge, state, scopes, "
    "resource, issuer, created, status, grant_id"
)


def _request(row: tuple[object, ...], db: sqlite3.Connection | None = None) -> Request:
    """A request as its row holds it; with `db`, the client id it would be approved as too."""
    (
        code,
        client_id,
        name,
        redirect_uri,
        explicit,
        challenge,
        state,
        scopes,
        resource,
        issuer,
        created,
        status,
        grant,
    ) = row
    return Request(
        approval_code=str(code),
        client_id=str(client_id),
        name=str(name),
        redirect_uri=str(redirect_uri),
        redirect_explicit=bool(explicit),
        code_challenge=str(challenge),
        state=None if state is None else str(state),
        scopes=tuple(str(scopes).split()),
        resource=str(resource),
        issuer=str(issuer),
        created=float(str(created)),
        status=request_status(status),
        grant_id=None if grant is None else str(grant),
        suggested_client=free_client_id(db, str(name)) if db is not None else "",
    )


def pending_requests(*, now: float | None = None) -> list[Request]:
    """The requests waiting for the person, oldest first (expired ones, and those of an app no
    longer registered, left out: neither can be approved)."""
    now = time.time() if now is None else now
    with connect(write=False) as db:
        rows = db.execute(
            f"SELECT {_REQUEST_COLUMNS} FROM requests WHERE status = 'pending' AND created >= ? "
            "AND client_id IN (SELECT client_id FROM apps) ORDER BY created",
            (now - REQUEST_SECONDS,),
        ).fetchall()
        return [_request(row, db) for row in rows]


def approve(approval_code: str, client: str | None = None, *, now: float | None = None) -> tuple[Request, Grant]:
    """The person approves a waiting request: a grant for `client`, or without one for the id
    `free_client_id` gives the app as the store is now (never one holding another app's grant;
    `client` may: the person chose it).  Raises ApprovalError with the reason when the code
    names no waiting request."""
    now = time.time() if now is None else now
    request = _pending_request(approval_code, now)
    if client is not None and not CLIENT_ID_PATTERN.fullmatch(client):
        raise ApprovalError(f"{client!r} cannot be a client id (1–64 of a-z, 0-9, '.', '_', '-')")
    with connect() as db:
        if db.execute("SELECT 1 FROM apps WHERE client_id = ?", (request.client_id,)).fetchone() is None:
            raise ApprovalError(
                f"{request.name!r} ({request.approval_code}) is no longer registered here, so a grant would serve "
                "nobody; the app has to connect again"
            )
        grant = Grant(
            id=secrets.token_hex(4),
            client=client or free_client_id(db, request.name),
            app_client_id=request.client_id,
            app_name=request.name,
            created=now,
            last_used=None,
            revoked=None,
        )
        updated = db.execute(
            "UPDATE requests SET status = 'approved', grant_id = ? WHERE approval_code = ? AND status = 'pending'",
            (grant.id, request.approval_code),
        ).rowcount
        if updated != 1:
            raise ApprovalError(f"the request {request.approval_code} was answered meanwhile")
        db.execute(
            "INSERT INTO grants (id, client, app_client_id, app_name, created, last_used, revoked) "
            "VALUES (?, ?, ?, ?, ?, NULL, NULL)",
            (grant.id, grant.client, grant.app_client_id, grant.app_name, now),
        )
    return request, grant


def deny(approval_code: str, *, now: float | None = None) -> Request:
    now = time.time() if now is None else now
    request = _pending_request(approval_code, now)
    with connect() as db:
        db.execute(
            "UPDATE requests SET status = 'denied' WHERE approval_code = ? AND status = 'pending'",
            (request.approval_code,),
        )
    return request


def _pending_request(approval_code: str, now: float) -> Request:
    code = normal_approval_code(approval_code)
    if code is None:
        raise ApprovalError(f"{approval_code[:40]!r} is not an approval code (8 letters and digits, like ABCD-EFGH)")
    with connect(write=False) as db:
        row = db.execute(f"SELECT {_REQUEST_COLUMNS} FROM requests WHERE approval_code = ?", (code,)).fetchone()
        request = None if row is None else _request(row, db)
    if request is None:
        raise ApprovalError(f"no authorization is waiting with the code {code} (vault-recall client grants lists them)")
    if request.expired(now):
        raise ApprovalError(f"the request {code} of {request.name!r} expired; the app has to ask again")
    if request.status != "pending":
        raise ApprovalError(f"the request {code} of {request.name!r} was already {request.status}")
    return request


def request_by_handle(handle: str) -> Request | None:
    if not handle or len(handle) > MAX_SECRET_LENGTH:
        return None
    with connect(write=False) as db:
        row = db.execute(
            f"SELECT {_REQUEST_COLUMNS} FROM requests WHERE id_sha256 = ?", (secret_hash(handle),)
        ).fetchone()
        return _request(row, db) if row else None


def hand_out_code(handle: str, *, now: float | None = None) -> tuple[Request, str | None]:
    """For the browser's page: an approved request's authorization code, made once (the request
    is then `done`, and showing the page again gives no second code)."""
    now = time.time() if now is None else now
    with connect() as db:
        row = db.execute(
            f"SELECT {_REQUEST_COLUMNS} FROM requests WHERE id_sha256 = ?", (secret_hash(handle),)
        ).fetchone()
        if row is None:
            raise ApprovalError("this authorization request does not exist")
        request = _request(row)
        if request.status != "approved" or request.grant_id is None:
            return request, None
        code = new_secret(CODE_PREFIX)
        db.execute(
            "INSERT INTO codes (sha256, grant_id, client_id, redirect_uri, redirect_explicit, code_challenge, "
            "scopes, resource, expires, used) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
            (
                secret_hash(code),
                request.grant_id,
                request.client_id,
                request.redirect_uri,
                int(request.redirect_explicit),
                request.code_challenge,
                " ".join(request.scopes),
                request.resource,
                now + CODE_SECONDS,
            ),
        )
        db.execute("UPDATE requests SET status = 'done' WHERE id_sha256 = ?", (secret_hash(handle),))
    return request, code
