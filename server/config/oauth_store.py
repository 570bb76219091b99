"""The OAuth grants of `vault-recall http`: registered apps, authorizations waiting for the
person's approval, grants, authorization codes and tokens — one SQLite file in the state folder,
readable by its owner only, shared by every process (the endpoint issues and checks; the CLI
and the tray approve, deny and revoke while it runs).

What it keeps and why:
- every secret (client secret, authorization code, access and refresh token) only as its
  SHA-256: each is 256 random bits, so a plain hash is enough, and a copied file lets nobody in;
- a **request** per authorization: the app's name, a short code for the person to compare
  (`ABCD-EFGH`), and its PKCE challenge and redirect URI.  Nothing approves a request but
  `approve` (the CLI or the tray): no timer, no registration, no earlier grant;
- a **grant** per approved request, bound to one of our client ids: every token issued under it
  acts as that client (its exposure, its activity, its changed-since memory).  Revoking a grant
  stops its tokens on their very next request;
- a code is used once: its second use revokes the grant it made (someone replayed it); a
  refresh token is rotated on use, and a rotated one presented again (after a few seconds in
  which it is the client refreshing twice at once) revokes the grant too.

Every function takes `now` so tests can move the clock; nothing is cached between calls.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from vault_recall.server.config.client_id import CLIENT_ID_PATTERN
from vault_recall.server.config.config_file import state_dir

STORE_FILE = "oauth.sqlite3"
SCHEMA_VERSION = 1
BUSY_TIMEOUT_S = 5.0

ACCESS_SECONDS = 60 * 60  # an access token: one hour, then the client refreshes
REFRESH_SECONDS = 30 * 24 * 60 * 60  # a refresh token: 30 days from its last use
CODE_SECONDS = 10 * 60  # an authorization code: enough to paste a redirect URL by hand
# A used refresh token presented again this soon is the same client refreshing twice at once
# (Gemini CLI does, at start): it gets a pair too.  Later, it is a replay, and revokes the grant.
REFRESH_REUSE_SECONDS = 5
REQUEST_SECONDS = 15 * 60  # a request waits this long for the person's approval
MAX_PENDING = 20  # requests waiting at once: more is someone flooding the endpoint
MAX_REGISTRATIONS = 500  # apps registered and never approved are pruned first past this
UNUSED_REGISTRATION_SECONDS = 24 * 60 * 60

ACCESS_PREFIX = "vra_"
REFRESH_PREFIX = "vrr_"
CODE_PREFIX = "vrc_"
SECRET_PREFIX = "vrs_"
MAX_SECRET_LENGTH = 200  # ours are 47 characters; anything much longer is not one of ours
# The person reads and types the approval code: no 0/O, 1/I/L, and case does not matter.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
_APPROVAL_CODE = re.compile(r"[A-Z2-9]{4}-?[A-Z2-9]{4}")

SCHEMA = """
CREATE TABLE IF NOT EXISTS apps (
    client_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    secret_sha256 TEXT,
    info TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS requests (
    id_sha256 TEXT PRIMARY KEY,
    approval_code TEXT NOT NULL UNIQUE,
    client_id TEXT NOT NULL,
    name TEXT NOT NULL,
    redirect_uri TEXT NOT NULL,
    redirect_explicit INTEGER NOT NULL,
    code_challenge TEXT NOT NULL,
    state TEXT,
    scopes TEXT NOT NULL,
    resource TEXT NOT NULL,
    issuer TEXT NOT NULL,
    created REAL NOT NULL,
    status TEXT NOT NULL,
    grant_id TEXT
);
CREATE TABLE IF NOT EXISTS grants (
    id TEXT PRIMARY KEY,
    client TEXT NOT NULL,
    app_client_id TEXT NOT NULL,
    app_name TEXT NOT NULL,
    created REAL NOT NULL,
    last_used REAL,
    revoked REAL
);
CREATE TABLE IF NOT EXISTS codes (
    sha256 TEXT PRIMARY KEY,
    grant_id TEXT NOT NULL,
    client_id TEXT NOT NULL,
    redirect_uri TEXT NOT NULL,
    redirect_explicit INTEGER NOT NULL,
    code_challenge TEXT NOT NULL,
    scopes TEXT NOT NULL,
    resource TEXT NOT NULL,
    expires REAL NOT NULL,
    used REAL
);
CREATE TABLE IF NOT EXISTS tokens (
    sha256 TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    grant_id TEXT NOT NULL,
    client_id TEXT NOT NULL,
    scopes TEXT NOT NULL,
    resource TEXT NOT NULL,
    expires REAL NOT NULL,
    used REAL
);
CREATE INDEX IF NOT EXISTS tokens_by_grant ON tokens (grant_id);
"""


class OAuthStoreError(Exception):
    """The store cannot be used (its file is unreadable, or of a newer version); one sentence."""


class ApprovalError(Exception):
    """An approval, denial or revocation the person asked for cannot be done; one sentence."""


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
    status: str  # pending | approved | denied | done (its code went to the browser)
    grant_id: str | None

    def expired(self, now: float) -> bool:
        return self.status == "pending" and now > self.created + REQUEST_SECONDS

    @property
    def suggested_client(self) -> str:
        return suggested_client_id(self.name)


@dataclass(frozen=True)
class Grant:
    id: str
    client: str  # our client id: exposure, activity and changed-since of every call
    app_client_id: str
    app_name: str
    created: float
    last_used: float | None
    revoked: float | None


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
    kind: str  # access | refresh
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


def store_path() -> Path:
    return state_dir() / STORE_FILE


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def new_secret(prefix: str) -> str:
    return prefix + secrets.token_urlsafe(32)


def new_approval_code() -> str:
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
    return f"{raw[:4]}-{raw[4:]}"


def normal_approval_code(text: str) -> str | None:
    """'abcd efgh', 'ABCDEFGH', 'abcd-efgh' → 'ABCD-EFGH'; None for what cannot be a code."""
    compact = re.sub(r"[\s-]", "", text.strip().upper())
    if not _APPROVAL_CODE.fullmatch(compact):
        return None
    return f"{compact[:4]}-{compact[4:]}"


def suggested_client_id(name: str) -> str:
    """The client id an app is approved as unless the person says otherwise: its name as a slug
    ('Claude Code' → 'claude-code'), or 'oauth-app' when nothing usable is left."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:64].strip("-")
    return slug if slug and CLIENT_ID_PATTERN.fullmatch(slug) else "oauth-app"


@contextlib.contextmanager
def connect(path: Path | None = None, *, write: bool = True) -> Iterator[sqlite3.Connection]:
    """One transaction on the store (created, readable by its owner only, on first use).  A
    reading one (`write=False`) waits for no writer: the store is in WAL mode."""
    path = path or store_path()
    try:
        connection = _connection(path)
    except (OSError, sqlite3.Error) as exc:
        _forget_connection()
        raise OAuthStoreError(f"the OAuth store {path} cannot be opened: {exc}") from None
    try:
        connection.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        yield connection
        connection.execute("COMMIT")
    except sqlite3.Error as exc:
        with contextlib.suppress(sqlite3.Error):
            connection.execute("ROLLBACK")
        _forget_connection()
        raise OAuthStoreError(f"the OAuth store {path} cannot be used: {exc}") from None
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            connection.execute("ROLLBACK")
        raise


# Opening the file costs ~0.4 ms (WAL's shared memory), a lookup on an open one ~0.02 ms, and the
# endpoint looks up the store on every request carrying an access token: each thread keeps its
# connection while the store is the same file, and opens it again when the file was replaced or
# removed.  Nothing read is kept: every transaction sees the store as it is now.
_local = threading.local()


def _connection(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    info = path.stat()
    key = (str(path), info.st_dev, info.st_ino)
    cached: tuple[tuple[str, int, int], sqlite3.Connection] | None = getattr(_local, "connection", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    _forget_connection()
    connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    try:
        if connection.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            _ensure_schema(connection, path)
    except BaseException:
        connection.close()
        raise
    _local.connection = (key, connection)
    return connection


def _forget_connection() -> None:
    cached = getattr(_local, "connection", None)
    _local.connection = None
    if cached is not None:
        with contextlib.suppress(sqlite3.Error):
            cached[1].close()


def _ensure_schema(connection: sqlite3.Connection, path: Path) -> None:
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise OAuthStoreError(f"the OAuth store {path} was written by a newer Vault Recall")
    # WAL: the tray and the command line read while the endpoint writes, and the reverse.
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("BEGIN IMMEDIATE")
    for statement in SCHEMA.split(";"):
        if statement.strip():
            connection.execute(statement)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    connection.execute("COMMIT")


# ---- apps (dynamic client registration) ----


def register_app(client_id: str, name: str, info: str, secret: str | None, *, now: float | None = None) -> None:
    now = time.time() if now is None else now
    with connect() as db:
        _prune(db, now)
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


# ---- requests: what the person approves ----


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
        _prune(db, now)
        waiting = db.execute("SELECT COUNT(*) FROM requests WHERE status = 'pending'").fetchone()[0]
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


def _request(row: tuple[object, ...]) -> Request:
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
        status=str(status),
        grant_id=None if grant is None else str(grant),
    )


def pending_requests(*, now: float | None = None) -> list[Request]:
    """The requests waiting for the person, oldest first (expired ones left out)."""
    now = time.time() if now is None else now
    with connect(write=False) as db:
        rows = db.execute(
            f"SELECT {_REQUEST_COLUMNS} FROM requests WHERE status = 'pending' AND created >= ? ORDER BY created",
            (now - REQUEST_SECONDS,),
        ).fetchall()
    return [_request(row) for row in rows]


def approve(approval_code: str, client: str | None = None, *, now: float | None = None) -> tuple[Request, Grant]:
    """The person approves a waiting request: a grant for `client` (default: the app's name as an
    id).  Raises ApprovalError with the reason when the code names no waiting request."""
    now = time.time() if now is None else now
    request = _answerable(approval_code, now)
    client = client or request.suggested_client
    if not CLIENT_ID_PATTERN.fullmatch(client):
        raise ApprovalError(f"{client!r} cannot be a client id (1–64 of a-z, 0-9, '.', '_', '-')")
    grant = Grant(
        id=secrets.token_hex(4),
        client=client,
        app_client_id=request.client_id,
        app_name=request.name,
        created=now,
        last_used=None,
        revoked=None,
    )
    with connect() as db:
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
    request = _answerable(approval_code, now)
    with connect() as db:
        db.execute(
            "UPDATE requests SET status = 'denied' WHERE approval_code = ? AND status = 'pending'",
            (request.approval_code,),
        )
    return request


def _answerable(approval_code: str, now: float) -> Request:
    code = normal_approval_code(approval_code)
    if code is None:
        raise ApprovalError(f"{approval_code[:40]!r} is not an approval code (8 letters and digits, like ABCD-EFGH)")
    with connect() as db:
        row = db.execute(f"SELECT {_REQUEST_COLUMNS} FROM requests WHERE approval_code = ?", (code,)).fetchone()
    if row is None:
        raise ApprovalError(f"no authorization is waiting with the code {code} (vault-recall client grants lists them)")
    request = _request(row)
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
    return _request(row) if row else None


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


# ---- codes and tokens ----


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


class GrantGone(Exception):
    """The code or refresh token cannot be exchanged; the message says why (for `invalid_grant`)."""


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
                _revoke_grant(db, grant_id, now)
                refused = "authorization code was already used; the grant it made is revoked"
            elif expires < now:
                refused = "authorization code has expired"
            else:
                db.execute("UPDATE codes SET used = ? WHERE sha256 = ?", (now, secret_hash(code)))
                if _grant_live(db, grant_id):
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
                _revoke_grant(db, grant_id, now)
                refused = "refresh token was already used; the grant is revoked"
            elif expires < now:
                refused = "refresh token has expired"
            elif not _grant_live(db, grant_id):
                refused = "the grant was revoked (vault-recall client revoke); authorize again"
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
    for secret, kind, lifetime in ((access, "access", access_seconds), (refresh, "refresh", REFRESH_SECONDS)):
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
    return Token(kind, grant_id, client_id, client, tuple(scopes.split()), resource, expires, used, revoked is not None)


def client_of_access_token(token: str, *, now: float | None = None) -> tuple[str | None, str]:
    """(our client id, '') for a live access token, else (None, why it is refused)."""
    now = time.time() if now is None else now
    if not token.startswith(ACCESS_PREFIX) or len(token) > MAX_SECRET_LENGTH:
        return None, "this access token is not valid: it is not one this endpoint issued"
    # Every request with an access token comes here: one connection, a write only once a minute.
    with connect(write=False) as db:
        row = db.execute(
            "SELECT t.grant_id, g.client, t.expires, g.revoked, g.last_used FROM tokens t "
            "JOIN grants g ON g.id = t.grant_id WHERE t.sha256 = ? AND t.kind = 'access'",
            (secret_hash(token),),
        ).fetchone()
        if row is None:
            return None, "this access token is not valid: it is not one this endpoint issued"
        grant_id, client, expires, revoked, last_used = row
        if revoked is not None:
            return None, "this access token's grant was revoked (vault-recall client revoke); authorize again"
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
            _revoke_grant(db, found.grant_id, now)


# ---- grants: what the person sees and revokes ----


def grants(*, include_revoked: bool = False) -> list[Grant]:
    with connect(write=False) as db:
        rows = db.execute(
            "SELECT id, client, app_client_id, app_name, created, last_used, revoked FROM grants "
            + ("" if include_revoked else "WHERE revoked IS NULL ")
            + "ORDER BY created"
        ).fetchall()
    return [Grant(*row) for row in rows]


def revoke(target: str, *, now: float | None = None) -> list[Grant]:
    """Revoke every live grant of our client id `target`, or the grant with that id; returns them."""
    now = time.time() if now is None else now
    with connect() as db:
        rows = db.execute(
            "SELECT id, client, app_client_id, app_name, created, last_used, revoked FROM grants "
            "WHERE revoked IS NULL AND (client = ? OR id = ?)",
            (target, target),
        ).fetchall()
        for row in rows:
            _revoke_grant(db, row[0], now)
    return [Grant(*row) for row in rows]


def _grant_live(db: sqlite3.Connection, grant_id: str) -> bool:
    row = db.execute("SELECT revoked FROM grants WHERE id = ?", (grant_id,)).fetchone()
    return row is not None and row[0] is None


def _revoke_grant(db: sqlite3.Connection, grant_id: str, now: float) -> None:
    # The tokens stay (until they expire) so a request carrying one is told it was revoked.
    db.execute("UPDATE grants SET revoked = ? WHERE id = ? AND revoked IS NULL", (now, grant_id))


def _prune(db: sqlite3.Connection, now: float) -> None:
    """Forget what can no longer be used: old requests and codes, dead tokens, and apps that
    registered long ago and were never approved (the oldest first past MAX_REGISTRATIONS)."""
    db.execute("DELETE FROM requests WHERE created < ?", (now - 2 * REQUEST_SECONDS,))
    db.execute("DELETE FROM codes WHERE expires < ?", (now - CODE_SECONDS,))
    db.execute("DELETE FROM tokens WHERE expires < ?", (now,))
    unapproved = "client_id NOT IN (SELECT app_client_id FROM grants WHERE revoked IS NULL)"
    db.execute(f"DELETE FROM apps WHERE {unapproved} AND created < ?", (now - UNUSED_REGISTRATION_SECONDS,))
    count = db.execute("SELECT COUNT(*) FROM apps").fetchone()[0]
    if count >= MAX_REGISTRATIONS:
        db.execute(
            f"DELETE FROM apps WHERE client_id IN (SELECT client_id FROM apps WHERE {unapproved} "
            "ORDER BY created LIMIT ?)",
            (count - MAX_REGISTRATIONS + 1,),
        )
