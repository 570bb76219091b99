"""Real AI clients, as a person installs and uses them: `vault-recall install` writes the entry,
the client starts the server itself, a stand-in for the model's API on 127.0.0.1 makes it call
`recall_context` twice in one turn with an edit of the note in between, and what the client
sent back to the model is checked: the record, its revision, the edit seen at once, and the
activity rows under the client's id.

The clients run in a temporary HOME without this run's VAULT_RECALL_HOME in their environment:
only the installed entry tells the server where the config and the activity store are.
Gemini CLI is driven too, with the `wait_for_previous` argument it adds to every tool set by
the model, as it passes it on to the server.  Installed by `.ci/run` (pinned versions, Node 22
from npm); skipped where they are not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.model_standin import MARKER, Script, model_standin
from tests.support.parts import need
from tests.support.real_clients import (
    NOTE,
    a_person,
    claude_code_env,
    client_env,
    recall_edited_between,
    revision_of,
    run_client,
    tool_result_json,
    vault_recall_as,
)
from vault_recall.server.activity.queries import recent_events
from vault_recall.server.config.config_file import activity_path

pytestmark = pytest.mark.e2e

QUESTION = f"{MARKER}: how do we build the monorepo?"


def _check(script: Script, vault: Path, client_id: str, client_name: str, before: str) -> None:
    assert len(script.results) == 2, (script.paths, script.results)
    first, second = (tool_result_json(text) for text in script.results)
    for answer in (first, second):
        assert answer["status"] == "ok", answer
        assert answer["vault"] == vault.name  # the config the installing command wrote
    record = next(r for r in first["records"] if r["path"] == NOTE)
    assert record["revision"] == before
    assert "Bazel" in record["text"]
    fresh = next(r for r in second["records"] if r["path"] == NOTE)
    assert fresh["revision"] == revision_of(vault / NOTE) != before  # the edit, on the very next call
    assert "remote execution is on" in fresh["text"]
    rows = [r for r in recent_events(activity_path(), client=client_id) if r.tool == "recall_context"]
    assert len(rows) == 2, rows
    assert [dict(zip(r.returned, r.revisions, strict=True))[NOTE] for r in rows] == [before, fresh["revision"]]
    assert rows[0].client_name == client_name and rows[0].client_version


def test_claude_code_recalls_a_note_and_sees_an_edit_at_once(tmp_path: Path) -> None:
    need("claude")
    home, vault, work = a_person(tmp_path)
    out = vault_recall_as(home, "install", "claude-code", "--allow-tools").stdout
    assert "Allowed Claude Code to run" in out
    before = revision_of(vault / NOTE)
    script = recall_edited_between(vault)
    with model_standin(script) as url:
        env = claude_code_env(home, url)
        # No --allowedTools: the allow list written by `install --allow-tools` is what lets it run.
        run = run_client(["claude", "-p", QUESTION], env, work)
    assert run.returncode == 0, run.stderr
    assert "Recalled it." in run.stdout
    _check(script, vault, "claude-code", "claude-code", before)


def test_codex_recalls_a_note_and_sees_an_edit_at_once(tmp_path: Path) -> None:
    need("codex")
    home, vault, work = a_person(tmp_path)
    before = revision_of(vault / NOTE)
    script = recall_edited_between(vault)
    with model_standin(script) as url:
        codex_home = home / ".codex"
        codex_home.mkdir()
        (codex_home / "config.toml").write_text(
            'model = "stand-in"\nmodel_provider = "standin"\n\n[model_providers.standin]\nname = "stand-in"\n'
            f'base_url = "{url}/v1"\nwire_api = "responses"\nenv_key = "STANDIN_API_KEY"\n',
            encoding="utf-8",
        )
        vault_recall_as(home, "install", "codex")
        env = client_env(home, STANDIN_API_KEY="stand-in")
        run = run_client(["codex", "exec", "--skip-git-repo-check", QUESTION], env, work)
    assert run.returncode == 0, run.stderr
    assert "mcp__vault_recall.recall_context" in script.tool_names  # our tools, there on the first request
    _check(script, vault, "codex", "codex-mcp-client", before)


def test_gemini_recalls_a_note_with_its_own_wait_for_previous_argument(tmp_path: Path) -> None:
    """Gemini CLI adds `wait_for_previous` to every tool and passes what the model sets on."""
    need("gemini")
    home, vault, work = a_person(tmp_path)
    settings = home / ".gemini/settings.json"
    settings.parent.mkdir()
    settings.write_text(
        '{"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},'
        ' "general": {"disableAutoUpdate": true}, "privacy": {"usageStatisticsEnabled": false}}',
        encoding="utf-8",
    )
    assert "Registered client 'gemini'" in vault_recall_as(home, "install", "gemini", "--allow-tools").stdout
    before = revision_of(vault / NOTE)
    script = recall_edited_between(vault)
    script.arguments["wait_for_previous"] = True  # as the model sets it on a dependent call
    with model_standin(script) as url:
        env = client_env(home, GEMINI_API_KEY="stand-in", GOOGLE_GEMINI_BASE_URL=url)
        # A model named: no routing request first (it wants a JSON verdict the stand-in lacks).
        run = run_client(["gemini", "--model", "gemini-2.5-flash", "-p", QUESTION], env, work)
    assert run.returncode == 0, run.stderr
    assert "mcp_vault-recall_recall_context" in script.tool_names
    _check(script, vault, "gemini", "gemini-cli-mcp-client", before)
