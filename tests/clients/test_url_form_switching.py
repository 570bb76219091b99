"""The real Codex CLI and Gemini CLI, switched between our two forms by `vault-recall install`,
both ways: from starting `vault-recall serve` to a real `vault-recall http` on 127.0.0.1 by
URL, and back.  After switching back, Codex starts and recalls over stdio, and Gemini lists our
server as stdio; by URL, Codex refuses to start — saying why — when its token is missing or revoked
(`required = true`, as in its stdio entry).  The clients talk to the stand-in model API, in a
temporary HOME; installed by `.ci/run`, skipped where they are not."""

from __future__ import annotations

import sqlite3
import tomllib
from pathlib import Path

import pytest

from tests.support.http_e2e import Endpoint, running_endpoint
from tests.support.model_standin import MARKER, Script, model_standin
from tests.support.parts import need
from tests.support.real_clients import a_person, client_env, run_client, tool_result_json, vault_recall_as
from vault_recall.app.clients.catalogue import SERVER_NAME, TOKEN_ENV
from vault_recall.server.config.config_file import activity_path

pytestmark = pytest.mark.e2e

QUESTION = f"{MARKER}: how do we build the monorepo?"
NOTE = "Projects/Build/Build decision.md"


def recall_pids(client: str) -> list[int]:
    """The process id that answered each of the client's recalls, oldest first."""
    with sqlite3.connect(activity_path()) as db:
        rows = db.execute(
            "SELECT pid FROM events WHERE client = ? AND tool = 'recall_context' ORDER BY id", (client,)
        ).fetchall()
    return [int(pid) for (pid,) in rows]


# -- Codex ------------------------------------------------------------------------------------


def codex_config(home: Path, model_url: str) -> Path:
    folder = home / ".codex"
    folder.mkdir(exist_ok=True)
    config = folder / "config.toml"
    config.write_text(
        'model = "stand-in"\nmodel_provider = "standin"\n\n[model_providers.standin]\nname = "stand-in"\n'
        f'base_url = "{model_url}/v1"\nwire_api = "responses"\nenv_key = "STANDIN_API_KEY"\n',
        encoding="utf-8",
    )
    return config


def codex(home: Path, work: Path, **env: str) -> tuple[int, str]:
    run = run_client(
        ["codex", "exec", "--skip-git-repo-check", QUESTION], client_env(home, STANDIN_API_KEY="stand-in", **env), work
    )
    return run.returncode, run.stderr


def installed_token(home: Path, endpoint: Endpoint, client: str) -> str:
    done = vault_recall_as(home, "install", client, "--form", "http", "--url", endpoint.url)
    return done.stderr.split(f"export {TOKEN_ENV}=", 1)[1].split()[0]


def test_codex_switched_to_the_url_and_back_recalls_each_way(tmp_path: Path) -> None:
    need("codex")
    home, _, work = a_person(tmp_path)
    script = Script(arguments={"subject": "build-system", "query": "bazel"}, rounds=1)
    with running_endpoint() as endpoint, model_standin(script) as model:
        config = codex_config(home, model)
        vault_recall_as(home, "install", "codex")
        code, err = codex(home, work)
        assert code == 0, err

        token = installed_token(home, endpoint, "codex")  # stdio → URL
        entry = tomllib.loads(config.read_text(encoding="utf-8"))["mcp_servers"][SERVER_NAME]
        assert "command" not in entry and "env" not in entry and entry["url"] == endpoint.url
        code, err = codex(home, work, **{TOKEN_ENV: token})
        assert code == 0, err

        vault_recall_as(home, "install", "codex")  # URL → stdio, from the shell without the token
        entry = tomllib.loads(config.read_text(encoding="utf-8"))["mcp_servers"][SERVER_NAME]
        assert "url" not in entry and "bearer_token_env_var" not in entry and entry["command"]
        code, err = codex(home, work)
        assert code == 0, err  # before: "url is not supported for stdio", and Codex did not start
    by_stdio, by_url, back = recall_pids("codex")
    assert by_url == endpoint.process.pid and endpoint.process.pid not in (by_stdio, back)  # its own `serve`
    assert len(script.results) == 3 and all(tool_result_json(r)["status"] == "ok" for r in script.results)


def test_codex_by_url_refuses_to_start_without_its_token_and_says_why(tmp_path: Path) -> None:
    need("codex")
    home, _, work = a_person(tmp_path)
    script = Script(arguments={"subject": "build-system", "query": "bazel"})
    with running_endpoint() as endpoint, model_standin(script) as model:
        codex_config(home, model)
        token = installed_token(home, endpoint, "codex")
        code, err = codex(home, work)  # VAULT_RECALL_TOKEN not exported
        assert code != 0 and f"Environment variable {TOKEN_ENV}" in err and "not set" in err, err
        vault_recall_as(home, "client", "token", "codex", "--revoke")
        code, err = codex(home, work, **{TOKEN_ENV: token})
        assert code != 0 and "required MCP servers failed to initialize" in err and "invalid_token" in err, err
    assert script.results == []


# -- Gemini CLI -------------------------------------------------------------------------------


def gemini_settings(home: Path) -> None:
    settings = home / ".gemini/settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(
        '{"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},'
        ' "general": {"disableAutoUpdate": true}, "privacy": {"usageStatisticsEnabled": false}}',
        encoding="utf-8",
    )


def gemini_lists(home: Path, work: Path) -> str:
    run = run_client(["gemini", "mcp", "list"], client_env(home, GEMINI_API_KEY="stand-in"), work, timeout=180)
    assert run.returncode == 0, run.stderr
    said = run.stdout + run.stderr  # Gemini CLI 0.61 writes the list to stderr
    line = next((line for line in said.splitlines() if f"{SERVER_NAME}:" in line), "")
    assert line, said
    return line


def test_gemini_switched_to_the_url_and_back_lists_each_form_and_recalls(tmp_path: Path) -> None:
    need("gemini")
    home, _, work = a_person(tmp_path)
    gemini_settings(home)
    with running_endpoint() as endpoint:
        vault_recall_as(home, "install", "gemini", "--allow-tools")
        assert "serve --client gemini (stdio) - Connected" in gemini_lists(home, work)
        vault_recall_as(home, "install", "gemini", "--form", "http", "--url", endpoint.url, "--allow-tools")
        line = gemini_lists(home, work)
        assert f"{endpoint.url} (http) - Connected" in line, line
        vault_recall_as(home, "install", "gemini", "--allow-tools")
        line = gemini_lists(home, work)
        assert "serve --client gemini (stdio) - Connected" in line, line  # before: still "(http)"
        script = Script(arguments={"subject": "build-system", "query": "bazel"})
        with model_standin(script) as model:
            env = client_env(home, GEMINI_API_KEY="stand-in", GOOGLE_GEMINI_BASE_URL=model)
            run = run_client(["gemini", "--model", "gemini-2.5-flash", "-p", QUESTION], env, work)
    assert run.returncode == 0, run.stderr
    assert len(script.results) == 1 and tool_result_json(script.results[0])["records"]
    pids = recall_pids("gemini")
    assert len(pids) == 1 and pids[0] != endpoint.process.pid
