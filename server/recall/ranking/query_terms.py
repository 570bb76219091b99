"""A recall query as the terms it looks for, and how many of a text's words each term matches.

A term is one meaningful query word, matched by its stem: 'caching' finds 'cache', 'cached'
and 'caches', in every language of the call.  Stop words are dropped; framing words
("decide", "use") are kept but not required (stopwords.py says why).  How a term's words are
found in a text without splitting it into words: word_scans.py.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from vault_recall.server.recall.ranking.abbreviations import abbreviation_pairs
from vault_recall.server.recall.ranking.languages import Language, languages_for
from vault_recall.server.recall.ranking.word_scans import (
    EVERY_WORD,
    Scan,
    Stem,
    common_start,
    could_have_stem,
    scans_for,
    stem_start,
    words_found,
)
from vault_recall.server.recall.ranking.words import fold_for_ranking, folded_words, is_cjk


@dataclass(frozen=True)
class QueryPhrase:
    """Words written in a row ('pull request', 'pull-requests'): all but the last as given, the
    last by its stem."""

    words: tuple[str, ...]
    scan: Scan
    last: frozenset[Stem]  # the stems the last word may have


@dataclass(frozen=True)
class Term:
    """One query word that is not a stop word (or a run of words an abbreviation stands for)."""

    word: str  # as folded ('caching'; 'pull request')
    stems: frozenset[Stem]  # of the word, and of a one-word abbreviation of it or meaning
    # False for a framing word ("decide") and for a word of the subject asked about ("build"
    # in subject build-system: every record of the subject is about it).
    required: bool
    scans: tuple[Scan, ...]
    phrases: tuple[QueryPhrase, ...] = ()
    # A general word ("keep", "machen"; stopwords.py): ranked as a topic word, not required.
    general: bool = False
    # A guess: a word the query's languages know, taken for another of its family the stemmer
    # parts (spelling.py): found, but never held as asked — the answer is marked weak.
    respelt: bool = False
    # A framing word ("decide", "policy"): how a question is asked, not what it is about.
    framing: bool = False


@dataclass(frozen=True)
class Query:
    terms: tuple[Term, ...]
    languages: tuple[Language, ...]
    dropped: tuple[str, ...] = ()  # stop words, as folded
    # Required terms so common among the records ranked that a record without one is not a
    # weaker answer (relevance.common_terms): set once the records are counted.
    common: frozenset[int] = frozenset()
    # Per term, how many of the records ranked hold it (record_terms.satisfies): set with `common`.
    held_by: tuple[int, ...] = ()
    # Each folded query word that folding changed, with the word as written (lowercased):
    # 'informacao' ← 'informação'.  A language's word list holds the words as written.
    written: tuple[tuple[str, str], ...] = ()

    def forms(self, folded_word: str) -> tuple[str, ...]:
        """A query word as folded and as written."""
        return (folded_word, *(word for folded, word in self.written if folded == folded_word))

    @cached_property
    def gates(self) -> tuple[str, ...]:
        """What a text must hold somewhere for any term to be found in it."""
        scans = [scan for term in self.terms for scan in (*term.scans, *(p.scan for p in term.phrases))]
        return tuple(dict.fromkeys(scan.gate for scan in scans))

    @property
    def required(self) -> tuple[int, ...]:
        """The terms a record must hold all of to satisfy the query fully: its meaningful words.
        None at all ("what did we decide about the build system?" in build-system): any record
        of the subject satisfies it."""
        return tuple(i for i, term in enumerate(self.terms) if term.required)

    @property
    def meaningful(self) -> tuple[int, ...]:
        """Every term but the framing words: the required ones, the subject's own words, general
        words and the parts of a hyphenated word.  A record holding none is no answer at all;
        one holding only those that are not required is the closest there is when no record
        holds a required one (relevance.Ranked)."""
        return tuple(i for i, term in enumerate(self.terms) if not term.framing)

    @property
    def counted(self) -> tuple[int, ...]:
        """The required terms `weak_match` and `coverage` ask a record to hold together."""
        return tuple(i for i in self.required if i not in self.common)

    @property
    def holdable(self) -> frozenset[int]:
        """The counted terms a record can hold: every one, a word taken for a misspelt one too —
        held, it counts toward `coverage` (a guess still marks the answer weak: record_terms.satisfies)."""
        return frozenset(self.counted)


@dataclass
class StemMemo:
    """Stems of the words one call has looked at: made per call, never kept."""

    languages: tuple[Language, ...]
    known: dict[str, frozenset[Stem]] = field(default_factory=dict)
    # (word, language) → the word's stem in it: what `holds` has stemmed.
    one: dict[tuple[str, str], str] = field(default_factory=dict)

    def stems(self, folded_word: str) -> frozenset[Stem]:
        found = self.known.get(folded_word)
        if found is None:
            found = frozenset((lang.name, lang.stem(folded_word)) for lang in self.languages)
            self.known[folded_word] = found
        return found

    def holds(self, folded_word: str, stems: frozenset[Stem]) -> bool:
        """Whether the word has one of `stems` — stemmed only in the languages where it could:
        a word whose stem is a stem starts as its scans look for (word_scans.py), so a word
        that does not is never stemmed in that language.  The same answer as `stems`, at a
        fraction of the cost when a call matches several languages."""
        for name, stem in stems:
            if not could_have_stem(folded_word, name, stem):
                continue
            key = (folded_word, name)
            found = self.one.get(key)
            if found is None:
                found = self.one[key] = next(lang for lang in self.languages if lang.name == name).stem(folded_word)
            if found == stem:
                return True
        return False


# Words joined by a hyphen ('Wi-Fi', 'e-mail', 'add-on', 'Hetzner-Konsole'): one unit.
_JOINED = re.compile(r"\w+(?:[-\u2010\u2011]\w+)*")


_PART_AT_LEAST = 3  # letters of a hyphenated word's part that ranks on its own ('e' of 'e-mail' does not)


def joined_runs(folded: str) -> list[tuple[str, ...]]:
    """The words of a folded text, each run of words joined by hyphens kept together — but a
    run holding CJK letters as its words (words.py) each on its own, its bigrams too."""
    runs: list[tuple[str, ...]] = []
    for run in _JOINED.findall(folded):
        found = folded_words(run)
        if any(is_cjk(word) for word in found):
            runs += [(word,) for word in found]
        else:
            runs.append(tuple(found))
    return runs


def parse_query(query: str, configured: Sequence[str], subject: str = "") -> Query:
    """The query's terms, in the order given, one per distinct meaning; `subject` is the subject
    asked about, whose own words every record of it satisfies.  Words joined by a hyphen are one
    term, found written so, apart ('wi fi') or as one word ('wifi'): a note writing 'WiFi'
    matches 'Wi-Fi', and the parts are not two words a record must each hold."""
    runs = joined_runs(fold_for_ranking(query))
    tokens = [word for run in runs for word in run]
    languages = languages_for(tokens, configured)
    memo = StemMemo(languages)
    implied = frozenset(stem for word in folded_words(subject.replace("-", " ")) for stem in memo.stems(word))
    table = Equivalents.of(memo)
    terms: list[Term] = []
    dropped: list[str] = []
    # A run holding a stop word is read word by word: 'peut-on', 'avons-nous', 'add-on'.
    joined = _joined_starts(runs, languages)
    at = 0
    for words, forms in table.groups(tokens, joined):
        hyphenated = joined.get(at) == len(words)
        at += len(words)
        if len(words) == 1 and any(words[0] in lang.stop for lang in languages):
            dropped.append(words[0])
            continue
        term = _term(("-" if hyphenated else " ").join(words), forms, memo, implied)
        # A hyphenated word's parts are optional: each ranks ('spreadsheet' of 'spreadsheet-like')
        # as a general word, never required.
        parts = (
            [replace(_term(w, [(w,)], memo, implied), required=False, general=True) for w in words]
            if hyphenated
            else []
        )
        for found in (term, *(p for p in parts if len(p.word) >= _PART_AT_LEAST)):
            if any((found.stems, found.phrases) == (known.stems, known.phrases) for known in terms):
                continue  # 'cache caching': one term
            terms.append(found)
    lowered = EVERY_WORD.findall(unicodedata.normalize("NFKC", query).lower())
    written = {(fold_for_ranking(word), word) for word in lowered if fold_for_ranking(word) != word}
    return Query(
        terms=tuple(terms),
        languages=languages,
        dropped=tuple(dict.fromkeys(dropped)),
        written=tuple(sorted(written)),
    )


def respelt(
    query: Query, corrections: dict[int, str], memo: StemMemo, asked_forms: frozenset[int] = frozenset()
) -> Query:
    """`query` with the term at each index of `corrections` looking for the word given instead,
    shown as both ('pestisides → pesticides'): spelling.py says when.  At an index in
    `asked_forms` the word given is the word asked, not a guess: the correction of a word no
    language of the call knows, one of its family the stemmer parts ('registration →
    registered') or its other English spelling ('pseudonymized → pseudonymised').  Held, it
    satisfies; a guess held only counts toward `coverage`."""
    terms = list(query.terms)
    for at, word in corrections.items():
        found = _term(word, [(word,)], memo, frozenset())
        terms[at] = replace(found, word=f"{terms[at].word} → {word}", respelt=at not in asked_forms)
    return replace(query, terms=tuple(terms), common=frozenset(), held_by=())


def _joined_starts(runs: list[tuple[str, ...]], languages: Sequence[Language]) -> dict[int, int]:
    """Token index → length, for each run of two or more words joined by hyphens, none of them
    a stop word."""
    starts: dict[int, int] = {}
    at = 0
    for run in runs:
        if len(run) > 1 and not any(word in lang.stop for word in run for lang in languages):
            starts[at] = len(run)
        at += len(run)
    return starts


def _term(shown: str, forms: list[tuple[str, ...]], memo: StemMemo, implied: frozenset[Stem]) -> Term:
    own = forms[0]
    single = [form[0] for form in forms if len(form) == 1]
    stems = {stem for word in single for stem in memo.stems(word)}
    # A framing word finds the others of its meaning: 'decide' finds 'decision'.
    framing = set()
    if len(own) == 1:
        framing = {(lang.name, s) for lang in memo.languages for s in lang.framing_meaning(lang.stem(own[0]))}
    stems |= framing
    scans: dict[str, Scan] = {}
    for scan in scans_for(frozenset(stems)):
        scans.setdefault(scan.pattern.pattern, scan)
    phrases = tuple(_phrase(form, memo) for form in forms if len(form) > 1)
    about_subject = all(not memo.stems(word).isdisjoint(implied) for word in own)
    general = len(own) == 1 and not framing and any(own[0] in lang.general for lang in memo.languages)
    return Term(
        word=shown,
        stems=frozenset(stems),
        required=not framing and not about_subject and not general,
        scans=tuple(scans.values()),
        phrases=phrases,
        general=general,
        framing=bool(framing),
    )


@dataclass(frozen=True)
class Equivalents:
    """The abbreviation table (abbreviations.py) as one call matches it: each entry a set of
    forms (one-word or several words) that stand for one another."""

    memo: StemMemo
    entries: tuple[tuple[tuple[str, ...], ...], ...]

    @classmethod
    def of(cls, memo: StemMemo) -> Equivalents:
        return cls(memo=memo, entries=_table())

    def groups(
        self, tokens: list[str], joined: dict[int, int] | None = None
    ) -> list[tuple[tuple[str, ...], list[tuple[str, ...]]]]:
        """The query's words in order, a run of words that a table entry spells out taken as
        one: (the words as written, every form they match — their own first).  `joined`: token
        index → length of each run of words joined by hyphens, taken as one too, written apart
        or as one word ('wi fi', 'wifi') — unless a table entry spells out a longer run."""
        found: list[tuple[tuple[str, ...], list[tuple[str, ...]]]] = []
        at = 0
        while at < len(tokens):
            size, entry = self._longest_at(tokens, at)
            run = (joined or {}).get(at, 0)
            if run > size:
                size, entry = run, None
            words = tuple(tokens[at : at + size])
            forms = [words] + ([form for form in entry if not self._same(form, words)] if entry else [])
            if run == size and ("".join(words),) not in forms:
                forms.append(("".join(words),))
            found.append((words, forms))
            at += size
        return found

    def _longest_at(self, tokens: list[str], at: int) -> tuple[int, tuple[tuple[str, ...], ...] | None]:
        best: tuple[int, tuple[tuple[str, ...], ...] | None] = (1, None)
        for entry in self.entries:
            for form in entry:
                size = len(form)
                if size >= best[0] and self._same(form, tuple(tokens[at : at + size])):
                    best = (size, entry)
        return best

    def _same(self, form: tuple[str, ...], words: tuple[str, ...]) -> bool:
        """All but the last word as written, the last by its stem or an 's' ('pull requests',
        'DBs': a stemmer leaves words without vowels alone)."""
        if len(form) != len(words) or form[:-1] != words[:-1]:
            return False
        last, said = form[-1], words[-1]
        if last in (said, said.removesuffix("s")):
            return True
        # Words sharing a stem start alike (word_scans.py relies on it): stem only those.
        return last[:2] == said[:2] and not self.memo.stems(last).isdisjoint(self.memo.stems(said))


@functools.cache
def _table() -> tuple[tuple[tuple[str, ...], ...], ...]:
    """abbreviations.py as entries of forms, each form its folded words: the abbreviation first."""
    by_short: dict[str, list[tuple[str, ...]]] = {}
    for short, meaning in abbreviation_pairs():
        by_short.setdefault(short, [(short,)]).append(tuple(folded_words(meaning)))
    return tuple(tuple(forms) for forms in by_short.values())


def _phrase(words: tuple[str, ...], memo: StemMemo) -> QueryPhrase:
    last = memo.stems(words[-1])
    start = common_start([stem_start(stem) for _, stem in last] + [words[-1]])
    pattern = r"\W+".join(re.escape(word) for word in words[:-1]) + r"\W+" + re.escape(start) + r"\w*"
    return QueryPhrase(words=words, scan=Scan(gate=words[0], pattern=re.compile(pattern)), last=last)


def term_counts(text: str, query: Query, memo: StemMemo) -> list[int]:
    """How many words (or runs of words) of `text` (folded) each term of `query` matches."""
    if not any(gate in text for gate in query.gates):
        return [0] * len(query.terms)  # the common case for a title, an alias, a tag
    by_scan: dict[str, Counter[str]] = {}
    counts = []
    for term in query.terms:
        words: dict[str, int] = {}
        for scan in term.scans:
            key = scan.pattern.pattern
            if key not in by_scan:
                by_scan[key] = words_found(text, scan)
            words.update(by_scan[key])
        found = sum(n for word, n in words.items() if memo.holds(word, term.stems))
        for phrase in term.phrases:
            runs = words_found(text, phrase.scan)
            found += sum(n for run, n in runs.items() if memo.holds(_last_word(run), phrase.last))
        counts.append(found)
    return counts


def _last_word(run: str) -> str:
    words: list[str] = EVERY_WORD.findall(run)
    return words[-1]


def count_in(texts: Sequence[str], query: Query, memo: StemMemo) -> list[int]:
    """term_counts over several short texts (a note's aliases, its tags), folded here."""
    return term_counts("\n".join(fold_for_ranking(text) for text in texts), query, memo)
