"""A ranked whole-vault recall counts a note from its bytes (answers/unheld.py) only when
parsing it would give a current record holding no query term, of that very length — and it
does so for most notes that hold none, or the shortcut proves nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.synthetic_vault import generate, generate_realistic
from tests.support.tricky_notes import ODD, TRICKY
from tests.support.vaults import write_vault
from vault_recall.server.obsidian.note import Note, parse_note
from vault_recall.server.recall.answers.unheld import Unheld, unheld_look
from vault_recall.server.recall.finding.looking import Told
from vault_recall.server.recall.ranking.query_terms import StemMemo, parse_query
from vault_recall.server.recall.ranking.record_terms import evidence_of
from vault_recall.server.recall.records import MemoryRecord, as_record, ruled_record
from vault_recall.server.recall.subject_rules import NO_RULES, SubjectRule, SubjectRules
from vault_recall.server.vault.listing import list_notes

# Beside the shared odd notes: the layouts that decide a note's length or whether it is current.
LAYOUTS: dict[str, str | bytes] = {
    "Empty.md": "",
    "Only block.md": "---\nsubject: build-system\n---\n",
    "Block no end.md": "---\nsubject: build-system\n---",
    "CRLF.md": "---\r\nsubject: build-system\r\n---\r\nline one\r\nline two\r\n\r\n",
    "Lone CR.md": "no block\rsecond\r\nthird\n",
    "Archived.md": "---\nsubject: build-system\nstatus: archived\n---\nbody\n",
    "Event.md": "---\nsubject: build-system\nkind: event\ndate: 2026-01-02\n---\nbody\n",
    "Ordinary archived.md": "---\nstatus: archived\n---\nbody\n",
    "Ordinary event.md": "---\nkind: event\ndate: 2026-01-02\n---\nbody\n",
    "Ordinary statuses.md": "---\nstatuses: [archived]\nkindness: event\n---\nbody\n",
    "Ordinary.md": "---\ntags: [a, b]\naliases:\n  - Other name\n---\n# Heading\nbody #tag\n",
    "Escaped alias.md": '---\naliases: ["\\x63ache"]\n---\nbody\n',
    "Delimiter later.md": "---\na: 1\n---\ntext\n---\nmore\n",
    "Blank after.md": "---\na: 1\n---  \n\nbody\n",
    "Accent.md": "café only\n",
    "Projects/Ruled.md": "no words of the query\n",
    "Number tags.md": "---\ntags: [1e3, 0x1F]\n---\nbody\n",
    "Number alias.md": "---\naliases:\n  - 1e3\n---\nbody\n",
    "Infinite tag.md": "---\ntags: .inf\n---\nbody\n",
    "Overflowing tag.md": "---\ntags:\n  - 1e400\n---\nbody\n",
    "Named only.md": "---\naliases: [Zzzqx plan]\ntags: [policy]\n---\nbody\n",
    "Ligature.md": "---\na: 1\n---\nthe \ufb01le — naïve\r\n",
    "Accented block.md": "---\naliases: [Café]\n---\nbody\n",
    "Ligature alias.md": "---\naliases: [the \ufb01le, Straße]\ntags:\n  - naïve\n---\nbody\r\n",
    "Combining start.md": "---\naliases: [\u0301cache]\ntags: ['\u0301policy']\n---\nbody\n",
    "BOM no block.md": b"\xef\xbb\xbfplain text\n",
    "Not UTF-8.md": b"caf\xe9\n",
    # Chinese, Japanese and Korean: a bigram in the body, the title, an alias, a tag, half-width.
    "会议/项目预算讨论.md": "本季度的项目预算需要重新分配\n",
    "预算表.md": "no such words here\n",
    "CJK alias.md": "---\naliases: [预算表]\n---\nbody\n",
    "CJK tag.md": "---\ntags: [a]\n---\n本文 #预算 标签\n",
    "Half-width.md": "ﾃﾞｰﾀの予算\n",
    "Korean.md": "---\na: 1\n---\n예산을 다시 나누다\n",
    "Mixed.md": "用Obsidian启动\n",
}
QUERIES = (
    *("cache", "000123", "zzzqx", "deploy latency", "café", "policy", "1000", "31", "file", "inf"),
    *("预算", "项目预算", "データ", "예산", "猫", "obsidian启动"),
)


@pytest.fixture(scope="module", params=["synthetic", "realistic"])
def notes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, bytes]]:
    root = tmp_path_factory.mktemp("unheld") / "v"
    if request.param == "synthetic":
        generate(root, 200, seed=11, invalid=5)
    else:
        generate_realistic(root, 200, seed=12)
    write_vault(root / "Tricky", TRICKY)
    write_vault(root / "Odd", ODD)
    write_vault(root, LAYOUTS)
    return [(path, (root / path).read_bytes()) for path in list_notes(root).paths]


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("ruled", [False, True])
def test_a_note_counted_from_its_bytes_is_what_parsing_makes_of_it(
    notes: list[tuple[str, bytes]], query: str, ruled: bool, tmp_path: Path
) -> None:
    rules = SubjectRules((SubjectRule("projects", folder="Projects"),), tmp_path) if ruled else NO_RULES
    asked = parse_query(query, ["english"])
    look = unheld_look(asked.gates, rules)
    memo = StemMemo(asked.languages)
    told = holding_none = 0
    for path, data in notes:
        parsed = parse_note(path, data, 0)
        seen = look(path, data)
        record = as_record(parsed, rules) if isinstance(parsed, Note) else parsed
        evidence = evidence_of(parsed, asked, memo) if isinstance(parsed, Note) else None
        if evidence is not None and not any(evidence.weights) and isinstance(record, MemoryRecord | None):
            holding_none += 1
        if seen == "parse":
            continue
        if seen == "skip":  # a valid record the recall does not keep
            assert isinstance(record, MemoryRecord), path
            assert (record.status, record.kind) != ("active", "decision"), path
            continue
        assert isinstance(seen, Told) and isinstance(seen.seen, Unheld), path
        told += 1
        # Valid, current as _every_note takes it, holding no term, and of the length ranked.
        assert isinstance(parsed, Note), path
        current = record if isinstance(record, MemoryRecord) else ruled_record(parsed, (), None)
        assert record is None or isinstance(record, MemoryRecord), path
        assert (current.status, current.kind) == ("active", "decision"), path
        assert evidence is not None and not any(evidence.weights), path
        assert seen.seen.length == evidence.length, path
    if query == "zzzqx":  # held by no note: the ASCII ones are told from their bytes
        ascii_notes = sum(1 for _, data in notes if data.isascii())
        assert told > ascii_notes / 2, (told, ascii_notes, holding_none)


def test_rules_taking_every_note_leave_the_whole_vault_counted_from_bytes(
    notes: list[tuple[str, bytes]], tmp_path: Path
) -> None:
    """Ranking reads no subject, and a rule makes an ordinary note the same active decision:
    rules taking every folder, a tag and a property count across the whole vault exactly the
    notes counted without them, from their bytes (a real vault with the rules `subject
    suggest` proposes would be parsed whole otherwise)."""
    folders = sorted({path.split("/")[0] for path, _ in notes if "/" in path})
    rules = SubjectRules(
        (
            *(SubjectRule(f"folder-{i}", folder=folder) for i, folder in enumerate(folders)),
            SubjectRule("tagged", tag="tag"),
            SubjectRule("named", property_name="aliases", value="Other name"),
        ),
        tmp_path,
    )
    asked = parse_query("zzzqx", ["english"])
    plain, ruled = unheld_look(asked.gates, NO_RULES), unheld_look(asked.gates, rules)

    def shown(answer: object) -> object:
        return answer.seen if isinstance(answer, Told) else answer

    assert [shown(plain(path, data)) for path, data in notes] == [shown(ruled(path, data)) for path, data in notes]


def test_an_ordinary_note_is_told_unless_it_names_its_own_status_or_kind() -> None:
    # The names are read by the plain grammar (record_tally), not looked for in the bytes:
    # `statuses` is no `status`, and the parse makes the same active decision of it.
    look = unheld_look(parse_query("zzzqx", ["english"]).gates, NO_RULES)
    told = look("Ordinary statuses.md", b"---\nstatuses: [archived]\nkindness: event\n---\nbody\n")
    assert isinstance(told, Told)
    assert look("Ordinary archived.md", b"---\nstatus: archived\n---\nbody\n") == "parse"
    assert look("Ordinary event.md", b"---\nkind: event\ndate: 2026-01-02\n---\nbody\n") == "parse"


@pytest.mark.parametrize("query", ["zzzqx", "plan", "urgent"])
def test_among_records_a_folder_rule_decides_on_the_bytes_read(query: str, tmp_path: Path) -> None:
    """Among records, an ordinary note a folder rule takes is counted from its bytes beside a
    tag or property rule whose text it does not hold; one holding that text is parsed, and one
    whose folder gives a subject the recall does not take is skipped — each as its parse says."""
    rules = SubjectRules(
        (
            SubjectRule("projects", folder="Projects"),
            SubjectRule("other", folder="Other"),
            SubjectRule("tagged", tag="urgent"),
            SubjectRule("named", property_name="aliases", value="Other name"),
        ),
        tmp_path,
    )
    asked = parse_query(query, ["english"])
    look = unheld_look(asked.gates, rules, records=lambda subjects: "projects" in subjects)
    notes = {
        "Projects/Plain.md": b"---\ntags: [a]\n---\nnothing asked here\n",
        "Projects/Bare.md": b"nothing asked here\r\n",
        "Projects/Tagged.md": b"nothing asked here #urgent\n",
        "Other/Plain.md": b"---\ntags: [a]\n---\nnothing asked here\n",
    }
    seen = {path: look(path, data) for path, data in notes.items()}
    for path, data in notes.items():
        record = as_record(parse_note(path, data, 0), rules)  # type: ignore[arg-type]
        if seen[path] == "skip":
            assert not isinstance(record, MemoryRecord) or "projects" not in record.subjects, path
        elif isinstance(seen[path], Told):
            assert isinstance(record, MemoryRecord) and record.subjects == ("projects",), path
    assert seen["Projects/Tagged.md"] == "parse"
    if query == "zzzqx":  # held by none of them
        assert seen["Other/Plain.md"] == "skip"
        assert isinstance(seen["Projects/Plain.md"], Told) and isinstance(seen["Projects/Bare.md"], Told)


def test_a_block_not_ascii_is_folded_on_the_fast_path(tmp_path: Path) -> None:
    """Real vaults are not ASCII: a plain block holding letters outside ASCII is folded whole
    and its note counted from its bytes when no gate is in it — parsed when its values hold one."""
    notes = {
        "Accented.md": "---\naliases: [Café]\ntags: [naïve]\n---\nbody\r\n".encode(),
        "CJK.md": "---\naliases: [预算表]\n---\nbody\n".encode(),
    }
    for query, told in (("zzzqx", True), ("cafe", False), ("naive", False), ("预算", False)):
        asked = parse_query(query, ["english"])
        look = unheld_look(asked.gates, NO_RULES)
        seen = [look(path, data) for path, data in notes.items()]
        if told:
            assert all(isinstance(answer, Told) for answer in seen), query
        else:
            assert "parse" in seen, query
