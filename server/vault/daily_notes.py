"""Where a vault keeps its daily notes, and the date a daily note's path stands for.

Obsidian's Daily notes core plugin keeps its folder and its date format (a moment.js format,
`YYYY-MM-DD` by default) in `daily-notes.json` in the config folder; the Periodic Notes
community plugin, where present and on, keeps its own under `plugins/periodic-notes/data.json`
(`"daily": {"enabled": true, "folder": …, "format": …}`) and takes over from the core plugin.
Read fresh on every call with the other settings (vault_settings.py); nothing here writes.

A daily note is a note under that folder whose path below it, without `.md`, is the date
written in that format (`2026-03-02`, `2026/03/2026-03-02`, `Monday, March 2nd 2026`): the
format is turned into a pattern once per call, and the date read back from the match.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vault_recall.server.vault.settings import DEFAULT_CONFIG_FOLDER, read_settings

DEFAULT_FORMAT = "YYYY-MM-DD"
CORE_SETTINGS = "daily-notes.json"
PERIODIC_SETTINGS = "plugins/periodic-notes/data.json"

_MONTHS = [name.lower() for name in calendar.month_name[1:]]
_MONTHS_SHORT = [name.lower() for name in calendar.month_abbr[1:]]
_WEEKDAYS = "|".join(name for name in calendar.day_name)
_WEEKDAYS_SHORT = "|".join(name for name in calendar.day_abbr)
# moment.js tokens a daily-note format is written with, longest first (so `MMMM` is not read
# as two `MM`), each as the pattern it matches and the part of the date it gives (None: a part
# that only has to be there, a weekday say).
_TOKENS: tuple[tuple[str, str, str | None], ...] = (
    ("YYYY", r"\d{4}", "year"),
    ("MMMM", "|".join(_MONTHS), "month_name"),
    ("dddd", _WEEKDAYS, None),
    ("MMM", "|".join(_MONTHS_SHORT), "month_short"),
    ("ddd", _WEEKDAYS_SHORT, None),
    ("YY", r"\d{2}", "year2"),
    ("MM", r"\d{2}", "month"),
    ("DD", r"\d{2}", "day"),
    ("Do", r"\d{1,2}(?:st|nd|rd|th)", "day_ordinal"),
    ("dd", r"Mo|Tu|We|Th|Fr|Sa|Su", None),
    ("M", r"\d{1,2}", "month"),
    ("D", r"\d{1,2}", "day"),
    ("d", r"[0-6]", None),
    ("E", r"[1-7]", None),
)
_LETTERS = re.compile(r"[A-Za-z]")


@dataclass(frozen=True)
class DailyNotes:
    """The vault's daily notes: their folder (a vault path prefix ending in '/', or '' for the
    vault's top) and their format, as written and as the pattern that reads a path back."""

    folder: str
    format: str
    pattern: re.Pattern[str] | None  # None: a format whose dates cannot be read back

    def date_of(self, path: str) -> str | None:
        """The date (YYYY-MM-DD) the note at this vault path stands for, or None when it is no
        daily note."""
        if self.pattern is None or not path.endswith(".md"):
            return None
        if not path.isascii():
            path = unicodedata.normalize("NFC", path)
        if not path.startswith(self.folder):
            return None
        found = self.pattern.fullmatch(path[len(self.folder) : -3])
        return None if found is None else _date_from(found)


def read_daily_notes(root: Path, folders: Sequence[str]) -> DailyNotes:
    """The daily notes of the vault whose config folders are `folders` (most recently saved
    first; `.obsidian` is always looked in): Periodic Notes' daily settings where the plugin is
    installed with daily notes on, else the core plugin's, else Obsidian's defaults."""
    found = [*folders] + ([DEFAULT_CONFIG_FOLDER] if DEFAULT_CONFIG_FOLDER not in folders else [])
    for config in found:
        periodic = read_settings(root, f"{config}/{PERIODIC_SETTINGS}")
        daily = periodic.get("daily") if periodic is not None else None
        if isinstance(daily, dict) and daily.get("enabled") is True:
            return daily_notes(daily.get("folder"), daily.get("format"))
    for config in found:
        core = read_settings(root, f"{config}/{CORE_SETTINGS}")
        if core is not None:
            return daily_notes(core.get("folder"), core.get("format"))
    return daily_notes(None, None)


def daily_notes(folder: object, written: object) -> DailyNotes:
    """Daily notes kept in `folder` with dates written in `written` (either may be unset or
    blank: the vault's top, and YYYY-MM-DD, as Obsidian takes them then)."""
    shape = written.strip() if isinstance(written, str) and written.strip() else DEFAULT_FORMAT
    return DailyNotes(folder=_folder_prefix(folder), format=shape, pattern=format_pattern(shape))


def _folder_prefix(value: object) -> str:
    if not isinstance(value, str):
        return ""
    parts = [part for part in unicodedata.normalize("NFC", value.strip()).split("/") if part and part != "."]
    if ".." in parts:
        return ""
    return "/".join(parts) + "/" if parts else ""


def format_pattern(written: str) -> re.Pattern[str] | None:
    """The pattern a moment.js date format's output matches, with a named group per date part
    — or None when the format cannot give back a whole date (no year, month and day, or a
    token this reading does not know)."""
    parts: list[str] = []
    seen: set[str] = set()
    at = 0
    while at < len(written):
        if written[at] == "[":  # [literal text]
            end = written.find("]", at)
            if end < 0:
                return None
            parts.append(re.escape(written[at + 1 : end]))
            at = end + 1
            continue
        token = next((t for t in _TOKENS if written.startswith(t[0], at)), None)
        if token is None:
            if _LETTERS.match(written[at]):
                return None  # a token not read here (week numbers, hours…): no date to read back
            parts.append(re.escape(written[at]))
            at += 1
            continue
        text, pattern, part = token
        if part is None or part in seen:
            parts.append(f"(?:{pattern})")
        else:
            parts.append(f"(?P<{part}>{pattern})")
            seen.add(part)
        at += len(text)
    has_year = seen & {"year", "year2"}
    has_month = seen & {"month", "month_name", "month_short"}
    has_day = seen & {"day", "day_ordinal"}
    if not (has_year and has_month and has_day):
        return None
    return re.compile("".join(parts), re.IGNORECASE)


def _date_from(found: re.Match[str]) -> str | None:
    parts = found.groupdict()
    year = int(parts["year"]) if parts.get("year") else 2000 + int(parts["year2"])
    if parts.get("month"):
        month = int(parts["month"])
    elif parts.get("month_name"):
        month = _MONTHS.index(parts["month_name"].lower()) + 1
    else:
        month = _MONTHS_SHORT.index(parts["month_short"].lower()) + 1
    day_text = parts.get("day") or parts["day_ordinal"][:-2]
    try:
        return dt.date(year, month, int(day_text)).isoformat()
    except ValueError:
        return None  # 2026-02-30: no day at all
