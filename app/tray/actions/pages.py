"""The pages the tray opens in the browser: help (what a memory record is, first steps), the
whole activity, and the doctor's report — built as HTML from data, written to the state folder
(readable by the person only) and opened with the desktop's opener.

Every value from the vault, the config or a client (paths, subjects, queries) is escaped: a
query is text a model wrote.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape
from pathlib import Path
from typing import assert_never

from vault_recall.app.state.atomic_write import write_atomically
from vault_recall.app.state.note_revisions import NoteRef, change_of
from vault_recall.app.timefmt import clock
from vault_recall.server.activity.event_rows import EventRow, OtherStatus, status_text
from vault_recall.server.activity.events import EventStatus
from vault_recall.server.config.config_file import state_dir

STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60em; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
code, pre { font: 13px/1.4 ui-monospace, monospace; background: #f3f3f3; border-radius: 4px; }
code { padding: 0.1em 0.3em; } pre { padding: 0.8em; overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; vertical-align: top; padding: 0.25em 0.5em; border-bottom: 1px solid #ddd; }
.muted { color: #777; } .changed { color: #a15c00; } .bad { color: #b00020; }
"""


def page(title: str, body: str) -> str:
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{STYLE}</style></head><body>\n<h1>{escape(title)}</h1>\n{body}\n</body></html>\n"
    )


def write_page(name: str, html: str, folder: Path | None = None) -> Path:
    """`html` as `<state folder>/pages/<name>.html`, readable by the person only."""
    pages = (folder or state_dir()) / "pages"
    pages.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = pages / f"{name}.html"
    write_atomically(path, html.encode("utf-8"), 0o600)
    return path


RECORD_EXAMPLE = """---
subject: build-system
status: active
kind: decision
tags: [build, tooling]
---
# We build with Bazel

We moved the monorepo from Make to Bazel in February 2026 …"""


def help_page(version: str, command: str, config: Path, activity: Path) -> str:
    """First steps, what a memory record is, and where things are.  `command`: how to start
    Vault Recall from a terminal here."""
    c = escape(command)
    body = f"""
<p>Vault Recall lets every AI client on this computer (Claude, Cursor, VS Code, Codex, Zed, …)
recall the decisions you keep as notes in your Obsidian vault, read fresh from the files on every
call. It never writes in your vault.</p>

<h2 id="records">What a memory record is</h2>
<p>A <b>memory record</b> is a note clients recall by its <b>subject</b>; every other note stays
out of their sight unless you let a client see the whole vault. A note gets a subject in one of
two ways:</p>
<ol>
<li><b>A rule in Vault Recall's config</b>, for notes you already have: every note under a
folder, with a tag, or with a property's value is a record of a subject you name. Nothing in your
vault is changed. On a vault with no records the tray's menu offers the subjects your folders,
tags and properties suggest, with how many notes each takes: one click adds one. <i>Vault ▸
Subjects from rules</i> lists them, and removes one in a click. From a terminal:
<code>{c} subject suggest</code>, <code>{c} subject add projects --folder Projects</code>,
<code>{c} subject list</code>, <code>{c} subject remove projects</code>.</li>
<li><b>Properties in the note</b> (the block between <code>---</code> lines at its top) that name
a <code>subject</code>, as below.</li>
</ol>
<p>A vault whose notes no rule takes and none of which names a <code>subject</code> has
<b>0 records</b>, and there is nothing to recall. A note with properties:</p>
<pre>{escape(RECORD_EXAMPLE)}</pre>
<ul>
<li><code>subject</code>: a slug (a–z, 0–9, <code>-</code>), or a list of them. Required, unless a
rule gives the note its subject; a note a rule takes is an active decision unless its own
properties say otherwise.</li>
<li><code>status</code>: <code>active</code> (the default) or <code>archived</code> (kept out of recall).</li>
<li><code>kind</code>: <code>decision</code> (the default) or <code>event</code> (history; needs
<code>date: YYYY-MM-DD</code>).</li>
<li><code>aliases</code>, <code>tags</code>: other names and tags, matched like the title.</li>
</ul>
<p><b>To make one in Obsidian:</b> open a note, add a property (<i>Add file property</i> in the
command palette, or type <code>---</code> on the note's first line), name it <code>subject</code>
and give it a topic such as <code>build-system</code>. Save: the next question any client asks
about that subject gets the note. A note whose properties break these rules is listed under
<i>Problems</i> in the tray's menu with the line and the reason.</p>

<h2 id="vault">Choose your vault</h2>
<p>The tray's <i>Vault</i> menu lists the vaults Obsidian knows; <i>Choose folder…</i> picks any
other folder. Where no folder dialog exists, add it from a terminal:</p>
<pre>{c} vault add ~/path/to/your/vault</pre>
<p>Until you choose, the tray uses its bundled <b>sample vault</b>: example notes, not yours. Every
answer from it tells the client so.</p>

<h2 id="clients">Connect your AI clients</h2>
<p><i>Connect a client ▸ Claude Code</i> (or any other) writes Vault Recall's entry into that
client's own config file (backed up, everything else kept), in one click; <i>Clients ▸ … ▸
Uninstall from …</i> takes it out again. Restart the client afterwards. From a terminal:
<code>{c} install cursor</code>.</p>

<h2 id="pause">Pause recall</h2>
<p>Quitting the tray does not stop recall: each client starts its own server. <i>Pause recall</i>
(or <code>{c} pause</code>) makes every server answer <code>unavailable</code>, "paused by the
person", until you resume; the activity records each refused call.</p>

<h2 id="icon">The icon</h2>
<ul>
<li>green: the vault is healthy; amber: some notes are broken, or there are no records yet;</li>
<li>grey: the vault cannot be read, or no vault is chosen; two bars: recall is paused;</li>
<li>a blue dot for a moment: a client just recalled.</li>
</ul>

<h2 id="trouble">When something is wrong</h2>
<p><i>Help ▸ Run doctor</i> (or <code>{c} doctor</code>) checks the whole chain — config, vault,
activity store, tray, each installed client started as that client starts it — and says what
to fix. <code>{c} health</code> lists every broken note.</p>

<h2 id="files">Where things are</h2>
<ul>
<li>config: <code>{escape(str(config))}</code></li>
<li>activity: <code>{escape(str(activity))}</code></li>
</ul>
<p class="muted">Vault Recall {escape(version)}</p>
"""
    return page("Vault Recall — help", body)


def _unavailable(status: EventStatus | OtherStatus | None) -> bool:
    """Whether a call's status says it could not read the vault (a failed call says so in its
    error instead; a word of another version says nothing this one knows)."""
    match status:
        case "unavailable":
            return True
        case None | "ok" | "degraded" | "error" | OtherStatus():
            return False
        case _:
            assert_never(status)


def activity_page(
    events: Iterable[EventRow], total: int, now_revisions: Mapping[NoteRef, str | None], keep_query: bool
) -> str:
    """Every call in the activity store (newest first), with what each returned."""
    rows = []
    shown = 0
    for event in events:
        shown += 1
        notes = []
        for path, given in event.given():
            change = change_of((event.vault or "", path), given, now_revisions)
            mark = f' <span class="changed">({change} since)</span>' if change else ""
            revision = f' <span class="muted">@{escape(given[:12])}</span>' if given else ""
            notes.append(f"{escape(path)}{revision}{mark}")
        query = (
            escape(event.query) if event.query else ('<span class="muted">not kept</span>' if not keep_query else "")
        )
        status = escape(event.error) if event.error else escape(status_text(event.status) or "")
        status_class = ' class="bad"' if event.error or _unavailable(event.status) else ""
        rows.append(
            f"<tr><td>{escape(clock(event.ts))}</td><td>{escape(event.client)}</td><td>{escape(event.tool)}</td>"
            f"<td>{escape(event.subject or '')}</td><td>{query}</td><td{status_class}>{status}</td>"
            f"<td>{'<br>'.join(notes)}</td></tr>"
        )
    if not rows:
        return page("Vault Recall — activity", "<p>No activity yet: no client has called Vault Recall.</p>")
    older = total - shown
    note = f"<p>The {shown:,} newest of {total:,} calls kept.</p>" if older > 0 else f"<p>All {total:,} calls kept.</p>"
    table = (
        "<table><tr><th>when</th><th>client</th><th>tool</th><th>subject</th><th>query</th><th>status</th>"
        "<th>notes returned (revision)</th></tr>\n" + "\n".join(rows) + "\n</table>"
    )
    return page("Vault Recall — activity", note + table)


def doctor_page(report: str, exit_code: int) -> str:
    verdict = "Nothing to fix." if exit_code == 0 else "Something to fix: see the lines marked FAIL and their fix."
    return page("Vault Recall — doctor", f"<p>{escape(verdict)}</p><pre>{escape(report)}</pre>")
