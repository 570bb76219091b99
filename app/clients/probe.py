"""Starting an installed entry the way its client does, to prove it reaches our config and
activity store (`vault-recall doctor`).

Clients hand their servers different environments.  From their source (✔) or docs (≈):
Codex clears it and passes a fixed list (✔ codex-rs/rmcp-client); desktop apps (Claude
Desktop, Cursor, Windsurf, VS Code, Zed, Cline, LM Studio, JetBrains) never see a shell's
exports, and those built on the MCP TypeScript SDK pass its short default list (≈); Claude
Code, Gemini CLI (✔, secrets filtered), opencode, Goose and Amazon Q pass their own
environment on (≈).  The probe starts the entry's command with that environment plus the
entry's own, in a folder of its own, asks `list_subjects` and checks that the answer names the
vault this config gives the client and that the call landed in this activity store.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from vault_recall.app.clients.catalogue import ClientKind, ClientSpec
from vault_recall.server.activity.queries import forget_calls_of, has_call_of

CODEX_PASSES: tuple[str, ...] = (
    *("HOME", "LOGNAME", "PATH", "SHELL", "USER", "__CF_USER_TEXT_ENCODING"),
    *("LANG", "LC_ALL", "TERM", "TMPDIR", "TZ"),
)
DESKTOP_PASSES = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")  # the TypeScript SDK's default list
INHERITING: frozenset[ClientKind] = frozenset({"claude-code", "gemini", "opencode", "goose", "amazon-q"})
DOCTOR_NAME = "vault-recall-doctor"  # the clientInfo name the probe's call is recorded with


@dataclass(frozen=True)
class Probe:
    ok: bool
    detail: str


def passed_environment(spec: ClientSpec, environ: dict[str, str] | None = None) -> tuple[dict[str, str], str]:
    """The environment `spec`'s client gives a server before the entry's own variables, and
    how to say so."""
    environ = dict(os.environ) if environ is None else environ
    if spec.id in INHERITING:
        return environ, "its own environment"
    names = CODEX_PASSES if spec.id == "codex" else DESKTOP_PASSES
    how = "a cleared environment" if spec.id == "codex" else "a desktop app's environment (no shell exports)"
    return {name: environ[name] for name in names if name in environ}, how


def entry_argv(spec: ClientSpec, entry: dict[str, Any]) -> list[str]:
    if spec.id == "opencode":
        command = entry.get("command")
        return [str(a) for a in command] if isinstance(command, list) else []
    first = entry.get("cmd") if spec.id == "goose" else entry.get("command")
    return [str(a) for a in [first, *entry.get("args", [])] if a is not None]


def entry_env(spec: ClientSpec, entry: dict[str, Any]) -> dict[str, str]:
    env = entry.get(spec.env_key)
    return {str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {}


def probe(
    spec: ClientSpec, entry: dict[str, Any], expected_vault: str | None, store: Path, timeout: float = 30
) -> Probe:
    """Start the entry as its client would and check where it reads and writes."""
    argv = entry_argv(spec, entry)
    base, how = passed_environment(spec)
    env = base | entry_env(spec, entry)
    with tempfile.TemporaryDirectory(prefix="vault-recall-doctor-") as folder:
        try:
            server = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=folder
            )
        except OSError as exc:
            return Probe(False, f"{argv[0]} cannot be started: {exc.strerror}")
        try:
            answer = _list_subjects(server, timeout)
        finally:
            _stop(server)
        stderr = server.stderr.read().decode("utf-8", "replace").strip() if server.stderr else ""
        if server.stderr:
            server.stderr.close()
    if answer is None:
        said = f": {stderr.splitlines()[-1]}" if stderr else ""
        return Probe(False, f"started with {how}, it did not answer{said}")
    vault = answer.get("vault")
    if vault != expected_vault:
        found = f"vault {vault!r}" if vault is not None else "no vault"
        wanted = f"vault {expected_vault!r}" if expected_vault is not None else "none"
        return Probe(
            False, f"started with {how}, it reads another config: it finds {found}, this config gives {wanted}"
        )
    if not has_call_of(store, server.pid, DOCTOR_NAME):
        return Probe(False, f"started with {how}, it writes its activity somewhere other than {store}")
    # The probe's own call was not the client's, and would show as its latest call (`client
    # list`, the tray): out of the store once seen (best effort; if the store stays busy it keeps
    # it, named as ours).
    forget_calls_of(store, server.pid, DOCTOR_NAME)
    return Probe(True, f"started with {how}, it reads this config (vault {vault!r}) and writes this activity store")


def _send(pipe: IO[bytes], message: dict[str, Any]) -> None:
    pipe.write((json.dumps(message) + "\n").encode())
    pipe.flush()


def _list_subjects(server: subprocess.Popen[bytes], timeout: float) -> dict[str, Any] | None:
    """The structured answer to one `list_subjects` call, or None (no answer in time)."""
    assert server.stdin is not None and server.stdout is not None
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": DOCTOR_NAME, "version": "1"}}
    try:
        _send(server.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        if _response(server.stdout, 1, timeout) is None:
            return None
        _send(server.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(server.stdin, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_subjects"}})
    except OSError:
        return None  # it exited before reading
    reply = _response(server.stdout, 2, timeout)
    result = (reply or {}).get("result") or {}
    content = result.get("structuredContent")
    if isinstance(content, dict):
        return content
    try:
        parsed = json.loads(result["content"][0]["text"])
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    return parsed if isinstance(parsed, dict) else None


def _response(stdout: IO[bytes], request_id: int, timeout: float) -> dict[str, Any] | None:
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(stdout, selectors.EVENT_READ)
        while (left := deadline - time.monotonic()) > 0:
            if not selector.select(left):
                return None
            line = stdout.readline()
            if not line:
                return None
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == request_id:
                return message
    return None


def _stop(server: subprocess.Popen[bytes]) -> None:
    """Close its input, as clients do, so it writes its activity; kill it if it lingers."""
    for pipe in (server.stdin, server.stdout):
        if pipe is not None:
            pipe.close()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
