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

This module holds the file — its schema, one transaction at a time, the hashes of secrets — and
the lifetimes and limits every part keeps to; `server/oauth/approvals.py` registers apps and takes
requests to the person's approval, `server/oauth/tokens.py` exchanges codes and tokens and revokes
grants.  Every function takes `now` so tests can move the clock; nothing is cached between calls.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import sqlite3
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

from vault_recall.server.config.config_file import state_dir
from vault_recall.server.errors import OAuthStoreError

STORE_FILE = "oauth.sqlite3"
SCHEMA_VERSION = 2  # 2: grants say why they were revoked
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
MAX_SECRET_LENGTH = 200  # ours are 47 characters; anything much longer is not one of ours
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
    revoked REAL,
    revoked_why TEXT
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


def store_path() -> Path:
    return state_dir() / STORE_FILE


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def new_secret(prefix: str) -> str:
    return prefix + secrets.token_urlsafe(32)


@contextlib.contextmanager
def connect(path: Path | None = None, *, write: bool = True) -> Iterator[sqlite3.Connection]:
    """One transaction on the store (created, readable by its owner only, on first use).  A
    reading one (`write=False`) waits for no writer: the store is in WAL mode; where no store
    exists yet it reads an empty one in memory and makes no file (listing must create nothing)."""
    path = path or store_path()
    if not write and not path.exists():
        with contextlib.closing(_empty()) as empty:
            yield empty
        return
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


class _Held:
    """A thread's connection and the file it is open on.  When the thread ends, its locals go
    and with them this: the connection is closed then, not left for the collector to find
    open (which Python 3.13 warns of)."""

    __slots__ = ("__weakref__", "connection", "key")

    def __init__(self, key: tuple[str, int, int], connection: sqlite3.Connection) -> None:
        self.key, self.connection = key, connection
        weakref.finalize(self, _close_quietly, connection)


def _close_quietly(connection: sqlite3.Connection) -> None:
    with contextlib.suppress(sqlite3.Error):
        connection.close()


def _empty() -> sqlite3.Connection:
    connection = sqlite3.connect(":memory:", isolation_level=None)
    connection.executescript(SCHEMA)
    return connection


def _connection(path: Path) -> sqlite3.Connection:
    # The state folder is the person's alone, whichever process makes it first (the activity
    # store and the tray's files go there too).
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not path.exists():
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    info = path.stat()
    key = (str(path), info.st_dev, info.st_ino)
    held: _Held | None = getattr(_local, "connection", None)
    if held is not None and held.key == key:
        return held.connection
    _forget_connection()
    # Used by this thread alone; closed by whichever thread frees its locals when it ends.
    connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
    try:
        if connection.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            _ensure_schema(connection, path)
    except BaseException:
        connection.close()
        raise
    _local.connection = _Held(key, connection)
    return connection


def _forget_connection() -> None:
    held: _Held | None = getattr(_local, "connection", None)
    _local.connection = None
    if held is not None:
        _close_quietly(held.connection)


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
    columns = {row[1] for row in connection.execute("PRAGMA table_info(grants)")}
    if "revoked_why" not in columns:  # a store of version 1
        connection.execute("ALTER TABLE grants ADD COLUMN revoked_why TEXT")
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    connection.execute("COMMIT")


def prune(db: sqlite3.Connection, now: float) -> None:
    """Forget what can no longer be used: old requests and codes, dead tokens, and apps that
    registered long ago and were neither approved nor are waiting for the person (the oldest
    first past MAX_REGISTRATIONS)."""
    db.execute("DELETE FROM requests WHERE created < ?", (now - 2 * REQUEST_SECONDS,))
    db.execute("DELETE FROM codes WHERE expires < ?", (now - CODE_SECONDS,))
    db.execute("DELETE FROM tokens WHERE expires < ?", (now,))
    # An app whose request waits for the person stays: once approved, it must find its code and
    # its tokens, whatever registered meanwhile.
    unused = (
        "client_id NOT IN (SELECT app_client_id FROM grants WHERE revoked IS NULL) AND client_id NOT IN "
        "(SELECT client_id FROM requests WHERE status IN ('pending', 'approved') AND created >= ?)"
    )
    waiting_since = now - REQUEST_SECONDS
    db.execute(f"DELETE FROM apps WHERE {unused} AND created < ?", (waiting_since, now - UNUSED_REGISTRATION_SECONDS))
    count = db.execute("SELECT COUNT(*) FROM apps").fetchone()[0]
    if count >= MAX_REGISTRATIONS:
        db.execute(
            f"DELETE FROM apps WHERE client_id IN (SELECT client_id FROM apps WHERE {unused} ORDER BY created LIMIT ?)",
            (waiting_since, count - MAX_REGISTRATIONS + 1),
        )
