"""End to end: a real `serve` splits a whole-vault recall over its pool of worker processes
(finding/pool.py, made to split a small vault here), and its workers end with it — when the
client leaves in the middle of a call, and when the server is killed."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from tests.support.e2e import vault_recall_command
from tests.support.synthetic_vault import generate
from vault_recall.server.recall.finding.pool import SHARE_VARIABLE

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="children listed from /proc (Linux)"),
]

INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("pool-served")
    generate(base / "Vault", 200, seed=11)
    env = {**os.environ, "VAULT_RECALL_HOME": str(base / "home")}
    for argv in (["vault", "add", str(base / "Vault"), "--name", "P"], ["client", "expose", "t", "vault"]):
        subprocess.run([*vault_recall_command(), *argv], env=env, check=True, capture_output=True, timeout=120)
    return base / "home"


class Served:
    def __init__(self, home: Path) -> None:
        env = {**os.environ, "VAULT_RECALL_HOME": str(home), SHARE_VARIABLE: "40"}
        self.process = subprocess.Popen(
            [*vault_recall_command(), "serve", "--client", "t"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.next_id = 0

    def send(self, method: str, params: Mapping[str, object], *, answer: bool = True) -> dict[str, object] | None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.next_id += 1
        line = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.process.stdin.write(json.dumps(line).encode() + b"\n")
        self.process.stdin.flush()
        if not answer:
            return None
        ready, _, _ = select.select([self.process.stdout], [], [], 120)
        assert ready, "the server did not answer"
        found: dict[str, object] = json.loads(self.process.stdout.readline())
        return found

    def recall(self, *, answer: bool = True) -> dict[str, object] | None:
        call = {"name": "recall_context", "arguments": {"query": "cache deploy"}}
        return self.send("tools/call", call, answer=answer)

    def children(self) -> list[int]:
        """Its child processes, started by any of its threads."""
        found: list[int] = []
        for task in Path(f"/proc/{self.process.pid}/task").glob("*"):
            try:
                found += [int(pid) for pid in (task / "children").read_text().split()]
            except OSError:
                continue
        return found


@pytest.fixture
def served(home: Path) -> Iterator[Served]:
    server = Served(home)
    assert server.process.stdin is not None
    server.send("initialize", INIT)
    server.process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    server.process.stdin.flush()
    yield server
    if server.process.poll() is None:
        server.process.kill()
    server.process.wait(timeout=60)
    for pipe in (server.process.stdin, server.process.stdout):
        if pipe is not None and not pipe.closed:
            pipe.close()


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds  # a bound on a hang, not a timing assertion
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.05)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def with_its_pool(served: Served) -> list[int]:
    """The first large recall starts the pool (and runs without it): its workers' ids."""
    first = served.recall()
    assert first is not None and "result" in first
    wait_for(lambda: bool(served.children()), "the pool's workers started")
    again = served.recall()  # answered with the workers' shares
    assert again is not None and "result" in again and again["result"] == first["result"]
    return served.children()


def test_the_workers_end_when_the_client_leaves_mid_call(served: Served) -> None:
    workers = with_its_pool(served)
    served.recall(answer=False)
    assert served.process.stdin is not None
    served.process.stdin.close()  # gone before the answer
    served.process.wait(timeout=120)
    wait_for(lambda: not any(alive(pid) for pid in workers), "the workers ended with the server")


def test_the_workers_end_when_the_server_is_killed(served: Served) -> None:
    workers = with_its_pool(served)
    served.recall(answer=False)
    served.process.kill()  # SIGKILL: no pool closed, no finally run
    served.process.wait(timeout=60)
    wait_for(lambda: not any(alive(pid) for pid in workers), "the workers ended with the killed server")
