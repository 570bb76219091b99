"""How the HTTP endpoint reads the responses going out: which deliver a tool's result (their
changes are then told), and which are refusals of the SDK's to put in the endpoint's format."""

from __future__ import annotations

import json

import pytest

from vault_recall.server.http.answer_delivery import is_result
from vault_recall.server.http.refusals import sdk_refusal


@pytest.mark.parametrize(
    ("body", "result"),
    [
        (b'{"jsonrpc":"2.0","id":3,"result":{"content":[{"text":"\\"error\\":1"}]}}', True),
        (b'{"jsonrpc":"2.0","id":"a\\"b","error":{"code":-32800,"message":"Request cancelled"}}', False),
        (b'{"id": 3, "jsonrpc": "2.0", "result": {}}', True),  # another writer's order: parsed whole
        (b'{"id": 3, "jsonrpc": "2.0", "error": {"code": 1, "message": "x"}}', False),
        (b'event: message\ndata: {"jsonrpc":"2.0","id":3,"result":{}}\n\n', True),
        (b"Internal Server Error", False),
        (b"", False),
    ],
)
def test_only_a_json_rpc_result_counts_as_an_answer_delivered(body: bytes, result: bool) -> None:
    assert is_result(body) is result


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (
            400,
            b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: Missing session ID"}}',
            "missing_session",
        ),
        (404, b'{"jsonrpc":"2.0","error":{"code":-32600,"message":"Session not found"}}', "unknown_session"),
        (421, b"Invalid Host header", "forbidden_host"),
        (413, b"Request body too large", "body_too_large"),
        (
            503,
            b'{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Too many open sessions"}}',
            "too_many_sessions",
        ),
        (502, b"something else", "refused"),
    ],
)
def test_the_sdks_refusals_are_put_in_one_format_with_a_sentence(status: int, body: bytes, code: str) -> None:
    refusal = sdk_refusal(status, body)
    assert refusal is not None and refusal.status == status and refusal.error == code
    assert refusal.description and "\n" not in refusal.description


def test_an_error_answering_a_request_and_our_own_refusals_pass_as_they_are() -> None:
    answer = json.dumps({"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "Method not found"}})
    assert sdk_refusal(404, answer.encode()) is None
    ours = json.dumps({"error": "x", "error_description": "a sentence"})
    assert sdk_refusal(401, ours.encode()) is None
    assert sdk_refusal(200, b'{"jsonrpc":"2.0","id":1,"result":{}}') is None
