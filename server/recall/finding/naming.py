"""The notes a `note` argument can name, found on the listing: only the notes a name could
mean are read (to know whether this client may see them), and for an alias — which only the
notes themselves can tell — only the notes whose bytes could hold it, and only when no path or
name matches.

Answers exactly as a whole-vault index of the notes the client may see would
(tests/support/whole_vault.py; tests/server/recall/finding/test_read_note_index.py and
tests/server/recall/finding/test_alias_filter.py compare the two), so an ambiguity error or a "no note"
answer never counts a note the client may not see.
"""

from __future__ import annotations

from pathlib import Path

from vault_recall.server.obsidian.note import InvalidNote, Note
from vault_recall.server.obsidian.resolve import MAX_NOTE_ARGUMENT, fold, named_among
from vault_recall.server.recall.finding.one_note import read_one, undecodable_note, unreadable_folder
from vault_recall.server.recall.finding.scan import as_listed
from vault_recall.server.recall.finding.text_prefilter import alias_filter
from vault_recall.server.recall.finding.view import in_view, visible_notes
from vault_recall.server.recall.scope import Exposure
from vault_recall.server.vault.exact_path import Listed, listed_as_note
from vault_recall.server.vault.folders import FolderChain
from vault_recall.server.vault.listing import VaultListing
from vault_recall.server.vault.paths import NOTE_SUFFIX, display
from vault_recall.server.vault.vault_settings import vault_settings

_SEPARATOR = "\0"  # no path holds it


def path_key(path: str) -> str:
    """fold(without_suffix(path)), the key names are compared on — cheaply for ASCII paths,
    where NFC changes nothing and casefolding is lowercasing."""
    if path.isascii():
        key = path.lower()
        return key[: -len(NOTE_SUFFIX)] if key.endswith(NOTE_SUFFIX) else key
    plain = path[: -len(NOTE_SUFFIX)] if path.lower().endswith(NOTE_SUFFIX) else path
    return fold(plain)


def exact_note(exposure: Exposure, root: Path, text: str) -> tuple[str, Note | None, InvalidNote | None] | None:
    """The note a `note` argument names by its exact vault path, as `resolve_names` and
    `ListedNames.judge` would find it — (path, the note if visible, the problem if shown) —
    told without listing the vault (vault/exact_path.py); None when only the listing can tell,
    or when the argument is no exact path of a note this client may see (a name, an alias, a
    near miss: the listing resolves those)."""
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_NOTE_ARGUMENT:
        return None  # resolve_names says what is wrong with it
    settings = vault_settings(root)
    excluded, templates = settings.excluded, settings.templates
    # In resolve_names' order: the argument as given, then with '.md' added.
    for path in (text, text + NOTE_SUFFIX):
        listed = listed_as_note(root, path, excluded)
        if listed is Listed.UNSURE:
            return None
        if listed is Listed.NO:
            continue
        parsed = as_listed(templates, read_one(root, path))
        note, trouble = (None, None) if parsed is None else in_view(exposure, parsed)
        if note is not None or trouble is not None:
            return path, note, trouble
        # Listed, but not for this client (or gone since): the next reading, as resolve_names.
    return None


class ListedNames:
    """`resolve.Names` for one call, over its listing.  Each note judged is read once, as it
    is now; nothing outlives the call (use it as a context manager: it holds a FolderChain)."""

    def __init__(self, exposure: Exposure, listing: VaultListing) -> None:
        self._exposure = exposure
        self._listing = listing
        self._chain = FolderChain(listing.root)
        self._paths = frozenset(listing.paths)
        # The few entries that are no listed note: names that are not UTF-8 (as shown; the last
        # of two shown alike wins, as in a pass) and unreadable folders.
        self._undecodable = {display(name): name for name in listing.undecodable}
        self._folders = {display(folder) + "/": folder for folder in listing.unreadable_folders}
        self._judged: dict[str, tuple[Note | None, InvalidNote | None]] = {}
        self._blob: tuple[str, str] | None = None
        self._aliased: dict[str, list[str]] = {}

    def __enter__(self) -> ListedNames:
        return self

    def __exit__(self, *exc: object) -> None:
        self._chain.close()

    @property
    def root(self) -> Path:
        return self._listing.root

    @property
    def listing(self) -> VaultListing:
        return self._listing

    def judge(self, path: str) -> tuple[Note | None, InvalidNote | None]:
        """The note at `path` as this client sees it now: (the note if visible, the problem if
        shown) — (None, None) for one it may not see, or that is gone."""
        if path not in self._judged:
            parsed: Note | InvalidNote | None
            if path in self._paths:
                parsed = read_one(self._chain, path)
            elif path in self._undecodable:
                parsed = undecodable_note(self._listing.root, self._undecodable[path])
            elif path in self._folders:
                parsed = unreadable_folder(self._folders[path])
            else:
                parsed = None
            parsed = as_listed(self._listing.templates, parsed)
            self._judged[path] = (None, None) if parsed is None else in_view(self._exposure, parsed)
        return self._judged[path]

    def reachable(self, path: str) -> bool:
        note, trouble = self.judge(path)
        return note is not None or trouble is not None

    # resolve.Names
    def exact(self, path: str) -> bool:
        return (path in self._paths or path in self._undecodable or path in self._folders) and self.reachable(path)

    def named(self, key: str) -> list[str]:
        name = key.rsplit("/", 1)[-1]
        by_path: dict[str, list[str]] = {}
        by_name: dict[str, list[str]] = {}
        for path in self.sharing_name(name):
            if self.reachable(path):
                path_folded = path_key(path)
                by_path.setdefault(path_folded, []).append(path)
                by_name.setdefault(path_folded.rsplit("/", 1)[-1], []).append(path)
        return named_among(key, by_path, by_name)

    def aliased(self, key: str) -> list[str]:
        if key not in self._aliased:
            # Only the notes themselves know their aliases, and only when asked: every note
            # this client sees whose bytes could hold the alias is read (text_prefilter).
            self._aliased[key] = sorted(
                {
                    note.path
                    for note in visible_notes(self._exposure, self._listing, alias_filter(key))
                    if any(fold(alias) == key for alias in note.aliases)
                }
            )
        return self._aliased[key]

    def sharing_name(self, name: str) -> list[str]:
        """Every entry of the listing whose folded name (without `.md`) is `name`, whether or
        not the client may see it."""
        found = [p for p in (*self._undecodable, *self._folders) if path_key(p).rsplit("/", 1)[-1] == name]
        blob, lowered = self._lowered_blob()
        # ASCII paths: one search of the lowered listing for '/name.md' or a whole 'name.md'.
        # A listed note's path always ends with '.md' (exactly), so its key is the path less it.
        if name and _SEPARATOR not in name:
            needle = name + NOTE_SUFFIX + _SEPARATOR
            start = lowered.find(needle)
            while start >= 0:
                before = lowered[start - 1]
                if before in ("/", _SEPARATOR):
                    begin = lowered.rfind(_SEPARATOR, 0, start) + 1
                    found.append(blob[begin : start + len(needle) - 1])
                start = lowered.find(needle, start + 1)
        # Paths that are not ASCII fold in ways lowercasing does not (and may fold to ASCII).
        found += [p for p in self._listing.paths if not p.isascii() and path_key(p).rsplit("/", 1)[-1] == name]
        return found

    def _lowered_blob(self) -> tuple[str, str]:
        if self._blob is None:
            ascii_paths = [p for p in self._listing.paths if p.isascii()]
            blob = _SEPARATOR + _SEPARATOR.join(ascii_paths) + _SEPARATOR
            self._blob = (blob, blob.lower())  # ASCII: the same length, offset for offset
        return self._blob
