"""Stemming from several threads at once — two HTTP calls, or a call beside the pool's share —
gives each thread the stems one thread alone gets: a Snowball stemmer keeps its word in its own
fields, so threads must not share one."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator

import pytest

from vault_recall.server.recall.ranking import languages

WORDS = [
    word * repeat
    for word in ("running", "happily", "nationalization", "generously", "flying", "beautifulness", "überzeugung")
    for repeat in (1, 2, 3)
] * 40


@pytest.fixture
def switching_often() -> Iterator[None]:
    """Threads switch every microsecond, so that two stemmings interleave within one word."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


@pytest.mark.parametrize("name", ["english", "german"])
def test_threads_stemming_at_once_each_get_what_one_thread_gets(name: str, switching_often: None) -> None:
    language = languages.language(name)
    alone = [language.stem(word) for word in WORDS]
    problems: list[str] = []

    def stem_all() -> None:
        try:
            if [language.stem(word) for word in WORDS] != alone:
                problems.append("a thread got other stems")
        except Exception as error:  # the shared stemmer's IndexError, reported as the failure
            problems.append(repr(error))

    threads = [threading.Thread(target=stem_all) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert problems == []
