"""Each client's share of the HTTP endpoint's connections and sessions, as bookkeeping: who is
refused, and which session is ended to make room."""

from __future__ import annotations

from vault_recall.server.http.shares import ConnectionShares, SessionShares


def test_a_client_may_hold_its_share_of_connections_and_no_more_while_others_are_counted_apart() -> None:
    shares = ConnectionShares(per_client=2)
    a1, a2, a3, b1 = object(), object(), object(), object()
    assert shares.claim(a1, "a") is None and shares.claim(a2, "a") is None
    assert shares.claim(a1, "a") is None  # the next request on a connection it holds
    refused = shares.claim(a3, "a")
    assert refused is not None and refused.status == 429 and "'a'" in refused.description
    assert shares.claim(b1, "b") is None
    shares.closed(a1)
    assert shares.claim(a3, "a") is None and shares.held("a") == 2
    assert shares.claim(a3, "b") is None  # a connection carrying another client's request now
    assert (shares.held("a"), shares.held("b")) == (1, 2)


def opened(shares: SessionShares, client: str, sid: str, now: float) -> list[str]:
    admission = shares.admit(client, now)
    assert admission.refusal is None
    return [ended for ended, _owner in shares.opened(admission.ticket, sid, f"{client}-credential", now)]


def test_a_client_over_its_share_of_sessions_has_its_least_recently_used_idle_one_ended() -> None:
    shares = SessionShares(total=100, per_client=3)
    for n, sid in enumerate(("a1", "a2", "a3")):
        assert opened(shares, "a", sid, now=n) == []
    shares.begin("a1", call=True, now=10)  # a1 is answering a call: never ended under it
    shares.begin("a3", call=True, now=11)
    shares.end("a3", call=True, gone=False, now=12)  # a3 used last
    assert opened(shares, "a", "a4", now=13) == ["a2"]
    assert shares.held("a") == 3
    assert opened(shares, "b", "b1", now=14) == []  # another client: its own share


def test_a_client_whose_every_session_has_a_call_running_is_refused_a_new_one() -> None:
    shares = SessionShares(total=100, per_client=2)
    opened(shares, "a", "a1", now=0)
    opened(shares, "a", "a2", now=1)
    for sid in ("a1", "a2"):
        shares.begin(sid, call=True, now=2)
    refused = shares.admit("a", now=3).refusal
    assert refused is not None and refused.status == 429
    assert shares.admit("b", now=3).refusal is None
    shares.end("a1", call=True, gone=False, now=4)
    assert shares.admit("a", now=5).refusal is None


def test_when_the_endpoint_is_full_the_client_holding_the_most_gives_up_its_least_recently_used_session() -> None:
    shares = SessionShares(total=4, per_client=4)
    for n, sid in enumerate(("a1", "a2", "a3")):
        opened(shares, "a", sid, now=n)
    opened(shares, "b", "b1", now=5)
    assert opened(shares, "c", "c1", now=6) == ["a1"]
    assert len(shares) == 4


def test_a_session_ended_by_its_client_or_gone_or_idle_past_the_timeout_is_forgotten() -> None:
    shares = SessionShares(total=100, per_client=5, idle_seconds=60)
    opened(shares, "a", "a1", now=0)
    opened(shares, "a", "a2", now=0)
    opened(shares, "a", "a3", now=0)
    shares.begin("a1", call=False, now=1)  # a DELETE
    shares.end("a1", call=False, gone=True, now=1)
    shares.begin("a2", call=False, now=1)  # a GET stream, open past the idle timeout
    shares.admit("a", now=500)  # the SDK has ended a3 by now
    assert shares.held("a") == 1


def test_a_request_that_opens_no_session_takes_no_room() -> None:
    shares = SessionShares(total=100, per_client=1)
    opened(shares, "a", "a1", now=0)
    admission = shares.admit("a", now=1)  # say, a POST without a session id that is no initialize
    assert shares.opened(admission.ticket, None, "cred", now=2) == []
    assert shares.held("a") == 1
