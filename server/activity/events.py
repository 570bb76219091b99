"""One tool call as the activity store keeps it, and how it is described from the call's
arguments and result: what was asked (unless the config says not to keep query text), which
notes came back with which revisions, and how it ended."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from vault_recall.server.errors import show_value

# How a call ended, as its event keeps it: its result's status (results.Status, which every
# tool's result carries), or "error" when it gave no result (refused, or failed).
EventStatus = Literal["ok", "degraded", "unavailable", "error"]
_STATUS_OF: dict[str, EventStatus] = {status: status for status in get_args(EventStatus)}


def event_status(value: object) -> EventStatus | None:
    """`value` as one of the statuses an event keeps, or None when it is none of them."""
    return _STATUS_OF.get(value) if isinstance(value, str) else None


@dataclass(frozen=True)
class ActivityEvent:
    """One tool call, as the activity store keeps it (docs/activity.md lists the fields)."""

    client: str
    tool: str
    duration_ms: float
    ts: float = field(default_factory=time.time)
    client_name: str | None = None
    client_version: str | None = None
    pid: int = field(default_factory=os.getpid)
    vault: str | None = None
    subject: str | None = None
    query: str | None = None
    status: EventStatus | None = None
    returned: tuple[tuple[str, str | None], ...] = ()  # (path, revision)
    omitted: int | None = None
    error: str | None = None


def event_from_result(
    *,
    client: str,
    tool: str,
    arguments: dict[str, Any],
    result: dict[str, Any] | None,
    error: str | None,
    started: float,
    client_info: tuple[str | None, str | None],
    keep_query_text: bool,
    vault: str | None = None,
) -> ActivityEvent:
    """Describe one tool call for the store: what was asked, what was answered.

    `vault` names the vault the call was for when there is no result to say it (a refused call).
    """
    query = arguments.get("query")
    if query is None and "note" in arguments:
        query = arguments.get("note")
    returned: list[tuple[str, str | None]] = []
    if result is not None:
        for item in result.get("records", []) or []:
            if isinstance(item, dict) and "path" in item:
                # A record without any text (too large for the budget) gave no revision to hold.
                held = "text" in item or "passages" in item
                returned.append((str(item["path"]), item.get("revision") if held else None))
        if "path" in result and "text" in result:  # read_note
            returned.append((str(result["path"]), result.get("revision")))
    if error is not None and not keep_query_text:
        error = _redacted(error, [arguments.get("query"), arguments.get("note"), arguments.get("section")])
    return ActivityEvent(
        client=client,
        tool=tool,
        duration_ms=round((time.perf_counter() - started) * 1000, 3),
        client_name=client_info[0],
        client_version=client_info[1],
        vault=result.get("vault") if result else vault,
        subject=arguments.get("subject") if isinstance(arguments.get("subject"), str) else None,
        query=(str(query)[:500] if query is not None else None) if keep_query_text else None,
        # None: a result without a status of its own, which none of the tools gives.
        status=event_status(result.get("status")) if result else "error",
        returned=tuple(dict.fromkeys(returned)),
        omitted=(result or {}).get("omitted") if result else None,
        error=error,
    )


def _redacted(text: str, secrets: list[Any]) -> str:
    """An error message without the words the person asked not to keep — however the value
    was given (text, a list of texts, …) and however the message quotes it."""
    forms: set[str] = set()
    for secret in secrets:
        forms.update(_forms(secret, depth=0))
    for form in sorted((f for f in forms if f), key=len, reverse=True):
        text = text.replace(form, "'…'")
    return text


def _forms(value: Any, depth: int) -> set[str]:
    """The ways an error sentence may quote `value` (and the texts inside it)."""
    if value is None or depth > 3:
        return set()
    found = {repr(value), show_value(value)}
    if isinstance(value, str):
        found.add(value)
    elif isinstance(value, list | tuple):
        for item in value[:50]:
            found.update(_forms(item, depth + 1))
    elif isinstance(value, dict):
        for key, item in list(value.items())[:50]:
            found.update(_forms(key, depth + 1) | _forms(item, depth + 1))
    return found
