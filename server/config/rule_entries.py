"""Subject rules as the config file keeps them: each vault's `subject_rules` list, read
strictly (one sentence naming the vault, the subject and what is wrong) and written back.

The rules themselves — which notes they take — are recall/subject_rules.py's; the command line
asks `rule_problem` before it writes a rule, so a rule it writes is one the config reads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vault_recall.server.recall.records import SUBJECT_PATTERN
from vault_recall.server.recall.subject_rules import RULE_KINDS, SubjectRule

Fail = Callable[[str, str], Exception]


def rule_json(rule: SubjectRule) -> dict[str, Any]:
    """A subject rule as the config file keeps it: the subject and the one way it takes notes."""
    taken: dict[str, Any]
    if rule.folder is not None:
        taken = {"folder": rule.folder}
    elif rule.tag is not None:
        taken = {"tag": rule.tag}
    elif rule.property_name is not None:
        taken = {"property": rule.property_name, "value": rule.value}
    else:
        taken = {"daily_notes": True}
    return {"subject": rule.subject, **taken}


def read_rule(item: Any, vault: str, fail: Fail) -> SubjectRule:
    """One subject rule of a vault, checked: a slug, and exactly one way of taking notes."""
    if not isinstance(item, dict) or not isinstance(item.get("subject"), str):
        raise fail("subject_rules", f"vault {vault!r}: each subject rule needs a text 'subject'")
    subject = item["subject"]
    if not SUBJECT_PATTERN.fullmatch(subject):
        raise fail(subject, f"vault {vault!r}: subject {subject!r} is not a slug (a-z, 0-9, '-', at most 64)")
    ways = [way for way in RULE_KINDS if way in item]
    unknown = [key for key in item if key not in (*RULE_KINDS, "subject", "value")]
    if len(ways) != 1 or unknown:
        raise fail(
            subject,
            f"vault {vault!r}: the rule for {subject!r} needs exactly one of "
            + ", ".join(repr(way) for way in RULE_KINDS)
            + (f" (not {', '.join(map(repr, unknown))})" if unknown else ""),
        )
    way = ways[0]
    value = item[way]
    problem = rule_problem(way, value, item.get("value"))
    if problem is not None:
        raise fail(subject, f"vault {vault!r}: the rule for {subject!r}: {problem}")
    if way == "folder":
        return SubjectRule(subject, folder=clean_folder(value))
    if way == "tag":
        return SubjectRule(subject, tag=value.strip().lstrip("#"))
    if way == "property":
        return SubjectRule(subject, property_name=value.strip(), value=str(item["value"]).strip())
    return SubjectRule(subject, daily_notes=True)


def rule_problem(way: str, value: Any, property_value: Any = None) -> str | None:
    """What is wrong with a rule's value, in words (None: nothing).  The command line asks
    this too, so a rule it writes is one the config reads."""
    if way == "daily_notes":
        return None if value is True else "'daily_notes' must be true"
    if not is_text(value):
        return f"{way!r} must be non-empty text"
    if way == "folder":
        parts = [part for part in value.replace("\\", "/").split("/") if part and part != "."]
        if not parts or ".." in parts or value.startswith(("/", "~")) or "\x00" in value:
            return f"folder {value!r} must be a folder inside the vault, written from its top ('Projects/Build')"
        if any(part.startswith(".") for part in parts):
            return f"folder {value!r} is hidden: Vault Recall never reads hidden folders"
        return None
    if way == "tag":
        tag = value.strip().lstrip("#")
        if not tag or any(c.isspace() for c in tag) or tag.strip("/") != tag:
            return f"tag {value!r} must be one tag, without blanks ('project' or 'project/alpha')"
        return None
    if way == "property":
        if ":" in value or any(c.isspace() for c in value.strip()):
            return f"property name {value!r} must be one name, without ':' or blanks"
        if not is_text(property_value) and not isinstance(property_value, int | float):
            return "a property rule needs a non-empty 'value'"
        return None
    return f"unknown rule {way!r}"


def clean_folder(value: str) -> str:
    """A rule's folder written one way: '/'-separated, no leading, trailing or doubled '/'."""
    return "/".join(part for part in value.replace("\\", "/").split("/") if part and part != ".")


def is_text(value: Any) -> bool:
    """Non-empty text that can be written back (no lone surrogates)."""
    if not isinstance(value, str) or not value.strip():
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
