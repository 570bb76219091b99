"""End to end: recall asked the way assistants ask, over real `vault-recall serve` processes."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.support.e2e import call, copy_sample_vault, paths, serving
from tests.support.recall_eval import EVAL_ROOT, bm25, english_stemmer, load_queries
from vault_recall.server.recall.answers.recall_records import recall_context
from vault_recall.server.recall.scope import Exposure, Scope

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

NOTE = "Projects/Build/Build decision.md"
CACHE = "Projects/Build/CI cache.md"


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    return copy_sample_vault(tmp_path / "Sample vault")


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("bazel", NOTE),
        ("build system decision", NOTE),
        ("what did we decide about the build system", NOTE),
        ("why did we choose bazel over make", NOTE),
        ("caching", CACHE),
        ("Why do CI jobs write to the remote caches?", CACHE),
    ],
)
async def test_the_sample_vault_s_questions_find_the_note_meant_first(sample: Path, query: str, first: str) -> None:
    async with serving("claude-code", sample) as session:
        answer = await call(session, "recall_context", {"subject": "build-system", "query": query})
    assert answer["status"] == "ok"
    assert paths(answer)[0] == first
    assert answer["weak_match"] is False
    assert answer["records"][0]["coverage"] == 1.0


async def test_a_question_about_something_never_decided_comes_back_ok_and_empty(sample: Path) -> None:
    async with serving("cursor", sample) as session:
        answer = await call(
            session, "recall_context", {"subject": "build-system", "query": "what did we decide about GPU runners?"}
        )
        strict = await call(
            session,
            "recall_context",
            {"subject": "build-system", "query": "what did we decide about GPU runners?", "match": "all"},
        )
    # 'decide' only frames the question: a note holding 'decision' holds none of what was asked,
    # so no note comes back in its place (the recall contract), and the answer says how many
    # current records there are to ask about instead.
    assert (answer["status"], answer["records"], answer["omitted"]) == ("ok", [], 0)
    assert answer["weak_match"] is True and answer["current_records"] == 3 and answer["hint"]
    assert (strict["records"], strict["weak_match"]) == ([], True)


async def test_without_a_query_the_current_records_come_newest_first(sample: Path) -> None:
    os.utime(sample / CACHE, (1_900_000_000, 1_900_000_000))
    os.utime(sample / NOTE, (1_800_000_000, 1_800_000_000))
    async with serving("cursor", sample) as session:
        answer = await call(session, "recall_context", {"subject": "build-system"})
        empty = await call(session, "recall_context", {"subject": "build-system", "query": ""})
    assert paths(answer)[:2] == [CACHE, NOTE]
    assert "weak_match" not in answer
    assert paths(empty) == paths(answer)


async def test_every_query_style_is_answered_over_stdio_as_by_the_plain_function(tmp_path: Path) -> None:
    """Three queries of each style of the evaluation, through a real server: the same records
    in the same order and the same weak flag as the plain function, and at least as many hits
    in the top three as BM25 with stemming on the same records."""
    vault = tmp_path / "dev"
    shutil.copytree(EVAL_ROOT / "dev", vault)
    chosen = []
    for style in ("keywords", "question", "paraphrase", "distinctive", "no_answer"):
        chosen += [q for q in load_queries() if q.vault == "dev" and q.style == style][:3]
    scope = Scope(client="eval", vault=vault, exposure=Exposure())
    baseline = bm25(english_stemmer())
    ours_hits = baseline_hits = 0
    async with serving("eval", vault) as session:
        for query in chosen:
            served = await call(session, "recall_context", {"subject": query.subject, "query": query.query})
            plain = recall_context(scope, query.subject, query.query)
            assert paths(served) == paths(plain), query.query
            assert served.get("weak_match") == plain.get("weak_match"), query.query
            if query.style == "no_answer":
                # Nothing, or only records said to be weak: never a confident answer.
                assert served["weak_match"] is True, query.query
                continue
            ours_hits += any(path in query.expected for path in paths(served)[:3])
            theirs = baseline(vault, query.subject, query.query).paths[:3]
            baseline_hits += any(path in query.expected for path in theirs)
    assert ours_hits >= baseline_hits
