"""The MCP servers the peer benchmark asks, how each starts, and which of its tools answers which
question.

Vault Recall, and the servers people install instead of it, at pinned versions.  The peers are
npm packages, installed into `.peers/` at the repository root (not committed, not installed by
`.ci/run`: the benchmark is no part of the test suite):

    npm install --prefix .peers --no-save --no-audit --no-fund --ignore-scripts \\
        obsidian-mcp@2.0.1 @bitbonsai/mcpvault@0.16.0 mcp-obsidian@1.0.0 \\
        @modelcontextprotocol/server-filesystem@2026.8.31

None of them runs an install script.  Each is started with Node (obsidian-mcp needs 22 or
newer) straight from its package's entry file, as `npx` would run it, on a copy of the vault
of its own: several of them may write (obsidian-mcp makes its journal folders in the vault when
it starts), and what each leaves behind is measured on its copy.

What each one is, read from its README and code in `.peers/node_modules`:

- obsidian-mcp: `serve --vault ID=PATH`; reads and writes notes; its search scans notes in
  listing order and stops at `limit` hits (no total).  Needs an `.obsidian` folder in the vault.
- @bitbonsai/mcpvault (the package mcpvault.org points at; bin `mcpvault`): `PATH --read-only`
  (its read-only mode, as ours is); search reads every note, matches any of the query's words and
  ranks by BM25; `wiki_link` reads a note by name; `list_all_tags` lists tags with counts.
- mcp-obsidian 1.0.0: `PATH`; `read_notes` by path and `search_notes`, which matches note *names*
  only.  It lowercases the vault path it was given and refuses any path part starting with a
  dot, so the copies live under a lowercase path without hidden folders.
- @modelcontextprotocol/server-filesystem: `PATH`; reads files by absolute path, and
  `search_files` matches names against a glob.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.peer_questions import Case
from tests.support.paths import REPO_ROOT

PEERS_DIR = REPO_ROOT / ".peers" / "node_modules"
INSTALL = (
    "npm install --prefix .peers --no-save --no-audit --no-fund --ignore-scripts obsidian-mcp@2.0.1 "
    "@bitbonsai/mcpvault@0.16.0 mcp-obsidian@1.0.0 @modelcontextprotocol/server-filesystem@2026.8.31"
)
QUESTIONS = (
    "rare phrase",
    "common word",
    "title",
    "read by path",
    "read by name",
    "tags/subjects",
    "backlinks",
    "recall",
)
SEARCH_LIMIT = 20  # every search asks for as many hits as Vault Recall's search_notes returns by default
OBSIDIAN_MCP_VAULT = "notes"  # the vault id obsidian-mcp is started with


@dataclass(frozen=True)
class Ask:
    """One question as one server's tool takes it."""

    tool: str
    arguments: dict[str, Any]


# How a server asks one question: from the round's case and the server's copy of the vault.
Asker = Callable[[Case, Path], Ask]


@dataclass(frozen=True)
class Server:
    """One MCP server of the benchmark."""

    name: str
    package: str | None  # the npm package; None for Vault Recall
    pinned: str | None
    entry: str | None  # the JS file inside the package that its bin runs
    arguments: Callable[[Path], list[str]]  # after the entry (or `vault-recall`), for a vault copy
    asks: dict[str, Asker] = field(default_factory=dict)
    how: dict[str, str] = field(default_factory=dict)  # question -> the tool call, as the docs show it
    min_node: int = 20


@dataclass(frozen=True)
class Ready:
    """A server that can run here: its command line for a vault copy and its version."""

    server: Server
    command: Callable[[Path], list[str]]
    version: str
    warning: str | None = None  # e.g. a version other than the pinned one


@dataclass(frozen=True)
class Skipped:
    server: Server
    reason: str


def _vault_recall_command() -> list[str]:
    script = Path(sys.executable).with_name("vault-recall")
    return [str(script)] if script.exists() else [sys.executable, "-m", "vault_recall.app"]


def _search(tool: str, **extra: Any) -> Callable[[str], Asker]:
    """An asker that searches for one field of the case."""

    def of(key: str) -> Asker:
        return lambda case, _copy: Ask(tool, {"query": getattr(case, key), **extra})

    return of


_recall_search = _search("search_notes", limit=SEARCH_LIMIT)
_obsidian_content = _search("obsidian_search_vault", vault=OBSIDIAN_MCP_VAULT, mode="content", limit=SEARCH_LIMIT)
_mcpvault_search = _search("search_notes", limit=SEARCH_LIMIT)


def _recall(case: Case, _copy: Path) -> Ask:
    return Ask("recall_context", {"subject": case.subject, "query": case.word})


VAULT_RECALL = Server(
    name="vault-recall",
    package=None,
    pinned=None,
    entry=None,
    arguments=lambda copy: ["serve", "--client", "bench", "--vault", str(copy)],
    asks={
        "rare phrase": _recall_search("phrase"),
        "common word": _recall_search("word"),
        "title": _recall_search("title"),
        "read by path": lambda case, _copy: Ask("read_note", {"note": case.path}),
        "read by name": lambda case, _copy: Ask("read_note", {"note": case.title}),
        "tags/subjects": lambda _case, _copy: Ask("list_subjects", {}),
        "backlinks": lambda case, _copy: Ask("get_backlinks", {"note": case.title}),
        "recall": _recall,
    },
    how={
        "rare phrase": "search_notes(query, limit=20)",
        "common word": "search_notes(query, limit=20)",
        "title": "search_notes(query=TITLE, limit=20)",
        "read by path": "read_note(note=PATH)",
        "read by name": "read_note(note=NAME)",
        "tags/subjects": "list_subjects()",
        "backlinks": "get_backlinks(note=NAME)",
        "recall": "recall_context(subject, query=WORD)",
    },
)

OBSIDIAN_MCP = Server(
    name="obsidian-mcp",
    package="obsidian-mcp",
    pinned="2.0.1",
    entry="dist/main.js",
    arguments=lambda copy: ["serve", "--vault", f"{OBSIDIAN_MCP_VAULT}={copy}"],
    asks={
        "rare phrase": _obsidian_content("phrase"),
        "common word": _obsidian_content("word"),
        "title": lambda case, _copy: Ask(
            "obsidian_search_vault",
            {"vault": OBSIDIAN_MCP_VAULT, "query": case.title, "mode": "filename", "limit": SEARCH_LIMIT},
        ),
        "read by path": lambda case, _copy: Ask("obsidian_read_note", {"vault": OBSIDIAN_MCP_VAULT, "path": case.path}),
    },
    how={
        "rare phrase": "obsidian_search_vault(mode=content, limit=20)",
        "common word": "obsidian_search_vault(mode=content, limit=20)",
        "title": "obsidian_search_vault(mode=filename, limit=20)",
        "read by path": "obsidian_read_note(path)",
    },
    min_node=22,
)

MCPVAULT = Server(
    name="mcpvault",
    package="@bitbonsai/mcpvault",
    pinned="0.16.0",
    entry="dist/server.js",
    arguments=lambda copy: [str(copy), "--read-only"],
    asks={
        "rare phrase": _mcpvault_search("phrase"),
        "common word": _mcpvault_search("word"),
        "title": _mcpvault_search("title"),
        "read by path": lambda case, _copy: Ask("read_note", {"path": case.path}),
        "read by name": lambda case, _copy: Ask("wiki_link", {"document": case.title}),
        "tags/subjects": lambda _case, _copy: Ask("list_all_tags", {}),
    },
    how={
        "rare phrase": "search_notes(query, limit=20)",
        "common word": "search_notes(query, limit=20)",
        "title": "search_notes(query=TITLE, limit=20)",
        "read by path": "read_note(path)",
        "read by name": "wiki_link(document=NAME)",
        "tags/subjects": "list_all_tags()",
    },
)

MCP_OBSIDIAN = Server(
    name="mcp-obsidian",
    package="mcp-obsidian",
    pinned="1.0.0",
    entry="dist/index.js",
    arguments=lambda copy: [str(copy)],
    asks={
        "title": lambda case, _copy: Ask("search_notes", {"query": case.title}),
        "read by path": lambda case, _copy: Ask("read_notes", {"paths": [case.path]}),
    },
    how={"title": "search_notes(query=TITLE) (names only)", "read by path": "read_notes(paths=[PATH])"},
)

SERVER_FILESYSTEM = Server(
    name="server-filesystem",
    package="@modelcontextprotocol/server-filesystem",
    pinned="2026.8.31",
    entry="dist/index.js",
    arguments=lambda copy: [str(copy)],
    asks={
        "title": lambda case, copy: Ask("search_files", {"path": str(copy), "pattern": f"**/*{case.title}*"}),
        "read by path": lambda case, copy: Ask("read_text_file", {"path": str(copy / case.path)}),
    },
    how={"title": "search_files(pattern=**/*TITLE*) (names only)", "read by path": "read_text_file(path=ABSOLUTE)"},
)

SERVERS = (VAULT_RECALL, OBSIDIAN_MCP, MCPVAULT, MCP_OBSIDIAN, SERVER_FILESYSTEM)


def default_node() -> Path | None:
    """Node 22 as `.ci/run` installs it, else the machine's `node`."""
    arch = "arm64" if platform.machine() in ("aarch64", "arm64") else "x64"
    pinned = REPO_ROOT / ".ci" / "npm" / "node_modules" / f"node-linux-{arch}" / "bin" / "node"
    if pinned.exists():
        return pinned
    found = shutil.which("node")
    return Path(found) if found else None


def node_major(node: Path) -> int | None:
    try:
        done = subprocess.run([str(node), "--version"], capture_output=True, text=True, timeout=30, check=False)
    except OSError:
        return None
    version = done.stdout.strip().lstrip("v")
    return int(version.split(".")[0]) if version.split(".")[0].isdigit() else None


def prepare(server: Server, peers_dir: Path, node: Path | None) -> Ready | Skipped:
    """How to start `server` here, or why it cannot be."""
    if server.package is None:
        command = _vault_recall_command()
        from vault_recall.server import __version__

        return Ready(server, lambda copy: [*command, *server.arguments(copy)], __version__)
    package = peers_dir / server.package
    assert server.entry is not None
    if not (package / server.entry).exists():
        return Skipped(server, f"not installed in {peers_dir} (install the peers: {INSTALL})")
    if node is None:
        return Skipped(server, "no Node here (give one with --node)")
    major = node_major(node)
    if major is None:
        return Skipped(server, f"{node} does not run as Node")
    if major < server.min_node:
        return Skipped(server, f"needs Node {server.min_node} or newer, {node} is Node {major}")
    version = json.loads((package / "package.json").read_text(encoding="utf-8"))["version"]
    warning = None if version == server.pinned else f"{server.name} is {version}, not the pinned {server.pinned}"
    entry = str(package / server.entry)
    return Ready(server, lambda copy: [str(node), entry, *server.arguments(copy)], version, warning)


def environment(server: Server, home: Path) -> dict[str, str]:
    """The server's environment: ours gets a home of its own (its config and activity store)."""
    env = dict(os.environ)
    if server.package is None:
        env["VAULT_RECALL_HOME"] = str(home)
    return env
