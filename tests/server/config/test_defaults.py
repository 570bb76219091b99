"""Every default is the one in server/defaults.py: the config file, the activity store and the
HTTP address take theirs from the table, so a default changed there changes everywhere."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

from vault_recall.server import defaults
from vault_recall.server.activity.writer import ActivityWriter
from vault_recall.server.config.config_file import ClientEntry, VaultEntry, parse_config
from vault_recall.server.errors import ConfigError
from vault_recall.server.http.address import DEFAULT_LISTEN, parse_listen


def test_a_config_that_says_nothing_takes_the_table_s_defaults() -> None:
    config = parse_config(
        b'{"version": 1, "vaults": [{"name": "v", "path": "/v"}], "clients": [{"id": "c"}]}', Path("c")
    )
    activity = config.activity
    assert (activity.keep_query_text, activity.retention_days, activity.max_events) == (
        defaults.KEEP_QUERY_TEXT,
        defaults.RETENTION_DAYS,
        defaults.MAX_EVENTS,
    )
    assert config.clients == (ClientEntry(id="c", vault=defaults.CLIENT_VAULT, exposure=defaults.CLIENT_EXPOSURE),)
    assert config.vaults[0].languages == VaultEntry("v", "/v").languages == defaults.LANGUAGES


def test_the_activity_store_keeps_what_the_table_says_when_not_told() -> None:
    for method in (ActivityWriter.submit, ActivityWriter.append):
        parameters = inspect.signature(method).parameters
        assert (parameters["retention_days"].default, parameters["max_events"].default) == (
            defaults.RETENTION_DAYS,
            defaults.MAX_EVENTS,
        )


@pytest.mark.parametrize(
    ("key", "bounds"), [("retention_days", defaults.RETENTION_DAYS_RANGE), ("max_events", defaults.MAX_EVENTS_RANGE)]
)
def test_an_activity_setting_must_keep_the_table_s_bounds(key: str, bounds: tuple[int, int]) -> None:
    fewest, most = bounds
    for value in (fewest, most):
        parse_config(json.dumps({"version": 1, "activity": {key: value}}).encode(), Path("c"))
    for value in (fewest - 1, most + 1):
        with pytest.raises(ConfigError, match=f"from {fewest} to {most}"):
            parse_config(json.dumps({"version": 1, "activity": {key: value}}).encode(), Path("c"))


def test_the_http_endpoint_listens_where_the_table_says() -> None:
    listen = parse_listen(DEFAULT_LISTEN)
    assert (listen.host, listen.port) == (defaults.HTTP_HOST, defaults.HTTP_PORT)
