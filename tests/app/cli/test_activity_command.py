"""`vault-recall activity`: what it prints of the store, and its filters."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

import pytest

from tests.support.activity_events import event, store_events
from vault_recall.app.cli.main import main
from vault_recall.app.state.config_store import save_config
from vault_recall.server.activity.writer import ActivityWriter
from vault_recall.server.config.config_file import ActivitySettings, Config, activity_path


def test_the_activity_command_prints_and_filters(capsys: pytest.CaptureFixture[str]) -> None:
    save_config(Config(activity=ActivitySettings()))
    with ActivityWriter() as writer:
        writer.append(activity_path(), event("cursor", subject="build", query="bazel", returned=(("A.md", "r"),)))
        writer.append(activity_path(), event("zed", tool="list_subjects"))
    assert main(["activity"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and "cursor" in out[0] and "build 'bazel'" in out[0] and "[A.md]" in out[0]
    assert main(["activity", "--client", "zed", "--json"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert json.loads(line)["tool"] == "list_subjects"


def test_a_status_another_version_wrote_is_printed_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    save_config(Config(activity=ActivitySettings()))
    assert store_events(activity_path(), event("cursor", returned=(("A.md", "r"),)))
    with closing(sqlite3.connect(activity_path())) as raw, raw:
        raw.execute("UPDATE events SET status = 'paused'")
    assert main(["activity"]) == 0
    assert "paused, 1 returned" in capsys.readouterr().out
    assert main(["activity", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "paused"
