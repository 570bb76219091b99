"""The real Claude Code by URL while `vault-recall http` stops and starts again: one long
session (`claude -p --input-format stream-json`, a turn per question, as a person keeps a
session open), the stand-in model API asking `recall_context` once per turn.

What Claude Code 2.1 does (docs/http.md, "Restarts"): when the endpoint goes away it tries to
reconnect five times over about 16 s, then in the background at growing intervals; a server it
cannot reach when the session starts gets three tries over about 6 s and then stays `failed`
until the person reconnects it (`/mcp` → Reconnect; `mcp_reconnect` in this mode).  What the
endpoint must do for that: answer a new `initialize` from the same client at once, whatever
session that client had before — checked here by the recall that follows.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from queue import Empty, Queue
from typing import Any

import pytest

from tests.support.e2e import vault_recall_command
from tests.support.http_e2e import running_endpoint
from tests.support.model_standin import MARKER, Script, model_standin
from tests.support.parts import need
from tests.support.paths import SAMPLE_VAULT
from tests.support.real_clients import BIN, claude_code_env, tool_result_json

pytestmark = [pytest.mark.e2e]

SERVER = "vault-recall"


class Session:
    """One `claude -p` process reading turns as JSON lines, answering each with a `result`."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.lines: Queue[dict[str, Any]] = Queue()
        self.seen: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.seen.append(line[:300])
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict):
                self.lines.put(message)

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def _until(self, wanted: Callable[[dict[str, Any]], bool], what: str, timeout: float = 180) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = self.lines.get(timeout=left)
            except Empty:
                break
            if wanted(message):
                return message
        raise AssertionError(f"no {what} within {timeout:g} s; Claude Code said: {self.seen[-10:]}")

    def ask(self, text: str) -> str:
        self._send({"type": "user", "message": {"role": "user", "content": text}})
        return str(self._until(lambda m: m.get("type") == "result", "answer").get("result"))

    def control(self, request: dict[str, Any]) -> dict[str, Any]:
        request_id = f"test-{time.monotonic_ns()}"
        self._send({"type": "control_request", "request_id": request_id, "request": request})
        answer = self._until(
            lambda m: m.get("type") == "control_response" and m["response"].get("request_id") == request_id,
            f"answer to {request['subtype']}",
        )
        response: dict[str, Any] = answer["response"]
        return response

    def status(self) -> str:
        servers = self.control({"subtype": "mcp_status"}).get("response", {}).get("mcpServers", [])
        return str(next(s["status"] for s in servers if s["name"] == SERVER))

    def wait_for_status(self, wanted: str, timeout: float) -> None:
        """Ask again and again (a bounded wait on the client's own state, not a sleep)."""
        deadline = time.monotonic() + timeout
        seen = []
        while time.monotonic() < deadline:
            seen.append(self.status())
            if seen[-1] == wanted:
                return
            time.sleep(0.5)  # between two questions to the client, not a wait for time to pass
        raise AssertionError(f"{SERVER} never became {wanted!r} within {timeout:g} s: {seen[-5:]}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def claude_session(tmp_path: Path, url: str, script: Script) -> Iterator[Session]:
    """Claude Code with our URL entry (`install --form http --allow-tools`), one open session."""
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    vault = tmp_path / "Notes"
    shutil.copytree(SAMPLE_VAULT, vault)
    # `vault-recall` as the person runs it: this test's config, their HOME.
    ours = {**os.environ, "HOME": str(home)}
    install = ["install", "claude-code", "--form", "http", "--url", url, "--allow-tools"]
    for args in (["vault", "add", str(vault)], install):
        subprocess.run([*vault_recall_command(), *args], env=ours, check=True, capture_output=True, timeout=120)
    with model_standin(script) as model:
        env = claude_code_env(home, model)
        argv = [str(BIN / "claude"), "-p", "--input-format", "stream-json", "--output-format", "stream-json"]
        process = subprocess.Popen(
            [*argv, "--verbose"],
            env=env,
            cwd=work,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        session = Session(process)
        try:
            yield session
        finally:
            if process.stdin is not None:
                process.stdin.close()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
            session.reader.join(10)
            if process.stdout is not None:
                process.stdout.close()


def recalled(script: Script, turn: int) -> dict[str, Any]:
    return tool_result_json(script.results[turn])


def test_a_session_that_called_while_the_endpoint_was_down_recalls_once_it_is_back(tmp_path: Path) -> None:
    need("claude")
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    script = Script(arguments={"subject": "build-system", "query": "bazel"}, per_turn=True)
    with running_endpoint("--listen", f"127.0.0.1:{port}") as first, claude_session(tmp_path, url, script) as claude:
        claude.wait_for_status("connected", 60)
        assert claude.ask(f"{MARKER}: how do we build?") == "Recalled it."
        assert recalled(script, 0)["status"] == "ok"
        first.process.terminate()
        first.process.wait(30)
        claude.ask(f"{MARKER}: and now?")  # the call fails: nothing listens
        assert "ECONNREFUSED" in script.results[1] or "not connected" in script.results[1], script.results
        with running_endpoint("--listen", f"127.0.0.1:{port}") as second:
            claude.wait_for_status("connected", 90)
            assert claude.ask(f"{MARKER}: and once it is back?") == "Recalled it."
            assert recalled(script, 2)["status"] == "ok"
            assert "Traceback" not in second.log()


def test_a_session_started_before_the_endpoint_recalls_once_reconnected(tmp_path: Path) -> None:
    """Claude Code leaves it `failed` after its first tries; its Reconnect (what `/mcp` offers)
    then finds the endpoint — or, better, the endpoint is up before the session starts (the
    tray starts it at login: docs/tray.md)."""
    need("claude")
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    script = Script(arguments={"subject": "build-system", "query": "bazel"}, per_turn=True)
    with claude_session(tmp_path, url, script) as claude:
        claude.wait_for_status("failed", 60)
        with running_endpoint("--listen", f"127.0.0.1:{port}"):
            answer = claude.control({"subtype": "mcp_reconnect", "serverName": SERVER})
            assert answer.get("subtype") == "success", answer
            claude.wait_for_status("connected", 30)
            assert claude.ask(f"{MARKER}: how do we build?") == "Recalled it."
    assert recalled(script, 0)["status"] == "ok"
