"""Real AI clients connecting to a real `vault-recall http` by URL with OAuth, no token in their
config or environment: each runs its own headless authorization (a printed URL), the person
opens it in a browser and approves with `vault-recall client approve` (tests/support/
oauth_browser.py), and the client then recalls through the stand-in model API as the client id
it was approved as.  The access tokens live 3 seconds here, so the next run must refresh; then
the grant is revoked and the client gets nothing more.

Codex CLI: `codex mcp login NAME --no-browser` prints the URL and reads the address the browser
ended on from stdin.  Claude Code: the same, but only in a terminal (a pseudo-terminal here).
Gemini CLI: refused with 401, it asks, then opens the URL through xdg-open and $BROWSER and
waits on its loopback callback.  opencode: `opencode mcp auth NAME` prints the URL and waits on
its loopback callback.  Once approved, `vault-recall doctor` says the client's entry works and
names the id it was approved as, whatever that is.  Installed by `.ci/run`; skipped where they
are not.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest

from tests.support.doctor import doctor_line
from tests.support.http_e2e import running_endpoint
from tests.support.model_standin import MARKER, Script, model_standin
from tests.support.oauth_browser import approve, open_authorization, redirect_after_decision, vault_recall
from tests.support.parts import need
from tests.support.paths import SAMPLE_VAULT
from tests.support.real_clients import BIN, client_env, run_client, tool_result_json
from vault_recall.server.activity.queries import recent_events
from vault_recall.server.config.config_file import activity_path
from vault_recall.server.oauth import store as oauth_store

pytestmark = pytest.mark.e2e

NOTE = "Projects/Build/Build decision.md"
QUESTION = f"{MARKER}: how do we build the monorepo?"
AUTHORIZE_URL = re.compile(r"(http://127\.0\.0\.1:\d+/authorize\?[^\s'\"]+)")


def doctor_of(home: Path) -> dict[str, str]:
    """The environment `vault-recall doctor` runs in for a person whose home is `home` (this
    test's Vault Recall config, the clients' files in `home`)."""
    env = {key: value for key, value in os.environ.items() if key not in CLIENT_HOMES}
    return env | {"HOME": str(home)}


CLIENT_HOMES = ("XDG_CONFIG_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME")


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "Notes"
    shutil.copytree(SAMPLE_VAULT, vault)
    assert vault_recall("vault", "add", str(vault)).returncode == 0
    return vault


def _recall_script() -> Script:
    return Script(arguments={"subject": "build-system", "query": "bazel"})


def wait_until_access_tokens_expire(timeout: float = 30.0) -> None:
    """The endpoint's store says every access token issued so far has expired (its clock)."""
    deadline = time.monotonic() + timeout
    while True:
        with sqlite3.connect(oauth_store.store_path()) as db:
            (live,) = db.execute(
                "SELECT COUNT(*) FROM tokens WHERE kind = 'access' AND expires >= ?", (time.time(),)
            ).fetchone()
        if live == 0:
            return
        assert time.monotonic() < deadline, "access tokens did not expire"
        time.sleep(0.1)


def refreshes_used() -> int:
    with sqlite3.connect(oauth_store.store_path()) as db:
        (used,) = db.execute("SELECT COUNT(*) FROM tokens WHERE kind = 'refresh' AND used IS NOT NULL").fetchone()
    return int(used)


@contextmanager
def headless_login(
    argv: list[str], env: dict[str, str], cwd: Path, answer: str = ""
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """Start a client's login command, read the authorization URL it prints; the caller answers.
    `answer` is typed first (a consent question asked before the URL)."""
    process = subprocess.Popen(
        argv, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert process.stdout is not None and process.stdin is not None
    if answer:
        process.stdin.write(answer)
        process.stdin.flush()
    lines: list[str] = []
    found = threading.Event()
    url: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            match = AUTHORIZE_URL.search(line)
            if match and not url:
                url.append(match.group(1))
                found.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert found.wait(120), "".join(lines)
        yield process, url[0]
        process.wait(120)
        reader.join(10)
        assert process.returncode == 0, "".join(lines)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
        reader.join(10)
        for pipe in (process.stdin, process.stdout):
            if pipe is not None:
                pipe.close()


def _recalls_of(client: str, expected: int | None = None) -> int:
    """The client's recall_context rows; with `expected`, waits (bounded) for that many first: the
    endpoint's writer thread records a call just after answering it."""
    deadline = time.monotonic() + 20
    while True:
        count = len([r for r in recent_events(activity_path(), client=client) if r.tool == "recall_context"])
        if expected is None or count >= expected or time.monotonic() > deadline:
            return count
        time.sleep(0.05)


def test_codex_authorizes_headless_is_approved_refreshes_and_is_cut_off_by_revocation(tmp_path: Path) -> None:
    need("codex")
    vault = _vault(tmp_path)
    home, work = tmp_path / "home", tmp_path / "work"
    (home / ".codex").mkdir(parents=True)
    work.mkdir()
    with running_endpoint("--access-token-seconds", "3") as endpoint:
        (home / ".codex" / "config.toml").write_text(
            'model = "stand-in"\nmodel_provider = "standin"\n'
            'mcp_oauth_credentials_store = "file"\n\n'  # no keyring in a test HOME
            '[model_providers.standin]\nname = "stand-in"\nbase_url = "http://127.0.0.1:9/v1"\nwire_api = "responses"\n'
            'env_key = "STANDIN_API_KEY"\n\n'
            f'[mcp_servers.vault-recall]\nurl = "{endpoint.url}"\n',
            encoding="utf-8",
        )
        env = client_env(home, STANDIN_API_KEY="stand-in")
        assert not any("VAULT_RECALL_TOKEN" in key for key in env)
        with headless_login([str(BIN / "codex"), "mcp", "login", "vault-recall", "--no-browser"], env, work) as (
            login,
            url,
        ):
            waiting = open_authorization(url)
            assert "Codex" in waiting.text
            approve(waiting, "codex-laptop")
            landed = redirect_after_decision(waiting)
            assert login.stdin is not None
            login.stdin.write(landed + "\n")
            login.stdin.flush()
        verdict, line, _ = doctor_line("codex", doctor_of(home))
        assert verdict == "ok" and "1 grant acts as 'codex-laptop' (Codex)" in line, line
        wait_until_access_tokens_expire()
        script = _recall_script()
        with model_standin(script) as model_url:
            _point_codex_at(home, model_url)
            run = run_client(["codex", "exec", "--skip-git-repo-check", QUESTION], env, work)
        assert run.returncode == 0, run.stderr
        assert len(script.results) == 1, (script.paths, run.stderr[-3000:])
        answer = tool_result_json(script.results[0])
        assert answer["status"] == "ok" and answer["vault"] == vault.name
        assert refreshes_used() >= 1  # the expired access token was refreshed, not approved again
        assert _recalls_of("codex-laptop", 1) == 1
        assert vault_recall("client", "revoke", "codex-laptop").returncode == 0
        cut_off = _recall_script()
        with model_standin(cut_off) as model_url:
            _point_codex_at(home, model_url)
            run_client(["codex", "exec", "--skip-git-repo-check", QUESTION], env, work)
        assert not any('"status":"ok"' in result for result in cut_off.results)
        assert _recalls_of("codex-laptop") == 1  # nothing reached a tool after the revocation


def _point_codex_at(home: Path, model_url: str) -> None:
    config = home / ".codex" / "config.toml"
    text = re.sub(r'base_url = "[^"]*"', f'base_url = "{model_url}/v1"', config.read_text(encoding="utf-8"))
    config.write_text(text, encoding="utf-8")


def test_gemini_authorizes_when_refused_refreshes_and_is_cut_off_by_revocation(tmp_path: Path) -> None:
    """Gemini CLI, refused with 401, asks on stdout whether to authorize, opens the URL in the
    person's browser (xdg-open, which hands it to $BROWSER: here a script that writes it down)
    and waits on its own loopback callback, which the browser reaches after the approval.  Its
    next run, after the access token expired, refreshes; after the revocation it asks again, is
    told no, and reaches no tool."""
    need("gemini")
    vault = _vault(tmp_path)
    home, work = tmp_path / "home", tmp_path / "work"
    (home / ".gemini").mkdir(parents=True)
    work.mkdir()
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{opened}"\n', encoding="utf-8")
    browser.chmod(0o755)
    with running_endpoint("--access-token-seconds", "3") as endpoint:
        (home / ".gemini" / "settings.json").write_text(
            json.dumps(
                {
                    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
                    "general": {"disableAutoUpdate": True},
                    "privacy": {"usageStatisticsEnabled": False},
                    "mcpServers": {
                        "vault-recall": {"httpUrl": endpoint.url, "oauth": {"enabled": True}, "trust": True}
                    },
                }
            ),
            encoding="utf-8",
        )

        def run(answer: str, person: bool) -> Script:
            """One `gemini -p`; `answer` to its question, if it asks; `person`: approve in the browser."""
            script = Script(arguments={"subject": "build-system", "query": "bazel", "wait_for_previous": True})
            with model_standin(script) as model:
                env = client_env(home, GEMINI_API_KEY="stand-in", GOOGLE_GEMINI_BASE_URL=model, BROWSER=str(browser))
                env.pop("DISPLAY", None)
                argv = [str(BIN / "gemini"), "--model", "gemini-2.5-flash", "-p", QUESTION]
                process = subprocess.Popen(
                    argv,
                    env=env,
                    cwd=work,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
                try:
                    assert process.stdin is not None
                    process.stdin.write(answer)  # "Do you want to continue? [Y/n]", if asked
                    process.stdin.flush()
                    if person:
                        deadline = time.monotonic() + 120
                        while not (opened.exists() and opened.read_text(encoding="utf-8").strip()):
                            assert process.poll() is None and time.monotonic() < deadline, "Gemini opened no browser"
                            time.sleep(0.1)
                        url = opened.read_text(encoding="utf-8").split()[0]
                        opened.unlink()
                        waiting = open_authorization(url)
                        approve(waiting, "gemini-laptop")
                        landed = redirect_after_decision(waiting)
                        assert landed.startswith("http://localhost:")
                        with httpx2.Client(timeout=30) as http:  # the browser's last hop: Gemini's own callback
                            assert http.get(landed).status_code < 400
                    _, err = process.communicate(timeout=240)
                finally:
                    if process.poll() is None:
                        process.kill()
                        process.communicate(timeout=10)
            assert process.returncode == 0 or not person, err[-3000:]
            return script

        first = run("y\n", person=True)
        assert len(first.results) == 1, first.paths
        verdict, line, _ = doctor_line("gemini", doctor_of(home))
        assert verdict == "ok" and "1 grant acts as 'gemini-laptop' (Gemini CLI MCP Client)" in line, line
        answer = tool_result_json(first.results[0])
        assert answer["status"] == "ok" and answer["vault"] == vault.name
        assert _recalls_of("gemini-laptop", 1) == 1
        wait_until_access_tokens_expire()
        again = run("", person=False)
        assert len(again.results) == 1, again.paths
        assert refreshes_used() >= 1 and _recalls_of("gemini-laptop", 2) == 2  # refreshed, not approved again
        assert vault_recall("client", "revoke", "gemini-laptop").returncode == 0
        cut_off = run("n\n", person=False)
        assert not any('"status":"ok"' in result for result in cut_off.results)
        assert not opened.exists()  # told no: it opened no browser
        assert _recalls_of("gemini-laptop") == 2


class Terminal:
    """A program on a pseudo-terminal of its own, as in a person's terminal: Claude Code's
    `mcp login --no-browser` refuses to run without one (it asks for the redirect URL)."""

    master: int
    process: subprocess.Popen[bytes]
    screen: str

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path) -> None:
        if sys.platform == "win32":
            pytest.skip("a pseudo-terminal is POSIX's")
        import fcntl
        import pty
        import struct
        import termios

        self.master, follower = pty.openpty()
        # A wide terminal: the URL is printed on one line, unwrapped.
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 4000, 0, 0))
        self.process = subprocess.Popen(
            argv, stdin=follower, stdout=follower, stderr=follower, env=env, cwd=cwd, close_fds=True
        )
        os.close(follower)
        self.screen = ""

    def read_until(self, pattern: re.Pattern[str], timeout: float = 120) -> re.Match[str]:
        import select

        deadline = time.monotonic() + timeout
        while (found := pattern.search(self.screen)) is None:
            assert time.monotonic() < deadline, self.screen[-3000:]
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    data = os.read(self.master, 65536)
                except OSError:  # the program ended and closed its terminal
                    data = b""
                assert data or self.process.poll() is None, self.screen[-3000:]
                self.screen += ANSI.sub("", data.decode("utf-8", "replace"))
        return found

    def type(self, text: str) -> None:
        os.write(self.master, text.encode("utf-8"))

    def close(self) -> int:
        if self.process.poll() is None:
            try:
                self.process.wait(120)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        os.close(self.master)
        return self.process.returncode


ANSI = re.compile(r"\x1b\][^\x07]*\x07|\x1b\[[0-9;?]*[A-Za-z]")


def test_claude_code_logs_in_headless_refreshes_and_is_cut_off_by_revocation(tmp_path: Path) -> None:
    """`claude mcp login NAME --no-browser` in a terminal prints the URL and waits for the redirect
    URL (or its loopback callback); the person opens the URL elsewhere, approves, and pastes the
    address the browser ended on.  Then `claude -p` recalls by OAuth as the approved client, after
    the access token expired (it refreshes), and reaches no tool once the grant is revoked."""
    need("claude")
    vault = _vault(tmp_path)
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    with running_endpoint("--access-token-seconds", "3") as endpoint:
        env = client_env(
            home,
            ANTHROPIC_API_KEY="sk-ant-stand-in",
            DISABLE_AUTOUPDATER="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            TERM="xterm",
        )
        add = ["claude", "mcp", "add", "--transport", "http", "-s", "user", "vault-recall", endpoint.url]
        added = run_client(add, env, work)
        assert added.returncode == 0, added.stderr
        terminal = Terminal([str(BIN / "claude"), "mcp", "login", "vault-recall", "--no-browser"], env, work)
        try:
            url = terminal.read_until(AUTHORIZE_URL).group(1)
            terminal.read_until(re.compile(r"paste the redirect URL"))
            waiting = open_authorization(url)
            assert "Claude Code" in waiting.text
            approve(waiting, "claude-laptop")
            terminal.type(redirect_after_decision(waiting) + "\r")
            terminal.read_until(re.compile(r"Authenticated with"))
        finally:
            code = terminal.close()
        assert code == 0, terminal.screen[-3000:]
        verdict, line, _ = doctor_line("claude-code", doctor_of(home))
        assert verdict == "ok" and "1 grant acts as 'claude-laptop' (Claude Code (vault-recall))" in line, line
        wait_until_access_tokens_expire()

        def ask() -> Script:
            script = _recall_script()
            with model_standin(script) as model:
                run = run_client(
                    ["claude", "-p", QUESTION, "--allowedTools", "mcp__vault-recall__recall_context"],
                    {**env, "ANTHROPIC_BASE_URL": model},
                    work,
                )
            assert run.returncode == 0, run.stderr
            return script

        script = ask()
        assert len(script.results) == 1, script.paths
        answer = tool_result_json(script.results[0])
        assert answer["status"] == "ok" and answer["vault"] == vault.name
        assert refreshes_used() >= 1  # the expired access token was refreshed, not approved again
        assert _recalls_of("claude-laptop", 1) == 1
        assert vault_recall("client", "revoke", "claude-laptop").returncode == 0
        cut_off = ask()
        assert not any('"status":"ok"' in result for result in cut_off.results)
        assert _recalls_of("claude-laptop") == 1  # nothing reached a tool after the revocation


def test_opencode_adds_itself_authorizes_headless_and_is_cut_off_by_revocation(tmp_path: Path) -> None:
    """`opencode mcp add vault-recall --url URL` writes its own `opencode.jsonc`, which doctor reads
    and install would edit (no second file); `opencode mcp auth vault-recall` prints the URL and
    waits on its loopback callback; approved, opencode connects (`opencode mcp list`), doctor
    says so naming the id; revoked, it no longer connects.  (No prompt is run: the stand-in model
    API speaks no protocol opencode's providers use.)"""
    need("opencode")
    _vault(tmp_path)
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    browser = tmp_path / "browser"  # where opencode would open a browser: nothing, the test is the person
    browser.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    browser.chmod(0o755)
    env = client_env(home, BROWSER=str(browser))
    env.pop("DISPLAY", None)
    with running_endpoint() as endpoint:
        added = run_client([str(BIN / "opencode"), "mcp", "add", "vault-recall", "--url", endpoint.url], env, work)
        assert added.returncode == 0, added.stdout + added.stderr
        jsonc = home / ".config/opencode/opencode.jsonc"
        assert jsonc.exists() and not (home / ".config/opencode/opencode.json").exists()
        dry = vault_recall("install", "opencode", "--form", "http", "--dry-run", env=doctor_of(home))
        assert dry.returncode == 0 and str(jsonc) in dry.stdout, dry.stdout + dry.stderr
        verdict, line, fix = doctor_line("opencode", doctor_of(home))
        assert verdict == "FAIL" and str(jsonc) in line and "OpenCode" not in line, line
        assert fix.startswith("fix: opencode mcp auth vault-recall"), fix
        with headless_login([str(BIN / "opencode"), "mcp", "auth", "vault-recall"], env, work) as (_, url):
            waiting = open_authorization(url)
            assert "OpenCode" in waiting.text and "as the client <b>opencode</b>" in waiting.text
            approve(waiting, "opencode-laptop")
            landed = redirect_after_decision(waiting)
            with httpx2.Client(timeout=30) as http:  # the browser's last hop: opencode's own callback
                assert http.get(landed).status_code < 400
        verdict, line, _ = doctor_line("opencode", doctor_of(home))
        assert verdict == "ok" and "1 grant acts as 'opencode-laptop' (OpenCode)" in line, line

        def listed() -> str:
            done = run_client([str(BIN / "opencode"), "mcp", "list"], env, work)
            return next((x for x in ANSI.sub("", done.stdout + done.stderr).splitlines() if "vault-recall" in x), "")

        before = listed()
        assert "connected" in before, before
        assert vault_recall("client", "revoke", "opencode-laptop").returncode == 0
        after = listed()
        assert "connected" not in after and after, after
