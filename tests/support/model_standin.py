"""A stand-in for a model's API on 127.0.0.1, so real AI clients can be driven in tests.

It speaks just enough of Anthropic's Messages API (Claude Code, via ANTHROPIC_BASE_URL) and
OpenAI's Responses API (Codex CLI, via a model provider's base_url), streaming as each client
asks.  Its one behaviour: when a request offers a tool named `…recall_context` and the last
user message holds the test's marker, it answers with a call of that tool; when a request
carries that call's result, it records the result and answers with plain text.  Every other
request (titles, summaries, warm-ups) gets a short plain text.
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MARKER = "VAULT-RECALL-E2E"
_DEFERRED = re.compile(r"mcp__[A-Za-z0-9_-]+?__recall_context")


@dataclass
class Script:
    """What the model asks for, and what came back."""

    arguments: dict[str, Any]  # the recall_context arguments the model sends
    rounds: int = 1  # how many times in one turn the model calls the tool
    between: Callable[[int], None] | None = None  # run after result n (1, 2, …) before the next call
    results: list[str] = field(default_factory=list)  # each tool result text the client sent back
    tool_names: list[str] = field(default_factory=list)  # the tool names offered, as the client named them
    requests: int = 0
    call_ids: list[str] = field(default_factory=list)  # the recall calls asked for, by id
    recorded: set[str] = field(default_factory=set)  # the calls whose result is in `results`
    paths: list[str] = field(default_factory=list)  # each request's method and path, for a failing test's message
    # One call in each turn whose question holds the marker (a session of several turns), instead
    # of `rounds` calls in the first such turn.  Anthropic's API only.
    per_turn: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


def _text_of(content: Any) -> str:
    """The text inside a message's content, whatever its shape (string, blocks, nested)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_text_of(part) for part in content)
    if isinstance(content, dict):
        if "text" in content and isinstance(content["text"], str):
            return content["text"]
        return _text_of(content.get("content", ""))
    return ""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    script: Script

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read the script, not logs
        pass

    def do_GET(self) -> None:
        self.script.paths.append(f"GET {self.path}")
        self._json(200, {"data": [], "object": "list", "models": []})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        body = json.loads(self._body() or b"{}")
        with self.script.lock:
            self.script.requests += 1
            self.script.paths.append(f"POST {self.path} {time.monotonic():.1f}")
        path = self.path.split("?", 1)[0].rstrip("/")
        if path.endswith("/messages/count_tokens"):
            self._json(200, {"input_tokens": 10})
        elif path.endswith("/messages"):
            self._anthropic(body)
        elif path.endswith("/responses"):
            self._openai(body)
        elif ":countTokens" in path:
            self._json(200, {"totalTokens": 10})
        elif ":streamGenerateContent" in path or ":generateContent" in path:
            self._gemini(body, stream=":streamGenerateContent" in path)
        else:
            self._json(404, {"error": {"type": "not_found", "message": self.path}})

    def _body(self) -> bytes:
        """The request's body, sent with a length or in chunks (as Node's fetch may)."""
        if "chunked" not in (self.headers.get("Transfer-Encoding") or "").lower():
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))
        data = b""
        while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
            data += self.rfile.read(size)
            self.rfile.readline()
        while self.rfile.readline() not in (b"\r\n", b"\n", b""):  # trailers
            pass
        return data

    # -- Anthropic Messages API ------------------------------------------------------------

    def _anthropic(self, body: dict[str, Any]) -> None:
        tools = [t.get("name", "") for t in body.get("tools", [])]
        tool = next((t for t in tools if t.endswith("recall_context")), None)
        messages = [m for m in body.get("messages", []) if m.get("role") in ("user", "assistant")]
        asked = any(m["role"] == "user" and MARKER in _text_of(m.get("content", "")) for m in messages)
        answered = [
            (block.get("tool_use_id"), _text_of(block.get("content", "")))
            for m in messages
            if m["role"] == "user" and isinstance(m.get("content"), list)
            for block in m["content"]
            if isinstance(block, dict) and block.get("type") == "tool_result"
        ]
        ours = [(call_id, text) for call_id, text in answered if call_id in self.script.call_ids]
        if self.script.per_turn:
            self._anthropic_turn(body, messages, tools, tool, ours)
            return
        if ours and not self._another_round(ours, tools):
            self._anthropic_reply(body, [{"type": "text", "text": "Recalled it."}], "end_turn")
            return
        if asked and tool:
            self._anthropic_reply(body, [self._tool_use(tool, self.script.arguments, ours=True)], "tool_use")
            return
        deferred = _DEFERRED.search(json.dumps(body))
        if asked and deferred and "ToolSearch" in tools and not answered:
            # Claude Code offers MCP tools by name only, to be loaded with its ToolSearch tool.
            query = {"query": f"select:{deferred.group(0)}", "max_results": 5}
            self._anthropic_reply(body, [self._tool_use("ToolSearch", query, ours=False)], "tool_use")
            return
        self._anthropic_reply(body, [{"type": "text", "text": "ok"}], "end_turn")

    def _anthropic_turn(
        self,
        body: dict[str, Any],
        messages: list[dict[str, Any]],
        tools: list[str],
        tool: str | None,
        ours: list[tuple[str, str]],
    ) -> None:
        """Per turn: the person's last question (a message of text, not of tool results) gets one
        call when it holds the marker; once that call's result is in, the turn ends."""
        asking = [i for i, m in enumerate(messages) if m["role"] == "user" and not _results_only(m.get("content"))]
        last = asking[-1] if asking else -1
        self._another_round(ours, tools)  # records every result not seen yet
        if last < 0 or MARKER not in _text_of(messages[last].get("content", "")):
            self._anthropic_reply(body, [{"type": "text", "text": "ok"}], "end_turn")
        elif any(m["role"] == "user" and _results_only(m.get("content")) for m in messages[last + 1 :]):
            self._anthropic_reply(body, [{"type": "text", "text": "Recalled it."}], "end_turn")
        elif tool:
            self._anthropic_reply(body, [self._tool_use(tool, self.script.arguments, ours=True)], "tool_use")
        else:
            self._anthropic_reply(body, [{"type": "text", "text": "no recall tool"}], "end_turn")

    def _tool_use(self, name: str, arguments: dict[str, Any], *, ours: bool) -> dict[str, Any]:
        call_id = "toolu_" + uuid.uuid4().hex[:20]
        if ours:
            with self.script.lock:
                self.script.call_ids.append(call_id)
        return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}

    def _anthropic_reply(self, body: dict[str, Any], blocks: list[dict[str, Any]], stop: str) -> None:
        message = {
            "id": "msg_" + uuid.uuid4().hex[:20],
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "stand-in"),
            "content": blocks,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        if not body.get("stream"):
            self._json(200, message)
            return
        events: list[tuple[str, dict[str, Any]]] = [
            ("message_start", {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}})
        ]
        for index, block in enumerate(blocks):
            start: dict[str, Any]
            if block["type"] == "text":
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            else:
                start = {**block, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            events += [
                ("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}),
                ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}),
                ("content_block_stop", {"type": "content_block_stop", "index": index}),
            ]
        events += [
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 5},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        self._sse(events)

    # -- OpenAI Responses API ----------------------------------------------------------------

    def _openai(self, body: dict[str, Any]) -> None:
        items = body.get("input", [])
        items = items if isinstance(items, list) else [{"role": "user", "content": items}]
        offered = list(_functions(body.get("tools", [])))
        tool = next(((space, name) for space, name in offered if name.endswith("recall_context")), None)
        outputs = [
            (str(i.get("call_id")), _text_of(i.get("output", "")))
            for i in items
            if isinstance(i, dict)
            and i.get("type") == "function_call_output"
            and i.get("call_id") in self.script.call_ids
        ]
        users = [i for i in items if isinstance(i, dict) and i.get("role") == "user"]
        named = [f"{space}.{name}" if space else name for space, name in offered]
        if outputs and not self._another_round(outputs, named):
            self._openai_reply([_message("Recalled it.")])
        elif tool and users and MARKER in _text_of(users[-1].get("content", "")):
            call_id = "call_" + uuid.uuid4().hex[:20]
            with self.script.lock:
                self.script.call_ids.append(call_id)
            call = {
                "type": "function_call",
                "id": "fc_" + uuid.uuid4().hex[:20],
                "call_id": call_id,
                "name": tool[1],
                "arguments": json.dumps(self.script.arguments),
                "status": "completed",
            }
            if tool[0]:  # Codex groups each MCP server's tools in a namespace (mcp__SERVER)
                call["namespace"] = tool[0]
            self._openai_reply([call])
        else:
            self._openai_reply([_message("ok")])

    def _openai_reply(self, output: list[dict[str, Any]]) -> None:
        response = {
            "id": "resp_" + uuid.uuid4().hex[:20],
            "object": "response",
            "status": "completed",
            "model": "stand-in",
            "output": output,
            "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
        }
        events: list[tuple[str, dict[str, Any]]] = [
            (
                "response.created",
                {"type": "response.created", "response": {**response, "status": "in_progress", "output": []}},
            )
        ]
        for index, item in enumerate(output):
            events += [
                (
                    "response.output_item.added",
                    {"type": "response.output_item.added", "output_index": index, "item": item},
                ),
                (
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": index, "item": item},
                ),
            ]
        events.append(("response.completed", {"type": "response.completed", "response": response}))
        self._sse(events)

    # -- Gemini API (generateContent) ----------------------------------------------------------

    def _gemini(self, body: dict[str, Any], *, stream: bool) -> None:
        declared = [
            str(d.get("name", ""))
            for tool in body.get("tools", [])
            for d in (tool.get("functionDeclarations") or tool.get("function_declarations") or [])
        ]
        tool = next((name for name in declared if name.endswith("recall_context")), None)
        contents = body.get("contents", [])
        asked = any(
            c.get("role") == "user" and MARKER in "".join(str(p.get("text", "")) for p in c.get("parts", []))
            for c in contents
        )
        # Gemini calls carry no id the client must echo: the n-th response to our tool is call n.
        responses = [
            (f"{tool}#{n}", _result_text(part["functionResponse"].get("response")))
            for n, part in enumerate(
                p
                for c in contents
                for p in c.get("parts", [])
                if tool and "functionResponse" in p and p["functionResponse"].get("name") == tool
            )
        ]
        if responses:
            with self.script.lock:
                self.script.call_ids += [call_id for call_id, _ in responses if call_id not in self.script.call_ids]
        if tool and responses and not self._another_round(responses, declared):
            self._gemini_reply([{"text": "Recalled it."}], stream)
        elif tool and asked:
            self._gemini_reply([{"functionCall": {"name": tool, "args": self.script.arguments}}], stream)
        else:
            self._gemini_reply([{"text": "ok"}], stream)

    def _gemini_reply(self, parts: list[dict[str, Any]], stream: bool) -> None:
        chunk = {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": "stand-in",
        }
        if not stream:
            self._json(200, chunk)
            return
        data = f"data: {json.dumps(chunk)}\r\n\r\n".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    # -- plumbing ------------------------------------------------------------------------------

    def _another_round(self, answered: list[tuple[str, str]], tools: list[str]) -> bool:
        """Record the results not seen yet; True when the script wants another call."""
        fresh = []
        with self.script.lock:
            for call_id, text in answered:
                if call_id not in self.script.recorded:
                    self.script.recorded.add(call_id)
                    self.script.results.append(text)
                    fresh.append(call_id)
            self.script.tool_names = tools
            done = len(self.script.recorded)
        if done >= self.script.rounds:
            return False
        if fresh and self.script.between is not None:
            self.script.between(done)
        return True

    def _json(self, code: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        data = "".join(f"event: {name}\ndata: {json.dumps(payload)}\n\n" for name, payload in events).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _results_only(content: Any) -> bool:
    """A user message that only carries tool results back (not something the person asked)."""
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    )


def _result_text(value: Any) -> str:
    """The JSON text of our result inside whatever a client wraps it in (strings found inside
    lists and objects; the one that is our result, else all of them)."""
    found: list[str] = []

    def walk(item: Any) -> None:
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, list):
            for part in item:
                walk(part)
        elif isinstance(item, dict):
            if "status" in item and "untrusted" in item:
                found.append(json.dumps(item))
            else:
                for part in item.values():
                    walk(part)

    walk(value)
    return next((text for text in found if '"untrusted"' in text), "".join(found))


def _functions(tools: list[dict[str, Any]], space: str = "") -> Iterator[tuple[str, str]]:
    """(namespace, name) of every function offered, namespaces opened."""
    for tool in tools:
        if tool.get("type") == "namespace":
            yield from _functions(tool.get("tools", []), str(tool.get("name", "")))
        elif tool.get("type") == "function":
            yield space, str(tool.get("name", ""))


def _message(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": "msg_" + uuid.uuid4().hex[:20],
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


@contextmanager
def model_standin(script: Script) -> Iterator[str]:
    """Serve `script` on 127.0.0.1 (a free port) until the block ends; yields the base URL."""
    handler = type("Handler", (_Handler,), {"script": script})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="model-standin", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
