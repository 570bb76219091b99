"""`activity --json` shows what the store keeps: the client's version, each note's revision, and
the vault of a refused call too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.e2e import call, call_error, serving
from vault_recall.app.cli.main import main

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
