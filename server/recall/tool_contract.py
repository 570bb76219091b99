"""What a tool's contract is made of: its arguments (type, default, range or choices, what the
model is told of each) and the one sentence each bad value gets.

Plain data, read three ways: the MCP layer makes each tool's input schema of it and words a
refused argument with its sentences (mcp/tools.py, mcp/argument_errors.py), the recall
layer checks its arguments by it (answers/arguments.py), and docs/tools.md's argument tables
are written from it (tests/support/tool_docs.py, checked by tests/project/test_docs_tables.py).
The six tools are declared in tool_declarations.py.  Imports nothing: the MCP layer reads it
while it starts, before any call imports the recall layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# The sentences every argument of its type shares, as format strings: `name` is the argument,
# `value` the value as show_value quotes it, `got` "; got VALUE" when the value is known.
REQUIRED = "{name} is required"
NOT_IN_RANGE = "{name} must be a whole number from {low} to {high}{got}"
NOT_A_CHOICE = "{name} must be {allowed}{got}"
NOT_TEXT = "{name} must be text{optional}{got}"
OPTIONAL = " (or left out)"  # `optional` in the sentences above, for an argument that may be null

# What a check of text finds wrong, once the value is text (a value of the wrong type gets the
# sentence of its type, above; answers/arguments.py says how each is tested):
# - blank: only blanks;
# - too_long: more than `limit` characters;
# - multiline: holds a line break;
# - not_slug: not a subject slug;
# - not_date: not a real date written YYYY-MM-DD.
TextFault = Literal["blank", "too_long", "multiline", "not_slug", "not_date"]


@dataclass(frozen=True)
class TextCheck:
    """One thing a text argument may not be, and the sentence it gets: a format string of
    `name`, `value` (quoted by show_value), `length` (the value's) and `limit`."""

    fault: TextFault
    sentence: str
    limit: int = 0


# What an argument is: text, a whole number in a range, or one of a closed set of words.
Kind = Literal["text", "whole", "choice"]


class _Required:
    """The default of an argument the caller must give."""

    def __repr__(self) -> str:
        return "REQUIRED_ARGUMENT"


REQUIRED_ARGUMENT = _Required()


@dataclass(frozen=True)
class Argument:
    """One argument of one tool."""

    name: str
    kind: Kind
    about: str  # what the input schema tells the model
    accepts: str = ""  # docs/tools.md's "accepts" column (a whole number's or a choice's is made)
    default: int | str | _Required | None = REQUIRED_ARGUMENT
    low: int = 0  # a whole number's range, both ends allowed
    high: int = 0
    unit: str = ""  # what a whole number counts, in the docs: "bytes", "records"
    choices: tuple[str, ...] = ()
    checks: tuple[TextCheck, ...] = ()  # a text argument's, in the order they are made

    @property
    def required(self) -> bool:
        return isinstance(self.default, _Required)

    @property
    def nullable(self) -> bool:
        """Text the caller may leave out: null stands for none."""
        return self.kind == "text" and self.default is None

    def problem_sentence(self, check: TextCheck, value: str, shown: str) -> str:
        """The sentence text that fails `check` gets (`shown`: the value as show_value quotes it)."""
        return check.sentence.format(name=self.name, value=shown, length=len(value), limit=check.limit)

    def type_sentence(self, got: str) -> str:
        """The sentence a value of the wrong type (or out of range) gets; `got` is "; got VALUE"
        or empty."""
        optional = OPTIONAL if self.nullable else ""
        if self.kind == "whole":
            return NOT_IN_RANGE.format(name=self.name, low=self.low, high=self.high, got=got)
        if self.kind == "choice":
            allowed = " or ".join(repr(c) for c in self.choices)
            return NOT_A_CHOICE.format(name=self.name, allowed=allowed, got=got)
        return NOT_TEXT.format(name=self.name, optional=optional, got=got)

    @property
    def shown_range(self) -> str:
        """The range as the descriptions write it: 512-65536."""
        return f"{self.low}-{self.high}"


@dataclass(frozen=True)
class ToolContract:
    """One tool: its name, what the model reads of it, its arguments in order, and what
    docs/tools.md's overview says it answers.  The recall function answering it has the tool's
    name and takes a scope and these arguments (mcp/tools.py:answer_function)."""

    name: str
    description: str  # as written here; the MCP layer makes paragraphs of it
    arguments: tuple[Argument, ...]
    summary: str  # docs/tools.md's overview: what it answers

    def argument(self, name: str) -> Argument | None:
        return next((a for a in self.arguments if a.name == name), None)

    @property
    def budgeted(self) -> bool:
        """Whether the tool takes a byte budget (what changes it tells must fit it)."""
        return self.argument("budget") is not None
