"""Packing: for any records and budget the result fits, holds only whole records, counts the rest."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from hypothesis import given
from hypothesis import strategies as st

from vault_recall.server.recall import packing
from vault_recall.server.recall.packing import Shaped, json_size, json_text_size
from vault_recall.server.recall.results import Packed


# The reference answers and these properties hold plain dicts; the packing functions are typed
# for the tools' own result types, which the same code serves whatever the type says.
def pack(envelope: Mapping[str, Any], candidates: Sequence[object], **kw: Any) -> dict[str, Any]:
    return cast("dict[str, Any]", packing.pack(cast(Packed, envelope), candidates, **kw))


TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=300)
RECORD = st.fixed_dictionaries(
    {
        "path": TEXT.map(lambda t: t + ".md"),
        "title": TEXT,
        "text": st.one_of(TEXT, st.text(max_size=3000)),
        "revision": st.text(alphabet="0123456789abcdef", min_size=64, max_size=64),
        "modified": st.just("2026-01-01T00:00:00Z"),
        "uri": TEXT,
        "matched": st.dictionaries(st.text(min_size=1, max_size=10), st.just(["body"]), max_size=3),
    }
)
ENVELOPE = st.fixed_dictionaries(
    {
        "status": st.sampled_from(["ok", "degraded"]),
        "untrusted": st.just(True),
        "vault": st.text(max_size=255),
        "subject": st.from_regex(r"[a-z0-9-]{1,64}", fullmatch=True),
    }
)
PROBLEM = st.fixed_dictionaries({"path": TEXT, "reason": st.text(max_size=400)})


@given(
    ENVELOPE,
    st.lists(RECORD, max_size=25),
    st.integers(512, 65536),
    st.integers(1, 20),
    st.one_of(st.none(), st.lists(PROBLEM, max_size=15)),
)
def test_the_result_fits_holds_whole_records_and_counts_the_rest(
    envelope: dict[str, Any],
    candidates: list[dict[str, Any]],
    budget: int,
    limit: int,
    problems: list[dict[str, Any]] | None,
) -> None:
    result = pack(envelope, candidates, budget=budget, limit=limit, problems=problems)
    assert json_size(result) <= budget
    returned = result["records"]
    assert len(returned) <= limit
    assert len(returned) + result["omitted"] == len(candidates)
    # Every returned record is one of the candidates, unchanged, in rank order.
    positions = [next(i for i, c in enumerate(candidates) if c is r) for r in returned]
    assert positions == sorted(positions)
    assert all(r == candidates[i] for r, i in zip(returned, positions, strict=True))
    if problems is not None:
        assert len(result["problems"]) + result["problems_omitted"] == len(problems)
        assert all(p in problems for p in result["problems"])


@given(st.lists(RECORD, min_size=1, max_size=10), st.integers(512, 65536))
def test_a_record_is_left_out_only_when_it_did_not_fit(candidates: list[dict[str, Any]], budget: int) -> None:
    result = pack({"status": "ok"}, candidates, budget=budget, limit=20)
    kept = result["records"]
    for candidate in candidates:
        if any(candidate is k for k in kept):
            continue
        # Judged with `omitted` at its largest value, as pack() must before it knows the final count.
        with_it = dict(result, records=[*kept, candidate], omitted=len(candidates))
        assert json_size(with_it) > budget


def test_a_record_that_alone_exceeds_the_budget_is_omitted_not_cut() -> None:
    big = {"path": "Big.md", "text": "x" * 5000}
    small = {"path": "Small.md", "text": "y"}
    result = pack({"status": "ok"}, [big, small], budget=1024, limit=3)
    assert result["records"] == [small]
    assert result["omitted"] == 1


def test_an_envelope_too_long_for_the_budget_is_shortened_never_a_record() -> None:
    result = pack({"status": "unavailable", "vault": "v" * 300, "reason": "r" * 900}, [], budget=512, limit=3)
    assert json_size(result) <= 512
    assert result["reason"].endswith("…")


@given(st.lists(RECORD, max_size=30), st.integers(512, 8192), st.integers(1, 20))
def test_lazily_shaped_candidates_pack_exactly_as_shaped_ones(
    candidates: list[dict[str, Any]], budget: int, limit: int
) -> None:
    shaped_on_demand: list[int] = []

    def shape(index: int) -> dict[str, Any]:
        shaped_on_demand.append(index)
        return candidates[index]

    indexes = list(range(len(candidates)))
    lazy = Shaped(indexes, shape, at_least=lambda index: len(candidates[index]["text"]))
    envelope = {"status": "ok", "untrusted": True}
    assert pack(envelope, lazy, budget=budget, limit=limit) == pack(envelope, candidates, budget=budget, limit=limit)
    # Passed over unshaped: candidates whose text alone could not fit.
    assert all(len(candidates[i]["text"]) < budget for i in shaped_on_demand)


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=200))
def test_a_text_size_is_its_json_size(text: str) -> None:
    assert json_text_size(text) == json_size(text)


# Every character JSON escapes, beside plain, accented and astral ones: so every branch of the
# count is drawn often, not only when the whole of UTF-8 happens to give one.
ESCAPE_HEAVY = st.text(alphabet=st.sampled_from([chr(c) for c in range(0x20)] + list('"\\/aé\u2028\U0001f642\x7f')))


@given(ESCAPE_HEAVY)
def test_a_text_full_of_escapes_is_sized_as_json_writes_it(text: str) -> None:
    assert json_text_size(text) == json_size(text)
