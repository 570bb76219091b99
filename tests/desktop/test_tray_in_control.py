"""The real tray, clicked as a person clicks it, on a private session bus under the played panel
(tests/support/sni_host.py: the watcher, the host walking the dbusmenu, the notification service):
first run on the sample vault, pause and resume against real `serve` processes, the whole
activity and the help as pages, installing and uninstalling a client in its real config file,
URL snippets whose token can be pasted, the HTTP endpoint remembered across a restart, and a
note broken in a subfolder named in a notification.  Xvfb is there for the clipboard."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.e2e import call, copy_sample_vault, serving
from tests.support.headless import Desktop, opener_recorder, tray
from tests.support.parts import need
from tests.support.sni_host import Panel, find_node, panel
from tests.support.tray_clicks import popup_open
from vault_recall.app.state.config_store import save_config
from vault_recall.app.tray.news.vault_health import NOTE_NEXT
from vault_recall.app.tray.notices import PAUSED_NOTICE
from vault_recall.server.config.bearer_tokens import client_of_token
from vault_recall.server.config.config_file import Config, VaultEntry, load_config

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


def recorder(desktop: Desktop) -> Path:
    """An opener that writes down what it was asked to open."""
    opener, opened = opener_recorder(desktop.root)
    desktop.env.update(opener)
    return opened


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def clipboard(desktop: Desktop) -> str:
    done = desktop.run("xclip", "-selection", "clipboard", "-o")
    return done.stdout if done.returncode == 0 else ""


async def registered(host: Panel, before: int = 0) -> str:
    """The service of the tray registering after the first `before` registrations."""
    sender, service = await host.until(lambda: host.registrations[before:] and host.registrations[-1], "registration")
    await host.listen_to(sender)
    return str(service)


async def menu_with(host: Panel, service: str, *labels: str) -> dict[str, Any]:
    """The menu once the item at `labels` is in it (the tray rebuilds it as things change)."""

    def has(layout: tuple[int, dict[str, Any]]) -> bool:
        try:
            find_node(layout[1], *labels)
        except AssertionError:
            return False
        return True

    found: tuple[int, dict[str, Any]] = await host.eventually(lambda: host.layout(service), has, " ▸ ".join(labels))
    return found[1]


async def click(host: Panel, service: str, *labels: str) -> None:
    root = await menu_with(host, service, *labels)
    await host.click(service, find_node(root, *labels)["id"])


async def told(host: Panel, count: int, what: str) -> tuple[str, str]:
    """The next notification after the first `count`: (summary, body)."""
    await host.until(lambda: len(host.notifications) > count, what)
    return host.notifications[count][3], host.notifications[count][4]


def obsidian_knows(desktop: Desktop, *vaults: tuple[Path, bool]) -> None:
    """Obsidian's own vault list (its obsidian.json), as Obsidian writes it: each vault's folder,
    when it was last opened and whether it is open now."""
    folder = Path(desktop.env["XDG_CONFIG_HOME"]) / "obsidian"
    folder.mkdir(parents=True, exist_ok=True)
    listed = {
        f"id{n}": {"path": str(path), "ts": 1_700_000_000_000 + n, **({"open": True} if is_open else {})}
        for n, (path, is_open) in enumerate(vaults)
    }
    (folder / "obsidian.json").write_text(json.dumps({"vaults": listed}), encoding="utf-8")


async def test_first_run_your_vault_in_one_click_pause_help_and_the_whole_activity(desktop: Desktop) -> None:
    need("xclip")
    opened = recorder(desktop)
    work = copy_sample_vault(desktop.root / "vaults/Work")
    diary = copy_sample_vault(desktop.root / "vaults/Diary")
    obsidian_knows(desktop, (work, True), (diary, False))  # Diary was opened later, Work is open now
    async with panel(desktop.bus_address) as host, asyncio.timeout(300):
        with tray(desktop) as running:
            service = await registered(host)
            # The first run uses the sample vault; the menu says what it is and offers the
            # person's own vault, the one Obsidian has open, one click from the icon.
            root = await menu_with(host, service, "Use your vault 'Work'")
            assert [c.get("label") for c in root["children"][:3]] == [
                root["children"][0]["label"],
                "This is the sample vault: example notes, not yours",
                "Use your vault 'Work'",
            ]
            assert root["children"][0]["label"].startswith("Sample vault — ")
            assert root["children"][1]["enabled"] is False  # it says what it is; no page to read
            assert load_config().vaults[0].sample is True
            await click(host, service, "Use your vault 'Work'")
            await host.until(lambda: load_config().active_vault == "Work", "the person's vault in use")
            assert load_config().vault("Work").path == str(work)  # type: ignore[union-attr]
            root = await host.eventually(
                lambda: host.layout(service),
                lambda layout: layout[1]["children"][0]["label"].startswith("Work — 10 notes"),
                "the menu on the person's vault",
            )
            assert "Use your vault 'Work'" not in [c.get("label") for c in root[1]["children"]]
            await click(host, service, "Help", "What is a memory record?")
            page = await host.until(lambda: [line for line in lines(opened) if "help.html#records" in line], "help")
            help_html = Path(page[-1].removeprefix("file://").split("#")[0]).read_text(encoding="utf-8")
            assert "What a memory record is" in help_html and "vault add" in help_html

            # A client recalls from the person's vault.
            async with serving("cursor", None) as client:
                answer = await call(client, "recall_context", {"subject": "build-system", "query": "bazel"})
            assert answer["status"] == "ok" and answer["vault"] == "Work" and "notice" not in answer

            # Pause: every server answers `unavailable`; the icon and the tooltip say so.
            count = len(host.notifications)
            await click(host, service, "Pause recall")
            assert await told(host, count, "the pause notification") == PAUSED_NOTICE  # and how to resume
            assert load_config().paused is True
            props = await host.eventually(
                lambda: host.item_properties(service),
                lambda p: p["ToolTip"][3].startswith("Work: recall is paused"),
                "the paused tooltip",
            )
            assert props["ToolTip"][2] == "Vault Recall"
            async with serving("zed", None) as client:
                refused = await call(client, "recall_context", {"subject": "build-system", "query": "bazel"})
            assert refused["status"] == "unavailable" and refused["reason"] == "paused by the person"

            # The whole activity, as a page: the recall and the refused call, with tool and query.
            await click(host, service, "Help", "Show all activity")
            page = await host.until(lambda: [line for line in lines(opened) if "activity.html" in line], "activity")
            html = Path(page[-1].removeprefix("file://")).read_text(encoding="utf-8")
            assert "zed" in html and "unavailable" in html and "cursor" in html and "bazel" in html
            assert "Projects/Build/Build decision.md" in html

            count = len(host.notifications)
            await click(host, service, "Recall is paused: clients get 'unavailable' — click to resume")
            assert (await told(host, count, "the resume notification"))[0] == "Recall resumed"
            assert load_config().paused is False
            await click(host, service, "Quit Vault Recall")
            assert await asyncio.to_thread(running.wait, 60) == 0  # Quit ends it, cleanly
    assert "Traceback" not in desktop.log("tray")


async def test_clients_connect_in_one_click_install_by_url_snippets_and_the_endpoint_remembered(
    desktop: Desktop,
) -> None:
    need("xclip")
    desktop.env["VAULT_RECALL_TRAY_HTTP_LISTEN"] = "127.0.0.1:0"  # any free port, not the default
    vault = copy_sample_vault(desktop.root / "Work")
    save_config(Config(vaults=(VaultEntry("Work", str(vault)),), active_vault="Work"))
    cursor_file = Path(desktop.env["HOME"]) / ".cursor/mcp.json"
    cursor_file.parent.mkdir()  # Cursor is on this computer: its folder is there, without servers yet
    async with panel(desktop.bus_address) as host, asyncio.timeout(300):
        with tray(desktop) as first:
            service = await registered(host)
            root = await menu_with(host, service, "Connect a client", "Found on this computer")
            connect = [c.get("label") for c in find_node(root, "Connect a client")["children"]]
            assert connect[:2] == ["Found on this computer", "Cursor"]

            # One click connects Cursor, and the notification says which file changed and to restart it.
            count = len(host.notifications)
            await click(host, service, "Connect a client", "Cursor")
            summary, body = await told(host, count, "the connect notification")
            assert summary == "Added Vault Recall to Cursor"
            assert body == "Created ~/.cursor/mcp.json. Restart Cursor to use it."  # a new file: no backup
            assert json.loads(cursor_file.read_text(encoding="utf-8"))["mcpServers"]["vault-recall"]["args"][:1] == [
                "serve"
            ]
            root = await menu_with(host, service, "Clients", "Cursor", "Installed in ~/.cursor/mcp.json")
            assert find_node(root, "Connect a client", "Cursor")["toggle-state"] == 1  # marked connected
            count = len(host.notifications)
            await click(host, service, "Clients", "Cursor", "Install into Cursor")  # again: nothing to do
            assert (await told(host, count, "the second install"))[0] == "Cursor already starts Vault Recall"

            count = len(host.notifications)
            await click(host, service, "Clients", "Cursor", "Uninstall from Cursor")
            assert (await told(host, count, "the uninstall"))[0] == "Removed Vault Recall from Cursor"
            await menu_with(host, service, "Clients", "Cursor", "Not installed")

            # Codex reads its token from the environment: the snippet carries the line that sets it.
            count = len(host.notifications)
            await click(host, service, "Connect a client", "Codex CLI")
            assert (await told(host, count, "Codex connected"))[1].endswith("Restart Codex CLI to use it.")
            count = len(host.notifications)
            await click(host, service, "Clients", "Codex CLI", "Copy URL snippet (new token)")
            summary, body = await told(host, count, "the snippet notification")
            assert summary == "Codex CLI URL snippet copied"
            assert "VAULT_RECALL_TOKEN" in body and "The HTTP endpoint is not running" in body
            snippet = await host.until(lambda: clipboard(desktop), "the snippet on the clipboard")
            assert 'bearer_token_env_var = "VAULT_RECALL_TOKEN"' in snippet
            assert "# export VAULT_RECALL_TOKEN=vrt_" in snippet

            # The endpoint, started from the menu, starts again with the next tray.
            count = len(host.notifications)
            await click(host, service, "HTTP endpoint", "Start at http://127.0.0.1:27183/mcp")
            # The menu may say so before the notification does (the config written wakes the tray).
            assert (await told(host, count, "the endpoint's start"))[0].startswith("Vault Recall is serving clients")
            root = await menu_with(host, service, "HTTP endpoint", "Stop")
            serving_at = find_node(root, "HTTP endpoint")["children"][0]["label"]
            assert serving_at.startswith("Serving at http://127.0.0.1:")
            url = serving_at.removeprefix("Serving at ")

            # Install by URL, beside the URL snippet: the entry reaches the endpoint running now.
            count = len(host.notifications)
            await click(host, service, "Clients", "Cursor", "Install by URL")
            summary, body = await told(host, count, "the install by URL")
            assert summary == "Added Vault Recall to Cursor, by URL"
            # (Uninstalled before, the file is gone: nothing to back up.)
            said = f"Created ~/.cursor/mcp.json: it reaches {url}. Its token is new, in the file."
            assert body == f"{said} Restart Cursor to use it."
            entry = json.loads(cursor_file.read_text(encoding="utf-8"))["mcpServers"]["vault-recall"]
            token = entry["headers"]["Authorization"].removeprefix("Bearer ")
            assert entry["url"] == url and client_of_token(load_config(), token) == "cursor"
            await menu_with(host, service, "Clients", "Cursor", "Installed by URL in ~/.cursor/mcp.json")
            count = len(host.notifications)
            await click(host, service, "Connect a client", "Cursor")  # connected by URL: left as it is
            assert (await told(host, count, "connect again"))[0] == "Cursor is connected already, by URL"
            assert json.loads(cursor_file.read_text(encoding="utf-8"))["mcpServers"]["vault-recall"] == entry
            await click(host, service, "Quit Vault Recall")
            assert first.wait(timeout=60) == 0
        before = len(host.registrations)
        with tray(desktop, "tray-again") as running:
            service = await registered(host, before)
            root = await menu_with(host, service, "HTTP endpoint", "Stop")
            assert find_node(root, "HTTP endpoint")["children"][0]["label"].startswith("Serving at http://127.0.0.1:")
            await click(host, service, "HTTP endpoint", "Stop")
            await menu_with(host, service, "HTTP endpoint", "Not running")
            await click(host, service, "Quit Vault Recall")
            assert await asyncio.to_thread(running.wait, 60) == 0  # Quit ends it, cleanly
    assert "Traceback" not in desktop.log("tray") + desktop.log("tray-again")


async def test_a_note_broken_in_a_subfolder_is_named_and_an_opener_that_fails_is_reported(desktop: Desktop) -> None:
    need("python3-gi", "gtk")  # the menu a left click sent as Activate shows
    desktop.env["VAULT_RECALL_OPEN_COMMAND"] = f"{sys.executable} -c 'raise SystemExit(3)'"  # xdg-open: no handler
    vault = copy_sample_vault(desktop.root / "Work")
    save_config(Config(vaults=(VaultEntry("Work", str(vault)),), active_vault="Work"))
    async with panel(desktop.bus_address) as host, asyncio.timeout(300):
        with tray(desktop) as running:
            service = await registered(host)
            await host.eventually(
                lambda: host.layout(service),
                lambda layout: layout[1]["children"][0]["label"] == "Work — 10 notes, 7 records, no problems",
                "the first health check",
            )
            count = len(host.notifications)
            deep = vault / "Projects/Build/Archive/2025"
            deep.mkdir(parents=True)
            # A list left open on line 3 is blamed on line 3's property, not on line 4's.
            broken = "---\nsubject: build-system\ntags: [k8s, argo\nowner: me\n---\n"
            (deep / "Old build.md").write_text(broken, encoding="utf-8")
            summary, body = await told(host, count, "the broken note's notification")
            assert summary == "Work: 'Old build' is broken"
            assert body == (
                "Projects/Build/Archive/2025/Old build.md — line 3: property 'tags' is not valid YAML: its '[' is "
                f"never closed with ']'\n{NOTE_NEXT}"
            )
            count = len(host.notifications)
            root = await menu_with(host, service, "Problems (1)")
            (problem,) = find_node(root, "Problems (1)")["children"]
            assert problem["label"].startswith("Old build — line 3: property 'tags' is not valid YAML")
            await host.click(service, problem["id"])  # opens the note in Obsidian, which is not here
            summary, body = await told(host, count, "the opener's failure")
            assert summary == "Nothing here opens Obsidian links (is Obsidian installed?)"
            assert body == f"It is {deep / 'Old build.md'}."
            # A left click on a panel that sends Activate though the icon is a menu (LXQt's
            # panel) shows the same menu, drawn by the tray; its first line opens the vault.
            count = len(host.notifications)
            await host.item_call(service, "Activate", "ii", [0, 0])
            await host.until(lambda: popup_open(desktop.env), "the tray's own menu", 60)
            await asyncio.to_thread(desktop.run, "xdotool", "key", "--delay", "80", "Down", "Return")
            summary, body = await told(host, count, "the vault opener's failure")
            assert summary == "Nothing here opens Obsidian links (is Obsidian installed?)"
            assert body == f"It is {vault}."
            await click(host, service, "Quit Vault Recall")
            assert await asyncio.to_thread(running.wait, 60) == 0  # Quit ends it, cleanly
    assert "Traceback" not in desktop.log("tray")
