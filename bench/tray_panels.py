"""The tray under real panels: how soon the icon is back after a panel restarts, and what the
tray costs at rest.

In a headless session of its own (Xvfb, a private session bus; tests/support/headless.py), the
real `vault-recall tray` on the sample vault, then for each StatusNotifierItem host Debian has
here (XFCE's panel, LXQt's panel, gtk-sni-tray-standalone): the host started and stopped
`--restarts` times, and each time the time from its watcher's name appearing on the bus to the
tray being in the watcher's list.  Then, under XFCE's panel, the tray left alone for
`--idle` seconds: its CPU time over that (utime + stime from /proc) as a share of one core, and
its resident memory (VmRSS).  Last, `--health` times each: a broken note written at the vault's
root, and one four folders down, until the tray's menu counts it (and until it counts it fixed
again).  Nothing is asserted.

    .venv/bin/python -m bench.tray_panels [--restarts 20] [--idle 60] [--health 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from bench.tools import memory_mb, percentile
from tests.support.e2e import copy_sample_vault
from tests.support.headless import SNI_PANELS, XFCE, BusLook, Desktop, headless_desktop, listed, stop_panel, tray
from vault_recall.app.state.config_store import save_config
from vault_recall.server.config.config_file import Config, VaultEntry

if sys.platform == "win32":  # the panels, Xvfb and /proc are Linux's
    raise SystemExit("bench.tray_panels runs on Linux only")

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


async def until(check: object, timeout: float = 60.0) -> object:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = await check()  # type: ignore[operator]
        if value:
            return value
        if loop.time() > deadline:
            raise TimeoutError(getattr(check, "__doc__", ""))
        await asyncio.sleep(0.01)


async def restarts(desktop: Desktop, look: BusLook, count: int) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {}
    for kind in SNI_PANELS:
        if not kind.installed:
            print(f"{kind.name}: not installed, skipped")
            continue
        kind.configure(Path(desktop.env["XDG_CONFIG_HOME"]))
        waits = found.setdefault(kind.name, [])
        for _ in range(count):
            process = desktop.start(list(kind.command), kind.name)

            async def owner() -> str | None:
                return look.owner

            async def ours() -> list[str]:
                return listed(await look.items())

            await until(owner)
            await until(ours)
            waits.append(asyncio.get_running_loop().time() - look.appeared_at)
            stop_panel(process)
            desktop.processes.remove(process)
            await until(lambda: asyncio.sleep(0, look.owner is None))
    return found


async def measure(desktop: Desktop, count: int, idle: float, vault: Path, health: int) -> None:
    look = await BusLook.connect(desktop.bus_address)
    try:
        with tray(desktop) as running:
            found = await restarts(desktop, look, count)
            print(f"\nBack in the watcher's list after the watcher appeared ({count} restarts per host):")
            print(f"{'host':<14} {'back':>7} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'within 2 s':>11}")
            for name, waits in found.items():
                within = sum(1 for wait in waits if wait <= 2.0)
                print(
                    f"{name:<14} {len(waits):>3}/{count:<3} {percentile(waits, 0.5) * 1000:>8.0f} "
                    f"{percentile(waits, 0.95) * 1000:>8.0f} {max(waits) * 1000:>8.0f} {within:>7}/{count}"
                )
            if idle > 0 and XFCE.installed:
                XFCE.configure(Path(desktop.env["XDG_CONFIG_HOME"]))
                desktop.start(list(XFCE.command), XFCE.name)

                async def ours() -> list[str]:
                    return listed(await look.items())

                await until(ours)
                await asyncio.sleep(10)  # the first health check and the first menu are over
                before, started = cpu_seconds(running.pid), time.monotonic()
                await asyncio.sleep(idle)
                used, spent = cpu_seconds(running.pid) - before, time.monotonic() - started
                print(
                    f"\nIdle under XFCE's panel for {spent:.0f} s: {100 * used / spent:.2f} % of a core, "
                    f"RSS {memory_mb(running.pid, 'VmRSS')} MB (peak {memory_mb(running.pid, 'VmHWM')} MB)"
                )
            if health > 0:
                await health_latency(vault, Path(desktop.env["VAULT_RECALL_TRAY_MENU_DUMP"]), health)
    finally:
        look.close()


def first_line(dump: Path) -> str:
    try:
        return str(json.loads(dump.read_text(encoding="utf-8"))[0]["text"])
    except (OSError, ValueError, IndexError, KeyError):
        return ""


async def health_latency(vault: Path, dump: Path, rounds: int) -> None:
    """Seconds from a broken note written (then fixed) to the menu counting it."""
    await until(lambda: asyncio.sleep(0, first_line(dump).endswith("no problems")))
    found: dict[str, list[float]] = {"at the root": [], "four folders down": []}
    for _ in range(rounds):
        for where, folder in (("at the root", vault), ("four folders down", vault / "Projects/Build/Old/2025")):
            folder.mkdir(parents=True, exist_ok=True)
            note = folder / "Broken.md"
            started = time.monotonic()
            note.write_text("---\nsubject: build-system\nsubject: twice\n---\n", encoding="utf-8")
            try:
                await until(lambda: asyncio.sleep(0, first_line(dump).endswith("1 problem")))
            except TimeoutError:
                raise TimeoutError(f"{where}: the menu says {first_line(dump)!r}") from None
            found[where].append(time.monotonic() - started)
            note.unlink()
            await until(lambda: asyncio.sleep(0, first_line(dump).endswith("no problems")))
    print(f"\nA broken note until the menu counts it ({rounds} times each):")
    for where, times in found.items():
        print(f"  {where:<18} p50 {percentile(times, 0.5):.2f} s, max {max(times):.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--restarts", type=int, default=20)
    parser.add_argument("--idle", type=float, default=60.0)
    parser.add_argument("--health", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="vault-recall-bench-tray-") as folder:
        root = Path(folder)
        (root / "home").mkdir()
        os.environ["VAULT_RECALL_HOME"] = str(root / "home")
        vault = copy_sample_vault(root / "Work")
        save_config(Config(vaults=(VaultEntry("Work", str(vault)),), active_vault="Work"))
        with headless_desktop(root, root / "home") as desktop:
            desktop.env["VAULT_RECALL_TRAY_MENU_DUMP"] = str(root / "menu.json")
            try:
                asyncio.run(measure(desktop, args.restarts, args.idle, vault, args.health))
            except BaseException:
                print("tray log:\n" + desktop.log("tray"), file=sys.stderr)
                raise


if __name__ == "__main__":
    main()
