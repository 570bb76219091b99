"""Subject rules: which notes are records of a subject without naming it in their properties.

A person's vault already says what its notes are about — a folder, a tag, a property value
(`categories: "[[Books]]"`), Obsidian's daily notes — and almost no real note names a
`subject`.  Rules kept in Vault Recall's config (never in the vault), one per line of
`vault-recall subject add`, make those notes records: read with the config on every call, so a
rule added or removed reaches every client on its next call.

- `folder`: every note under that vault folder (at any depth);
- `tag`: every note tagged so, in its properties or inline (`#tag`), nested tags included
  (`project` holds `project/alpha`); case ignored, as Obsidian ignores it;
- `property` + `value`: every note whose property holds that value, or a list item equal to
  it, a wikilink's note name included (`"[[Books]]"`, `"[[Lists/Books|my books]]"`);
- `daily_notes`: the vault's daily notes (vault/daily_notes.py), each an event dated by its
  file name.

The plain record rules (records.py) say what a matched note is: an active decision unless its
own properties say otherwise.  Matching is a plain function of the note; `could_match` tells
from a note's path and bytes, before it is parsed, that no rule can match it — the pass then
treats it as it always has.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

from vault_recall.server.obsidian.values import PropertyValue

if TYPE_CHECKING:  # a Scope holds rules: `serve` imports this before it answers, the rest later
    from vault_recall.server.obsidian.note import Note
    from vault_recall.server.vault.daily_notes import DailyNotes

# What a rule takes notes by: the closed set `SubjectRule.kind` names.
RuleKind = Literal["folder", "tag", "property", "daily_notes"]
RULE_KINDS: tuple[RuleKind, ...] = get_args(RuleKind)
# `[[Target]]`, `[[Target|shown]]`, `[[Target#Heading]]`: the note a wikilink names.
_WIKILINK = re.compile(r"^\s*!?\[\[([^\[\]|#^]*)(?:[#^][^\[\]|]*)?(?:\|[^\[\]]*)?\]\]\s*$")


@dataclass(frozen=True)
class SubjectRule:
    """One rule: the notes it takes are records of `subject`.  Exactly one way of taking them
    is set (the config file and the command line check it)."""

    subject: str
    folder: str | None = None  # a vault folder, '/'-separated, no leading or trailing '/'
    tag: str | None = None  # without '#'
    property_name: str | None = None
    value: str | None = None
    daily_notes: bool = False

    @property
    def kind(self) -> RuleKind:
        if self.folder is not None:
            return "folder"
        if self.tag is not None:
            return "tag"
        if self.property_name is not None:
            return "property"
        return "daily_notes"

    def describe(self) -> str:
        """The rule as a person wrote it on the command line ('--folder Reading/Books')."""
        if self.folder is not None:
            return f"--folder {self.folder}"
        if self.tag is not None:
            return f"--tag {self.tag}"
        if self.property_name is not None:
            return f"--property {self.property_name}={self.value}"
        return "--daily-notes"

    @cached_property
    def folder_prefix(self) -> str | None:
        return None if self.folder is None else unicodedata.normalize("NFC", self.folder) + "/"

    @cached_property
    def tag_folded(self) -> str | None:
        return None if self.tag is None else _fold(self.tag.lstrip("#"))

    @cached_property
    def value_folded(self) -> str | None:
        return None if self.value is None else _fold(self.value)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


@dataclass(frozen=True)
class SubjectRules:
    """The rules of one vault, as one call reads them from the config.  `root`: the vault's
    folder, where the daily-notes settings are read (once per call, with the other settings)."""

    rules: tuple[SubjectRule, ...] = ()
    root: Path | None = field(default=None, compare=False)

    def __bool__(self) -> bool:
        return bool(self.rules)

    def of_subject(self, subject: str | None) -> SubjectRules:
        """Only the rules of `subject` (None: every rule)."""
        if subject is None:
            return self
        return SubjectRules(tuple(rule for rule in self.rules if rule.subject == subject), self.root)

    @cached_property
    def subjects(self) -> tuple[str, ...]:
        """Every subject some rule gives, in the order first given."""
        return tuple(dict.fromkeys(rule.subject for rule in self.rules))

    @cached_property
    def daily(self) -> DailyNotes | None:
        """The vault's daily notes, when a rule asks for them."""
        if self.root is None or not any(rule.daily_notes for rule in self.rules):
            return None
        from vault_recall.server.vault.vault_settings import vault_settings

        return vault_settings(self.root).daily

    @property
    def path_rules(self) -> bool:
        """Does some rule take notes by their path (a folder, daily notes)?"""
        return bool(self._folders) or any(rule.daily_notes for rule in self.rules)

    @property
    def text_rules(self) -> bool:
        """Does some rule take notes by their text (a tag, a property value)?"""
        return bool(self._texts)

    @cached_property
    def _folders(self) -> tuple[tuple[str, str], ...]:
        return tuple((rule.folder_prefix, rule.subject) for rule in self.rules if rule.folder_prefix is not None)

    @cached_property
    def _texts(self) -> tuple[str, ...]:
        """What a note's text must hold, case ignored, for a tag or property rule to match it."""
        texts: list[str] = []
        for rule in self.rules:
            if rule.tag_folded is not None:
                texts.append(rule.tag_folded)
            elif rule.property_name is not None and rule.value_folded is not None:
                # The value is the rarer text; the name must be there too, but one test is enough
                # to rule most notes out.
                texts.append(rule.value_folded)
        return tuple(dict.fromkeys(texts))

    @cached_property
    def _bytes_pattern(self) -> re.Pattern[bytes] | None:
        ascii_texts = [text for text in self._texts if text.isascii()]
        if not ascii_texts or len(ascii_texts) != len(self._texts):
            return None
        return re.compile(b"|".join(re.escape(text.encode("ascii")) for text in ascii_texts), re.IGNORECASE)

    @cached_property
    def _folder_prefixes(self) -> tuple[str, ...]:
        return tuple(prefix for prefix, _ in self._folders)

    def by_path(self, path: str) -> tuple[str, ...]:
        """The subjects a note's path alone gives it: folder rules, and daily notes."""
        found: list[str] = []
        if self._folders:
            shown = path if path.isascii() else unicodedata.normalize("NFC", path)
            # Asked of every note of a pass: one test of all the prefixes first (most notes
            # are under none).
            if shown.startswith(self._folder_prefixes):
                found += [subject for prefix, subject in self._folders if shown.startswith(prefix)]
        daily = self.daily
        if daily is not None and daily.date_of(path) is not None:
            found += [rule.subject for rule in self.rules if rule.daily_notes]
        return tuple(dict.fromkeys(found)) if found else ()

    def text_may_match(self, data: bytes | bytearray) -> bool:
        """False when no tag or property rule can take a note whose whole bytes are `data`: the
        text each one needs is not in them, case ignored.  True whenever unsure."""
        if not self._texts:
            return False
        pattern = self._bytes_pattern
        if pattern is not None:
            return pattern.search(data) is not None
        text = _fold(bytes(data).decode("utf-8", errors="replace"))
        return any(wanted in text for wanted in self._texts)

    def may_take(self, path: str, data: bytes | bytearray, whole: bool = True) -> bool:
        """False when no rule can take the note at `path` whose bytes (`whole`) or first bytes
        are `data`; True whenever unsure."""
        if not self.rules:
            return False
        if self.by_path(path):
            return True
        return bool(self._texts) and (not whole or self.text_may_match(data))

    def subjects_of(self, note: Note) -> tuple[str, ...]:
        """The subjects the rules give this note, in the order of the rules."""
        if not self.rules:
            return ()
        found = list(self.by_path(note.path))
        tags: tuple[str, ...] | None = None  # its tag properties, folded
        inline: tuple[str, ...] | None = None  # its inline tags, folded: read only when needed
        for rule in self.rules:
            if rule.subject in found:
                continue
            if rule.tag_folded is not None:
                if tags is None:
                    tags = tuple(_fold(tag) for tag in note.tags)
                if _tagged(tags, rule.tag_folded):
                    found.append(rule.subject)
                    continue
                # Finding a body's inline tags (code blanked out) costs more than all the rest
                # of a note's reading: only a body that may hold the tag's text is read for them.
                if not _may_hold(note.body, rule.tag_folded):
                    continue
                if inline is None:
                    inline = tuple(_fold(tag) for tag in note.all_tags)
                if _tagged(inline, rule.tag_folded):
                    found.append(rule.subject)
            elif (
                rule.property_name is not None
                and rule.value_folded is not None
                and _holds(note.properties, rule.property_name, rule.value_folded)
            ):
                found.append(rule.subject)
        return tuple(found)

    def daily_date(self, path: str) -> str | None:
        """The date a daily note's path stands for, when a rule takes daily notes."""
        daily = self.daily
        return None if daily is None else daily.date_of(path)


NO_RULES = SubjectRules()


def _tagged(tags: tuple[str, ...], wanted: str) -> bool:
    """Is one of these folded tags `wanted` (folded), or nested in it?"""
    return any(tag == wanted or tag.startswith(wanted + "/") for tag in tags)


def _may_hold(body: str, wanted: str) -> bool:
    """False when no tag of `body` can fold to `wanted` or nest in it; True whenever unsure.
    An ASCII body's tags are ASCII, their fold lowered: each is in the body lowered."""
    return wanted in body.lower() if body.isascii() else True


def _holds(properties: Mapping[str, PropertyValue], name: str, wanted: str) -> bool:
    """Does the property `name` (case ignored) hold `wanted` (folded) as its value or as one
    of its list's items, as text or as the note a wikilink names?"""
    folded_name = name.casefold()
    return any(key.casefold() == folded_name and wanted in _values(value) for key, value in properties.items())


def _values(value: PropertyValue) -> set[str]:
    """A property's values as a rule compares them: text folded, a wikilink by its note name
    (and by its whole path), numbers as written."""
    found: set[str] = set()
    for text, target in _items(value):
        if target is not None:
            found.add(_fold(target))
            found.add(_fold(target.rsplit("/", 1)[-1]))
        else:
            found.add(_fold(text))
    return found


def property_values(value: PropertyValue) -> list[str]:
    """A property's values as a person would name them in a rule: text as written, a wikilink
    by the note it names ('[[Reading/Books|my books]]' -> 'Books')."""
    return [text if target is None else target.rsplit("/", 1)[-1] for text, target in _items(value)]


def _items(value: PropertyValue) -> Iterator[tuple[str, str | None]]:
    """Each text value or list item: (as written, the wikilink's target or None)."""
    items: Iterable[PropertyValue] = value if isinstance(value, list) else [value]
    for item in items:
        if isinstance(item, bool) or item is None or isinstance(item, dict | list):
            continue
        text = str(item).strip()
        if not text:
            continue
        link = _WIKILINK.match(text)
        yield text, (None if link is None else link.group(1).strip().removesuffix(".md"))
