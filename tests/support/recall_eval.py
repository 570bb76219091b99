"""The recall-quality evaluation, shared by `python -m bench.recall_quality` (which prints its
tables) and the tests of it: the queries and hand-written vaults of bench/recall_eval/, a
stable copy of each vault, plain BM25 as the baseline, and running every method over every
query.

Three hand-written vaults live in bench/recall_eval/ (`dev`, `holdout`, a different
organisation kept for checking that figures carry over, and `cjk`, a small one in Chinese,
Japanese and Korean) with the queries in
bench/recall_eval/queries.json.  Each query names a subject, a style (keywords, question,
paraphrase, distinctive, no_answer) and the active decision records a person would accept;
no_answer queries expect nothing.

Each vault is copied to a temporary folder and every file's mtime is set from a hash of its
path, so "newest first" ties fall the same way on every run.  Methods:

- ours (default): `recall_context(scope, subject, query, budget=65536, limit=3)`;
- ours (match=all): the same with `match="all"`, the strict mode;
- BM25, BM25+stem: `Bm25` below over the subject's active decision records (title, aliases,
  tags and body), top 3, nothing when no record has a query word; words as recall splits them
  (Unicode word runs, a run of CJK letters as its bigrams: ranking/words.py).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.paths import REPO_ROOT
from vault_recall.server.recall.answers.recall_records import recall_context
from vault_recall.server.recall.finding.scan import each_record
from vault_recall.server.recall.ranking.words import words as split_words
from vault_recall.server.recall.records import MemoryRecord
from vault_recall.server.recall.scope import Exposure, Scope
from vault_recall.server.vault.listing import list_notes

EVAL_ROOT = REPO_ROOT / "bench" / "recall_eval"
QUERIES_FILE = EVAL_ROOT / "queries.json"
VAULTS = ("dev", "holdout", "cjk")
STYLES = ("keywords", "question", "paraphrase", "distinctive", "no_answer")
ANSWERABLE = STYLES[:4]
LIMIT = 3
BUDGET = 65536
# mtimes are spread over 2025 from a hash of each path: stable, and different per note.
_MTIME_BASE = 1_735_689_600  # 2025-01-01T00:00:00Z
_MTIME_SPREAD = 365 * 24 * 3600


# ---------------------------------------------------------------------------------------------
# Queries


@dataclass(frozen=True)
class Query:
    id: str
    vault: str
    subject: str
    style: str
    query: str
    expected: tuple[str, ...]
    lang: str


def load_queries(path: Path = QUERIES_FILE) -> list[Query]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return [
        Query(
            id=item["id"],
            vault=item["vault"],
            subject=item["subject"],
            style=item["style"],
            query=item["query"],
            expected=tuple(item["expected"]),
            lang=item["lang"],
        )
        for item in raw
    ]


def query_slice(queries: Sequence[Query], per_style: int) -> list[Query]:
    """At most `per_style` queries of each (vault, style), spread evenly over the file's order
    (so over several subjects), always the same ones."""
    groups: dict[tuple[str, str], list[Query]] = {}
    for query in queries:
        groups.setdefault((query.vault, query.style), []).append(query)
    chosen: set[str] = set()
    for group in groups.values():
        count = min(per_style, len(group))
        chosen.update(group[(i * len(group)) // count].id for i in range(count))
    return [query for query in queries if query.id in chosen]


# ---------------------------------------------------------------------------------------------
# Vaults


def stable_mtime_ns(relative_path: str) -> int:
    digest = hashlib.sha256(relative_path.encode("utf-8")).digest()
    return (_MTIME_BASE + int.from_bytes(digest[:8], "big") % _MTIME_SPREAD) * 1_000_000_000


@contextmanager
def prepared_vault(name: str, source: Path = EVAL_ROOT) -> Iterator[Path]:
    """A temporary copy of the named vault with every file's mtime set from its path."""
    with tempfile.TemporaryDirectory(prefix="recall-eval-") as folder:
        vault = Path(folder) / name
        shutil.copytree(source / name, vault)
        for path in sorted(vault.rglob("*")):
            if path.is_file():
                mtime = stable_mtime_ns(path.relative_to(vault).as_posix())
                os.utime(path, ns=(mtime, mtime))
        yield vault


def decision_records(vault: Path, subject: str) -> list[MemoryRecord]:
    """The subject's active decision records: what recall_context answers from."""
    return [
        record
        for record in each_record(vault, list_notes(vault), subject)
        if isinstance(record, MemoryRecord) and record.status == "active" and record.kind == "decision"
    ]


# ---------------------------------------------------------------------------------------------
# BM25


Stemmer = Callable[[list[str]], list[str]]


def words(text: str, stem: Stemmer | None = None) -> list[str]:
    """Unicode word runs of the NFKC-normalised, casefolded text, a run of CJK letters as its
    bigrams (as Lucene's CJK analyzer); stemmed when asked."""
    found = split_words(text)
    return stem(found) if stem is not None else found


def english_stemmer() -> Stemmer:
    import snowballstemmer  # type: ignore[import-untyped]  # only the stemmed baseline needs it

    stemmer = snowballstemmer.stemmer("english")

    def stem(tokens: list[str]) -> list[str]:
        return list(stemmer.stemWords(tokens))

    return stem


@dataclass(frozen=True)
class Bm25:
    """Okapi BM25 over documents given as word lists, with Lucene's idf
    `ln(1 + (N - df + 0.5) / (df + 0.5))`.  Each distinct query word counts once; documents
    without any query word are not returned; ties go by document key."""

    documents: Mapping[str, Sequence[str]]
    k1: float = 1.2
    b: float = 0.75
    _counts: dict[str, Counter[str]] = field(init=False, repr=False, compare=False)
    _df: Counter[str] = field(init=False, repr=False, compare=False)
    _average_length: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        counts = {key: Counter(tokens) for key, tokens in self.documents.items()}
        df: Counter[str] = Counter()
        for counted in counts.values():
            df.update(counted.keys())
        lengths = [len(tokens) for tokens in self.documents.values()]
        object.__setattr__(self, "_counts", counts)
        object.__setattr__(self, "_df", df)
        object.__setattr__(self, "_average_length", sum(lengths) / len(lengths) if lengths else 0.0)

    def idf(self, word: str) -> float:
        n, df = len(self.documents), self._df[word]
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def score(self, key: str, query: Sequence[str]) -> float:
        counted = self._counts[key]
        norm = self.k1 * (1 - self.b + self.b * len(self.documents[key]) / (self._average_length or 1.0))
        total = 0.0
        for word in dict.fromkeys(query):
            tf = counted[word]
            if tf:
                total += self.idf(word) * tf * (self.k1 + 1) / (tf + norm)
        return total

    def rank(self, query: Sequence[str], limit: int = LIMIT) -> list[tuple[str, float]]:
        scored = [(key, self.score(key, query)) for key in self.documents]
        scored = [(key, value) for key, value in scored if value > 0]
        scored.sort(key=lambda item: (-item[1], item[0]))
        return scored[:limit]


def record_text(record: MemoryRecord) -> str:
    note = record.note
    return "\n".join((note.title, *note.aliases, *note.tags, note.body))


# ---------------------------------------------------------------------------------------------
# Methods


@dataclass(frozen=True)
class Answer:
    paths: tuple[str, ...]
    weak: tuple[bool, ...] = ()
    error: str | None = None


Method = Callable[[Path, str, str], Answer]  # (vault folder, subject, query) -> answer


def ours(match: str | None, budget: int = BUDGET) -> Method:
    """recall_context as a plain function; `match` None leaves the default."""

    def run(vault: Path, subject: str, query: str) -> Answer:
        options: dict[str, Any] = {} if match is None else {"match": match}
        scope = Scope(client="eval", vault=vault, exposure=Exposure())
        try:
            result = recall_context(scope, subject, query, budget=budget, limit=LIMIT, **options)
        except Exception as error:  # reported per query; one mode failing must not end the run
            return Answer((), (), f"{type(error).__name__}: {error}")
        records = result.get("records") or []
        # `weak_match` belongs to the whole answer: no returned record holds every meaningful word.
        weak = bool(result.get("weak_match", False))
        return Answer(tuple(str(r["path"]) for r in records), tuple(weak for _ in records))

    return run


def bm25(stem: Stemmer | None) -> Method:
    """BM25 over the subject's active decision records, built once per (vault, subject)."""
    built: dict[tuple[Path, str], Bm25] = {}

    def run(vault: Path, subject: str, query: str) -> Answer:
        index = built.get((vault, subject))
        if index is None:
            docs = {r.note.path: words(record_text(r), stem) for r in decision_records(vault, subject)}
            index = built[(vault, subject)] = Bm25(docs)
        ranked = index.rank(words(query, stem))
        return Answer(tuple(key for key, _ in ranked), tuple(False for _ in ranked))

    return run


def default_methods(budget: int = BUDGET) -> dict[str, Method]:
    return {
        "ours (default)": ours(None, budget),
        "ours (match=all)": ours("all", budget),
        "BM25": bm25(None),
        "BM25+stem": bm25(english_stemmer()),
    }


# ---------------------------------------------------------------------------------------------
# Evaluation


@dataclass(frozen=True)
class Outcome:
    query_id: str
    method: str
    style: str
    paths: tuple[str, ...]
    weak: tuple[bool, ...]
    error: str | None
    hit_at_1: bool | None  # None for no_answer queries
    hit_at_3: bool | None

    @property
    def empty(self) -> bool:
        return not self.paths

    @property
    def all_weak(self) -> bool:
        return bool(self.paths) and all(self.weak)

    @property
    def confident(self) -> bool:
        return bool(self.paths) and not all(self.weak)


def metric_names() -> list[str]:
    names = [f"{style} hit@{k}" for style in ANSWERABLE for k in (1, 3)]
    # "unmarked hit@3" / "marked hit@3": of the answerable queries answered with records, those
    # not marked weak_match (or marked), the share holding a record meant among the first three.
    # The mark is worth trusting when the first is near 1 and the second well below it.
    return [
        *names,
        "answerable empty",
        "answerable weak",
        "unmarked hit@3",
        "marked hit@3",
        "no_answer empty",
        "no_answer weak",
        "no_answer confident",
    ]


@dataclass
class Report:
    vault: str
    methods: list[str]
    queries: list[Query]
    outcomes: list[Outcome]
    records: int  # memory records in the vault
    decisions: dict[str, int]  # subject -> active decision records

    def outcomes_of(self, method: str, styles: Sequence[str]) -> list[Outcome]:
        return [o for o in self.outcomes if o.method == method and o.style in styles]

    def rate(self, method: str, metric: str) -> float | None:
        """A share in [0, 1], or None when no query of that kind was run."""
        head, tail = metric.split(" ", 1)
        if head in ANSWERABLE:
            chosen = self.outcomes_of(method, [head])
            return _share(chosen, (lambda o: bool(o.hit_at_1)) if tail == "hit@1" else (lambda o: bool(o.hit_at_3)))
        if head in ("unmarked", "marked"):
            answered = [o for o in self.outcomes_of(method, ANSWERABLE) if o.paths]
            chosen = [o for o in answered if o.all_weak == (head == "marked")]
            return _share(chosen, lambda o: bool(o.hit_at_3))
        # For answerable queries and no-answer ones alike: answered with nothing, with records
        # all marked weak_match, or with one record at least looking confident.
        test: Callable[[Outcome], bool] = {
            "empty": lambda o: o.empty,
            "weak": lambda o: o.all_weak,
            "confident": lambda o: o.confident,
        }[tail]
        return _share(self.outcomes_of(method, ANSWERABLE if head == "answerable" else ["no_answer"]), test)

    def figures(self) -> dict[str, dict[str, float | None]]:
        return {method: {name: self.rate(method, name) for name in metric_names()} for method in self.methods}

    def errors(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.error is not None]

    def style_counts(self) -> dict[str, int]:
        counted = Counter(q.style for q in self.queries)
        return {style: counted[style] for style in STYLES}


def _share(outcomes: Sequence[Outcome], test: Callable[[Outcome], bool]) -> float | None:
    return sum(1 for o in outcomes if test(o)) / len(outcomes) if outcomes else None


def evaluate(vault_name: str, queries: Sequence[Query], methods: Mapping[str, Method] | None = None) -> Report:
    """Run every query of `vault_name` against every method over one prepared copy of the vault."""
    chosen = [q for q in queries if q.vault == vault_name]
    methods = dict(methods) if methods is not None else default_methods()
    outcomes: list[Outcome] = []
    with prepared_vault(vault_name) as vault:
        all_records = [r for r in each_record(vault, list_notes(vault), None) if isinstance(r, MemoryRecord)]
        decisions = Counter(
            subject for r in all_records if r.status == "active" and r.kind == "decision" for subject in r.subjects
        )
        for query in chosen:
            for name, method in methods.items():
                answer = method(vault, query.subject, query.query)
                hit1: bool | None = None
                hit3: bool | None = None
                if query.style != "no_answer":
                    hit1 = bool(answer.paths[:1]) and answer.paths[0] in query.expected
                    hit3 = any(path in query.expected for path in answer.paths[:3])
                weak = answer.weak if len(answer.weak) == len(answer.paths) else tuple(False for _ in answer.paths)
                outcomes.append(Outcome(query.id, name, query.style, answer.paths, weak, answer.error, hit1, hit3))
    return Report(vault_name, list(methods), chosen, outcomes, len(all_records), dict(sorted(decisions.items())))
