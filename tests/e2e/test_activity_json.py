"""`activity --json` shows what the store keeps: the client's version, each note's revision, and
the vault of a refused call too; `activity --follow` prints each new event as it comes."""

from __future__ import annotations

import json
import select
import subprocess
from pathlib import Path
from typing import IO

import pytest

from tests.support.activity_events import event
from tests.support.e2e import call, call_error, serving, vault_recall_command
from vault_recall.app.cli.main import main
from vault_recall.server.activity.writer import ActivityWriter
from vault_recall.server.config.config_file import activity_path

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]


async def test_activity_json_has_the_client_version_revisions_and_a_failed_calls_vault(
    shared_sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["vault", "add", str(shared_sample)]) == 0
    capsys.readouterr()
    async with serving("json-check", None) as session:
        answer = await call(session, "recall_context", {"subject": "build-system", "query": "bazel"})
        await call_error(session, "read_note", {"note": "No such note"})
    assert main(["activity", "--json", "--client", "json-check"]) == 0
    recalled, refused = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert recalled["client_name"] and recalled["client_version"]  # as the SDK's client reports them
    assert recalled["returned"] == [{"path": r["path"], "revision": r["revision"]} for r in answer["records"]]
    assert all(len(r["revision"]) == 64 for r in recalled["returned"])
    assert recalled["vault"] == shared_sample.name
    assert refused["status"] == "error"
    assert refused["vault"] == shared_sample.name
    assert refused["returned"] == []


def read_line(stream: IO[str], timeout: float = 30) -> str:
    ready, _, _ = select.select([stream], [], [], timeout)
    assert ready, f"nothing printed within {timeout} s"
    return stream.readline()


def test_activity_follow_prints_new_events_as_they_come() -> None:
    writer = ActivityWriter()
    writer.append(activity_path(), event("before"))
    with subprocess.Popen(
        [*vault_recall_command(), "activity", "--follow", "--json"], stdout=subprocess.PIPE, text=True
    ) as follower:
        assert follower.stdout is not None
        assert json.loads(read_line(follower.stdout))["client"] == "before"
        writer.append(activity_path(), event("after"))
        assert json.loads(read_line(follower.stdout))["client"] == "after"  # the next poll, about 1 s
        follower.terminate()
        follower.wait(timeout=30)
