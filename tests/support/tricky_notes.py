"""Notes that make the byte-level shortcuts hard: every way a `subject:` line can look like
one and not be (or be one and not look it), encodings, line ends, YAML 1.2's corners.  The
fast paths are checked to answer on them exactly as the full reading does."""

from __future__ import annotations

from tests.support.vaults import record

TRICKY: dict[str, str | bytes] = {
    "Quoted.md": '---\n"subject": build-system\n---\ncache\n',
    "Flow.md": "---\n{subject: build-system, x: 1}\n---\ncache\n",
    "List.md": "---\nsubject:\n  - release-process\n  - build-system\n---\ncache\n",
    "Other list.md": "---\nsubject: [hiring, security]\n---\ncache\n",
    "Commented.md": "---\nsubject: hiring # not ours\n---\ncache\n",
    "Tagged.md": "---\nsubject: !!str build-system\n---\ncache\n",
    "Broken ours.md": "---\nsubject: build-system\nsubject: build-system\n---\ncache\n",
    "Broken other.md": "---\nsubject: hiring\nx: 1\nx: 2\n---\ncache\n",
    "Unreadable.md": "---\nsubject: {{\n---\ncache\n",
    "Unterminated.md": "---\nsubject: build-system\ncache\n",
    "Latin1.md": b"---\nsubject: build-system\n---\ncaf\xe9 cache\n",
    "UTF16.md": "---\nsubject: build-system\nx: 1\nx: 2\n---\ncache\n".encode("utf-16"),
    "BOM.md": b"\xef\xbb\xbf---\r\nsubject: build-system\r\n---\r\ncache\r\n",
    "Plain.md": "subject: build-system in the body only, cache\n",
    "Nested.md": "---\nmeta:\n  subject: build-system\n---\ncache\n",
    "Indented other.md": "---\n  subject: hiring\n---\ncache\n",
    # A `subject:` line inside a value opened above it is not the note's subject.
    "Flow before.md": "---\nmeta: {\nsubject: hiring\n}\nsubject: Not A Slug\n---\ncache\n",
    "Quoted before.md": '---\ndesc: "text\nsubject: hiring"\nsubject: [Bad Slug]\n---\ncache\n',
    "Flat before.md": '---\ntags: [a, "b"]\naliases:\n  - "Q"\nsubject: hiring\n---\ncache\n',
    # '---x' is a property name, not the end of the block.
    "Dashes key.md": "---\n---x: 1\nsubject: security\n---\ncache\n",
    # YAML escapes spell names and slugs the bytes do not show.
    "Escaped key.md": '---\n"\\x73ubject": "\\x62uild-system"\n---\ncache\n',
    "Continued.md": "---\nsubject: hiring\n  more words\n---\ncache\n",
    "Quoted slug.md": "---\nsubject: 'hiring'\n---\ncache\n",
    "CR only.md": b"---\rsubject: build-system\r---\rcache\r",
    "Closed at the end.md": "---\nsubject: build-system\n---",
    "Alias names ours.md": "---\nsubject: hiring\naliases: [build-system]\n---\ncache\n",
    # Slugs YAML reads as other things: the record is broken, and could be about anything.
    "Numbered.md": "---\nsubject: 123\n---\ncache\n",
    "Null.md": "---\nsubject: null\n---\ncache\n",
    "Yes.md": "---\nx: 1\nsubject: yes\n---\ncache\n",
    "Listed off.md": "---\nsubject: [hiring, off]\n---\ncache\n",
    "Short date.md": "---\nsubject: 2026-1-5\n---\ncache\n",
    # Quotes that do not close a slug.
    "Stray quote.md": "---\nsubject: hiring'\n---\ncache\n",
    "Doubled quote.md": "---\nsubject: 'hiring'''\n---\ncache\n",
    "Quoted on.md": "---\nsubject: 'hiring\nx'\n---\ncache\n",
    "Quoted comma.md": "---\nsubject: [hiring, 'a,b']\n---\ncache\n",
    # A value carried on over a blank line, or a line break YAML knows and '\n' is not.
    "Blank then more.md": "---\nsubject: hiring\n\n  more\n---\ncache\n",
    "CRLF blank then more.md": b"---\nx: 1\nsubject: hiring\r\n\r\n  more\r\n---\r\ncache\r\n",
    "NEL then more.md": b"---\nsubject: hiring\n\xc2\x85  more\n---\ncache\n",
    "Lone CR closing.md": b"---\n  subject: Bad Slug\n---\rbody\nsubject: hiring\n---\n",
    # '--- x' ends the block where a broken note's subject is looked for.
    "Dashes line.md": "---\nx:\n  subject: a\n--- x\nsubject: hiring\n---\n",
    "Two BOMs.md": b"\xef\xbb\xbf\xef\xbb\xbf---\nsubject: build-system\n---\nbody \xff\n",
    # YAML 1.2: numbers a 1.1 reader took for text, and text a 1.1 reader took for booleans.
    "Exponent.md": "---\nsubject: 1e3\n---\ncache\n",
    "Octal.md": "---\nsubject: 0o17\n---\ncache\n",
    "Yes slug.md": "---\nsubject: yes\n---\ncache\n",
    "On in list.md": "---\nsubject: [build-system, on]\n---\ncache\n",
    # Obsidian reads these; only the record's own fields can make them problems.
    "Template.md": "---\nsubject: build-system\ncreated: {{date}}\naliases:\n  - LawList: x\n---\ncache\n",
    "Template subject.md": "---\nsubject: {{subject}}\n---\ncache\n",
    "Number name.md": "---\n2024: year\nsubject: build-system\n---\ncache\n",
    "Anchored.md": "---\nx: &s build-system\nsubject: *s\n---\ncache\n",
    # Properties longer than the start a scan reads first.
    "Long properties.md": "---\npadding: " + "a" * 70_000 + "\nsubject: build-system\n---\ncache\n",
}

# Notes of the plainest shapes and their near misses: records, line ends, a BOM, accents, text
# that is not UTF-8, ordinary notes, a template — most told from their bytes alone.
KELVIN = "\u212a"  # the Kelvin sign: matches 'k' when case is ignored
LONG = "cache " + "x" * 300 + " cache"
ODD: dict[str, str | bytes] = {
    "Plain ASCII.md": record("build-system", "cache line\nno hit\nCACHE again, cache twice\n", tags="[cache, b]"),
    "Plain CRLF.md": record("build-system", "cache one\ncache two\n").replace("\n", "\r\n"),
    "Plain lone CR.md": record("build-system", "cache one\rcache two\rthird\n"),
    "Plain BOM.md": "\ufeff" + record("build-system", "cache after a BOM\n"),
    "Plain accents.md": record("build-system", f"Caché and {KELVIN}elvin cache\nİstanbul straße\n"),
    "Plain long line.md": record("build-system", f"{LONG}\n# cache\n"),
    "Plain escapes.md": record("build-system", 'cache "quoted" \\ and \t tab\n'),
    "Other subject.md": record("hiring", "cache for another subject\n"),
    "Two subjects.md": "---\nsubject: [hiring, build-system]\n---\ncache in both\n",
    "Block list.md": "---\nsubject:\n  - build-system\n---\ncache listed\n",
    "Archived.md": record("build-system", "cache archived\n", status="archived"),
    "Event.md": record("build-system", "cache event\n", kind="event", date="2026-01-05"),
    "Bad date.md": record("build-system", "cache bad date\n", kind="event", date="2026-02-30"),
    "Not plain.md": "---\nsubject: build-system\ntitle: 'a: b' # comment\n---\ncache not plain\n",
    "Properties only.md": "---\ntags: [cache]\ncreated: 2024-01-01\n---\ncache in an ordinary note\n",
    "No properties.md": "cache without properties\n\ncache\n",
    "No properties accents.md": "Caché sans propriétés\ncache\n",
    "No properties CR.md": b"cache one\rcache two\r\n",
    "No properties BOM.md": "\ufeffcache after a BOM\n",
    "Dashes.md": "----\ncache under four dashes\n",
    "Latin-1.md": b"caf\xe9 cache\n",
    "Latin-1 record.md": b"---\nsubject: build-system\n---\ncaf\xe9 cache\n",
    "Broken.md": "---\nsubject: build-system\nsubject: hiring\n---\ncache broken\n",
    "Templates/Template.md": "---\nsubject: build-system\n---\ncache in a template\n",
}
