"""Each client's share of what `vault-recall http` can hold open at once: connections and
sessions.  One client — a buggy one that opens a session per call and never ends them, or one
whose token leaked — must not fill the endpoint so that every other client is refused.

- **Connections**: at most CONNECTIONS_PER_CLIENT (a quarter of the endpoint's MAX_CONNECTIONS)
  carry one client's requests; a request of a client over its share is refused (429) and its
  connection closed.  A connection counts for the client whose token its latest request
  carried, from that request until it closes.  Past MAX_CONNECTIONS in all, a new connection
  is refused (503) whoever opens it: before its first request nobody can say whose it is.
- **Sessions**: at most SESSIONS_PER_CLIENT per client.  A client at its share that opens one
  more gets it: its own least recently used session with no call running is ended for it
  (clients open a new session when theirs answers 404, as the protocol says).  Only when every
  one of them has a call running is it refused (429).  Past MAX_SESSIONS in all, the least
  recently used idle session of the client holding the most is ended the same way, so a client
  under its share is always answered unless every session has a call running (503).

Plain bookkeeping, on the event loop only; the ASGI side is in server/http/share_keeper.py.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from typing import Any

from vault_recall.server.http.refusals import Refusal

MAX_CONNECTIONS = 256
CONNECTIONS_PER_CLIENT = 64
MAX_SESSIONS = 1024
SESSIONS_PER_CLIENT = 64
SESSION_IDLE_SECONDS = 15 * 60


class ConnectionShares:
    """Which client each open connection carries requests for."""

    def __init__(self, per_client: int = CONNECTIONS_PER_CLIENT) -> None:
        self.per_client = per_client
        self._owner: dict[object, str] = {}
        self._count: Counter[str] = Counter()

    def closed(self, connection: object) -> None:
        owner = self._owner.pop(connection, None)
        if owner is not None:
            self._count[owner] -= 1
            if not self._count[owner]:
                del self._count[owner]

    def claim(self, connection: object, client: str) -> Refusal | None:
        """A request of `client` arrived on `connection`: count the connection for it, or say why
        not (the connection is then to be closed)."""
        owner = self._owner.get(connection)
        if owner == client:
            return None
        if self._count[client] >= self.per_client:
            return Refusal(
                429,
                "too_many_connections",
                f"client {client!r} has {self.per_client} connections open to this endpoint, its share; "
                "reuse them, or close some",
            )
        if owner is not None:
            self.closed(connection)
        self._owner[connection] = client
        self._count[client] += 1
        return None

    def held(self, client: str) -> int:
        return self._count[client]


@dataclass
class _Session:
    client: str
    owner: Any  # the AuthenticatedUser that opened it: only it may end it
    last_used: float
    calls: int = 0  # POSTs being answered
    requests: int = 0  # any request in flight, a GET stream included
    idle_since: float = 0.0


@dataclass
class Admission:
    """Whether a request may open a session: its ticket, or why it is refused."""

    ticket: int
    refusal: Refusal | None = None


class SessionShares:
    """The endpoint's sessions, by client, as the SDK opens and ends them.

    Room is made once a session is open (a request without a session id may not open one: it
    may not be an initialize request at all), by ending a least recently used idle session;
    a request is refused beforehand only when no such session could be ended for it."""

    def __init__(
        self,
        total: int = MAX_SESSIONS,
        per_client: int = SESSIONS_PER_CLIENT,
        idle_seconds: float = SESSION_IDLE_SECONDS,
    ) -> None:
        self.total = total
        self.per_client = per_client
        self.idle_seconds = idle_seconds
        self._sessions: dict[str, _Session] = {}
        self._opening: dict[int, str] = {}  # tickets of requests that may open a session: client
        self._tickets = itertools.count(1)

    def _count(self, client: str) -> int:
        return sum(1 for s in self._sessions.values() if s.client == client)

    def _expire(self, now: float) -> None:
        """Forget the sessions the SDK has ended for being idle (it does not say so)."""
        for sid in [
            sid for sid, s in self._sessions.items() if not s.requests and now - s.idle_since > self.idle_seconds
        ]:
            del self._sessions[sid]

    def admit(self, client: str, now: float) -> Admission:
        """A request of `client` that may open a session: refused only when, were it to, no
        session could be ended to keep the client within its share and the endpoint within
        its total."""
        self._expire(now)
        admission = Admission(next(self._tickets))
        mine = self._count(client) + sum(1 for c in self._opening.values() if c == client)
        if mine >= self.per_client and self._least_used_idle(lambda s: s.client == client) is None:
            admission.refusal = Refusal(
                429,
                "too_many_sessions",
                f"client {client!r} has {self.per_client} sessions open, its share, each with a call running; "
                "end one (DELETE) or wait for a call to finish",
            )
        elif len(self._sessions) + len(self._opening) >= self.total and self._least_used_idle(lambda s: True) is None:
            admission.refusal = Refusal(
                503,
                "too_many_sessions",
                f"the endpoint has {self.total} sessions open, each with a call running; try again shortly",
            )
        else:
            self._opening[admission.ticket] = client
        return admission

    def opened(self, ticket: int, session_id: str | None, owner: Any, now: float) -> list[tuple[str, Any]]:
        """The request with `ticket` is over, having opened `session_id` (None: none).  Returns
        the sessions to end to make room for it: (session id, the credential that opened it)."""
        client = self._opening.pop(ticket, None)
        if client is None or session_id is None:
            return []
        self._sessions[session_id] = _Session(client, owner, last_used=now, idle_since=now)
        ending: list[tuple[str, Any]] = []
        while self._count(client) > self.per_client:
            victim = self._least_used_idle(lambda s: s.client == client, spare=session_id)
            if victim is None:
                break
            ending.append(victim)
            del self._sessions[victim[0]]
        while len(self._sessions) > self.total:
            counts = Counter(s.client for s in self._sessions.values())
            victim = self._least_used_idle(lambda s: True, rank=lambda s, c=counts: -c[s.client], spare=session_id)
            if victim is None:
                break
            ending.append(victim)
            del self._sessions[victim[0]]
        return ending

    def _least_used_idle(self, which: Any, rank: Any = None, spare: str | None = None) -> tuple[str, Any] | None:
        candidates = [(sid, s) for sid, s in self._sessions.items() if which(s) and not s.calls and sid != spare]
        if not candidates:
            return None
        sid, chosen = min(candidates, key=lambda item: ((rank(item[1]) if rank else 0), item[1].last_used))
        return sid, chosen.owner

    def begin(self, session_id: str, *, call: bool, now: float) -> None:
        session = self._sessions.get(session_id)
        if session is None:
            return
        session.requests += 1
        if call:
            session.calls += 1
            session.last_used = now

    def end(self, session_id: str, *, call: bool, gone: bool, now: float) -> None:
        """A request of the session is over; `gone`: the session ended with it (DELETE, 404)."""
        session = self._sessions.get(session_id)
        if session is None:
            return
        session.requests -= 1
        if call:
            session.calls -= 1
            session.last_used = now
        if not session.requests:
            session.idle_since = now
        if gone:
            del self._sessions[session_id]

    def held(self, client: str) -> int:
        return self._count(client)

    def __len__(self) -> int:
        return len(self._sessions)
