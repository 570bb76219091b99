"""A folder swapped for a symlink to somewhere outside the vault while calls run: no call ever
reads what is outside.

Another process swaps `Folder/` and a symlink to an outside folder back and forth as fast as
it can while recall and search run over and over.  Checking each path and then opening it by
name would follow the symlink whenever the swap lands in between; the vault is walked and read
by folder descriptors instead (server/vault/folders.py), so it never is.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.depth import race_seconds
from tests.support.vaults import record, write_vault
from vault_recall.server.recall.answers import recall_records, search
from vault_recall.server.recall.scope import Exposure, ExposureMode, Scope

OUTSIDE = "OUTSIDEWORD from a folder that is not the vault"
# Each state (the real folder, the symlink in its place) holds for a moment, so a call that
# checked one finds the other when it opens.
# It makes at least `least` swaps, says so by creating `enough`, and goes on until told to stop:
# how long the race lasts follows the machine's speed, never a clock.
SWAPPER = """
import os, sys, time
vault, outside, least, enough, stop = sys.argv[1:]
folder, parked = os.path.join(vault, "Folder"), os.path.join(vault, ".parked")
swaps = 0
while swaps < int(least) or not os.path.exists(stop):
    if swaps == int(least):
        open(enough, "w").close()
    os.rename(folder, parked)
    os.symlink(outside, folder)
    time.sleep(0.0003)
    os.unlink(folder)
    os.rename(parked, folder)
    time.sleep(0.0003)
    swaps += 1
print(swaps)
"""
SECONDS = 6.0  # under the `ci` profile; the fast loop races for less (tests/support/depth.py)
SWAPS_A_SECOND = 30  # what a loaded 2-core machine makes, at the least; the calls ask for fewer
CALLS_A_SECOND = 4


@pytest.mark.parametrize("exposure", ["records", "vault"])
def test_no_call_reads_outside_while_a_folder_is_swapped_for_a_symlink(tmp_path: Path, exposure: ExposureMode) -> None:
    notes = {f"Folder/Note {i}.md": record("build-system", f"inside note {i} about caching") for i in range(40)}
    vault = write_vault(tmp_path / "vault", {"Top.md": record("build-system", "caching at the top"), **notes})
    outside = write_vault(
        tmp_path / "outside",
        {f"Note {i}.md": record("build-system", f"caching {OUTSIDE}") for i in range(40)},
    )
    scope = Scope(client="race", vault=vault, exposure=Exposure(mode=exposure))
    stop, enough = tmp_path / "stop", tmp_path / "enough"
    depth = race_seconds(SECONDS)
    least_swaps, least_calls = int(SWAPS_A_SECOND * depth), int(CALLS_A_SECOND * depth)
    swapper = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(vault), str(outside), str(least_swaps), str(enough), str(stop)],
        stdout=subprocess.PIPE,
        text=True,
    )
    calls = leaks = 0
    try:
        # Calls go on until both sides have done their share; the swapper swaps all along.
        while (calls < least_calls or not enough.exists()) and swapper.poll() is None:
            found = recall_records.recall_context(scope, "build-system", "caching", budget=65536, limit=20, match="any")
            hits = search.search_notes(scope, "OUTSIDEWORD", limit=100, budget=65536)
            calls += 2
            if "OUTSIDEWORD" in repr(found) or hits["records"]:
                leaks += 1
    finally:
        stop.touch()
        swaps = int(swapper.communicate(timeout=30)[0])
    # Both really ran side by side: the swapper was still swapping after the last call.
    assert swapper.returncode == 0 and swaps >= least_swaps and calls >= least_calls
    assert leaks == 0, f"{leaks} of {calls} calls returned text from outside the vault"
    assert not (vault / "Folder").is_symlink()
