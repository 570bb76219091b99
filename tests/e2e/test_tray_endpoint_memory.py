"""The tray's endpoint actions remember whether the person left `vault-recall http` running:
*Start* keeps its address in the tray's settings, *Stop* forgets it, and the tray's start
action starts it again only then — with a real endpoint child process."""

from __future__ import annotations

import dataclasses

from tests.support.e2e import vault_recall_command
from tests.support.http_e2e import INITIALIZE, JSON_HEADERS, post
from vault_recall.app.state.config_store import update_config
from vault_recall.app.tray.endpoint.process import EndpointProcess, endpoint_action, endpoint_to_start
from vault_recall.server.config.config_file import Config, load_config


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def test_start_is_remembered_stop_forgets_and_the_trays_start_follows_it() -> None:
    notes: list[tuple[str, str]] = []

    def notify(summary: str, body: str) -> None:
        notes.append((summary, body))

    first = EndpointProcess(listen="127.0.0.1:0", command=vault_recall_command())
    try:
        endpoint_action(("endpoint", "start"), first, notify)
        assert endpoint_to_start(load_config()) == "127.0.0.1:0"
    finally:
        first.stop()  # as when the tray quits: the endpoint ends, the wish stays

    again = EndpointProcess(command=vault_recall_command())  # a new tray, at the default address
    try:
        endpoint_action(("endpoint", "start_with_tray"), again, notify)
        assert again.url is not None and again.listen == "127.0.0.1:0"
        assert post(port_of(again.url), INITIALIZE, JSON_HEADERS)[0] == 401  # serving, guarded
        assert len(notes) == 1  # started quietly: only the menu's Start said so
        assert notes[0][0].startswith("Vault Recall is serving clients at http://127.0.0.1:")
        endpoint_action(("endpoint", "stop"), again, notify)
    finally:
        again.stop()
    assert endpoint_to_start(load_config()) is None

    later = EndpointProcess(command=vault_recall_command())
    endpoint_action(("endpoint", "start_with_tray"), later, notify)
    assert later.url is None  # stopped by the person: not started again


def test_an_address_edited_into_nonsense_starts_nothing() -> None:
    def edit(config: Config) -> Config:
        return dataclasses.replace(config, extra=(("tray", {"start_endpoint": "my laptop"}),))

    update_config(edit)
    assert endpoint_to_start(load_config()) is None
