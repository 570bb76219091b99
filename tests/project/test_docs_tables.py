"""The docs stay true to the code: the command tables list exactly what `vault-recall --help`
shows, the tools tables exactly the tools `serve` registers with their parameters and
defaults, docs/tools.md's tables of arguments exactly as each tool is declared, every relative
link and every source path named points at something that exists, and nothing cites a document
or an issue kept outside the repository (a reader cannot follow it: the reason belongs in the
text itself)."""

from __future__ import annotations

import ast
import contextlib
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.support import tool_docs
from vault_recall.app.cli.main import main
from vault_recall.server.config.call_scope import ServeOptions
from vault_recall.server.mcp.tools import build_server
from vault_recall.server.recall.tool_declarations import TOOLS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# Pages a person reads: every link in them must lead somewhere.
PAGES = sorted([ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md", *DOCS.glob("*.md")])
# Pages whose tables of commands and tools must be exact.
TABLE_PAGES = sorted([ROOT / "README.md", *DOCS.glob("*.md")])
# Where a citation of an outside document or issue must not be: everywhere a newcomer reads.
CITATION_FOLDERS = ("server", "app", "docs", "packaging", "tests", "bench")
CITATION_FILES = ("README.md", "CONTRIBUTING.md", "CHANGELOG.md", "pyproject.toml", ".ci/run")
# "Issue #12" and "Issue 12#Part" are notes' names in examples; "issue 13" or "(issue" is a citation.
CITATIONS = re.compile(r"shared/design|design notes?\b|\b[Ii]ssues? \d+\b(?!#)|\([Ii]ssue\b|\bissue note\b")


# -- reading Markdown ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    page: Path
    heading: str  # the nearest heading above the table
    header: list[str]
    rows: list[list[str]]


def prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """The lines outside fenced code blocks, with their numbers."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def cells(line: str) -> list[str]:
    """A table row's cells, `\\|` kept as a pipe inside a cell."""
    inner = line.strip().removeprefix("|").removesuffix("|")
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", inner)]


def tables(page: Path, text: str | None = None) -> list[Table]:
    """The tables of a page (or of `text`, a part of it), each under its nearest heading."""
    found: list[Table] = []
    heading = ""
    current: list[list[str]] = []

    def close() -> None:
        if len(current) >= 2 and all(re.fullmatch(r":?-+:?", cell) for cell in current[1]):
            found.append(Table(page, heading, current[0], current[2:]))
        current.clear()

    for _, line in prose_lines(page.read_text(encoding="utf-8") if text is None else text):
        if line.startswith("#"):
            close()
            heading = line.lstrip("#").strip()
        elif line.lstrip().startswith("|"):
            current.append(cells(line))
        else:
            close()
    close()
    return found


def tables_headed(first_column: str) -> list[Table]:
    return [t for page in TABLE_PAGES for t in tables(page) if t.header and t.header[0].lower() == first_column]


def code_spans(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, blanks as '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings; a repeated heading gets -1, -2 … as on GitHub."""
    found: set[str] = set()
    repeats: dict[str, int] = {}
    for _, line in prose_lines(page.read_text(encoding="utf-8")):
        if re.match(r"#{1,6} ", line):
            base = slug(line.lstrip("#"))
            count = repeats.get(base, 0)
            repeats[base] = count + 1
            found.add(f"{base}-{count}" if count else base)
    return found


# -- the command line ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Help:
    commands: list[str]  # sub-commands listed under "positional arguments"
    choices: list[str]  # the values of a positional with fixed choices ({install,uninstall})
    options: set[str]


def help_text(words: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main([*words, "--help"])
    return out.getvalue()


def parse_help(text: str) -> Help:
    commands: list[str] = []
    choices: list[str] = []
    options: set[str] = set()
    section = ""
    for line in text.splitlines():
        if line and not line[0].isspace():
            section = line.rstrip(":")
            continue
        if section == "positional arguments":
            if listed := re.match(r"    (?! )(\S+)", line):
                commands.append(listed.group(1))
            elif fixed := re.match(r"  \{([^}]*)\}", line):
                choices += fixed.group(1).split(",")
        elif section == "options" and (option := re.match(r"  (?:-\w, )?(--[\w-]+)", line)):
            options.add(option.group(1))
    options.discard("--help")
    return Help(commands, choices, options)


def commands_from_help() -> dict[tuple[str, ...], set[str]]:
    """Every command path `vault-recall … --help` shows, with the options of each."""
    found: dict[tuple[str, ...], set[str]] = {}
    for command in parse_help(help_text([])).commands:
        group = parse_help(help_text([command]))
        if group.commands:
            for action in group.commands:
                found[(command, action)] = parse_help(help_text([command, action])).options
        elif group.choices:
            found.update({(command, choice): group.options for choice in group.choices})
        else:
            found[(command,)] = group.options
    return found


def commands_in(table: Table) -> dict[tuple[str, ...], set[str]]:
    """Each row's command path (the words before the first argument) and the options it names."""
    found: dict[tuple[str, ...], set[str]] = {}
    for row in table.rows:
        spans = [s for s in code_spans(row[0]) if s.startswith("vault-recall")]
        assert spans, f"{table.page.name}: a command row without `vault-recall …`: {row[0]!r}"
        words = spans[0].split()[1:]
        path: list[str] = []
        for word in words:
            if not re.fullmatch(r"[a-z][a-z-]*", word):
                break
            path.append(word)
        found.setdefault(tuple(path), set()).update(re.findall(r"--[a-z][a-z-]*", spans[0]))
    return found


def test_every_command_table_lists_exactly_the_commands_and_options_help_shows() -> None:
    shown = commands_from_help()
    command_tables = tables_headed("command")
    assert command_tables, "no table headed 'command' in README.md or docs/"
    for table in command_tables:
        listed = commands_in(table)
        where = f"{table.page.relative_to(ROOT)} ({table.heading})"
        assert set(listed) == set(shown), (
            f"{where}: missing {sorted(set(shown) - set(listed))}, not commands {sorted(set(listed) - set(shown))}"
        )
        for path, options in shown.items():
            assert listed[path] == options, f"{where}: vault-recall {' '.join(path)} takes {sorted(options)}"


# -- the tools ----------------------------------------------------------------------------------


def registered_tools() -> dict[str, dict[str, Any]]:
    server = build_server(ServeOptions(client="docs"))
    try:
        return {tool.name: tool.input_schema for tool in anyio.run(server.list_tools)}
    finally:
        server.activity.close()


def signature(cell: str) -> tuple[str, list[tuple[str, str | None]]]:
    """`name(a, b=1)` → ("name", [("a", None), ("b", "1")])."""
    spans = code_spans(cell)
    assert spans, f"a tool row without `name(…)`: {cell!r}"
    call = re.fullmatch(r"(\w+)\((.*)\)", spans[0])
    assert call, f"not a tool signature: {spans[0]!r}"
    parameters: list[tuple[str, str | None]] = []
    for part in filter(None, (p.strip() for p in call.group(2).split(","))):
        name, _, default = part.partition("=")
        parameters.append((name.strip(), default.strip() or None))
    return call.group(1), parameters


def test_every_tools_table_lists_exactly_the_tools_with_their_parameters_and_defaults() -> None:
    tools = registered_tools()
    tool_tables = tables_headed("tool")
    assert tool_tables, "no table headed 'tool' in README.md or docs/"
    for table in tool_tables:
        where = table.page.relative_to(ROOT)
        listed = dict(signature(row[0]) for row in table.rows)
        assert set(listed) == set(tools), f"{where}: lists {sorted(listed)}, serve has {sorted(tools)}"
        for name, parameters in listed.items():
            schema = tools[name]
            assert [p for p, _ in parameters] == list(schema["properties"]), f"{where}: {name}'s parameters"
            for parameter, default in parameters:
                if default is None:
                    assert parameter in schema.get("required", []), f"{where}: {name}({parameter}) has a default"
                else:
                    expected = schema["properties"][parameter].get("default")
                    assert ast.literal_eval(default) == expected, f"{where}: {name}({parameter}={expected!r})"


def sections(page: Path) -> dict[str, str]:
    """The text under each heading that is only a code span (`## \\`name\\``)."""
    found: dict[str, str] = {}
    name: str | None = None
    for _, line in prose_lines(page.read_text(encoding="utf-8")):
        if heading := re.match(r"#{2,3} `(\w+)`\s*$", line):
            name = heading.group(1)
            found[name] = ""
        elif line.startswith("#"):
            name = None
        elif name is not None:
            found[name] += line + "\n"
    return found


def test_tools_md_tables_are_written_from_the_tools_declarations() -> None:
    # Every argument's range and default, as the declarations say (tests/support/tool_docs.py):
    # `python -m tests.support.tool_docs --write` rewrites them.
    text = tool_docs.DOCS.read_text(encoding="utf-8")
    with_arguments = [f"arguments of {tool.name}" for tool in TOOLS if tool.arguments]
    assert tool_docs.blocks(text) == ["the tools", *with_arguments, "the arguments' limits"]
    assert tool_docs.rendered(text) == text, "docs/tools.md: run python -m tests.support.tool_docs --write"
    for tool in TOOLS:
        if not tool.arguments:
            assert "Takes no arguments." in sections(tool_docs.DOCS)[tool.name], tool.name


def test_a_table_that_differs_from_its_declaration_is_written_anew() -> None:
    text = tool_docs.DOCS.read_text(encoding="utf-8")
    stale = text.replace("| `limit` | a whole number of records, 1–20 | `3` |", "| `limit` | 1–25 | `4` |", 1)
    assert stale != text
    assert tool_docs.rendered(stale) == text
    assert tool_docs.main([]) == 0


# -- links, paths and citations -----------------------------------------------------------------


def links(page: Path) -> Iterator[tuple[int, str]]:
    """Every link target in the page's prose: inline links and reference definitions."""
    for number, line in prose_lines(page.read_text(encoding="utf-8")):
        prose = re.sub(r"`[^`]*`", "", line)
        for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose):
            yield number, target
        if definition := re.match(r"\s*\[[^\]]+\]:\s*(\S+)", prose):
            yield number, definition.group(1)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_points_at_a_file_that_exists(page: Path) -> None:
    broken = []
    for number, target in links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: …
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"line {number}: {target} (no such file)")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"line {number}: {target} (no heading #{anchor})")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_source_path_a_page_names_exists(page: Path) -> None:
    """`server/recall/answers/recall_records.py`, `app/tray/menu/tree.py:build_menu`, `bench/recall_eval/` … (tests/
    is left out: its files are named by what they check, not kept to one place)."""
    missing = []
    for number, line in prose_lines(page.read_text(encoding="utf-8")):
        for span in code_spans(line):
            named = re.fullmatch(r"((?:server|app|bench|packaging|assets)/[\w./-]*)(?::\w+)?", span)
            if named and not (ROOT / named.group(1)).exists():
                missing.append(f"line {number}: {span}")
    assert not missing, f"{page.relative_to(ROOT)} names paths that do not exist: " + "; ".join(missing)


def citation_files() -> list[Path]:
    files = [ROOT / name for name in CITATION_FILES]
    for folder in CITATION_FOLDERS:
        files += [p for p in (ROOT / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return sorted(f for f in files if f != Path(__file__))  # this file spells out what a citation is


def test_nothing_cites_a_design_note_or_an_issue_kept_outside_the_repository() -> None:
    cited = []
    for path in citation_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # an icon, a picture
        for number, line in enumerate(text.splitlines(), 1):
            if CITATIONS.search(line):
                cited.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not cited, "\n".join(cited)
