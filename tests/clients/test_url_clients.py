"""The real Claude Code, Codex CLI and Gemini CLI by URL, each installed by `vault-recall install
CLIENT --form http` against a real `vault-recall http` on 127.0.0.1 with its own static token:
the stand-in model API makes it call `recall_context` twice in one turn with an edit of the
note in between, and what the client sent back is checked — the record and its revision, the
edit seen at once, the activity under the client's own id, answered by the endpoint.  Then its
token is revoked, and the client shows it is refused instead of going on without our tools."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.support.http_e2e import Endpoint, running_endpoint
from tests.support.model_standin import MARKER, Script, model_standin
from tests.support.parts import need
from tests.support.real_clients import (
    NOTE,
    Run,
    a_person,
    claude_code_env,
    client_env,
    recall_edited_between,
    revision_of,
    run_client,
    tool_result_json,
    vault_recall_as,
)
from vault_recall.app.clients.catalogue import TOKEN_ENV
from vault_recall.server.config.config_file import activity_path

pytestmark = pytest.mark.e2e

QUESTION = f"{MARKER}: how do we build the monorepo?"
REFUSED = "this token is not valid: it was revoked, replaced by a newer one, or mistyped"


def check(script: Script, vault: Path, client: str, before: str, endpoint: Endpoint) -> None:
    assert len(script.results) == 2, (script.paths, script.results)
    first, second = (tool_result_json(text) for text in script.results)
    record = next(r for r in first["records"] if r["path"] == NOTE)  # type: ignore[union-attr]
    assert record["revision"] == before and "Bazel" in record["text"]
    fresh = next(r for r in second["records"] if r["path"] == NOTE)  # type: ignore[union-attr]
    assert fresh["revision"] == revision_of(vault / NOTE) != before
    assert "remote execution is on" in fresh["text"]
    with sqlite3.connect(activity_path()) as db:
        rows = db.execute(
            "SELECT pid FROM events WHERE client = ? AND tool = 'recall_context' ORDER BY id", (client,)
        ).fetchall()
    assert [pid for (pid,) in rows] == [endpoint.process.pid] * 2  # by URL, under its own id


def test_claude_code_by_url_recalls_sees_an_edit_and_shows_a_revoked_token(tmp_path: Path) -> None:
    need("claude")
    home, vault, work = a_person(tmp_path)
    before = revision_of(vault / NOTE)
    script = recall_edited_between(vault)
    with running_endpoint() as endpoint, model_standin(script) as model:
        vault_recall_as(home, "install", "claude-code", "--form", "http", "--url", endpoint.url, "--allow-tools")
        env = claude_code_env(home, model)
        run = run_client(["claude", "-p", QUESTION], env, work)
        assert run.returncode == 0 and "Recalled it." in run.stdout, run.stderr
        check(script, vault, "claude-code", before, endpoint)
        vault_recall_as(home, "client", "token", "claude-code", "--revoke")
        listed = run_client(["claude", "mcp", "list"], env, work, timeout=120)
    assert "Failed to connect" in listed.stdout and REFUSED in listed.stdout, listed.stdout


def codex_config(home: Path, model_url: str) -> None:
    folder = home / ".codex"
    folder.mkdir(exist_ok=True)
    (folder / "config.toml").write_text(
        'model = "stand-in"\nmodel_provider = "standin"\n\n[model_providers.standin]\nname = "stand-in"\n'
        f'base_url = "{model_url}/v1"\nwire_api = "responses"\nenv_key = "STANDIN_API_KEY"\n',
        encoding="utf-8",
    )


def codex(home: Path, work: Path, token: str) -> Run:
    env = client_env(home, STANDIN_API_KEY="stand-in", **{TOKEN_ENV: token})
    return run_client(["codex", "exec", "--skip-git-repo-check", QUESTION], env, work)


def test_codex_by_url_recalls_sees_an_edit_and_refuses_to_start_with_a_revoked_token(tmp_path: Path) -> None:
    need("codex")
    home, vault, work = a_person(tmp_path)
    before = revision_of(vault / NOTE)
    script = recall_edited_between(vault)
    with running_endpoint() as endpoint, model_standin(script) as model:
        codex_config(home, model)
        done = vault_recall_as(home, "install", "codex", "--form", "http", "--url", endpoint.url)
        token = done.stderr.split(f"export {TOKEN_ENV}=", 1)[1].split()[0]
        run = codex(home, work, token)
        assert run.returncode == 0, run.stderr
        check(script, vault, "codex", before, endpoint)
        vault_recall_as(home, "client", "token", "codex", "--revoke")
        run = codex(home, work, token)
    assert run.returncode != 0 and "invalid_token" in run.stderr, run.stderr


def test_gemini_by_url_recalls_sees_an_edit_and_lists_a_revoked_token_as_disconnected(tmp_path: Path) -> None:
    need("gemini")
    home, vault, work = a_person(tmp_path)
    settings = home / ".gemini/settings.json"
    settings.parent.mkdir()
    settings.write_text(
        '{"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},'
        ' "general": {"disableAutoUpdate": true}, "privacy": {"usageStatisticsEnabled": false}}',
        encoding="utf-8",
    )
    before = revision_of(vault / NOTE)
    script = recall_edited_between(vault)
    with running_endpoint() as endpoint, model_standin(script) as model:
        vault_recall_as(home, "install", "gemini", "--form", "http", "--url", endpoint.url, "--allow-tools")
        env = client_env(home, GEMINI_API_KEY="stand-in", GOOGLE_GEMINI_BASE_URL=model)
        run = run_client(["gemini", "--model", "gemini-2.5-flash", "-p", QUESTION], env, work)
        assert run.returncode == 0, run.stderr
        check(script, vault, "gemini", before, endpoint)
        vault_recall_as(home, "client", "token", "gemini", "--revoke")
        listed = run_client(["gemini", "mcp", "list"], env, work, timeout=180)
    said = listed.stdout + listed.stderr
    assert f"{endpoint.url} (http) - Disconnected" in said, said
