"""The recall-quality evaluation (tests/support/recall_eval.py, which bench/recall_quality.py
runs): its queries agree with its vaults, its report covers every method and style, and its
BM25 baseline behaves as BM25 should.  Figures are printed by the script, never asserted here."""

from __future__ import annotations

import math
import os
from collections import Counter
from pathlib import Path

import pytest

from tests.support import recall_eval as rq
from vault_recall.server.recall.finding.scan import each_record
from vault_recall.server.recall.records import MemoryRecord
from vault_recall.server.vault.listing import list_notes

QUERIES = rq.load_queries()
MINIMUM_PER_STYLE = {
    "dev": {"keywords": 50, "question": 50, "paraphrase": 50, "distinctive": 50, "no_answer": 30},
    "holdout": {"keywords": 20, "question": 20, "paraphrase": 20, "distinctive": 20, "no_answer": 12},
    "cjk": dict.fromkeys(rq.STYLES, 6),
}


def records_by_path(vault: str) -> dict[str, MemoryRecord]:
    root = rq.EVAL_ROOT / vault
    found = {}
    for record in each_record(root, list_notes(root), None):
        assert isinstance(record, MemoryRecord), f"{vault}: invalid note {record}"
        found[record.note.path] = record
    return found


RECORDS = {vault: records_by_path(vault) for vault in rq.VAULTS}


# --- the queries file ------------------------------------------------------------------------


def test_query_ids_are_unique_and_every_field_is_known() -> None:
    ids = Counter(q.id for q in QUERIES)
    assert [i for i, n in ids.items() if n > 1] == []
    assert {q.vault for q in QUERIES} == set(rq.VAULTS)
    assert {q.style for q in QUERIES} == set(rq.STYLES)
    assert all(q.query.strip() and q.lang for q in QUERIES)


def test_every_vault_has_enough_queries_of_every_style() -> None:
    counts = Counter((q.vault, q.style) for q in QUERIES)
    short = {(v, s): (counts[(v, s)], n) for v, need in MINIMUM_PER_STYLE.items() for s, n in need.items()}
    assert {key: got for key, got in short.items() if got[0] < got[1]} == {}


def test_every_expected_record_is_an_active_decision_of_its_subject() -> None:
    wrong = []
    for query in QUERIES:
        for path in query.expected:
            record = RECORDS[query.vault].get(path)
            if not (rq.EVAL_ROOT / query.vault / path).is_file() or record is None:
                wrong.append((query.id, path, "not a record"))
            elif (record.status, record.kind) != ("active", "decision") or query.subject not in record.subjects:
                wrong.append((query.id, path, f"{record.status} {record.kind} of {record.subjects}"))
    assert wrong == []


def test_no_answer_queries_expect_nothing_and_the_others_expect_something() -> None:
    assert [q.id for q in QUERIES if (q.style == "no_answer") != (q.expected == ())] == []


def test_a_distinctive_query_is_written_in_one_of_its_expected_records() -> None:
    def text(vault: str, path: str) -> str:
        return (rq.EVAL_ROOT / vault / path).read_text(encoding="utf-8").casefold()

    absent = [
        q.id
        for q in QUERIES
        if q.style == "distinctive" and not any(q.query.casefold() in text(q.vault, p) for p in q.expected)
    ]
    assert absent == []


def test_every_subject_asked_about_has_decisions_an_archived_record_and_an_event() -> None:
    lacking = []
    for vault, subject in sorted({(q.vault, q.subject) for q in QUERIES}):
        kinds = Counter((r.status, r.kind) for r in RECORDS[vault].values() if subject in r.subjects)
        if kinds[("active", "decision")] < 3 or kinds[("archived", "decision")] < 1 or kinds[("active", "event")] < 1:
            lacking.append((vault, subject, dict(kinds)))
    assert lacking == []


# --- running the evaluation ------------------------------------------------------------------


def test_the_report_gives_every_method_and_style_a_rate_between_0_and_1() -> None:
    pytest.importorskip("snowballstemmer")
    chosen = rq.query_slice(QUERIES, 5)
    report = rq.evaluate("dev", chosen)
    assert report.methods == ["ours (default)", "ours (match=all)", "BM25", "BM25+stem"]
    assert report.style_counts() == dict.fromkeys(rq.STYLES, 5)
    assert len(report.outcomes) == 5 * len(rq.STYLES) * len(report.methods)
    figures = report.figures()
    assert set(figures) == set(report.methods)
    for method, rates in figures.items():
        assert set(rates) == set(rq.metric_names()), method
        # "marked hit@3" has no answers to count for a method that never marks one.
        calibration = {"unmarked hit@3", "marked hit@3"}
        assert all(rates[m] is not None for m in rates if m not in calibration), (method, rates)
        assert all(rate is None or 0 <= rate <= 1 for rate in rates.values()), (method, rates)
        no_answer = [rates[f"no_answer {kind}"] for kind in ("empty", "weak", "confident")]
        assert sum(r for r in no_answer if r is not None) == pytest.approx(1), (method, no_answer)


def test_the_slice_takes_the_same_queries_every_time_from_several_subjects() -> None:
    first, second = rq.query_slice(QUERIES, 5), rq.query_slice(QUERIES, 5)
    assert [q.id for q in first] == [q.id for q in second]
    assert Counter((q.vault, q.style) for q in first) == {(v, s): 5 for v in rq.VAULTS for s in rq.STYLES}
    assert len({q.subject for q in first if q.vault == "dev" and q.style == "keywords"}) >= 4


def test_the_vault_copy_gets_the_same_spread_of_mtimes_every_time() -> None:
    def mtimes() -> dict[str, int]:
        with rq.prepared_vault("holdout") as vault:
            return {p.relative_to(vault).as_posix(): os.stat(p).st_mtime_ns for p in vault.rglob("*.md")}

    first = mtimes()
    assert first == mtimes()
    assert len(first) == len(list((rq.EVAL_ROOT / "holdout").rglob("*.md")))
    assert len(set(first.values())) == len(first)


def test_a_call_of_ours_that_raises_is_reported_as_an_empty_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuses(*args: object, **kwargs: object) -> dict[str, object]:
        raise TypeError("recall_context() got an unexpected keyword argument 'match'")

    monkeypatch.setattr(rq, "recall_context", refuses)
    answer = rq.ours("all")(Path("."), "build-system", "bazel")
    assert answer.paths == ()
    assert answer.error is not None and answer.error.startswith("TypeError: ")


def test_weak_and_confident_answers_to_no_answer_queries_are_told_apart() -> None:
    chosen = [q for q in rq.query_slice(QUERIES, 2) if q.vault == "holdout"]
    some = rq.Answer(("a.md", "b.md"), (True, True))
    methods: dict[str, rq.Method] = {
        "nothing": lambda vault, subject, query: rq.Answer(()),
        "all weak": lambda vault, subject, query: some,
        "one strong": lambda vault, subject, query: rq.Answer(("a.md", "b.md"), (True, False)),
        "no flags": lambda vault, subject, query: rq.Answer(("a.md",)),
    }
    figures = rq.evaluate("holdout", chosen, methods).figures()
    shares = {m: tuple(figures[m][f"no_answer {k}"] for k in ("empty", "weak", "confident")) for m in methods}
    assert shares == {
        "nothing": (1, 0, 0),
        "all weak": (0, 1, 0),
        "one strong": (0, 0, 1),
        "no flags": (0, 0, 1),
    }
    assert figures["nothing"]["answerable empty"] == 1
    assert figures["all weak"]["answerable empty"] == 0


def test_the_weak_marks_calibration_counts_hits_among_unmarked_and_marked_answers_apart() -> None:
    chosen = [q for q in QUERIES if q.vault == "holdout" and q.style in ("keywords", "no_answer")][:12]
    answerable = [q for q in chosen if q.style == "keywords"]
    assert len(answerable) >= 4 and len(answerable) < len(chosen)
    hits = {q.id for q in answerable[:3]}  # three hits, the other answerable queries missed

    def marks_the_misses(vault: Path, subject: str, text: str) -> rq.Answer:
        query = next(q for q in chosen if q.query == text and q.subject == subject)
        if query.id in hits:
            return rq.Answer((query.expected[0],), (False,))
        return rq.Answer(("elsewhere.md",), (True,))

    def marks_nothing(vault: Path, subject: str, text: str) -> rq.Answer:
        answer = marks_the_misses(vault, subject, text)
        return rq.Answer(answer.paths, tuple(False for _ in answer.paths))

    methods: dict[str, rq.Method] = {"calibrated": marks_the_misses, "unmarked": marks_nothing}
    figures = rq.evaluate("holdout", chosen, methods).figures()
    assert figures["calibrated"]["unmarked hit@3"] == 1
    assert figures["calibrated"]["marked hit@3"] == 0
    assert figures["calibrated"]["no_answer weak"] == 1  # no-answer queries count in neither share
    assert figures["unmarked"]["unmarked hit@3"] == pytest.approx(3 / len(answerable))
    assert figures["unmarked"]["marked hit@3"] is None


def test_a_hit_counts_only_when_an_expected_record_is_returned_in_place() -> None:
    query = next(q for q in QUERIES if q.vault == "holdout" and q.style == "keywords")
    target = query.expected[0]
    methods: dict[str, rq.Method] = {
        "first": lambda vault, subject, text: rq.Answer((target, "x.md", "y.md")),
        "third": lambda vault, subject, text: rq.Answer(("x.md", "y.md", target)),
        "fourth": lambda vault, subject, text: rq.Answer(("x.md", "y.md", "z.md", target)),
    }
    figures = rq.evaluate("holdout", [query], methods).figures()
    got = {m: (figures[m]["keywords hit@1"], figures[m]["keywords hit@3"]) for m in methods}
    assert got == {"first": (1, 1), "third": (0, 1), "fourth": (0, 0)}


# --- the BM25 baseline -----------------------------------------------------------------------


def test_words_are_normalised_casefolded_unicode_runs() -> None:
    assert rq.words("Straße ＡＢＣ cherry-pick über_all") == ["strasse", "abc", "cherry", "pick", "über_all"]


def test_stemming_puts_word_forms_together() -> None:
    pytest.importorskip("snowballstemmer")
    stem = rq.english_stemmer()
    assert rq.words("Releases released releasing", stem) == ["releas"] * 3


def test_bm25_weighs_a_rare_word_more_than_a_common_one() -> None:
    index = rq.Bm25({"a": ["common", "rare"], "b": ["common", "other"], "c": ["common", "thing"]})
    assert index.idf("rare") > index.idf("common") > 0
    assert [key for key, _ in index.rank(["common", "rare"])] == ["a", "b", "c"]


def test_bm25_returns_only_records_with_a_query_word() -> None:
    index = rq.Bm25({"with": ["pgbouncer", "pool"], "without": ["postgres", "pool"]})
    assert [key for key, _ in index.rank(["pgbouncer"])] == ["with"]
    assert index.rank(["mongodb"]) == []


def test_bm25_prefers_the_shorter_record_when_both_have_the_word_once() -> None:
    docs = {"long": ["cache", *["filler"] * 20], "short": ["cache", "filler"]}
    assert [key for key, _ in rq.Bm25(docs).rank(["cache"])] == ["short", "long"]
    flat = rq.Bm25(docs, b=0.0)
    assert flat.score("long", ["cache"]) == pytest.approx(flat.score("short", ["cache"]))


def test_bm25_scores_by_the_formula_and_breaks_ties_by_path() -> None:
    index = rq.Bm25({"b.md": ["y", "y", "z", "z"], "a.md": ["x", "y"]})
    # N = 2, df(x) = 1, avgdl = 3: idf = ln(1 + 1.5 / 1.5); tf part = 1 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2 / 3))
    assert index.score("a.md", ["x"]) == pytest.approx(math.log(2) * 2.2 / 1.9)
    assert index.score("a.md", ["x", "x"]) == index.score("a.md", ["x"])
    tied = rq.Bm25({"b.md": ["same"], "a.md": ["same"], "c.md": ["other"]})
    assert [key for key, _ in tied.rank(["same"])] == ["a.md", "b.md"]
    assert len(rq.Bm25({f"{i}.md": ["w"] for i in range(5)}).rank(["w"])) == rq.LIMIT
