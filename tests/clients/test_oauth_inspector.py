"""The MCP Inspector's own OAuth flow (its CLI, npm `@modelcontextprotocol/inspector`) against a
real `vault-recall http` on 127.0.0.1: discovery from the 401, dynamic registration, PKCE, the
authorization URL handed to the browser ($BROWSER, as xdg-open does without a desktop), the
person's approval with `vault-recall client approve`, the code to its loopback callback, then
tools/call as the approved client; after `client revoke`, its stored token gets nothing.

The conformance suite's auth scenarios (`auth/*`) test an MCP *client* against the suite's own
authorization server, so none applies to a server; its server scenarios run over a client token
in test_http_clients.py."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from pathlib import Path

import httpx2
import pytest

from tests.support.e2e import copy_sample_vault
from tests.support.http_e2e import running_endpoint
from tests.support.npm_tools import INSPECTOR, node_command
from tests.support.oauth_browser import approve, open_authorization, redirect_after_decision, vault_recall
from tests.support.parts import need
from vault_recall.server.activity.queries import recent_events
from vault_recall.server.config.config_file import activity_path

pytestmark = [pytest.mark.e2e]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_inspector_authorizes_with_oauth_after_approval_and_is_cut_off_by_revocation(tmp_path: Path) -> None:
    need("inspector")
    node = node_command(INSPECTOR)
    vault = copy_sample_vault(tmp_path / "Sample vault")
    assert vault_recall("vault", "add", str(vault)).returncode == 0
    home = tmp_path / "npm-home"
    home.mkdir()
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{opened}"\n', encoding="utf-8")
    browser.chmod(0o755)
    callback = f"http://127.0.0.1:{_free_port()}/oauth/callback"
    env = {
        **{k: v for k, v in os.environ.items() if k != "DISPLAY"},
        "HOME": str(home),
        "MCP_CATALOG_PATH": str(home / "catalog.json"),
        "BROWSER": str(browser),
        "MCP_AUTO_OPEN_ENABLED": "true",  # no terminal here: open the browser all the same
        "MCP_INSPECTOR_SECRET_STORE": "file",  # kept for the second run
    }
    with running_endpoint() as endpoint:
        argv = [
            *node,
            "--cli",
            endpoint.url,
            "--callback-url",
            callback,
            "--method",
            "tools/call",
            "--tool-name",
            "recall_context",
            "--tool-arg",
            "subject=build-system",
            "--tool-arg",
            "query=bazel",
        ]
        process = subprocess.Popen(
            argv, env=env, cwd=home, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            deadline = time.monotonic() + 120
            while not (opened.exists() and opened.read_text(encoding="utf-8").strip()):
                assert process.poll() is None and time.monotonic() < deadline, "the Inspector opened no browser"
                time.sleep(0.1)
            waiting = open_authorization(opened.read_text(encoding="utf-8").split()[0])
            approve(waiting, "inspector-oauth")
            landed = redirect_after_decision(waiting)
            assert landed.startswith(callback + "?")
            with httpx2.Client(timeout=30) as http:  # the browser's last hop: the Inspector's callback
                assert http.get(landed).status_code < 400
            out, err = process.communicate(timeout=120)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate(timeout=10)
        assert process.returncode == 0, err[-3000:]
        result = json.loads(out)
        assert result["structuredContent"]["records"][0]["path"] == "Projects/Build/Build decision.md"
        deadline = time.monotonic() + 20  # the endpoint's writer records the call just after answering it
        while not (rows := recent_events(activity_path(), client="inspector-oauth")) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [e.tool for e in rows] == ["recall_context"]
        assert vault_recall("client", "revoke", "inspector-oauth").returncode == 0
        again = subprocess.run(
            [*node, "--cli", endpoint.url, "--stored-auth-only", "--method", "tools/list"],
            env=env,
            cwd=home,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert again.returncode != 0
        # Our reason, shown as given.
        assert "revoked: the person revoked it (vault-recall client revoke)" in again.stderr
    assert len([e for e in recent_events(activity_path(), client="inspector-oauth")]) == 1
