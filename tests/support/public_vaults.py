"""Public real vaults for the recall evaluation: the questions kept in
bench/recall_eval/public/<name>.json, the vault itself materialised from a pinned commit of a
public repository that we did not write, and a BM25+stem baseline over it.

No file of those vaults is kept in this repository.  Each JSON names the repository, the
commit, the subfolder that is the vault (`""`: the whole repository), and questions written
before anything was run over the vault: `{id, style, query, expected, folder, lang}`, where
`expected` are vault-relative note paths and `folder` is the top-level folder a question
belongs to (for no_answer questions, the folder a person would ask in).  `folders` gives one
subject per top-level folder (a slug of its name): the "one folder rule per top-level folder"
way of asking.

`materialised_vault(spec, source)` writes the vault's notes (`*.md`) and its `.obsidian/`
settings at the pinned commit into a temporary folder, from `source`: a clone of the
repository or a bare git directory holding that commit.  Only notes and settings are written:
recall reads nothing else, and a partial mirror may lack large media blobs.  Every file's
mtime is set from its path as in recall_eval.py, so ties fall the same way on every run.

The baseline is recall_eval.py's `Bm25` with the English Snowball stemmer over every note of
the vault (`folder=None`) or over the notes under one top-level folder, each note read as
title, aliases, tags and body (what recall_eval.py reads of a record).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tests.support.recall_eval import (
    ANSWERABLE,
    BUDGET,
    EVAL_ROOT,
    LIMIT,
    STYLES,
    Answer,
    Bm25,
    Stemmer,
    english_stemmer,
    metric_names,
    stable_mtime_ns,
    words,
)
from vault_recall.server.obsidian.note import Note, parse_note
from vault_recall.server.recall.answers.recall_records import recall_context
from vault_recall.server.recall.answers.search import search_notes
from vault_recall.server.recall.ranking.languages import stop_words
from vault_recall.server.recall.ranking.words import fold_for_ranking, query_words
from vault_recall.server.recall.scope import Exposure, Scope
from vault_recall.server.recall.subject_rules import SubjectRule, SubjectRules
from vault_recall.server.vault.listing import list_notes

PUBLIC_ROOT = EVAL_ROOT / "public"
SETTINGS_FOLDER = ".obsidian"
_COMMIT = re.compile(r"[0-9a-f]{40}")
_REGULAR_FILE_MODES = {"100644", "100755"}
SEARCH_HITS = 20  # hits a search_notes call returns by default


# ---------------------------------------------------------------------------------------------
# The questions


@dataclass(frozen=True)
class PublicQuestion:
    id: str
    style: str
    query: str
    expected: tuple[str, ...]
    folder: str
    lang: str


@dataclass(frozen=True)
class FolderSubject:
    folder: str  # a top-level folder of the vault
    subject: str  # the slug its one folder rule gives its notes
    notes: int  # notes under it at the pinned commit


@dataclass(frozen=True)
class PublicVault:
    name: str
    repository: str
    commit: str
    vault: str  # the repository folder that is the vault; "" for the repository's root
    description: str
    questions_written: str
    notes: int
    folders: tuple[FolderSubject, ...]
    questions: tuple[PublicQuestion, ...]

    def subject_of(self, folder: str) -> str:
        return next(f.subject for f in self.folders if f.folder == folder)


def folder_slug(folder: str) -> str:
    """A subject slug for a folder name: lower case, each run of other characters one '-'."""
    return re.sub(r"[^a-z0-9]+", "-", folder.casefold()).strip("-")


def public_vault_names(root: Path = PUBLIC_ROOT) -> list[str]:
    return sorted(path.stem for path in root.glob("*.json"))


def load_public_vault(name: str, root: Path = PUBLIC_ROOT) -> PublicVault:
    raw: dict[str, Any] = json.loads((root / f"{name}.json").read_text(encoding="utf-8"))
    return PublicVault(
        name=raw["name"],
        repository=raw["repository"],
        commit=raw["commit"],
        vault=raw["vault"],
        description=raw["description"],
        questions_written=raw["questions_written"],
        notes=raw["notes"],
        folders=tuple(FolderSubject(f["folder"], f["subject"], f["notes"]) for f in raw["folders"]),
        questions=tuple(
            PublicQuestion(
                id=q["id"],
                style=q["style"],
                query=q["query"],
                expected=tuple(q["expected"]),
                folder=q["folder"],
                lang=q["lang"],
            )
            for q in raw["questions"]
        ),
    )


def top_folder(path: str) -> str:
    """The top-level folder of a vault-relative path; "" for a note at the vault's root."""
    head, slash, _ = path.partition("/")
    return head if slash else ""


# ---------------------------------------------------------------------------------------------
# The vault, materialised from its pinned commit


class SourceError(Exception):
    """The repository given cannot provide the pinned vault; the message says what to do."""


def _git(source: Path, *args: str, stdin: bytes | None = None) -> bytes:
    """`git` run against `source`, a bare git directory or a clone's work tree."""
    place = (
        ["--git-dir", str(source)]
        if (source / "objects").is_dir() and (source / "HEAD").is_file()
        else ["-C", str(source)]
    )
    done = subprocess.run(["git", *place, *args], input=stdin, capture_output=True, check=False)
    if done.returncode != 0:
        problem = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SourceError(f"git {' '.join(args[:2])} in {source} failed: {problem[-1] if problem else done.returncode}")
    return done.stdout


def vault_files(spec: PublicVault, source: Path) -> dict[str, str]:
    """Vault-relative path -> blob id: every note and every `.obsidian/` file at the commit.
    Notes in other hidden folders stay out, as Vault Recall's listing leaves them out."""
    if not _COMMIT.fullmatch(spec.commit):
        raise SourceError(f"{spec.name}: commit {spec.commit!r} is not a full 40-digit commit id")
    try:
        _git(source, "cat-file", "-e", f"{spec.commit}^{{commit}}")
    except SourceError:
        raise SourceError(
            f"{source} does not hold commit {spec.commit} of {spec.repository}; "
            f"run `git -C {source} fetch origin {spec.commit}` or clone {spec.repository} again"
        ) from None
    listing = _git(
        source, "ls-tree", "-r", "-z", "--full-tree", spec.commit, *([f"{spec.vault}/"] if spec.vault else [])
    )
    prefix = f"{spec.vault}/" if spec.vault else ""
    found: dict[str, str] = {}
    for entry in listing.decode("utf-8").split("\0"):
        if not entry:
            continue
        meta, _, path = entry.partition("\t")
        mode, kind, blob = meta.split(" ")
        if kind != "blob" or mode not in _REGULAR_FILE_MODES or not path.startswith(prefix):
            continue
        relative = path[len(prefix) :]
        parts = relative.split("/")
        if parts[0] == SETTINGS_FOLDER or (relative.endswith(".md") and not any(p.startswith(".") for p in parts)):
            found[relative] = blob
    return found


def _blobs(source: Path, blob_ids: Sequence[str]) -> Iterator[bytes]:
    """Each blob's bytes, in order, through one `git cat-file --batch`."""
    out = _git(source, "cat-file", "--batch", stdin="".join(f"{b}\n" for b in blob_ids).encode())
    at = 0
    for blob in blob_ids:
        header_end = out.index(b"\n", at)
        header = out[at:header_end].decode()
        if header.endswith(" missing"):
            raise SourceError(f"{source} lacks blob {blob} of the pinned vault; clone the repository in full")
        size = int(header.rsplit(" ", 1)[1])
        yield out[header_end + 1 : header_end + 1 + size]
        at = header_end + 1 + size + 1  # the blob, then its newline


def source_candidates(spec: PublicVault, places: Sequence[Path]) -> list[Path]:
    """Where, under each of `places`, a git directory of the vault's repository may be: a clone
    named as the repository (`obsidian-help`, as docs/benchmarks.md clones it), a bare clone
    (`obsidian-help.git`), or a mirror kept as `OWNER+NAME/repo`."""
    owner, name = spec.repository.rstrip("/").split("/")[-2:]
    return [c for place in places for c in (place / name, place / f"{name}.git", place / f"{owner}+{name}" / "repo")]


def find_source(spec: PublicVault, places: Sequence[Path]) -> Path | None:
    """The first candidate (source_candidates) that holds the pinned commit; None when none does."""
    for candidate in source_candidates(spec, places):
        if not candidate.is_dir():
            continue
        try:
            _git(candidate, "cat-file", "-e", f"{spec.commit}^{{commit}}")
        except SourceError:
            continue
        return candidate
    return None


@contextmanager
def materialised_vault(spec: PublicVault, source: Path) -> Iterator[Path]:
    """A temporary folder holding the vault's notes and settings at the pinned commit, every
    file's mtime set from its path."""
    files = vault_files(spec, source)
    paths = sorted(files)
    with tempfile.TemporaryDirectory(prefix=f"recall-public-{spec.name}-") as folder:
        vault = Path(folder) / spec.name
        vault.mkdir()
        for relative, data in zip(paths, _blobs(source, [files[p] for p in paths]), strict=True):
            target = vault / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            mtime = stable_mtime_ns(relative)
            os.utime(target, ns=(mtime, mtime))
        yield vault


def missing_expected(spec: PublicVault, vault: Path) -> list[tuple[str, str]]:
    """(question id, path) for every expected note the materialised vault does not hold."""
    return [(q.id, path) for q in spec.questions for path in q.expected if not (vault / path).is_file()]


# ---------------------------------------------------------------------------------------------
# BM25+stem over ordinary notes


def note_text(note: Note) -> str:
    return "\n".join((note.title, *note.aliases, *note.tags, note.body))


def vault_notes(vault: Path) -> list[Note]:
    """Every note Vault Recall lists, parsed; a note whose properties are broken is read as
    Obsidian still shows it."""
    notes: list[Note] = []
    for path in list_notes(vault).paths:
        parsed = parse_note(path, (vault / path).read_bytes(), 0)
        note = parsed if isinstance(parsed, Note) else parsed.readable
        if note is not None:
            notes.append(note)
    return notes


PublicMethod = Callable[[Path, str | None, str], Answer]  # (vault, top-level folder or None, query)


def bm25_over_notes(stem: Stemmer | None) -> PublicMethod:
    """BM25 over every note of the vault (folder None) or over the notes under one top-level
    folder; each index is built once per (vault, folder)."""
    built: dict[tuple[Path, str | None], Bm25] = {}
    documents: dict[Path, Mapping[str, list[str]]] = {}

    def run(vault: Path, folder: str | None, query: str) -> Answer:
        index = built.get((vault, folder))
        if index is None:
            if vault not in documents:
                documents[vault] = {n.path: words(note_text(n), stem) for n in vault_notes(vault)}
            chosen = {p: d for p, d in documents[vault].items() if folder is None or top_folder(p) == folder}
            index = built[(vault, folder)] = Bm25(chosen)
        ranked = index.rank(words(query, stem), LIMIT)
        return Answer(tuple(path for path, _ in ranked), tuple(False for _ in ranked))

    return run


@dataclass(frozen=True)
class PublicOutcome:
    question_id: str
    method: str
    scope: str  # "vault" (every note) or "folder" (the question's top-level folder)
    style: str
    paths: tuple[str, ...]
    weak: tuple[bool, ...]
    error: str | None
    hit_at_1: bool | None  # None for no_answer questions
    hit_at_3: bool | None


SCOPES = ("vault", "folder")


def evaluate_public(
    spec: PublicVault, vault: Path, methods: Mapping[str, PublicMethod] | None = None
) -> list[PublicOutcome]:
    """Every question through every method, once over the whole vault and once within its folder."""
    chosen = dict(methods) if methods is not None else {"BM25+stem": bm25_over_notes(english_stemmer())}
    outcomes: list[PublicOutcome] = []
    for question in spec.questions:
        for name, method in chosen.items():
            for scope in SCOPES:
                answer = method(vault, None if scope == "vault" else question.folder, question.query)
                hit1: bool | None = None
                hit3: bool | None = None
                if question.style != "no_answer":
                    hit1 = bool(answer.paths[:1]) and answer.paths[0] in question.expected
                    hit3 = any(path in question.expected for path in answer.paths[:3])
                weak = answer.weak if len(answer.weak) == len(answer.paths) else tuple(False for _ in answer.paths)
                outcomes.append(
                    PublicOutcome(
                        question.id, name, scope, question.style, answer.paths, weak, answer.error, hit1, hit3
                    )
                )
    return outcomes


def hit_rates(outcomes: Sequence[PublicOutcome], method: str, scope: str) -> dict[str, float | None]:
    """hit@3 per answerable style, and for no_answer the share answered with anything."""
    rates: dict[str, float | None] = {}
    for style in STYLES:
        mine = [o for o in outcomes if o.method == method and o.scope == scope and o.style == style]
        if not mine:
            rates[style] = None
        elif style == "no_answer":
            rates[style] = sum(1 for o in mine if o.paths) / len(mine)
        else:
            rates[style] = sum(1 for o in mine if o.hit_at_3) / len(mine)
    return rates


# ---------------------------------------------------------------------------------------------
# Vault Recall over a public vault


def folder_rules(spec: PublicVault) -> SubjectRules:
    """One folder rule per top-level folder, each giving the subject `folders` names: what
    `vault-recall subject add SLUG --folder FOLDER` would keep in the config."""
    return SubjectRules(tuple(SubjectRule(subject=f.subject, folder=f.folder) for f in spec.folders))


def ours_over_notes(spec: PublicVault, match: str | None = None, budget: int = BUDGET) -> PublicMethod:
    """`recall_context` as a plain function: within a folder, with that folder's subject under
    the folder rules; over the whole vault, with no subject for a client exposed the whole
    vault and no rules (the vault as a new user has it)."""
    rules = folder_rules(spec)

    def run(vault: Path, folder: str | None, query: str) -> Answer:
        options: dict[str, Any] = {} if match is None else {"match": match}
        if folder is None:
            scope = Scope(client="eval", vault=vault, exposure=Exposure(mode="vault"))
            subject: str | None = None
        else:
            scope = Scope(client="eval", vault=vault, exposure=Exposure(rules=replace(rules, root=vault)))
            subject = spec.subject_of(folder)
        try:
            result = recall_context(scope, subject, query, budget=budget, limit=LIMIT, **options)
        except Exception as error:  # reported per question; one failing must not end the run
            return Answer((), (), f"{type(error).__name__}: {error}")
        paths = tuple(str(r["path"]) for r in result.get("records") or [])
        weak = bool(result.get("weak_match", False))
        return Answer(paths, tuple(weak for _ in paths))

    return run


def search_over_notes(spec: PublicVault, languages: Sequence[str] = ("english",)) -> PublicMethod:
    """What a model can do with `search_notes` alone, at its best: the whole question, then
    each of its meaningful words (stop words of `languages` left out) in turn, the notes in the
    order found (each search newest first), the first 3 distinct ones kept.  Within a folder
    the search is given that folder's subject under the folder rules."""
    rules = folder_rules(spec)
    stopped = frozenset().union(*(stop_words(name) for name in languages))

    def run(vault: Path, folder: str | None, query: str) -> Answer:
        if folder is None:
            scope = Scope(client="eval", vault=vault, exposure=Exposure(mode="vault"))
            subject: str | None = None
        else:
            scope = Scope(client="eval", vault=vault, exposure=Exposure(rules=replace(rules, root=vault)))
            subject = spec.subject_of(folder)
        found: dict[str, None] = {}
        asked = [query.strip(), *dict.fromkeys(w for w in query_words(query) if fold_for_ranking(w) not in stopped)]
        try:
            for phrase in asked:
                if len(found) >= LIMIT:
                    break
                if not phrase:
                    continue
                for hit in search_notes(scope, phrase, limit=SEARCH_HITS, subject=subject)["records"]:
                    found.setdefault(hit["path"])
        except Exception as error:  # as above
            return Answer((), (), f"{type(error).__name__}: {error}")
        paths = tuple(found)[:LIMIT]
        return Answer(paths, tuple(False for _ in paths))

    return run


def public_methods(spec: PublicVault, search: bool = True, budget: int = BUDGET) -> dict[str, PublicMethod]:
    """The methods the bench runs over a public vault, in its table's order (ours at `budget`)."""
    methods: dict[str, PublicMethod] = {"ours (default)": ours_over_notes(spec, budget=budget)}
    methods["BM25+stem"] = bm25_over_notes(english_stemmer())
    if search:
        methods["search_notes"] = search_over_notes(spec)
    return methods


def public_figures(outcomes: Sequence[PublicOutcome], method: str, scope: str) -> dict[str, float | None]:
    """recall_eval.py's figures (`metric_names`) for one method in one scope: hit@1 and hit@3
    per answerable style, and the shares of answerable and no_answer questions answered with
    nothing, with records all marked weak, and with a record looking confident."""
    mine = [o for o in outcomes if o.method == method and o.scope == scope]
    figures: dict[str, float | None] = {}
    for name in metric_names():
        head, tail = name.split(" ", 1)
        test: Callable[[PublicOutcome], bool]
        if head in ANSWERABLE:
            chosen = [o for o in mine if o.style == head]
            test = (lambda o: bool(o.hit_at_1)) if tail == "hit@1" else (lambda o: bool(o.hit_at_3))
        elif head in ("unmarked", "marked"):
            marked = head == "marked"
            chosen = [o for o in mine if o.style in ANSWERABLE and o.paths and all(o.weak) == marked]
            test = lambda o: bool(o.hit_at_3)  # noqa: E731
        else:
            chosen = [o for o in mine if (o.style in ANSWERABLE) == (head == "answerable")]
            test = {
                "empty": lambda o: not o.paths,
                "weak": lambda o: bool(o.paths) and all(o.weak),
                "confident": lambda o: bool(o.paths) and not all(o.weak),
            }[tail]
        figures[name] = sum(1 for o in chosen if test(o)) / len(chosen) if chosen else None
    return figures
