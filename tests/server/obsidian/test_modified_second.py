"""`modified_second` orders and ties notes exactly as their `modified` text does."""

from __future__ import annotations

import datetime as dt

from hypothesis import example, given
from hypothesis import strategies as st

from vault_recall.server.obsidian.note import iso_utc, modified_second

SECOND = 1_000_000_000
TIMES = st.one_of(
    st.integers(0, 2**32 * SECOND),  # the common range
    st.integers(-(2**63), 2**63 - 1),  # anything a file system may store
    st.integers(0, 2**33).map(lambda s: s * SECOND + SECOND - 1),  # a nanosecond before a second
    st.integers(0, 2**33).map(lambda s: s * SECOND + SECOND - 600),  # rounding to microseconds carries
)


def shown(seconds: int) -> str:
    return (dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


@example(1_764_611_234_999_999_500)
@example(1_764_611_234_999_990_000)
@example(2**32 * SECOND)
@example(-1)
@example(253_402_300_800 * SECOND)
@given(TIMES)
def test_the_second_is_the_one_the_modified_text_shows(mtime_ns: int) -> None:
    assert shown(modified_second(mtime_ns)) == iso_utc(mtime_ns)


@given(TIMES, TIMES)
def test_two_times_compare_as_their_modified_texts_do(first: int, second: int) -> None:
    a, b = modified_second(first), modified_second(second)
    assert (a < b, a == b) == (iso_utc(first) < iso_utc(second), iso_utc(first) == iso_utc(second))
