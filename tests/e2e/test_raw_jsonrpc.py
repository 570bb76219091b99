"""Raw JSON-RPC lines on a real server's stdin: every request that carries an id gets an
answer — an error naming the problem where the line cannot be read."""

from __future__ import annotations

import json
import os
import select
import subprocess
from pathlib import Path

import pytest

from tests.support.e2e import vault_recall_command
from tests.support.paths import SAMPLE_VAULT
from vault_recall.server.mcp.stdio import refusal

pytestmark = pytest.mark.e2e

BAD_LINES = [
    # (what, line, id, code)
    (
        "a lone surrogate in a string",
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_notes","arguments":{"query":"\\ud800"}}}',
        1,
        -32602,
    ),
    (
        "arguments nested 500 deep",
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_notes","arguments":{"query":'
        + "[" * 500
        + "]" * 500
        + "}}}",
        2,
        -32602,
    ),
    (
        "a 5,000-digit number",
        '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search_notes","arguments":{"limit":'
        + "9" * 5000
        + "}}}",
        3,
        -32602,
    ),
    ("params as a list", '{"jsonrpc":"2.0","id":"four","method":"tools/call","params":["a"]}', "four", -32602),
    ("an id without a method", '{"jsonrpc":"2.0","id":5}', 5, -32600),
    ('"jsonrpc":"1.0"', '{"jsonrpc":"1.0","id":6,"method":"tools/list"}', 6, -32600),
    ("half a message", '{"jsonrpc":"2.0","id":7,"method":', 7, -32700),
    ("nesting 100,000 deep", '{"jsonrpc":"2.0","id":8,"params":' + "[" * 100_000 + "]" * 100_000 + "}", 8, -32600),
    ("a batch", '[{"jsonrpc":"2.0","id":9,"method":"tools/list"}]', 9, -32600),
    ("not an object", "null", None, -32600),
    # Sent as raw bytes 0xff 0xfe (surrogate-escaped here): read as U+FFFD, answered as any request.
    ("bytes that are not UTF-8", '{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"x":"\udcff"}}', 10, None),
]


def _read_line(process: subprocess.Popen[bytes], timeout: float = 20) -> dict[str, object]:
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    assert ready, "the server did not answer"
    return dict(json.loads(process.stdout.readline()))


def test_every_request_with_an_id_gets_an_answer_and_the_server_goes_on(tmp_path: Path) -> None:
    command = [*vault_recall_command(), "serve", "--client", "raw", "--vault", str(SAMPLE_VAULT)]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ)
    )
    assert process.stdin is not None

    def send(line: str) -> None:
        assert process.stdin is not None
        process.stdin.write(line.encode("utf-8", "surrogateescape") + b"\n")
        process.stdin.flush()

    try:
        send(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "raw", "version": "1"},
                    },
                }
            )
        )
        assert "result" in _read_line(process)
        send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        send('{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}')  # a bad notification: no answer
        send("")  # a blank line: no answer
        for what, line, request_id, code in BAD_LINES:
            send(line)
            answer = _read_line(process)
            assert answer["id"] == request_id, what
            if code is None:  # read as U+FFFD text: the SDK answers it like any request
                assert "result" in answer or "error" in answer, what
                continue
            error = answer["error"]
            assert isinstance(error, dict) and error["code"] == code, (what, error)
            assert str(error["message"]).count(".") <= 1 and len(str(error["message"])) < 200, what
        send('{"jsonrpc":"2.0","id":99,"method":"tools/list"}')
        listed = _read_line(process)
        assert listed["id"] == 99 and "tools" in listed["result"]  # type: ignore[operator]
    finally:
        process.stdin.close()
        process.wait(timeout=30)
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()
        process.stderr.close()


@pytest.mark.parametrize(("what", "line", "request_id", "code"), [c for c in BAD_LINES if c[3] is not None])
def test_each_unreadable_line_is_refused_with_its_id(what: str, line: str, request_id: object, code: int) -> None:
    answer = refusal(line)
    assert answer is not None and answer is not True and not isinstance(answer, bool)
    assert (answer.id, answer.error.code) == (request_id, code), what


def test_readable_lines_notifications_and_responses_are_left_to_the_sdk() -> None:
    assert refusal('{"jsonrpc":"2.0","id":1,"method":"tools/list"}') is None
    assert refusal('{"jsonrpc":"2.0","method":"notifications/x","params":[1]}') is True
    assert refusal('{"jsonrpc":"2.0","id":1,"result":[1]}') is True
    assert refusal("   ") is True
