"""A record's term counts per field, found by the fast looks (headings and tags only when the
body holds a term, headings by one search) — equal to stemming every word of every field."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from vault_recall.server.obsidian.note import Note, parse_note
from vault_recall.server.obsidian.syntax import parse_inline_tags
from vault_recall.server.recall.ranking.query_terms import Query, StemMemo, parse_query
from vault_recall.server.recall.ranking.record_terms import evidence_of
from vault_recall.server.recall.ranking.words import folded_words

BODY_PIECES = [
    "cache", "Caching", "cached", "deploy", "deploys", "#cache", "#ci/cache", "#deploy-plan", "x#cache",
    "\n# Cache plan\n", "\n## Deploying\n", "\n   ### cached things\n", "\n#### \n", "\n####### cache\n",
    "\n```\n# cache in code\n#deploy\n```\n", "\n~~~\ncache\n~~~\n", "`#cache`", "\n> # quoted cache\n",
    " ", "\n", "\n\n", "-", "é", "Policy", "policies",
]  # fmt: skip
TAGS = ["cache", "deploy/prod", "Policies", "misc"]
ALIASES = ["Cache plan", "Deploy rules", "other"]
QUERIES = ["cache", "deploy", "policy", "cache deploy", "what is our caching policy?"]


def naive(note: Note, query: Query) -> dict[str, list[int]]:
    def count(texts: list[str]) -> list[int]:
        words = Counter(w for text in texts for w in folded_words(text))
        found = []
        for term in query.terms:
            stems = [{(lang.name, lang.stem(w)) for lang in query.languages} for w in words]
            found.append(sum(n for (w, n), s in zip(words.items(), stems, strict=True) if s & term.stems))
        return found

    return {
        "title": count([note.title]),
        "aliases": count(list(note.aliases)),
        "heading": count([heading.text for heading in note.headings]),
        "tags": count([*note.tags, *parse_inline_tags(note.body)]),
        "body": count([note.body]),
    }


@given(
    st.lists(st.sampled_from(BODY_PIECES), max_size=25),
    st.lists(st.sampled_from(TAGS), max_size=3, unique=True),
    st.lists(st.sampled_from(ALIASES), max_size=2, unique=True),
    st.sampled_from(QUERIES),
)
def test_a_record_s_counts_are_those_of_stemming_every_word_of_every_field(
    body: list[str], tags: list[str], aliases: list[str], asked: str
) -> None:
    properties = f"---\nsubject: s\ntags: [{', '.join(tags)}]\naliases: [{', '.join(aliases)}]\n---\n"
    note = parse_note("Notes/Cache decision.md", (properties + " ".join(body)).encode(), 0)
    assert isinstance(note, Note)
    query = parse_query(asked, ("english",))
    found = evidence_of(note, query, StemMemo(query.languages))
    expected = naive(note, query)
    assert {name: list(counts) for name, counts in found.counts.items()} == expected
