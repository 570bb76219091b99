"""The one way in for a note: strict properties, normalized values, title, headings, revision."""

from __future__ import annotations

import hashlib

import pytest

from vault_recall.server.obsidian.note import InvalidNote, Note, parse_note

MTIME = 1_767_225_600_000_000_000  # 2026-01-01T00:00:00Z


def parse(text: str | bytes, path: str = "Folder/My note.md") -> Note | InvalidNote:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return parse_note(path, data, MTIME)


def valid(text: str | bytes) -> Note:
    note = parse(text)
    assert isinstance(note, Note), note
    return note


def invalid(text: str | bytes) -> InvalidNote:
    note = parse(text)
    assert isinstance(note, InvalidNote), note
    return note


SIMPLE = "---\nsubject: build\ntags: one\n---\n# Heading\n\nBody text.\n"


@pytest.mark.parametrize(
    "data",
    [
        SIMPLE.encode(),
        SIMPLE.replace("\n", "\r\n").encode(),
        b"\xef\xbb\xbf" + SIMPLE.encode(),
        b"\xef\xbb\xbf" + SIMPLE.replace("\n", "\r\n").encode(),
    ],
    ids=["lf", "crlf", "bom", "bom-crlf"],
)
def test_lf_crlf_and_bom_give_the_same_note(data: bytes) -> None:
    note = valid(data)
    assert note.properties == {"subject": "build", "tags": "one"}
    assert note.tags == ("one",)
    assert note.body == "# Heading\n\nBody text.\n"
    assert [heading.text for heading in note.headings] == ["Heading"]
    assert note.revision == hashlib.sha256(data).hexdigest()


def test_title_is_the_file_name_and_modified_is_utc_iso() -> None:
    note = valid("no properties here\n")
    assert note.title == "My note"
    assert note.modified == "2026-01-01T00:00:00Z"
    assert note.properties == {}
    assert note.body == "no properties here\n"


def test_values_are_normalized_once() -> None:
    note = valid(
        "---\ncreated: 2020-08-21\nwhen: 2020-08-21T10:30:00\ntags: '#solo'\naliases: Other name\n"
        "done: true\ncount: 3\nnested: {a: 2021-01-02}\n---\nx\n"
    )
    assert note.properties["created"] == "2020-08-21"
    assert note.properties["when"] == "2020-08-21T10:30:00"
    assert note.properties["done"] is True
    assert note.properties["count"] == 3
    assert note.properties["nested"] == {"a": "2021-01-02"}
    assert note.tags == ("solo",)
    assert note.aliases == ("Other name",)


def test_number_tags_are_text() -> None:
    assert valid("---\ntags: [2024, '#x/y']\n---\n").tags == ("2024", "x/y")


def test_a_heading_inside_a_code_fence_is_no_heading() -> None:
    note = valid("```\n# not this\n```\n## but this\n# This one #\n")
    assert [(heading.level, heading.text) for heading in note.headings] == [(2, "but this"), (1, "This one")]


def test_empty_properties_block_is_valid() -> None:
    note = valid("---\n---\nbody\n")
    assert note.properties == {}
    assert note.body == "body\n"


def test_four_dashes_are_not_a_properties_block() -> None:
    note = valid("----\nsubject: x\n----\n")
    assert note.properties == {}


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("---\nsubject: a\ntags: x\nsubject: b\n---\n", 4, "'subject' is defined twice"),
        ("---\nsubject: build\nbody without end\n", 1, "never closed"),
        ("---\nsubject: [unclosed\n---\n", 2, "property 'subject' is not valid YAML"),
        ("---\n- a\n- b\n---\n", 2, "name: value"),
    ],
    ids=["duplicate", "unterminated", "yaml-syntax", "not-a-mapping"],
)
def test_broken_properties_make_the_note_invalid_with_file_and_line(text: str, line: int, words: str) -> None:
    note = invalid(text)
    assert note.reason.startswith(f"Folder/My note.md, line {line}: "), note.reason
    assert words in note.reason


@pytest.mark.parametrize(
    ("block", "words"),
    [
        ("tags: [k8s, argo", "property 'tags' is not valid YAML: its '[' is never closed with ']'"),
        ("tags: {team: infra", "property 'tags' is not valid YAML: its '{' is never closed with '}'"),
        ('tags: "k8s', "property 'tags' is not valid YAML: its quote is never closed"),
    ],
    ids=["list", "map", "quote"],
)
def test_a_bracket_or_quote_left_open_is_blamed_on_its_own_line_not_the_next_property(block: str, words: str) -> None:
    note = invalid(f"---\nsubject: build\n{block}\nowner: me\nstatus: current\n---\nbody\n")
    assert note.reason == f"Folder/My note.md, line 3: {words}"


def test_a_bracket_closed_on_a_later_line_is_valid_and_an_error_inside_keeps_its_own_line() -> None:
    assert valid("---\nsubject: build\ntags: [k8s,\n  argo]\n---\n").tags == ("k8s", "argo")
    assert invalid("---\nsubject: build\ntags: [k8s,\n  argo]]\n---\n").reason.startswith(
        "Folder/My note.md, line 4: property 'tags' is not valid YAML"
    )


# Blocks Obsidian reads (it parses YAML 1.2), each with what it shows.
READ_AS_OBSIDIAN_READS = [
    ("created: {{date}}", {"created": {"{date}": None}}, (), ()),
    ("aliases:\n- Yes", {"aliases": ["Yes"]}, ("Yes",), ()),
    ("aliases: [on, off]", {"aliases": ["on", "off"]}, ("on", "off"), ()),
    ("tags: [yes]", {"tags": ["yes"]}, (), ("yes",)),
    (
        "aliases:\n  - Laws\n  - LawList: Custom List Styles",
        {"aliases": ["Laws", {"LawList": "Custom List Styles"}]},
        ("Laws",),
        (),
    ),
    ("aliases: {a: 1}", {"aliases": {"a": 1}}, (), ()),
    ("tags: [[1, 2], x, true]", {"tags": [[1, 2], "x", True]}, (), ("x",)),
    ("2024: year\nyes: 1", {"2024": "year", "yes": 1}, (), ()),
    ("data: !!binary aGVsbG8=", {"data": "aGVsbG8="}, (), ()),
    ("n: !!int abc", {"n": "abc"}, (), ()),
    ("n: 012\nh: 0x1F\nf: 1e3\ns: 190:20:30", {"n": 12, "h": 31, "f": 1000.0, "s": "190:20:30"}, (), ()),
    ("a: &x [p, q]\nb: *x", {"a": ["p", "q"], "b": ["p", "q"]}, (), ()),
]


@pytest.mark.parametrize(("block", "properties", "aliases", "tags"), READ_AS_OBSIDIAN_READS)
def test_blocks_obsidian_reads_are_read_as_it_shows_them(
    block: str, properties: dict[str, object], aliases: tuple[str, ...], tags: tuple[str, ...]
) -> None:
    note = valid(f"---\n{block}\n---\nbody [[Link]]\n")
    assert dict(note.properties) == properties
    assert (note.aliases, note.tags) == (aliases, tags)
    assert note.body == "body [[Link]]\n"


@pytest.mark.parametrize(
    ("text", "body", "first_line"),
    [
        ("---\nsubject: a\nsubject: b\n---\nstill [[Shown]]\n", "still [[Shown]]\n", 5),
        ("---\nsubject: build\nnever closed [[Shown]]\n", "---\nsubject: build\nnever closed [[Shown]]\n", 1),
        (b"---\nx: caf\xe9\n---\nstill [[Shown]]\n", "still [[Shown]]\n", 4),
    ],
    ids=["duplicate", "unterminated", "not-utf8"],
)
def test_a_broken_block_does_not_hide_the_note(text: str | bytes, body: str, first_line: int) -> None:
    note = invalid(text)
    assert note.readable is not None
    assert note.readable.body == body and note.readable.body_first_line == first_line
    assert [link.target for link in note.readable.links] == ["Shown"]
    assert note.readable.properties == {}


def test_non_utf8_names_the_line_of_the_first_bad_byte() -> None:
    note = invalid(b"---\nsubject: build\n---\nfine\ncaf\xe9\n")
    assert note.reason.startswith("Folder/My note.md, line 5: not UTF-8")
    assert note.mentions_subject and note.subjects == ("build",)


@pytest.mark.parametrize(
    ("text", "subjects"),
    [
        ("---\nsubject: build\nsubject: build\n---\n", ("build",)),
        ("---\nsubject: [a, b]\nx: 1\nx: 2\n---\n", ("a", "b")),
        ("---\nsubject:\n  - a\n  - b\nx: 1\nx: 2\n---\n", ("a", "b")),
        ("---\nsubject: {{broken\n---\n", None),
        ("---\nsubject: Not A Slug\nx: 1\nx: 2\n---\n", None),
        ('---\n"subject": build\nx: 1\nx: 2\n---\n', None),
        ("---\n{subject: build, x: 1, x: 2}\n---\n", None),
    ],
)
def test_an_invalid_note_still_tells_which_subject_it_is_about(text: str, subjects: tuple[str, ...] | None) -> None:
    note = invalid(text)
    assert note.mentions_subject
    assert note.subjects == subjects


def test_an_invalid_note_with_lone_cr_line_endings_still_tells_its_subject() -> None:
    note = invalid("---\rsubject: ops\raliases:\r- @x\r---\rbody\r")
    assert note.mentions_subject and note.subjects == ("ops",)


def test_an_invalid_note_without_subject_is_not_about_any_subject() -> None:
    note = invalid("---\ntitle: a\ntitle: b\n---\nsubject: in the body\n")
    assert not note.mentions_subject


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("---\nstatus: archived\naliases:\n- @x\n---\nbody\n", True),
        ("---\n  'kind' : event\nk: [\n---\nbody\n", True),
        ("---\n{tags: [a], status: archived, x: @}\n---\nbody\n", True),
        ("---\naliases:\n- @x\n---\nstatus: done, in the body\n", False),  # after the block
        ("---\nstatuses: a\nk: [\n---\nbody\n", False),
        ("---\rstatus: archived\raliases:\r- @x\r---\rbody\r", True),  # a lone CR ends a line (old Mac)
    ],
)
def test_an_invalid_note_tells_whether_its_block_names_a_status_or_kind(text: str, state: bool) -> None:
    # Across the whole vault such a note is ranked as Obsidian shows it only when it does not:
    # it may be an archived record or an event (unheld.shown_anyway).
    note = invalid(text)
    assert note.mentions_state is state and note.readable is not None


def test_a_real_looking_but_impossible_date_stays_text() -> None:
    assert valid("---\nd: 2026-02-30\n---\n").properties["d"] == "2026-02-30"


def test_yaml_aliases_are_refused_so_a_billion_laughs_cannot_expand() -> None:
    laughs = "---\na: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
    )
    note = invalid(laughs + "---\n")
    assert "anchors and aliases (*name) expand to more than 10,000 values" in note.reason


def test_deep_nesting_is_invalid_not_a_crash() -> None:
    note = invalid("---\na: " + "[" * 5000 + "\n---\n")
    assert note.reason.startswith("Folder/My note.md, line ")


def test_a_utf16_note_that_names_a_subject_could_be_about_it() -> None:
    note = invalid("---\nsubject: build\n---\nbody\n".encode("utf-16"))
    assert note.reason.startswith("Folder/My note.md, line 1: not UTF-8")
    assert note.mentions_subject and note.subjects == ("build",)


@pytest.mark.parametrize(
    ("value", "read"),
    [
        ("0x_", "0x_"),
        ("!!int abc", "abc"),
        ("!!float abc", "abc"),
        ("!!bool maybe", "maybe"),
        ("!!python/object:os.system x", "x"),
    ],
)
def test_values_of_no_core_type_stay_the_text_they_are(value: str, read: str) -> None:
    assert valid(f"---\ntitle: t\nn: {value}\n---\n").properties["n"] == read


def test_a_valid_but_very_deep_list_is_invalid_not_a_crash() -> None:
    note = invalid("---\na: " + "[" * 600 + "]" * 600 + "\n---\n")
    assert "nest" in note.reason


def test_file_times_past_year_9999_are_shown_as_the_latest_moment() -> None:
    from vault_recall.server.obsidian.note import iso_utc

    assert iso_utc(253_402_300_800 * 10**9 * 100) == "9999-12-31T23:59:59Z"
    assert iso_utc(-(10**30)) == "0001-01-01T00:00:00Z"
