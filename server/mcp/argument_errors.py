"""Turn argument problems into one sentence a model can act on.

The SDK validates arguments against each tool's input schema before the tool runs and would
report pydantic's multi-line text (with a web link).  The sentence is the one the tool's
declaration gives (recall/tool_contract.py), the same the recall layer says for the checks it
makes itself.

Arguments a tool does not take follow one rule (docs/tools.md): a name that looks like
one of our own parameters — a misspelling (`budjet`), another spelling (`onOrAfter`,
`Budget`), a name holding one of ours (`budget_bytes`), or a parameter of another of our tools
— is refused by name, because ignoring it would silently answer a different question.  Any
other name is ignored: clients add arguments of their own to every tool's schema (Gemini CLI's
`wait_for_previous`, which tells it whether to run a call after the previous ones), and such an
argument must never fail a call.  More than MAX_UNKNOWN unknown names are refused together.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from vault_recall.server.errors import show_value
from vault_recall.server.recall.tool_contract import REQUIRED, ToolContract

# Arguments documented as added by clients to every tool (ignored whatever the rule says).
CLIENT_ARGUMENTS = frozenset({"wait_for_previous"})  # Gemini CLI ≥ 0.5x
_LISTED = 5  # unknown names quoted in one sentence; the rest are counted
MAX_UNKNOWN = 50  # more unknown arguments than this are refused, whatever their names
_CONTAINED = 5  # a parameter name this long or longer is "held" by a longer unknown name


@dataclass(frozen=True)
class UnknownArguments:
    refusal: str | None  # the sentence to answer with, or None: the call goes on
    ignored: tuple[str, ...]  # names to drop before the call


_SEPARATORS = str.maketrans("", "", "_- ")


def _folded(name: str) -> str:
    return name.casefold().translate(_SEPARATORS)


def _distance_at_most(a: str, b: str, bound: int) -> bool:
    """True when `a` and `b` are at most `bound` edits apart (insert, delete, substitute, or
    swap two neighbours).  Long strings are ruled out by their length alone."""
    if abs(len(a) - len(b)) > bound:
        return False
    previous2: list[int] | None = None
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if previous2 is not None and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > bound:
            return False
        previous2, previous = previous, current
    return previous[-1] <= bound


def resembles(name: str, parameter: str) -> bool:
    """Whether an unknown argument `name` looks meant as our `parameter`."""
    if len(name) > 4 * len(parameter) + 16:  # a huge name can only hold ours, never be a typo of it
        return len(parameter) >= _CONTAINED and _folded(parameter) in _folded(name)
    folded, ours = _folded(name), _folded(parameter)
    if not folded:
        return False
    if folded == ours:
        return True
    if len(ours) >= _CONTAINED and ours in folded:
        return True
    return _distance_at_most(folded, ours, 1 if len(ours) <= 5 else 2)


def unknown_arguments(
    tool: str, arguments: dict[str, Any], schema: dict[str, Any], our_parameters: Iterable[str] = ()
) -> UnknownArguments:
    """Apply the rule above to the arguments `tool` does not take.

    `our_parameters` are the parameters of every one of our tools: a name one of them takes,
    or resembles, is refused too.
    """
    known = list(schema.get("properties", {}))
    extra = [name for name in arguments if name not in known]
    if not extra:
        return UnknownArguments(None, ())
    if len(extra) > MAX_UNKNOWN:  # no client adds this many: a runaway or hostile call, refused whole
        return UnknownArguments(_refusal(tool, [(name, None) for name in extra], known), ())
    candidates = list(dict.fromkeys([*known, *our_parameters]))
    refused: list[tuple[str, str | None]] = []
    ignored: list[str] = []
    for name in extra:
        meant = None if name in CLIENT_ARGUMENTS else next((p for p in candidates if resembles(name, p)), None)
        if meant is None:
            ignored.append(name)
        else:
            refused.append((name, meant))
    if not refused:
        return UnknownArguments(None, tuple(ignored))
    return UnknownArguments(_refusal(tool, refused, known), tuple(ignored))


def _refusal(tool: str, refused: list[tuple[str, str | None]], known: list[str]) -> str:
    shown = []
    hinted: set[str] = set()
    for name, meant in refused[:_LISTED]:
        hint = ""
        if meant in known and meant != name and meant not in hinted:
            hint = f" (did you mean {meant!r}?)"
            hinted.add(meant)
        shown.append(show_value(name) + hint)
    if len(refused) > _LISTED:
        shown.append(f"{len(refused) - _LISTED:,} more")
    takes = ", ".join(known) if known else "no arguments"
    return f"{tool} does not take {', '.join(shown)}; it takes {takes}"


def describe_validation_error(error: ValidationError, contract: ToolContract) -> str:
    """One sentence for the first problem pydantic found, worded as the tool's declaration
    words it (recall/tool_contract.py)."""
    first = error.errors()[0]
    name = str(first["loc"][0]) if first["loc"] else "arguments"
    argument = contract.argument(name)
    if first["type"] == "missing":
        return REQUIRED.format(name=name)
    got = f"; got {show_value(first.get('input'))}" if "input" in first else ""
    if argument is None:
        return f"{name} is not valid: {first['msg']}{got}"
    return argument.type_sentence(got)
