"""BM25 over fields, as plain functions over numbers: the properties a person relies on."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from vault_recall.server.recall.ranking.bm25 import Evidence, coverage, idf, scores
from vault_recall.server.recall.results import FIELDS

TERMS = 3


def evidence(counts: dict[str, list[int]], length: int) -> Evidence:
    return Evidence.of({name: counts.get(name, [0] * TERMS) for name in FIELDS}, length)


field_counts = st.lists(st.integers(0, 6), min_size=TERMS, max_size=TERMS)
records = st.builds(
    evidence,
    st.dictionaries(st.sampled_from(FIELDS), field_counts, max_size=len(FIELDS)),
    st.integers(1, 20_000),
)
weights = st.lists(st.sampled_from([1.0, 0.5]), min_size=TERMS, max_size=TERMS)


def holding_none(length: int) -> Evidence:
    return evidence({}, length)


def holding_all(count: int, length: int, field: str) -> Evidence:
    return evidence({field: [count] * TERMS}, length)


@given(
    st.lists(records, max_size=8),
    st.integers(1, 5),
    st.integers(1, 20_000),
    st.integers(1, 20_000),
    st.sampled_from(FIELDS),
    weights,
)
def test_a_record_holding_every_query_word_never_ranks_below_one_holding_none(
    others: list[Evidence], count: int, full_length: int, empty_length: int, field: str, term_weights: list[float]
) -> None:
    found = scores([holding_all(count, full_length, field), holding_none(empty_length), *others], term_weights)
    assert found[0] > found[1] == 0.0


@given(st.lists(records, min_size=2, max_size=8), weights, st.integers(0, 5))
def test_an_unrelated_note_changes_each_word_s_order_of_two_others_only_through_its_weight(
    corpus: list[Evidence], term_weights: list[float], extra_notes: int
) -> None:
    """A note holding no query word, as long as the average, moves only the words' idf: for
    each word alone, the order of the records it scores is unchanged."""
    average = round(sum(r.length for r in corpus) / len(corpus))
    widened = corpus + [holding_none(average)] * extra_notes
    for term in range(TERMS):
        only = [0.0] * TERMS
        only[term] = 1.0
        before = scores(corpus, only)
        after = scores(widened, only)[: len(corpus)]
        for a in range(len(corpus)):
            for b in range(len(corpus)):
                if before[a] > before[b] * (1 + 1e-9):
                    assert after[a] > after[b]


@given(st.integers(2, 30), st.integers(1, 29))
def test_a_rare_word_weighs_more_than_a_common_one(records_count: int, holding: int) -> None:
    holding = min(holding, records_count - 1)
    assert idf(records_count, holding) > idf(records_count, holding + 1) > 0


def test_a_hit_in_the_title_aliases_heading_or_tags_weighs_more_than_in_the_body() -> None:
    for field in ("title", "aliases", "heading", "tags"):
        named = evidence({field: [1, 0, 0]}, 500)
        mentioned = evidence({"body": [1, 0, 0]}, 500)
        first, second, _ = scores([named, mentioned, holding_none(500)], [1.0, 1.0, 1.0])
        assert first > second > 0


def test_a_long_note_does_not_win_by_length_alone() -> None:
    short = evidence({"body": [2, 0, 0]}, 300)
    long_ = evidence({"body": [6, 0, 0]}, 9_000)  # three times the mentions, thirty times the text
    found = scores([short, long_, holding_none(1000)], [1.0, 1.0, 1.0])
    assert found[0] > found[1]
    # Repeating a word saturates: ten times the mentions is far from ten times the score.
    once, tenfold = scores([evidence({"body": [1, 0, 0]}, 500), evidence({"body": [10, 0, 0]}, 500)], [1, 1, 1])
    assert tenfold < 2.5 * once


def test_a_framing_word_counts_half() -> None:
    topic = evidence({"body": [1, 0, 0]}, 500)
    framing = evidence({"body": [0, 1, 0]}, 500)
    first, second = scores([topic, framing], [1.0, 0.5, 1.0])
    assert abs(second - first / 2) < 1e-9


def test_coverage_is_the_share_of_required_words_held_anywhere() -> None:
    record = evidence({"title": [1, 0, 0], "body": [0, 0, 2]}, 100)
    assert coverage(record, [0, 1, 2]) == 2 / 3
    assert coverage(record, [0, 2]) == 1.0
    assert coverage(record, []) == 1.0


@given(st.lists(records, max_size=8), st.lists(st.integers(1, 20_000), max_size=8), weights, st.randoms())
def test_records_holding_no_term_may_be_counted_instead_of_listed(
    listed: list[Evidence], lengths: list[int], term_weights: list[float], rng: object
) -> None:
    """A record holding no query word scores nothing and changes others' scores only as one
    more record of its length: counted with its length, never listed, every other score is
    the same float as when it is listed — wherever among the others it was."""
    unlisted = [holding_none(length) for length in lengths]
    together = [*listed, *unlisted]
    order = list(range(len(together)))
    rng.shuffle(order)  # type: ignore[attr-defined]
    mixed = [together[i] for i in order]
    every = dict(zip(order, scores(mixed, term_weights), strict=True))
    counted = scores(listed, term_weights, holding_none=(len(lengths), sum(lengths)))
    assert counted == [every[i] for i in range(len(listed))]
    assert all(every[i] == 0 for i in range(len(listed), len(together)))
