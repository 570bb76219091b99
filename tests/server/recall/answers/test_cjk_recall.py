"""Recall in Chinese, Japanese and Korean, through the recall answer function: a question finds
a note by the bigrams they share (ranking/words.py), `matched` names the bigrams held, and a
question mixing a Latin word with CJK keeps its CJK part."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.vaults import write_vault
from vault_recall.server.recall.answers.recall_records import recall_context
from vault_recall.server.recall.answers.search import search_notes
from vault_recall.server.recall.results import RecallResult
from vault_recall.server.recall.scope import Exposure, Scope

BUDGET_NOTE = "会议/项目预算讨论.md"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_vault(
        tmp_path / "Vault",
        {
            BUDGET_NOTE: "本季度的项目预算需要重新分配\n",
            "会议/周会.md": "周会改到星期三下午。\n",
            "插件/启动.md": "Obsidian启动太慢的时候，先关掉社区插件，再一个一个打开。\n",
            "Obsidian startup.md": "Obsidian starts slowly when many plugins load at once.\n",
            "会議/予算.md": "来期の予算は会議で決めます。\n",
            "회의/예산.md": "다음 분기 예산을 다시 나누기로 했다.\n",
            "Cats.md": "我家的猫很胖。\n",
        },
    )


def whole_vault(vault: Path, query: str, **options: Any) -> RecallResult:
    return recall_context(Scope(client="t", vault=vault, exposure=Exposure(mode="vault")), None, query, **options)


def first(result: RecallResult) -> dict[str, Any]:
    assert result["status"] == "ok" and result["records"], result
    found: dict[str, Any] = dict(result["records"][0])
    return found


@pytest.mark.parametrize("query", ["项目预算", "预算", "项目预算讨论", "本季度的项目预算需要重新分配"])
def test_a_chinese_question_finds_the_chinese_note(vault: Path, query: str) -> None:
    found = first(whole_vault(vault, query))
    assert found["path"] == BUDGET_NOTE
    assert found["coverage"] == 1.0


def test_matched_names_the_bigrams_held_and_the_fields_holding_them(vault: Path) -> None:
    result = whole_vault(vault, "项目预算")
    assert first(result)["matched"] == {"项目": ["title", "body"], "目预": ["title", "body"], "预算": ["title", "body"]}
    assert result.get("weak_match") is False
    # The title holds 预算 alone of 预算分配: the note holds it, not the bigram of two words.
    partly = first(whole_vault(vault, "预算分配"))
    assert partly["path"] == BUDGET_NOTE
    assert set(partly["matched"]) == {"预算", "分配"}  # 算分 is held by no note: not named


def test_a_mixed_question_keeps_its_cjk_part(vault: Path) -> None:
    result = whole_vault(vault, "Obsidian启动太慢怎么办")
    records = result["records"]
    assert records[0]["path"] == "插件/启动.md"
    assert {"obsidian", "启动", "动太", "太慢"} <= set(records[0]["matched"])
    # No word is taken for another: no respelling, and the note in English holds one word of seven.
    assert not any("→" in word for r in records for word in r["matched"])
    english = next(r for r in records if r["path"] == "Obsidian startup.md")
    assert english["matched"] == {"obsidian": ["title", "body"]}
    assert english["coverage"] < 0.5


@pytest.mark.parametrize(
    ("query", "path"),
    [("予算", "会議/予算.md"), ("会議の予算", "会議/予算.md"), ("예산", "회의/예산.md"), ("예산을", "회의/예산.md")],
)
def test_japanese_and_korean_find_their_notes(vault: Path, query: str, path: str) -> None:
    assert first(whole_vault(vault, query))["path"] == path


def test_a_lone_letter_is_found_wherever_it_is_written(vault: Path) -> None:
    found = first(whole_vault(vault, "猫"))
    assert found["path"] == "Cats.md" and found["matched"] == {"猫": ["body"]}


def test_the_strict_match_holds_bigrams_and_letters_too(vault: Path) -> None:
    assert first(whole_vault(vault, "项目预算", match="all"))["path"] == BUDGET_NOTE
    assert first(whole_vault(vault, "猫", match="all"))["path"] == "Cats.md"
    assert whole_vault(vault, "预算 zzzqx", match="all")["records"] == []


def test_a_bigram_no_note_holds_is_never_respelt(vault: Path) -> None:
    result = whole_vault(vault, "预算 熊猫")
    assert first(result)["path"] == BUDGET_NOTE
    assert first(result)["matched"] == {"预算": ["title", "body"]}
    assert result.get("weak_match") is True


def test_search_notes_finds_a_phrase_inside_a_cjk_run(vault: Path) -> None:
    scope = Scope(client="t", vault=vault, exposure=Exposure(mode="vault"))
    found = search_notes(scope, "预算")
    assert [hit["path"] for hit in found["records"]] == [BUDGET_NOTE]
