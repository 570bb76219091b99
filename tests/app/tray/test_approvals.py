"""The tray's part in OAuth: a notification when an app starts waiting, menu items with its name
and code to approve or deny it, grants to revoke — over the real store the endpoint and the
command line share."""

from __future__ import annotations

import json

from vault_recall.app.tray.endpoint.app_grants import (
    ApprovalNotices,
    Approvals,
    Granted,
    Waiting,
    approval_action,
    read_approvals,
    with_approvals,
)
from vault_recall.app.tray.menu.tree import Item
from vault_recall.server.config.config_file import load_config
from vault_recall.server.oauth import approvals as oauth_approvals
from vault_recall.server.oauth import store as oauth_store
from vault_recall.server.oauth import tokens as oauth_tokens

MENU = (Item("Vault: healthy"), Item("Quit Vault Recall", ("quit",)))


class Told(list[tuple[str, str]]):
    """The notifications given, as (summary, body): the tray's two-part notify."""

    def __call__(self, summary: str, body: str) -> None:
        self.append((summary, body))


def _waiting_request(name: str = "Claude Code", client_id: str = "app-1") -> oauth_approvals.Request:
    info = {"client_id": client_id, "client_name": name, "redirect_uris": ["http://127.0.0.1:5000/cb"]}
    oauth_approvals.register_app(client_id, name, json.dumps(info), None)
    app = oauth_approvals.get_app(client_id)
    assert app is not None
    _, request = oauth_approvals.open_request(
        app,
        redirect_uri="http://127.0.0.1:5000/cb",
        redirect_explicit=True,
        code_challenge="c",
        state=None,
        scopes=(),
        resource="http://127.0.0.1:27183/mcp",
        issuer="http://127.0.0.1:27183",
    )
    return request


def test_the_menu_is_unchanged_until_an_app_authorizes() -> None:
    assert read_approvals() == Approvals()
    assert not oauth_store.store_path().exists()  # the tray's look creates no store
    assert with_approvals(MENU, Approvals()) == MENU


def test_a_waiting_app_shows_its_name_and_code_to_approve_or_deny() -> None:
    request = _waiting_request()
    approvals = read_approvals()
    assert approvals.waiting == (Waiting(request.approval_code, "Claude Code", "claude-code"),)
    menu = with_approvals(MENU, approvals)
    assert menu[0] == MENU[0] and menu[2:] == MENU[1:]
    assert menu[1].text == "Apps waiting for approval (1)"
    assert menu[1].submenu is not None
    approve, deny = menu[1].submenu
    assert approve.text == f"Approve “Claude Code” as claude-code ({request.approval_code})"
    assert approve.action == ("oauth_approve", request.approval_code)
    assert deny.action == ("oauth_deny", request.approval_code)


def test_approving_from_the_menu_grants_registers_the_client_and_says_so() -> None:
    request = _waiting_request()
    told = Told()
    assert approval_action(("oauth_approve", request.approval_code), told)
    (grant,) = oauth_tokens.grants()
    assert grant.client == "claude-code"
    assert load_config().client("claude-code") is not None
    assert told == [("Approved “Claude Code” as claude-code", "Its browser page returns it to the app.")]
    menu = with_approvals(MENU, read_approvals())
    assert menu[1].text == "Apps connected with OAuth"
    assert menu[1].submenu == (Item("Revoke “Claude Code” (claude-code)", ("oauth_revoke", grant.id)),)
    assert approval_action(("oauth_revoke", grant.id), told)
    assert oauth_tokens.grants() == [] and told[-1][0] == "Revoked “Claude Code” (claude-code)"


def test_an_answer_that_came_too_late_is_told_not_raised() -> None:
    request = _waiting_request()
    told = Told()
    assert approval_action(("oauth_deny", request.approval_code), told)
    assert approval_action(("oauth_approve", request.approval_code), told)
    assert told[0][0] == "Denied “Claude Code”"
    assert "already denied" in told[1][1]
    assert oauth_tokens.grants() == []
    assert not approval_action(("quit",), told)


def test_the_person_is_told_once_about_each_app_that_starts_waiting() -> None:
    notices = ApprovalNotices()
    told = Told()
    already = _waiting_request("Old app", "app-0")
    assert not notices.poll(told, read_approvals())  # waiting before the tray looked
    fresh = _waiting_request("Codex", "app-2")
    assert notices.poll(told, read_approvals())
    assert notices.poll(told, read_approvals()) is False
    assert len(told) == 1
    ((summary, body),) = told
    assert summary == f"“Codex” asks to recall your notes (code {fresh.approval_code})"
    assert f"vault-recall client approve {fresh.approval_code}" in body
    assert already.approval_code not in summary + body


def test_long_names_are_shortened_and_many_apps_capped() -> None:
    approvals = Approvals(
        waiting=tuple(Waiting(f"AAAA-AAA{i}", "x" * 100, "x") for i in range(2, 9)) * 2,
        granted=(Granted("g1", "c", "name"),),
    )
    menu = with_approvals(MENU, approvals)
    assert menu[1].submenu is not None
    assert all(len(item.text) < 90 for item in menu[1].submenu)
    assert len(menu[1].submenu) == 2 * 10 + 2  # ten waiting (approve, deny), a separator, a grant
