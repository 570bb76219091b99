"""docs/tools.md's tables of the tools and their arguments, written from the declarations
(server/recall/tool_declarations.py) so that the docs say what the server checks.

Each generated table sits between two markers in docs/tools.md:

    <!-- generated: arguments of read_note -->
    | argument | accepts | default |
    ...
    <!-- end generated -->

`python -m tests.support.tool_docs --write` rewrites them; without `--write` it says whether
they are current (exit status 1 when not).  tests/project/test_tool_docs.py fails when they
are not.
"""

from __future__ import annotations

import re
import sys

from tests.support.paths import REPO_ROOT
from vault_recall.server.recall.tool_contract import Argument, ToolContract
from vault_recall.server.recall.tool_declarations import CONTRACTS, TOOLS

DOCS = REPO_ROOT / "docs" / "tools.md"
_BLOCK = re.compile(r"(<!-- generated: (?P<what>[^>]*?) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.DOTALL)


def _number(n: int) -> str:
    return f"{n:,}" if n >= 1_000_000 else str(n)  # 65536 as written everywhere; 10,000,000 readable


def shown_default(argument: Argument) -> str:
    """A default as Python and JSON both read it: `None`, `4096`, `"any"`."""
    if argument.required:
        return "required"
    if isinstance(argument.default, str):
        return f'`"{argument.default}"`'
    return f"`{argument.default}`"


def accepts(argument: Argument) -> str:
    match argument.kind:
        case "whole":
            return f"a whole number of {argument.unit}, {_number(argument.low)}–{_number(argument.high)}"
        case "choice":
            return " or ".join(f'`"{c}"`' for c in argument.choices)
        case "text":
            longest = [c.limit for c in argument.checks if c.fault == "too_long"]
            return argument.accepts + (f", at most {longest[0]} characters" if longest else "")


def call_shape(tool: ToolContract) -> str:
    """`read_note(note, section=None, budget=16384)`: the tool as the overview names it."""

    def one(argument: Argument) -> str:
        if argument.required:
            return argument.name
        default = f'"{argument.default}"' if isinstance(argument.default, str) else str(argument.default)
        return f"{argument.name}={default}"

    return f"`{tool.name}({', '.join(one(a) for a in tool.arguments)})`"


def overview() -> str:
    rows = [f"| {call_shape(tool)} | {tool.summary} |" for tool in TOOLS]
    return "\n".join(["| tool | what it answers |", "|---|---|", *rows]) + "\n"


def argument_table(tool: ToolContract) -> str:
    rows = [f"| `{a.name}` | {accepts(a)} | {shown_default(a)} |" for a in tool.arguments]
    return "\n".join(["| argument | accepts | default |", "|---|---|---|", *rows]) + "\n"


def _limit(argument: Argument) -> str:
    """What an argument is bounded by, briefly: 1–20, or 500 characters (one line)."""
    if argument.kind == "whole":
        return f"{_number(argument.low)}–{_number(argument.high)}"
    longest = next(c.limit for c in argument.checks if c.fault == "too_long")
    one_line = any(c.fault == "multiline" for c in argument.checks)
    return f"{longest}{', one line' if one_line else ''}"


def limits() -> str:
    """The bounds of each argument more than one tool takes: the first tool's, then where
    another's differ (`read_note` and `get_backlinks`: 1024–65536)."""
    rows = []
    names = [a.name for tool in TOOLS for a in tool.arguments]
    for name in dict.fromkeys(n for n in names if names.count(n) > 1):
        bounded = [
            (tool.name, a)
            for tool in TOOLS
            if (a := tool.argument(name)) is not None
            and (a.kind == "whole" or any(c.fault == "too_long" for c in a.checks))
        ]
        if len(bounded) < 2:
            continue
        first = _limit(bounded[0][1])
        others: dict[str, list[str]] = {}
        for tool, argument in bounded[1:]:
            if _limit(argument) != first:
                others.setdefault(_limit(argument), []).append(f"`{tool}`")
        units = {a.unit for _, a in bounded}
        unit = " characters" if bounded[0][1].kind == "text" else f" {units.pop()}" if len(units) == 1 else ""
        differ = ", ".join(f"{' and '.join(tools)}: {shown}" for shown, tools in others.items())
        rows.append(f"| `{name}` | {first}{unit}{f' ({differ})' if differ else ''} |")
    return "\n".join(["| argument | limit |", "|---|---|", *rows]) + "\n"


def generated(what: str) -> str:
    """The text of one generated block, named as its opening marker names it."""
    if what == "the tools":
        return overview()
    if what == "the arguments' limits":
        return limits()
    if what.startswith("arguments of ") and what.removeprefix("arguments of ") in CONTRACTS:
        return argument_table(CONTRACTS[what.removeprefix("arguments of ")])
    raise ValueError(f"docs/tools.md names an unknown generated block: {what!r}")


def rendered(text: str) -> str:
    """`text` with every generated block written anew."""
    return _BLOCK.sub(lambda m: m.group(1) + generated(m.group("what")) + m.group(4), text)


def blocks(text: str) -> list[str]:
    return [m.group("what") for m in _BLOCK.finditer(text)]


def main(argv: list[str]) -> int:
    text = DOCS.read_text(encoding="utf-8")
    new = rendered(text)
    if new == text:
        print(f"{DOCS.relative_to(REPO_ROOT)}: {len(blocks(text))} generated tables are current")
        return 0
    if "--write" in argv:
        DOCS.write_text(new, encoding="utf-8")
        print(f"{DOCS.relative_to(REPO_ROOT)}: tables rewritten from the declarations")
        return 0
    print(f"{DOCS.relative_to(REPO_ROOT)}: tables differ from the declarations; rewrite them with --write")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
