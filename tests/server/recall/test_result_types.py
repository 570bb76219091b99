"""Every tool's actual result has exactly the keys its type in recall/results.py allows — the
required ones, no others, at every depth (records, problems, hits, sections, subjects, changes)
— and every key a type allows turns up in some result, so the types say what the tools do.

Each tool's plain function is called on copies of the sample vault with a few notes added, in
the outcomes a result can have: ok, degraded, unavailable, a weak or no query, over budget, and
told of notes changed since.  The type checked is the one the function declares it returns.
"""

from __future__ import annotations

import itertools
import shutil
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ForwardRef, Literal, cast, get_args, get_origin, get_type_hints, is_typeddict

import pytest

import vault_recall.server
from tests.support.told_ledger import follow_up
from vault_recall.server.recall.answers import backlinks, reading, recall_records, search, subjects
from vault_recall.server.recall.answers.changed_since import HandedOutNotes
from vault_recall.server.recall.results import Envelope
from vault_recall.server.recall.scope import Exposure, ExposureMode, Scope

SAMPLE_VAULT = Path(vault_recall.server.__file__).resolve().parent.parent / "assets" / "sample-vault"
HANDED = 12  # notes handed out, then changed, before a call that is told of it (at most 10 told)

# Notes added to the sample vault: a line longer than a hit shows, a note over a small budget,
# one whose properties alone are, and notes to hand out and change.
EXTRA = {
    "Long line.md": "---\nsubject: build-system\n---\n# Long\n\n" + "word " * 60 + "cache" + " word" * 60 + "\n",
    "Big.md": "# Big\n\n" + "".join(f"## Part {n}\n\n" + "text " * 30 + "\n\n" for n in range(40)),
    "Heavy.md": "---\nnotes: " + "p" * 1500 + "\n---\n# Heavy\n\nshort\n",
    **{f"Handed/Note {n}.md": f"# Note {n}\n\nhanded out\n" for n in range(HANDED)},
}
# Broken records of one subject, naming a phrase searched for and linking to a note.
BROKEN = {
    f"Broken/Broken {n}.md": "---\nsubject: build-system\nstatus: maybe\n---\nThe cache broke: [[CI cache]].\n"
    for n in range(12)
}


@dataclass(frozen=True)
class Case:
    tool: Callable[..., object]
    args: tuple[object, ...]
    vault: str = "ok"  # ok | broken | none | missing
    mode: ExposureMode = "records"
    told: bool = False  # told of notes changed since they were handed out
    notice: str | None = None  # the vault's own notice (the bundled sample vault's)


CASES = {
    "recall_context newest": Case(recall_records.recall_context, ("build-system",)),
    "recall_context ranked": Case(recall_records.recall_context, ("build-system", "why did we choose bazel?")),
    "recall_context weak": Case(recall_records.recall_context, ("build-system", "zzz qqq")),
    "recall_context every word": Case(recall_records.recall_context, ("build-system", "bazel cache", 4096, 3, "all")),
    "recall_context over budget": Case(recall_records.recall_context, ("build-system", None, 512, 20)),
    "recall_context ranked over budget": Case(
        recall_records.recall_context, ("build-system", "bazel cache make", 1024, 20)
    ),
    "recall_context whole vault": Case(recall_records.recall_context, (None, "cache")),
    "recall_context in passages": Case(recall_records.recall_context, (None, "part text", 2048), mode="vault"),
    "recall_context whole vault seen": Case(recall_records.recall_context, (None, "cache"), mode="vault"),
    "recall_context degraded": Case(recall_records.recall_context, ("build-system", "cache"), "broken"),
    "recall_context no vault": Case(recall_records.recall_context, ("build-system", "cache"), "none"),
    "recall_context vault gone": Case(recall_records.recall_context, ("build-system",), "missing"),
    "recall_context told": Case(recall_records.recall_context, ("build-system", "cache"), mode="vault", told=True),
    "recall_activity events": Case(recall_records.recall_activity, ("build-system",)),
    "recall_activity dated query": Case(recall_records.recall_activity, ("build-system", "2026-01-01", "cache outage")),
    "recall_activity weak degraded": Case(recall_records.recall_activity, ("build-system", None, "zzz"), "broken"),
    "recall_activity no vault": Case(recall_records.recall_activity, ("build-system",), "none"),
    "recall_activity told": Case(recall_records.recall_activity, ("build-system",), mode="vault", told=True),
    "read_note whole": Case(reading.read_note, ("Build decision",)),
    "read_note section": Case(reading.read_note, ("Build decision", "We build with Bazel")),
    "read_note over budget": Case(reading.read_note, ("Big", None, 1024), mode="vault"),
    "read_note properties over budget": Case(reading.read_note, ("Heavy", None, 1024), mode="vault"),
    "read_note shown broken": Case(reading.read_note, ("Broken/Broken 1",), "broken"),
    "read_note degraded": Case(reading.read_note, ("Broken/Broken 1",), "broken", mode="vault"),
    "read_note no vault": Case(reading.read_note, ("Build decision",), "none"),
    "read_note told": Case(reading.read_note, ("Welcome",), mode="vault", told=True),
    "search_notes hits": Case(search.search_notes, ("cache",)),
    "search_notes one subject": Case(search.search_notes, ("cache", 20, 8192, "build-system")),
    "search_notes whole vault degraded": Case(search.search_notes, ("cache",), "broken", mode="vault"),
    "search_notes no vault": Case(search.search_notes, ("cache",), "none"),
    "search_notes told": Case(search.search_notes, ("bazel",), mode="vault", told=True),
    "get_backlinks a page": Case(backlinks.get_backlinks, ("CI cache", 1)),
    "get_backlinks degraded": Case(backlinks.get_backlinks, ("CI cache",), "broken"),
    "get_backlinks vault gone": Case(backlinks.get_backlinks, ("CI cache",), "missing"),
    "get_backlinks told": Case(backlinks.get_backlinks, ("Build decision",), mode="vault", told=True),
    "list_subjects": Case(subjects.list_subjects, ()),
    "list_subjects degraded": Case(subjects.list_subjects, (), "broken"),
    "list_subjects no vault": Case(subjects.list_subjects, (), "none"),
    "list_subjects told": Case(subjects.list_subjects, (), mode="vault", told=True),
    "recall_context sample vault": Case(recall_records.recall_context, ("build-system",), notice="examples"),
    "recall_activity sample vault": Case(recall_records.recall_activity, ("build-system",), notice="examples"),
    "read_note sample vault": Case(reading.read_note, ("Build decision",), notice="examples"),
    "search_notes sample vault": Case(search.search_notes, ("cache",), notice="examples"),
    "get_backlinks sample vault": Case(backlinks.get_backlinks, ("CI cache",), notice="examples"),
    "list_subjects sample vault": Case(subjects.list_subjects, (), notice="examples"),
}


def copy_vault(root: Path, notes: Mapping[str, str]) -> Path:
    shutil.copytree(SAMPLE_VAULT, root)
    for name, text in notes.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[object, object]]:
    """Each case's result, with the type its tool declares it returns."""
    folder = tmp_path_factory.mktemp("results")
    vaults: dict[str, Path | None] = {
        "ok": copy_vault(folder / "My vault", EXTRA),
        "broken": copy_vault(folder / "Broken vault", {**EXTRA, **BROKEN}),
        "none": None,
        "missing": folder / "Gone",
    }
    edits = itertools.count()
    found: dict[str, tuple[object, object]] = {}
    for name, case in CASES.items():
        vault = vaults[case.vault]
        exposure = Exposure(mode=case.mode, subjects=frozenset({"build-system"}))
        why = None if vault else "no vault is configured"
        scope = Scope(client="t", vault=vault, exposure=exposure, why=why, notice=case.notice)
        memory = HandedOutNotes()
        if case.told:
            assert vault is not None
            for n in range(HANDED):
                follow_up(memory, scope, reading.read_note(scope, f"Handed/Note {n}"), None)
            for n in range(HANDED):
                (vault / f"Handed/Note {n}.md").write_text(f"# Note {n}\n\nedited {next(edits)}\n", encoding="utf-8")
        result = case.tool(scope, *case.args)
        assert isinstance(result, dict)
        follow_up(memory, scope, cast(Envelope, result), None)
        assert ("changed_since_recalled_omitted" in result) == case.told, name
        found[name] = (result, get_type_hints(case.tool)["return"])
    return found


def mismatches(value: object, kind: Any, where: str, seen: dict[type, set[str]]) -> list[str]:
    """How `value` differs from the type `kind`: keys missing from or unknown to a TypedDict, at
    any depth, and values of another kind.  Records in `seen` the keys each TypedDict showed."""
    if kind is Any or isinstance(kind, ForwardRef):  # a property value nested in another
        return []
    if is_typeddict(kind):
        if not isinstance(value, dict):
            return [f"{where}: {value!r} is no object"]
        hints = get_type_hints(kind)
        found = [f"{where}: no {key!r}" for key in sorted(kind.__required_keys__ - value.keys())]
        found += [f"{where}: {key!r} is no key of {kind.__name__}" for key in sorted(value.keys() - hints.keys())]
        seen.setdefault(kind, set()).update(value.keys() & hints.keys())
        for key in sorted(value.keys() & hints.keys()):
            found += mismatches(value[key], hints[key], f"{where}.{key}", seen)
        return found
    origin, args = get_origin(kind), get_args(kind)
    if origin is Literal:
        ok = any(value == arg and type(value) is type(arg) for arg in args)
        return [] if ok else [f"{where}: {value!r} is none of {args}"]
    if origin in (types.UnionType, typing.Union):
        tried = [mismatches(value, arg, where, {}) for arg in args]
        if any(not found for found in tried):
            matching = next(arg for arg, found in zip(args, tried, strict=True) if not found)
            return mismatches(value, matching, where, seen)
        return [f"{where}: {value!r} is no {kind}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: {value!r} is no list"]
        return [found for n, item in enumerate(value) for found in mismatches(item, args[0], f"{where}[{n}]", seen)]
    if origin is dict:
        if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
            return [f"{where}: {value!r} is no object"]
        return [found for key, item in value.items() for found in mismatches(item, args[1], f"{where}.{key}", seen)]
    if kind is type(None):
        return [] if value is None else [f"{where}: {value!r} is not null"]
    if kind in (str, int, float, bool):
        return [] if type(value) is kind else [f"{where}: {value!r} is no {kind.__name__}"]
    raise AssertionError(f"{where}: no check for {kind}")


@pytest.mark.parametrize("case", list(CASES))
def test_a_result_has_exactly_the_keys_of_its_type(results: dict[str, tuple[object, object]], case: str) -> None:
    result, kind = results[case]
    assert is_typeddict(kind), f"{CASES[case].tool.__name__} declares it returns {kind}, no TypedDict"
    assert mismatches(result, kind, "result", {}) == []


def test_every_key_a_type_allows_is_in_some_result(results: dict[str, tuple[object, object]]) -> None:
    seen: dict[type, set[str]] = {}
    for result, kind in results.values():
        mismatches(result, kind, "result", seen)
    never = {kind.__name__: sorted(set(get_type_hints(kind)) - keys) for kind, keys in seen.items()}
    assert {name: keys for name, keys in never.items() if keys} == {}
    # Every tool's type was reached, and the types inside them.
    names = {kind.__name__ for kind in seen}
    assert names >= {"RecallResult", "ReadNoteResult", "SearchResult", "BacklinksResult", "ListSubjectsResult"}
    assert names >= {"Record", "Problem", "Hit", "Section", "SubjectCount", "ChangedNote"}


def test_the_types_know_their_optional_keys_at_run_time() -> None:
    """results.py is written without postponed annotations, so NotRequired is seen at run time."""
    from vault_recall.server.recall.results import Envelope, RecallResult

    assert Envelope.__required_keys__ == {"status", "untrusted", "vault"}
    assert "reason" in RecallResult.__optional_keys__ and "records" in RecallResult.__required_keys__
