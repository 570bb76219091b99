"""The OAuth store: nothing is approved by itself, codes and refresh tokens are used once (a
replay revokes the grant), every grant acts as one client id, revocation is immediate, and the
file holds hashes only, readable by its owner."""

from __future__ import annotations

import gc
import json
import sqlite3
import threading
from contextlib import closing
from pathlib import Path
from typing import get_args

import pytest

from tests.support.posix import assert_mode
from vault_recall.server.config.client_id import CLIENT_ID_PATTERN
from vault_recall.server.errors import ApprovalError, GrantGone, OAuthStoreError
from vault_recall.server.oauth import approvals as oauth_approvals
from vault_recall.server.oauth import client_ids
from vault_recall.server.oauth import store as oauth_store
from vault_recall.server.oauth import tokens as oauth_tokens

NOW = 1_800_000_000.0
RESOURCE = "http://127.0.0.1:27183/mcp"  # the endpoint every request here asked for


def _app(name: str = "Claude Code", client_id: str = "app-1", secret: str | None = None) -> oauth_approvals.App:
    info = {"client_id": client_id, "client_name": name, "redirect_uris": ["http://127.0.0.1:5000/callback"]}
    oauth_approvals.register_app(client_id, name, json.dumps(info), secret, now=NOW)
    app = oauth_approvals.get_app(client_id)
    assert app is not None
    return app


def _request(app: oauth_approvals.App, now: float = NOW) -> tuple[str, oauth_approvals.Request]:
    return oauth_approvals.open_request(
        app,
        redirect_uri="http://127.0.0.1:5000/callback",
        redirect_explicit=True,
        code_challenge="challenge",
        state="s1",
        scopes=(),
        resource=RESOURCE,
        issuer="http://127.0.0.1:27183",
        now=now,
    )


def _granted(client: str | None = None, name: str = "Claude Code", app_id: str = "app-1") -> oauth_tokens.Issued:
    handle, request = _request(_app(name, app_id))
    oauth_approvals.approve(request.approval_code, client, now=NOW + 1)
    _, code = oauth_approvals.hand_out_code(handle, now=NOW + 2)
    assert code is not None
    return oauth_tokens.exchange_code(code, now=NOW + 3)


def test_a_request_stays_pending_until_the_person_approves_it() -> None:
    handle, request = _request(_app())
    assert oauth_approvals.hand_out_code(handle, now=NOW + 5)[1] is None
    assert [r.approval_code for r in oauth_approvals.pending_requests(now=NOW + 5)] == [request.approval_code]
    oauth_approvals.approve(request.approval_code, now=NOW + 6)
    answered, code = oauth_approvals.hand_out_code(handle, now=NOW + 7)
    assert code is not None and code.startswith("vrc_")
    assert answered.status == "approved"
    assert oauth_approvals.hand_out_code(handle, now=NOW + 8)[1] is None  # one code per request
    assert oauth_approvals.pending_requests(now=NOW + 8) == []


def test_a_request_not_approved_in_time_can_no_longer_be_approved() -> None:
    _, request = _request(_app())
    later = NOW + oauth_store.REQUEST_SECONDS + 1
    assert oauth_approvals.pending_requests(now=later) == []
    with pytest.raises(ApprovalError, match="expired"):
        oauth_approvals.approve(request.approval_code, now=later)


def test_a_denied_request_gives_no_code_and_cannot_be_approved_after() -> None:
    handle, request = _request(_app())
    oauth_approvals.deny(request.approval_code.lower().replace("-", " "), now=NOW + 1)
    assert oauth_approvals.hand_out_code(handle, now=NOW + 2)[1] is None
    with pytest.raises(ApprovalError, match="already denied"):
        oauth_approvals.approve(request.approval_code, now=NOW + 3)


def test_an_approval_code_is_read_as_a_person_types_it() -> None:
    assert oauth_approvals.normal_approval_code(" abcd efgh ") == "ABCD-EFGH"
    assert oauth_approvals.normal_approval_code("ABCDEFGH") == "ABCD-EFGH"
    assert oauth_approvals.normal_approval_code("ABCD-EFG") is None
    assert oauth_approvals.normal_approval_code("ABCD-EFG1") is None  # 1 is never in a code: it reads as I or L
    with pytest.raises(ApprovalError, match="not an approval code"):
        oauth_approvals.approve("drop table")


@pytest.mark.parametrize(
    ("name", "client"),
    [
        ("Claude Code", "claude-code"),
        ("Codex", "codex"),
        ("gemini-cli-mcp-client", "gemini-cli-mcp-client"),
        # What the real clients register as: their catalogue ids (server/oauth/known_apps.py).
        ("Claude Code (vault-recall)", "claude-code"),
        ("Claude Code (notes)", "claude-code"),
        ("Gemini CLI MCP Client", "gemini"),
        ("OpenCode", "opencode"),
        ("Desk app", "desk-app"),
        ("ChatGPT (web)", "chatgpt-web"),
        # Latin letters with marks, and letters of full width, have an ASCII form.
        ("Café Notes", "cafe-notes"),
        ("Ｄｅｓｋ", "desk"),
    ],
)
def test_an_app_is_approved_as_its_known_clients_id_or_one_made_of_its_name_unless_told(name: str, client: str) -> None:
    assert client_ids.suggested_client_id(name) == client


NO_ASCII_FORM = ["مساعد الملاحظات", "界界界", "界界", "✨", "Notes 界", "Notes ✨", "Заметки"]


def test_names_without_an_ascii_form_each_make_their_own_id_and_always_the_same() -> None:
    made = [client_ids.suggested_client_id(name) for name in NO_ASCII_FORM]
    assert len(set(made)) == len(made), made
    assert made == [client_ids.suggested_client_id(name) for name in NO_ASCII_FORM]  # stable
    assert made[0].startswith("oauth-app-") and made[4].startswith("notes-"), made
    assert all(CLIENT_ID_PATTERN.fullmatch(client) for client in made), made
    long = client_ids.suggested_client_id("x" * 70 + "界")
    assert CLIENT_ID_PATTERN.fullmatch(long) and long.startswith("x" * 50), long


def _approved_as(name: str, app_id: str, client: str | None = None) -> str:
    _, request = _request(_app(name, app_id))
    return oauth_approvals.approve(request.approval_code, client, now=NOW + 1)[1].client


def test_two_unrelated_apps_are_never_approved_as_one_client_whatever_their_names() -> None:
    # Two names that make one slug, and two with no ASCII form: each app its own client.
    first, second = _approved_as("Desk app", "app-1"), _approved_as("desk-app!", "app-2")
    assert (first, second) == ("desk-app", "desk-app-2")
    arabic, chinese = _approved_as("مساعد الملاحظات", "app-3"), _approved_as("界界界", "app-4")
    assert arabic != chinese and {arabic, chinese}.isdisjoint({"oauth-app", first, second})
    # The id is offered before approval as it will be given: the page, `client grants`, the tray.
    _, waiting = _request(_app("desk app?", "app-5"), now=NOW + 2)
    assert [r.suggested_client for r in oauth_approvals.pending_requests(now=NOW + 3)] == ["desk-app-3"]
    assert oauth_approvals.approve(waiting.approval_code, now=NOW + 3)[1].client == "desk-app-3"
    # A revoked grant still holds its id: its exposure and activity are that app's.
    oauth_tokens.revoke("desk-app")
    assert _approved_as("DESK APP …", "app-6") == "desk-app-4"


def test_an_app_connecting_again_is_offered_its_own_client_again() -> None:
    assert _approved_as("界界界", "app-1") == _approved_as("界界界", "app-2")
    assert _approved_as("Desk app", "app-3") == _approved_as("desk app", "app-4") == "desk-app"
    assert _approved_as("Claude Code (vault-recall)", "app-5") == _approved_as("Claude Code (notes)", "app-6")
    # An unnamed app is nobody in particular: the next one is another client.
    assert _approved_as("", "app-7") != _approved_as("", "app-8")
    unnamed = client_ids.UNNAMED
    assert _approved_as(unnamed, "app-9") != _approved_as(unnamed, "app-10")


def test_a_known_client_is_offered_its_own_id_whoever_was_approved_as_it() -> None:
    # An app you approved as Codex's id is Codex, you said: Codex itself still gets its id.
    assert _approved_as("Some proxy", "app-1", "codex") == "codex"
    assert _approved_as("Codex", "app-2") == "codex"
    assert _approved_as("Claude Code", "app-3") == _approved_as("Claude Code (notes)", "app-4") == "claude-code"
    # Another app made no known client's id of its name: the next free one.
    assert _approved_as("Some proxy", "app-5") == "some-proxy"


def test_the_person_may_approve_an_app_as_a_client_another_app_holds_and_is_told() -> None:
    assert _approved_as("Phone app", "app-1", "phone") == "phone"
    assert _approved_as("Tablet app", "app-2", "phone") == "phone"
    assert client_ids.other_apps_of("phone", "Tablet app") == ["Phone app"]


def test_every_token_of_a_grant_acts_as_the_client_it_was_approved_as() -> None:
    issued = _granted("work-laptop")
    assert oauth_tokens.client_of_access_token(issued.access_token, RESOURCE, now=NOW + 10) == ("work-laptop", "")
    refreshed = oauth_tokens.exchange_refresh(issued.refresh_token, (), now=NOW + 20)
    assert oauth_tokens.client_of_access_token(refreshed.access_token, RESOURCE, now=NOW + 21) == ("work-laptop", "")


def test_an_approval_as_an_impossible_client_id_is_refused() -> None:
    _, request = _request(_app())
    with pytest.raises(ApprovalError, match="cannot be a client id"):
        oauth_approvals.approve(request.approval_code, "Not An Id!", now=NOW + 1)
    assert [r.approval_code for r in oauth_approvals.pending_requests(now=NOW + 1)] == [request.approval_code]


def test_a_code_is_used_once_and_its_replay_revokes_the_grant() -> None:
    handle, request = _request(_app())
    oauth_approvals.approve(request.approval_code, now=NOW + 1)
    _, code = oauth_approvals.hand_out_code(handle, now=NOW + 2)
    assert code is not None
    issued = oauth_tokens.exchange_code(code, now=NOW + 3)
    with pytest.raises(GrantGone, match="already used"):
        oauth_tokens.exchange_code(code, now=NOW + 4)
    client, why = oauth_tokens.client_of_access_token(issued.access_token, RESOURCE, now=NOW + 5)
    assert client is None and "revoked" in why
    with pytest.raises(GrantGone, match="revoked"):
        oauth_tokens.exchange_refresh(issued.refresh_token, (), now=NOW + 6)


def test_a_code_expires() -> None:
    handle, request = _request(_app())
    oauth_approvals.approve(request.approval_code, now=NOW + 1)
    _, code = oauth_approvals.hand_out_code(handle, now=NOW + 2)
    assert code is not None
    with pytest.raises(GrantGone, match="expired"):
        oauth_tokens.exchange_code(code, now=NOW + 3 + oauth_store.CODE_SECONDS)


def test_a_refresh_token_is_rotated_and_a_used_one_presented_again_revokes_the_grant() -> None:
    issued = _granted()
    second = oauth_tokens.exchange_refresh(issued.refresh_token, (), now=NOW + 10)
    assert second.refresh_token != issued.refresh_token and second.access_token != issued.access_token
    later = NOW + 10 + oauth_store.REFRESH_REUSE_SECONDS + 1
    with pytest.raises(GrantGone, match="already used"):
        oauth_tokens.exchange_refresh(issued.refresh_token, (), now=later)
    assert oauth_tokens.client_of_access_token(second.access_token, RESOURCE, now=later + 1)[0] is None
    assert oauth_tokens.grants() == []


def test_a_client_refreshing_twice_at_once_gets_two_pairs_and_keeps_its_grant() -> None:
    issued = _granted()
    first = oauth_tokens.exchange_refresh(issued.refresh_token, (), now=NOW + 10)
    second = oauth_tokens.exchange_refresh(issued.refresh_token, (), now=NOW + 10.5)
    assert first.access_token != second.access_token
    for pair in (first, second):
        assert oauth_tokens.client_of_access_token(pair.access_token, RESOURCE, now=NOW + 11)[0] == "claude-code"
    # The window runs from the first use, not the last: the token stays spent.
    with pytest.raises(GrantGone, match="already used"):
        oauth_tokens.exchange_refresh(issued.refresh_token, (), now=NOW + 10 + oauth_store.REFRESH_REUSE_SECONDS + 1)


def test_an_access_token_expires_after_an_hour_and_a_refresh_gives_a_new_one() -> None:
    issued = _granted()
    late = NOW + 3 + oauth_store.ACCESS_SECONDS + 1
    client, why = oauth_tokens.client_of_access_token(issued.access_token, RESOURCE, now=late)
    assert client is None and "expired" in why
    fresh = oauth_tokens.exchange_refresh(issued.refresh_token, (), now=late)
    assert oauth_tokens.client_of_access_token(fresh.access_token, RESOURCE, now=late + 1)[0] == "claude-code"


def test_revoking_a_client_stops_every_grant_of_it_and_no_other() -> None:
    claude = _granted()
    codex = _granted("codex", "Codex", "app-2")
    revoked = oauth_tokens.revoke("claude-code", now=NOW + 10)
    assert [g.client for g in revoked] == ["claude-code"]
    assert oauth_tokens.client_of_access_token(claude.access_token, RESOURCE, now=NOW + 11)[0] is None
    assert oauth_tokens.client_of_access_token(codex.access_token, RESOURCE, now=NOW + 11)[0] == "codex"
    with pytest.raises(GrantGone, match="revoked"):
        oauth_tokens.exchange_refresh(claude.refresh_token, (), now=NOW + 12)
    assert [g.client for g in oauth_tokens.grants()] == ["codex"]


def test_a_grant_is_revoked_by_its_own_id_too() -> None:
    issued = _granted()
    (grant,) = oauth_tokens.grants()
    assert [g.id for g in oauth_tokens.revoke(grant.id, now=NOW + 10)] == [grant.id]
    assert oauth_tokens.client_of_access_token(issued.access_token, RESOURCE, now=NOW + 11)[0] is None


def test_a_token_that_is_not_ours_names_no_client() -> None:
    assert oauth_tokens.client_of_access_token("vra_" + "x" * 43, RESOURCE, now=NOW)[0] is None
    assert oauth_tokens.client_of_access_token("vrt_" + "x" * 43, RESOURCE, now=NOW)[0] is None
    assert oauth_tokens.load_token("vra_" + "x" * 1000) is None


def test_a_flood_of_authorizations_is_refused_past_the_limit() -> None:
    app = _app()
    for _ in range(oauth_store.MAX_PENDING):
        _request(app)
    with pytest.raises(ApprovalError, match="already waiting"):
        _request(app)


def test_the_store_is_readable_by_its_owner_only_and_holds_no_secret() -> None:
    issued = _granted()
    app = _app("Confidential", "app-9", secret="s3cret-value")
    assert oauth_approvals.secret_matches(app, "s3cret-value")
    assert not oauth_approvals.secret_matches(app, "s3cret-valuf")
    path = oauth_store.store_path()
    assert path.with_name(path.name + "-wal").exists()  # written as WAL
    files = [p for p in path.parent.iterdir() if p.name.startswith(path.name)]  # the store, its WAL and index
    assert len(files) >= 2
    assert files
    for p in files:
        assert_mode(p, 0o600)
    data = b"".join(p.read_bytes() for p in files)
    for secret in (issued.access_token, issued.refresh_token, "s3cret-value"):
        assert secret.encode() not in data
    assert oauth_store.secret_hash(issued.access_token).encode() in data


def test_a_store_removed_while_in_use_is_read_as_empty_and_made_again_by_the_next_write() -> None:
    issued = _granted()
    assert oauth_tokens.client_of_access_token(issued.access_token, RESOURCE, now=NOW + 5)[0] == "claude-code"
    path = oauth_store.store_path()
    for leftover in path.parent.glob(path.name + "*"):
        leftover.unlink()
    assert oauth_tokens.client_of_access_token(issued.access_token, RESOURCE, now=NOW + 6)[0] is None
    assert oauth_tokens.grants() == []
    assert not path.exists()  # reading makes no store
    _app("Again", "app-2")
    assert path.exists() and oauth_approvals.get_app("app-2") is not None  # the next write makes it anew


def test_a_flood_of_registrations_keeps_the_store_bounded_and_the_granted_app(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registration needs no approval, so anyone who can reach the endpoint can register apps
    without end: past MAX_REGISTRATIONS the oldest never approved go first, never an app the
    person approved, whose tokens keep working.  (A smaller limit here: each registration is a
    committed write, about 10 ms.)"""
    monkeypatch.setattr(oauth_store, "MAX_REGISTRATIONS", 20)
    issued = _granted()  # app-1, approved
    flood = oauth_store.MAX_REGISTRATIONS + 50
    for number in range(flood):
        info = json.dumps({"client_id": f"flood-{number}", "redirect_uris": ["http://127.0.0.1:9/cb"]})
        oauth_approvals.register_app(f"flood-{number}", "Flood", info, None, now=NOW + 10 + number)
    with closing(sqlite3.connect(oauth_store.store_path())) as raw, raw:
        (apps,) = raw.execute("SELECT COUNT(*) FROM apps").fetchone()
    assert apps <= oauth_store.MAX_REGISTRATIONS
    assert oauth_approvals.get_app("app-1") is not None
    assert oauth_approvals.get_app("flood-0") is None  # the oldest went first
    assert oauth_approvals.get_app(f"flood-{flood - 1}") is not None
    assert oauth_tokens.client_of_access_token(issued.access_token, RESOURCE, now=NOW + 20)[0] is not None
    # A day later, registrations never approved are forgotten at the next registration.
    oauth_approvals.register_app(
        "late", "Late", "{}", None, now=NOW + 10 + flood + oauth_store.UNUSED_REGISTRATION_SECONDS
    )
    assert oauth_approvals.get_app(f"flood-{flood - 1}") is None
    assert oauth_approvals.get_app("app-1") is not None


def test_a_store_of_the_first_version_is_read_and_says_why_a_grant_goes_from_then_on() -> None:
    path = oauth_store.store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path)) as raw, raw:  # as version 1 made it: grants without `revoked_why`
        raw.executescript(oauth_store.SCHEMA.replace("    revoked REAL,\n    revoked_why TEXT\n", "    revoked REAL\n"))
        raw.execute("INSERT INTO grants VALUES ('g1', 'laptop', 'app-1', 'Old app', 1.0, NULL, NULL)")
        raw.execute("PRAGMA user_version = 1")
    (grant,) = oauth_tokens.grants()
    assert grant.client == "laptop" and grant.revoked_why is None
    assert [g.id for g in oauth_tokens.revoke("laptop", now=NOW)] == ["g1"]
    assert oauth_tokens.grants(include_revoked=True)[0].why_revoked() == "you revoked it"


def test_a_replay_is_remembered_as_why_the_grant_went_for_a_week() -> None:
    handle, request = _request(_app())
    oauth_approvals.approve(request.approval_code, now=NOW + 1)
    _, code = oauth_approvals.hand_out_code(handle, now=NOW + 2)
    assert code is not None
    oauth_tokens.exchange_code(code, now=NOW + 3)
    with pytest.raises(GrantGone):
        oauth_tokens.exchange_code(code, now=NOW + 4)
    (replayed,) = oauth_tokens.replayed_grants(now=NOW + 5)
    assert replayed.replayed and "presented a second time" in replayed.why_revoked()
    assert oauth_tokens.replayed_grants(now=NOW + 5 + oauth_tokens.REPLAY_TOLD_SECONDS) == []


def test_a_request_status_is_one_of_the_closed_set_or_the_store_is_refused() -> None:
    for status in oauth_approvals.REQUEST_STATUSES:
        assert oauth_approvals.request_status(status) == status
    with pytest.raises(OAuthStoreError, match="unknown status 'lost'"):
        oauth_approvals.request_status("lost")


def test_why_a_grant_went_and_a_token_kind_are_closed_sets_or_the_store_is_refused() -> None:
    for why in get_args(oauth_tokens.RevokedWhy):
        assert oauth_tokens.revoke_reason(why) == why
    assert oauth_tokens.revoke_reason(None) is None  # live, or revoked by a store of version 1
    for kind in get_args(oauth_tokens.TokenKind):
        assert oauth_tokens.token_kind(kind) == kind
    issued = _granted()
    with closing(sqlite3.connect(oauth_store.store_path())) as raw, raw:  # a damaged store
        raw.execute("UPDATE grants SET revoked = 1.0, revoked_why = 'lost'")
    with pytest.raises(OAuthStoreError, match="unknown reason 'lost'"):
        oauth_tokens.grants(include_revoked=True)
    with pytest.raises(OAuthStoreError, match="unknown reason 'lost'"):
        oauth_tokens.client_of_access_token(issued.access_token, RESOURCE, now=NOW + 30)
    with closing(sqlite3.connect(oauth_store.store_path())) as raw, raw:
        raw.execute("UPDATE tokens SET kind = 'bearer'")
    with pytest.raises(OAuthStoreError, match="unknown kind 'bearer'"):
        oauth_tokens.load_token(issued.refresh_token)


def test_an_app_is_told_why_its_grant_went_not_only_that_the_person_revoked_it() -> None:
    # Each way a grant goes, and what a request with its access token and a refresh are told.
    told: dict[str, tuple[str, str]] = {}
    by_person = _granted()
    oauth_tokens.revoke("claude-code", now=NOW + 10)
    by_app = _granted("codex", "Codex", "app-2")
    oauth_tokens.revoke_token(by_app.refresh_token, now=NOW + 10)
    replayed = _granted("gemini", "Gemini CLI MCP Client", "app-3")
    oauth_tokens.exchange_refresh(replayed.refresh_token, (), now=NOW + 10)
    with pytest.raises(GrantGone):  # presented again after the window: a replay
        oauth_tokens.exchange_refresh(replayed.refresh_token, (), now=NOW + 20 + oauth_store.REFRESH_REUSE_SECONDS)
    for name, issued in (("person", by_person), ("app", by_app), ("replay", replayed)):
        _, access_why = oauth_tokens.client_of_access_token(issued.access_token, RESOURCE, now=NOW + 30)
        with pytest.raises(GrantGone) as refresh:
            oauth_tokens.exchange_refresh(issued.refresh_token, (), now=NOW + 30)
        told[name] = (access_why, str(refresh.value))
    for name, (access_why, refresh_why) in told.items():
        for why in (access_why, refresh_why):
            assert "revoked" in why and "authorize again" in why, (name, why)
            assert ("vault-recall client revoke" in why) == (name == "person"), (name, why)
    assert all("the app revoked it" in why for why in told["app"])
    assert all("replay" in why for why in told["replay"][:1])  # the refresh itself says "already used"


def test_an_access_token_is_taken_only_by_the_resource_it_was_issued_for() -> None:
    """RFC 8707: another endpoint sharing this store (another port), or this one reached by
    another name, refuses it, saying where it belongs."""
    issued = _granted("claude-code")
    assert oauth_tokens.client_of_access_token(issued.access_token, RESOURCE, now=NOW + 5)[0] == "claude-code"
    # The same URL written another way (the scheme's case, a trailing slash) is the same resource.
    assert oauth_tokens.client_of_access_token(issued.access_token, "HTTP://127.0.0.1:27183/mcp/", now=NOW + 5)[0]
    for other in ("http://127.0.0.1:9000/mcp", "http://localhost:27183/mcp", "https://vault.example.net/mcp"):
        client, why = oauth_tokens.client_of_access_token(issued.access_token, other, now=NOW + 5)
        assert client is None and why == (
            f"this access token was issued for {RESOURCE}, not for {other}: authorize at this address to use it"
        )


def test_a_threads_connection_is_closed_when_the_thread_ends(tmp_path: Path) -> None:
    # Each thread keeps its own connection to the store; a thread that ends (the tray's worker,
    # an endpoint's) must not leave it open for the collector to find (Python 3.13 warns).
    kept: list[sqlite3.Connection] = []

    def use_the_store() -> None:
        with oauth_store.connect(tmp_path / "oauth.sqlite3") as db:
            kept.append(db)

    thread = threading.Thread(target=use_the_store)
    thread.start()
    thread.join()
    del thread
    gc.collect()
    with pytest.raises(sqlite3.ProgrammingError, match="closed database"):
        kept[0].execute("SELECT 1")
