"""The peer benchmark (bench/peers.py) still runs end to end on a tiny vault, so that it cannot
rot: Vault Recall alone (the peers skipped, each with its reason), and every installed peer too
where `.peers/` holds them (never in CI: `.ci/run` does not install them).  Times are printed by
the benchmark, never asserted here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import peers
from bench.peer_catalogue import PEERS_DIR, QUESTIONS, SERVERS, Ready, default_node, prepare
from bench.peer_questions import Case, answered
from tests.support.parts import need
from tests.support.paths import REPO_ROOT
from tests.support.synthetic_vault import generate
from tests.support.vaults import snapshot

pytestmark = pytest.mark.e2e


def run(tmp_path: Path, *arguments: str) -> dict[str, Any]:
    vault = tmp_path / "vault"
    generate(vault, 80)
    before = snapshot(vault)
    out = tmp_path / "peers.json"
    common = ["--sizes", "", "--vault", str(vault), "--rounds", "2", "--starts", "1", "--edits", "2"]
    assert peers.main([*common, *arguments, "--workdir", str(tmp_path / "work"), "--json", str(out)]) == 0
    assert snapshot(vault) == before, "the benchmark let a server near the vault it was given"
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return data


def test_vault_recall_alone_answers_every_question_sees_every_save_and_leaves_nothing_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = run(tmp_path, "--peers-dir", str(tmp_path / "no peers here"))
    printed = capsys.readouterr().out
    for server in SERVERS[1:]:
        assert f"skipped {server.name}: not installed" in printed
    assert {s["name"] for s in data["skipped"]} == {s.name for s in SERVERS[1:]}
    assert all("npm install --prefix .peers" in s["reason"] for s in data["skipped"])
    (result,) = data["results"]
    # The generated vault has memory records, so even recall is asked; every answer held what
    # was asked (the phrase read back, the note's path among the hits).
    assert [q["question"] for q in result["questions"]] == list(QUESTIONS)
    for question in result["questions"]:
        cell = question["servers"]["vault-recall"]
        assert (cell["calls"], cell["answered"]) == (2, 2), (question["question"], cell["errors"])
    (ours,) = result["servers"]
    assert (ours["fresh_read"], ours["fresh_search"], ours["fresh_of"]) == (2, 2, 2)
    assert ours["left"] == {"added": [], "changed": [], "removed": []}
    assert ours["first_answer_p50_ms"] >= ours["initialize_p50_ms"] > 0
    assert ours["peak_rss_mb"] >= ours["idle_rss_mb"] > 0
    assert len(result["bare_start_ms"]) == 4
    assert "| rare phrase" in printed and "Which tool answers which question" in printed
    # A read by path has the bare Python server's floor; every question rg can answer has rg's,
    # timed where rg is installed.
    floors = {q["question"]: (q["floor"], q["floor_p50_ms"]) for q in result["questions"]}
    assert floors["read by path"][0] == peers.BARE_READ and floors["read by path"][1] > 0
    assert all(floors[q][0].startswith("rg -l -i -F") for q in peers.FLOORS)
    need("ripgrep", context="the benchmark times rg as the floor of each search")
    assert all(floors[q][1] is not None and floors[q][1] > 0 for q in peers.FLOORS)


def test_every_installed_peer_answers_what_it_offers_and_obsidian_mcp_is_seen_writing_its_journal(
    tmp_path: Path,
) -> None:
    ready = [prepare(s, PEERS_DIR, default_node()) for s in SERVERS]
    if not all(isinstance(r, Ready) for r in ready):
        pytest.skip("the peers are not installed here (see bench/peer_catalogue.py for the npm command)")
    if str(tmp_path) != str(tmp_path).lower():
        pytest.skip("mcp-obsidian lowercases its vault path, and this temporary folder is not lowercase")
    data = run(tmp_path)
    (result,) = data["results"]
    for question in result["questions"]:
        for name, cell in question["servers"].items():
            assert cell["answered"] == cell["calls"], (name, question["question"], cell["errors"])
    servers = {s["name"]: s for s in result["servers"]}
    assert set(servers) == {s.name for s in SERVERS}
    for name, server in servers.items():
        assert server["fresh_read"] == 2, name
        assert server["fresh_search"] in (2, None), name
    # obsidian-mcp makes its journal in the vault when it starts; the snapshot of its copy sees it.
    assert ".obsidian-mcp/" in servers["obsidian-mcp"]["left"]["added"]
    for name in ("vault-recall", "mcpvault", "mcp-obsidian", "server-filesystem"):
        assert servers[name]["left"] == {"added": [], "changed": [], "removed": []}, name


def test_every_question_a_server_is_asked_is_in_the_tool_table_the_docs_show() -> None:
    for server in SERVERS:
        assert set(server.asks) == set(server.how), server.name
        assert set(server.asks) <= set(QUESTIONS), server.name
    table = peers.tools_table([s.name for s in SERVERS])
    page = (REPO_ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert "\n".join(table) in page, "docs/benchmarks.md shows another tool table than bench/peers.py prints"


def test_an_answer_that_does_not_hold_what_was_asked_is_not_counted_as_answered() -> None:
    case = Case("Projects/Cache plan.md", "Cache plan", "deploy the rollback window", "latency", None)
    assert answered("read by path", case, '{"text": "We Deploy the Rollback Window at noon."}')
    assert not answered("read by path", case, "Projects/Cache plan.md: Error - ENOENT")
    assert answered("rare phrase", case, '[{"path": "Projects/Cache plan.md", "line": 4}]')
    assert not answered("rare phrase", case, '[{"path": "Projects/Other.md", "line": 4}]')
    assert not answered("title", case, "No matches found")
    assert answered("common word", case, "… the latency budget …") and not answered("common word", case, "[]")
