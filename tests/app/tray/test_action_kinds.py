"""The menu's actions are a closed set, each kind run by one module: a kind added to
`ActionName` belongs to one owner (or the partition below fails), its owner's `match` ends in
`assert_never` (or mypy fails), and a kind no one runs is refused aloud, never ignored."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import get_args

import pytest

from vault_recall.app.tray.actions.client_setup import client_action
from vault_recall.app.tray.actions.perform import ActionContext, perform
from vault_recall.app.tray.actions.rule_changes import subject_action
from vault_recall.app.tray.endpoint.app_grants import approval_action
from vault_recall.app.tray.endpoint.process import EndpointProcess, endpoint_action
from vault_recall.app.tray.menu.items import (
    ActionName,
    TrayState,
    is_approval_action,
    is_client_action,
    is_endpoint_action,
    is_subject_action,
    is_vault_action,
)
from vault_recall.app.tray.menu.tree import Action, Item, build_menu
from vault_recall.server.config.config_file import ClientEntry, Config, VaultEntry

OWNERS: dict[str, Callable[[ActionName], bool]] = {
    "actions/perform": is_vault_action,
    "actions/client_setup": is_client_action,
    "actions/rule_changes": is_subject_action,
    "endpoint/process": is_endpoint_action,
    "endpoint/app_grants": is_approval_action,
}
EVERY_KIND: tuple[ActionName, ...] = get_args(ActionName)
STATE = TrayState(config=Config())


def quiet(summary: str, body: str = "") -> None:
    raise AssertionError(f"nothing should be told: {summary} {body}")


@pytest.mark.parametrize("name", EVERY_KIND)
def test_every_action_kind_has_exactly_one_owner(name: ActionName) -> None:
    owners = [owner for owner, owns in OWNERS.items() if owns(name)]
    assert len(owners) == (0 if name == "quit" else 1), owners  # quit: the tray's own, before any owner


@pytest.mark.parametrize("name", EVERY_KIND)
def test_an_owner_leaves_every_kind_of_another_owner_alone(name: ActionName) -> None:
    action: Action = (name,)
    if not is_client_action(name):
        assert client_action(action, STATE, quiet, lambda _: False) is False
    if not is_subject_action(name):
        assert subject_action(action, STATE, quiet) is False
    if not is_approval_action(name):
        assert approval_action(action, quiet) is False
    if not is_endpoint_action(name):
        assert endpoint_action(action, EndpointProcess(), quiet) is False


@pytest.mark.parametrize(
    "name", [n for n in EVERY_KIND if not (is_vault_action(n) or is_client_action(n) or is_subject_action(n))]
)
def test_perform_refuses_aloud_a_kind_that_is_not_its_to_run(name: ActionName) -> None:
    with pytest.raises(ValueError, match="is not an action perform runs"):
        perform((name, "x"), ActionContext(STATE, quiet, lambda _: None))


def test_an_endpoint_command_no_item_names_is_refused_aloud() -> None:
    with pytest.raises(ValueError, match="the endpoint has no command"):
        endpoint_action(("endpoint", "restart"), EndpointProcess(), quiet)


def items(menu: tuple[Item, ...]) -> Iterator[Item]:
    for item in menu:
        yield item
        yield from items(item.submenu or ())


def test_every_item_of_a_full_menu_asks_for_a_kind_of_the_set() -> None:
    config = Config(
        vaults=(VaultEntry("work", "/v/work"),),
        active_vault="work",
        clients=(ClientEntry("claude-code"), ClientEntry("codex", exposure=("build",))),
    )
    asked = {item.action[0] for item in items(build_menu(TrayState(config=config))) if item.action}
    assert asked and asked <= set(EVERY_KIND)
