"""A new user's first five minutes with the real tray, under each real panel — XFCE's panel and
gtk-sni-tray, which draw the item's dbusmenu on a left click; LXQt's panel, which sends a left
click to the item as `Activate` (the tray then draws the same menu itself); trayer, an XEmbed
tray (GTK's icon) — clicked with xdotool on Xvfb: a person with an Obsidian vault (Obsidian's
own `obsidian.json` lists it) whose notes name no subject, and no Vault Recall config at all.
From the icon, each step in at most three clicks:

1. *Use your vault 'Work'* — the vault Obsidian has open, instead of the bundled sample;
2. *Add subject 'projects' — folder Projects/ (3 notes)* — what the vault already suggests;
3. *Connect a client ▸ Claude Code* — its entry written into `~/.claude.json`.

Then the entry is started exactly as Claude Code starts it — the `command`, `args` and `env`
of the written file, in a HOME of the person's, without this run's VAULT_RECALL_HOME — over MCP
stdio, and it recalls a note of the person's vault.  Last, the real Claude Code (installed by
.ci/run's npm step; skipped, saying so, where it is not) is asked in that HOME, with nothing
but the file the click wrote to find us: a stand-in for the model's API on 127.0.0.1
(tests/support/model_standin.py) calls `recall_context`, and what Claude Code sent back to the
model must be the person's note.

A click is the icon, each submenu opened and the item chosen; moving down a menu with the
keyboard is pointing, not clicking.  A panel that dies as it starts (gtk-sni-tray-standalone
now and then: "Pattern match failure") is started again, at most PANEL_STARTS times, and the
test says so.  Screenshots of every step are kept in the test's folder, whose path the test
prints.  Notifications go to a played notification service on the same private bus
(tests/support/sni_host.py), so what each click said is read back word for word.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.support.e2e import call
from tests.support.headless import GTK_SNI_TRAY, LXQT, TRAYER, XFCE, Desktop, PanelKind, tray
from tests.support.model_standin import MARKER, Script, model_standin
from tests.support.parts import need
from tests.support.real_clients import Run, claude_code_env, run_client, tool_result_json
from tests.support.sni_host import Panel
from tests.support.tray_clicks import (
    MENU_AREA,
    find_icon,
    icon_shown,
    keys_to,
    menu_drawn,
    popup_open,
    watcher_running,
)
from tests.support.vaults import snapshot, write_vault
from vault_recall.app.desktop.icon import COLOURS
from vault_recall.server.activity.queries import recent_events
from vault_recall.server.config.config_file import activity_path, config_path, load_config

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

MOST_CLICKS = 3
WAIT = 120.0  # generous: the machine may be slow; nothing here is timed
PANELS = (XFCE, LXQT, GTK_SNI_TRAY, TRAYER)
# A panel that dies as it starts is started again, this many times at most (the test is about
# the tray, not that panel's start-up).
PANEL_STARTS = 5


async def until(check: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
    """Look at `check` until it gives something true (bounded), and return that."""
    deadline = time.monotonic() + timeout
    while True:
        result = await asyncio.to_thread(check)
        if result:
            return result
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        await asyncio.sleep(0.1)


class Person:
    """The person at the screen: finds the icon, clicks it, walks the menu, counts the clicks."""

    def __init__(self, desktop: Desktop, dump: Path, kind: PanelKind) -> None:
        self.desktop = desktop
        self.dump = dump
        self.kind = kind
        self.clicks: dict[str, int] = {}

    def menu(self) -> list[dict[str, Any]]:
        try:
            loaded: list[dict[str, Any]] = json.loads(self.dump.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return []
        return loaded

    def settled_with(self, *labels: str) -> list[dict[str, Any]] | None:
        """The menu, once it holds `labels` and has not changed for a moment (an open menu
        that changes under the keyboard moves the selection)."""
        try:
            if time.time() - self.dump.stat().st_mtime < 1.5:
                return None
        except FileNotFoundError:
            return None
        menu = self.menu()
        return menu if _path_in(menu, labels) else None

    async def choose(self, step: str, *labels: str) -> None:
        menu = await until(lambda: self.settled_with(*labels), " ▸ ".join(labels))
        keys = keys_to(menu, *labels)
        await until(lambda: icon_shown(self.desktop, COLOURS.values()), "the tray icon on the panel")
        x, y = find_icon(await asyncio.to_thread(self.desktop.screenshot, f"{step}-before"), COLOURS.values())
        await asyncio.to_thread(self.desktop.run, "xdotool", "mousemove", str(x), str(y), "click", "1")
        await until(lambda: menu_open(self.desktop), "the menu to open")
        if self.kind is LXQT:  # the left click reached the tray as Activate: the menu is the tray's own
            assert popup_open(self.desktop.env), "LXQt's panel drew a menu of its own on a left click"
        for key in keys[:-1]:
            await asyncio.to_thread(self.desktop.run, "xdotool", "key", "--delay", "80", key)
        await asyncio.to_thread(self.desktop.screenshot, f"{step}-menu")
        await asyncio.to_thread(self.desktop.run, "xdotool", "key", keys[-1])
        # The icon, then each submenu opened and the item: what a mouse would click.
        self.clicks[step] = 1 + len(labels)


def _path_in(menu: list[dict[str, Any]], labels: tuple[str, ...]) -> bool:
    level: list[dict[str, Any]] | None = menu
    for label in labels:
        item = next((i for i in level or [] if i["text"] == label and i["enabled"]), None)
        if item is None:
            return False
        level = item["submenu"]
    return True


def menu_open(desktop: Desktop) -> bool:
    shot = desktop.root / "probe.png"
    done = desktop.run("import", "-window", "root", "-crop", MENU_AREA, str(shot))
    return done.returncode == 0 and menu_drawn(shot)


def panel_ready(desktop: Desktop, kind: PanelKind) -> bool:
    """A StatusNotifierItem panel: its watcher is on the bus.  trayer: its window is up."""
    if kind.sni:
        return watcher_running(desktop.env)
    return bool(desktop.run("xdotool", "search", "--onlyvisible", "--class", kind.name).stdout.strip())


async def panel_up(desktop: Desktop, kind: PanelKind, ready: Callable[[], bool], what: str) -> None:
    """Start `kind` until a start of it lives until `ready`; a start that died is said, not waited on."""
    for start in range(PANEL_STARTS):
        process = desktop.start(list(kind.command), kind.name)
        await until(partial(_died_or, process, ready), what)
        if process.poll() is None:
            return
        desktop.processes.remove(process)
        print(f"{kind.name} died as it started ({start + 1}): {desktop.log(kind.name).splitlines()[-1:]}")
    raise AssertionError(f"{kind.name} died at each of {PANEL_STARTS} starts")


def _died_or(process: subprocess.Popen[bytes], ready: Callable[[], bool]) -> bool:
    return process.poll() is not None or ready()


def obsidian_knows(desktop: Desktop, vault: Path) -> None:
    """Obsidian's own vault list, as Obsidian writes it: the vault open now."""
    folder = Path(desktop.env["XDG_CONFIG_HOME"]) / "obsidian"
    folder.mkdir(parents=True, exist_ok=True)
    listed = {"a1b2c3d4e5f60718": {"path": str(vault), "ts": 1_700_000_000_000, "open": True}}
    (folder / "obsidian.json").write_text(json.dumps({"vaults": listed}), encoding="utf-8")


async def told(host: Panel, count: int, what: str) -> tuple[str, str]:
    """The first notification after the first `count`: (summary, body)."""
    await host.until(lambda: len(host.notifications) > count, what, WAIT)
    return host.notifications[count][3], host.notifications[count][4]


async def recall_as_claude_code(home: Path, entry: dict[str, Any]) -> dict[str, Any]:
    """Start the installed entry as Claude Code does — its command, args and env over the
    person's environment (no VAULT_RECALL_* or XDG_* of this run) — and recall."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VAULT_RECALL", "XDG_"))}
    env.update(HOME=str(home), **entry.get("env", {}))
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=env, cwd=str(home))
    async with Client(params, read_timeout_seconds=60) as session:
        subjects = await call(session, "list_subjects")
        answer = await call(session, "recall_context", {"subject": "projects", "query": "alpha launch date"})
    return {"subjects": subjects, "answer": answer}


# What the person asks Claude Code, and the recall the stand-in model makes of it.
QUESTION = f"{MARKER}: when is the alpha launch?"
RECALL = {"subject": "projects", "query": "alpha launch date"}
# The tray's click writes the entry, not an allow list: in a session Claude Code asks the person
# before our tool's first call, and `claude -p` (no one to ask) takes the yes on its command line.
ALLOWED = "mcp__vault-recall__recall_context"


def ask_claude_code(home: Path) -> tuple[Run, Script]:
    """The real Claude Code, asked in the person's HOME: the entry the click wrote in
    `~/.claude.json` is all it has to start our server with."""
    script = Script(arguments=RECALL)
    work = home / "code"
    work.mkdir(exist_ok=True)
    with model_standin(script) as url:
        run = run_client(["claude", "-p", QUESTION, "--allowedTools", ALLOWED], claude_code_env(home, url), work)
    return run, script


def the_persons_note(answer: dict[str, Any]) -> None:
    """A recall answered from the person's vault 'Work', its first record the alpha note."""
    assert answer["status"] == "ok" and answer["vault"] == "Work", answer
    assert answer["records"][0]["path"] == "Projects/Alpha.md" and "12 March" in answer["records"][0]["text"]
    assert "notice" not in answer  # the person's vault, not the sample


@pytest.mark.parametrize("kind", PANELS, ids=[kind.name for kind in PANELS])
async def test_a_new_user_reaches_a_client_recalling_their_note_in_three_clicks_a_step(
    desktop: Desktop, kind: PanelKind
) -> None:
    need(kind.part)
    if kind in (LXQT, TRAYER):  # the menu the tray draws itself, and GTK's icon
        need("python3-gi", "gtk", context=f"the tray's menu under {kind.name}")
    kind.configure(Path(desktop.env["XDG_CONFIG_HOME"]))
    home = Path(desktop.env["HOME"])
    work = write_vault(
        home / "Documents/Work",
        {
            ".obsidian/app.json": "{}\n",
            "Projects/Alpha.md": "# Alpha\nThe alpha launch date is 12 March; Dana owns the launch.\n",
            "Projects/Beta.md": "---\ntags: [planning]\n---\n# Beta\nBeta waits for the new build farm.\n",
            "Projects/Gamma.md": "# Gamma\nGamma is on hold until the audit is done.\n",
            "Inbox.md": "Loose thoughts, nothing decided.\n",
            # As in a real vault (15 of obsidian-hub's 6,571): a note YAML cannot read.
            "Old idea.md": "---\naliases: [unclosed\n---\nKept from before.\n",
        },
    )
    before = snapshot(work)
    obsidian_knows(desktop, work)
    (home / ".claude.json").write_text('{"numStartups": 3}\n', encoding="utf-8")  # Claude Code is here
    assert not config_path().exists()  # a new user: no Vault Recall config at all
    dump = desktop.root / "menu.json"
    desktop.env["VAULT_RECALL_TRAY_MENU_DUMP"] = str(dump)
    shots = desktop.root / "screenshots"
    print(f"screenshots of the first five minutes under {kind.name}: {shots}")
    person = Person(desktop, dump, kind)
    async with asyncio.timeout(900):
        # Spoken to on its bus while it started, gtk-sni-tray has died (under load, in CI).
        await panel_up(desktop, kind, lambda: panel_ready(desktop, kind), f"{kind.name} to start")
        host = Panel(desktop.bus_address, await _bus(desktop.bus_address))
        try:
            await host.offer_services()  # notifications only: the panel is the real one
            with tray(desktop):
                # 1. The person's vault, the one Obsidian has open; told once it is checked,
                # with why the icon turns amber and what to do.
                count = len(host.notifications)
                await person.choose("1-your-vault", "Use your vault 'Work'")
                await until(lambda: load_config().active_vault == "Work", "the person's vault in use")
                assert load_config().vault("Work").path == str(work)  # type: ignore[union-attr]
                summary, body = await told(host, count, "the vault's notification")
                assert summary == "Vault Recall now recalls from Work"
                assert "The icon is amber: no note is a memory record yet" in body
                # No records yet, said though a note is broken, beside what the vault suggests.
                await until(
                    lambda: (
                        (m := person.menu())
                        and m[0]["text"] == "Work — 5 notes, 0 records, 1 problem"
                        and [i["text"] for i in m[1:4]]
                        == [
                            "Add subject 'projects' — folder Projects/ (3 notes)",
                            "No memory records yet: what is a record?",
                            "Problems (1)",
                        ]
                    ),
                    "the menu to say the vault has no records yet",
                )

                # 2. The subject the vault suggests, with its count; the health line then counts it.
                offer = "Add subject 'projects' — folder Projects/ (3 notes)"
                count = len(host.notifications)
                await person.choose("2-subject", offer)
                summary, body = await told(host, count, "the subject's notification")
                assert summary == "Added subject 'projects' to Work"
                assert body.startswith("3 notes under Projects/ are memory records of 'projects'")
                assert "vault-recall subject list / remove projects" in body
                await until(
                    lambda: (m := person.menu()) and m[0]["text"] == "Work — 5 notes, 3 records, 1 problem",
                    "the health line to count the records",
                )

                # 3. A client, connected in one click, with an answer.
                count = len(host.notifications)
                await person.choose("3-connect", "Connect a client", "Claude Code")
                summary, body = await told(host, count, "the connect notification")
                assert summary == "Added Vault Recall to Claude Code"
                assert "~/.claude.json" in body and body.endswith("Restart Claude Code to use it.")
                await until(lambda: person.settled_with("Clients", "Claude Code"), "Claude Code among the clients")
                await asyncio.to_thread(desktop.screenshot, "4-connected")
        finally:
            host.host.disconnect()

    entry = json.loads((home / ".claude.json").read_text(encoding="utf-8"))["mcpServers"]["vault-recall"]
    assert entry["type"] == "stdio"
    recalled = await recall_as_claude_code(home, entry)
    assert [s["subject"] for s in recalled["subjects"]["subjects"]] == ["projects"]
    the_persons_note(recalled["answer"])

    assert person.clicks == {"1-your-vault": 2, "2-subject": 2, "3-connect": 3}
    assert max(person.clicks.values()) <= MOST_CLICKS
    assert snapshot(work) == before  # nothing was written in the vault
    assert len(list(shots.iterdir())) >= 7
    assert "Traceback" not in desktop.log("tray")

    # The real client, last: everything above holds without it (a machine without npm).
    need("claude", context="the walk, its clicks and the entry's own recall passed; Claude Code's recall is left")
    run, script = await asyncio.to_thread(ask_claude_code, home)
    assert run.returncode == 0 and "Recalled it." in run.stdout, (run.stdout, run.stderr, script.paths)
    assert len(script.results) == 1, (script.paths, script.results)  # the tool's result reached the model
    assert '"status"' in script.results[0], script.results[0]  # our answer, not a refusal of the call
    the_persons_note(tool_result_json(script.results[0]))
    assert ALLOWED in script.tool_names  # our tool, under the name the click's entry gave it
    rows = [r for r in recent_events(activity_path(), client="claude-code") if r.client_name == "claude-code"]
    assert [(r.tool, r.returned[:1]) for r in rows] == [("recall_context", ("Projects/Alpha.md",))], rows
    assert snapshot(work) == before


async def _bus(address: str) -> Any:
    from dbus_fast.aio import MessageBus

    return await MessageBus(bus_address=address).connect()
