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
from tests.support.headless import Desktop, tray
from tests.support.parts import need
from tests.support.sni_host import Panel, find_node, panel
from vault_recall.app.state.config_store import save_config
from vault_recall.server.config.config_file import Config, VaultEntry, load_config

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]


def recorder(desktop: Desktop) -> Path:
    """An opener that writes down what it was asked to open."""
    opened = desktop.root / "opened.txt"
    script = desktop.root / "record-open.py"
    script.write_text(f"import sys\nopen({str(opened)!r}, 'a').write(sys.argv[-1] + '\\n')\n", encoding="utf-8")
    desktop.env["VAULT_RECALL_OPEN_COMMAND"] = f"{sys.executable} {script}"
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


async def test_first_run_pause_help_and_the_whole_activity(desktop: Desktop) -> None:
    need("xclip")
    opened = recorder(desktop)
    async with panel(desktop.bus_address) as host, asyncio.timeout(300):
        with tray(desktop) as running:
            service = await registered(host)
            # The first run uses the sample vault, and the menu says it is the sample, linking to help.
            root = await menu_with(host, service, "This is the sample vault, not yours: choose yours…")
            assert root["children"][0]["label"].startswith("Sample vault — ")
            assert load_config().vaults[0].sample is True
            vaults = find_node(root, "Vault")
            assert [c.get("label") for c in vaults["children"]][:2] == [
                "Bundled with Vault Recall",
                "Sample vault (examples, not your notes)",
            ]
            await click(host, service, "This is the sample vault, not yours: choose yours…")
            page = await host.until(lambda: [line for line in lines(opened) if "help.html#vault" in line], "help")
            help_html = Path(page[-1].removeprefix("file://").split("#")[0]).read_text(encoding="utf-8")
            assert "What a memory record is" in help_html and "vault add" in help_html

            # A client recalls from the sample: its answer says so.
            async with serving("cursor", None) as client:
                answer = await call(client, "recall_context", {"subject": "build-system", "query": "bazel"})
            assert answer["status"] == "ok" and "sample vault" in answer["notice"]

            # Pause: every server answers `unavailable`; the icon and the tooltip say so.
            count = len(host.notifications)
            await click(host, service, "Pause recall")
            assert await told(host, count, "the pause notification") == (
                "Recall is paused",
                "Every client's calls answer 'unavailable' until you resume.",
            )
            assert load_config().paused is True
            props = await host.eventually(
                lambda: host.item_properties(service),
                lambda p: p["ToolTip"][3].startswith("Sample vault: recall is paused"),
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
            await click(host, service, "Recall is paused: clients get 'unavailable'")
            assert (await told(host, count, "the resume notification"))[0] == "Recall resumed"
            assert load_config().paused is False
            await click(host, service, "Quit Vault Recall")
            assert await asyncio.to_thread(running.wait, 60) == 0  # Quit ends it, cleanly
    assert "Traceback" not in desktop.log("tray")


async def test_clients_install_uninstall_url_snippets_and_the_endpoint_remembered(desktop: Desktop) -> None:
    need("xclip")
    desktop.env["VAULT_RECALL_TRAY_HTTP_LISTEN"] = "127.0.0.1:0"  # any free port, not the default
    vault = copy_sample_vault(desktop.root / "Work")
    save_config(Config(vaults=(VaultEntry("Work", str(vault)),), active_vault="Work"))
    cursor_file = Path(desktop.env["HOME"]) / ".cursor/mcp.json"
    async with panel(desktop.bus_address) as host, asyncio.timeout(300):
        with tray(desktop) as first:
            service = await registered(host)
            await click(host, service, "Clients", "Add client", "Cursor")
            await menu_with(host, service, "Clients", "Cursor", "Not installed")

            count = len(host.notifications)
            await click(host, service, "Clients", "Cursor", "Install into Cursor")
            summary, body = await told(host, count, "the install notification")
            assert summary == "Added Vault Recall to Cursor" and "~/.cursor/mcp.json" in body
            assert json.loads(cursor_file.read_text(encoding="utf-8"))["mcpServers"]["vault-recall"]["args"][:1] == [
                "serve"
            ]
            await menu_with(host, service, "Clients", "Cursor", "Installed in ~/.cursor/mcp.json")
            count = len(host.notifications)
            await click(host, service, "Clients", "Cursor", "Install into Cursor")  # again: nothing to do
            assert (await told(host, count, "the second install"))[0] == "Cursor already starts Vault Recall"

            count = len(host.notifications)
            await click(host, service, "Clients", "Cursor", "Uninstall from Cursor")
            assert (await told(host, count, "the uninstall"))[0] == "Removed Vault Recall from Cursor"
            await menu_with(host, service, "Clients", "Cursor", "Not installed")

            # Codex reads its token from the environment: the snippet carries the line that sets it.
            await click(host, service, "Clients", "Add client", "Codex CLI")
            count = len(host.notifications)
            await click(host, service, "Clients", "Codex CLI", "Copy URL snippet (new token)")
            summary, body = await told(host, count, "the snippet notification")
            assert summary == "Codex CLI URL snippet copied"
            assert "VAULT_RECALL_TOKEN" in body and "The HTTP endpoint is not running" in body
            snippet = await host.until(lambda: clipboard(desktop), "the snippet on the clipboard")
            assert 'bearer_token_env_var = "VAULT_RECALL_TOKEN"' in snippet
            assert "# export VAULT_RECALL_TOKEN=vrt_" in snippet

            # The endpoint, started from the menu, starts again with the next tray.
            await click(host, service, "HTTP endpoint", "Start at http://127.0.0.1:27183/mcp")
            root = await menu_with(host, service, "HTTP endpoint", "Stop")
            serving_at = find_node(root, "HTTP endpoint")["children"][0]["label"]
            assert serving_at.startswith("Serving at http://127.0.0.1:")
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
            (deep / "Old build.md").write_text("---\nsubject: build-system\nsubject: x\n---\n", encoding="utf-8")
            summary, body = await told(host, count, "the broken note's notification")
            assert summary == "Work: 'Old build' is broken"
            assert body.startswith("Projects/Build/Archive/2025/Old build.md — line 3:")
            count = len(host.notifications)
            root = await menu_with(host, service, "Problems (1)")
            (problem,) = find_node(root, "Problems (1)")["children"]
            assert problem["label"].startswith("Old build — line 3:")
            await host.click(service, problem["id"])  # opens the note in Obsidian, which is not here
            summary, body = await told(host, count, "the opener's failure")
            assert summary == "Nothing here opens Obsidian links (is Obsidian installed?)"
            assert body == f"It is {deep / 'Old build.md'}"
            await click(host, service, "Quit Vault Recall")
            assert await asyncio.to_thread(running.wait, 60) == 0  # Quit ends it, cleanly
    assert "Traceback" not in desktop.log("tray")
