"""read_note and get_backlinks resolve names on an index that keeps no text and read notes
again as they need them; they must answer exactly as the versions that held every note."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.server.recall.test_fast_scan import TRICKY
from tests.support.synthetic_vault import generate
from tests.support.vaults import write_vault
from tests.support.whole_vault import excluded_note_paths, view_or_unavailable
from vault_recall.server.errors import RecallError
from vault_recall.server.obsidian.resolve import NameIndex, resolve_argument
from vault_recall.server.obsidian.uri import obsidian_uri
from vault_recall.server.recall import reading
from vault_recall.server.recall.backlinks import could_link, get_backlinks, links_to
from vault_recall.server.recall.packing import answer, json_size, pack
from vault_recall.server.recall.scope import Exposure, Scope
from vault_recall.server.recall.view import problem


def reference_read(scope: Scope, note: str, section: str | None, budget: int) -> dict[str, Any]:
    """read_note as it was: the whole vault in a view, the note taken from it."""
    result: dict[str, Any] = {"status": "ok", "untrusted": True, "vault": None}
    view = view_or_unavailable(scope, result)
    if view is None:
        return result
    reachable = {**{p: () for p in view.broken}, **{p: n.aliases for p, n in view.visible.items()}}
    path, subpath = resolve_argument(view.root, reachable, note)
    wanted = section.strip() if section and section.strip() else subpath
    if path in view.broken and path not in view.visible:
        return reading._broken_note(view.name, path, problem(view.broken[path]), budget)
    found = view.visible[path]
    if path in view.broken:  # shown as Obsidian shows it, with its problem
        result.update(status="degraded", problems=[problem(view.broken[path])])
    result.update(
        path=found.path,
        title=found.title,
        properties=dict(found.properties),
        text=found.body,
        revision=found.revision,
        modified=found.modified,
        uri=reading.obsidian_uri(view.name, found.path),
        sections=reading.section_list(found),
    )
    if wanted:
        span = reading.find_section(found, wanted)
        result["section"] = wanted
        result["text"] = reading.lines_between(found.lines, span)
    if json_size(result) <= budget:
        return result
    del result["text"]
    result["hint"] = f"{'section' if wanted else 'note'} over budget: ask for one section, or raise budget"
    reading._fit_sections(result, budget)
    return result


def outcome(read: Any, *args: Any) -> Any:
    try:
        return read(*args)
    except RecallError as exc:
        return f"{type(exc).__name__}: {exc}"


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("read") / "v"
    generate(root, 200, seed=9, invalid=5)
    write_vault(root / "Tricky", TRICKY)
    write_vault(root, {"Plain note.md": "# Plain\n\nno properties\n", "Other/Plain note.md": "# Second\n"})
    return root


def arguments(vault: Path) -> list[str]:
    notes = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md") if ".obsidian" not in p.parts)
    chosen = notes[::7] + [n.removesuffix(".md").rsplit("/", 1)[-1] for n in notes[::11]]
    return [*chosen, "Plain note", "Tricky/Broken ours", "Tricky/Quoted", "Missing", "../etc/passwd", "Cache note 3"]


@pytest.mark.parametrize("mode", ["records", "subjects", "vault"])
def test_read_note_answers_as_the_version_that_held_every_note(vault: Path, mode: str) -> None:
    scope = Scope(client="t", vault=vault, exposure=Exposure(mode=mode, subjects=frozenset({"build-system"})))
    answered = 0
    for argument in arguments(vault):
        for section, budget in ((None, 16384), (None, 1024)):
            new = outcome(reading.read_note, scope, argument, section, budget)
            assert new == outcome(reference_read, scope, argument, section, budget), argument
            answered += isinstance(new, dict)
    assert answered > 10


def reference_backlinks(scope: Scope, note: str, limit: int, budget: int, offset: int) -> dict[str, Any]:
    """get_backlinks as it was: the whole vault in a view, every hit in memory, then a page."""
    envelope: dict[str, Any] = {"status": "ok", "untrusted": True, "vault": None}
    view = view_or_unavailable(scope, envelope)
    if view is None:
        return pack(envelope, [], budget=budget, limit=limit)
    reachable = {**{p: () for p in view.broken}, **{p: n.aliases for p, n in view.visible.items()}}
    target, _ = resolve_argument(view.root, reachable, note)
    envelope.update(note=target, uri=obsidian_uri(view.name, target), offset=offset)
    paths = sorted(view.visible)
    if view.exposure_mode == "vault":
        paths += [n.path for n in view.scan.invalid if n.path.endswith(".md") and n.path not in view.visible]
        paths += excluded_note_paths(view.root)  # hidden from search, not from links
    index = NameIndex.of([(path, ()) for path in paths])  # aliases are no link targets
    hits = [
        h
        for path in sorted(view.visible)
        if path != target
        for h in links_to(target, view.visible[path], index, view.name)
    ]
    problems = [problem(n) for n in view.broken.values() if could_link(n, target)]
    envelope["next_offset"] = len(hits)
    result = answer(envelope, hits[offset:], budget=budget, limit=limit, problems=problems, contiguous=True)
    if result["omitted"] and result["records"]:
        result["next_offset"] = offset + len(result["records"])
    else:
        del result["next_offset"]
    return result


@pytest.mark.parametrize("mode", ["records", "subjects", "vault"])
def test_backlinks_answer_as_the_version_that_held_every_note(vault: Path, mode: str) -> None:
    scope = Scope(client="t", vault=vault, exposure=Exposure(mode=mode, subjects=frozenset({"build-system"})))
    linked = 0
    for argument in arguments(vault)[:40]:
        for limit, budget, offset in ((50, 16384, 0), (1, 16384, 0), (2, 1024, 1)):
            new = outcome(get_backlinks, scope, argument, limit, budget, offset)
            assert new == outcome(reference_backlinks, scope, argument, limit, budget, offset), argument
            linked += isinstance(new, dict) and bool(new["records"])
    assert linked > 3 or mode == "subjects"  # few links join the notes of one subject
