"""The benchmarks docs/architecture.md's decisions cite run end to end at a small size, and still
say what the decisions rest on: uvicorn's own h11 protocol answers a slow-loris peer nothing
while ours answers 408 (were uvicorn to gain a deadline of its own, the graft should go), and
the told-once bookkeeping is timed beside the check it rides on.  Times are printed, never
asserted."""

from __future__ import annotations

import re

import pytest

from tests.support.benchmarks import run_benchmark

pytestmark = pytest.mark.e2e


def test_the_slow_request_benchmark_finds_uvicorn_without_a_deadline_and_ours_with_one() -> None:
    run = run_benchmark("slow_request", "--deadline", "0.5", "--watch", "3", "--every", "0.2", timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    answered = dict(re.findall(r"^(uvicorn h11|ours)\b.*answered: (.*)$", run.stdout, re.MULTILINE))
    assert answered == {"uvicorn h11": "nothing", "ours": "HTTP/1.1 408 Request Timeout"}, run.stdout


def test_the_told_once_benchmark_times_both_ways_beside_the_check() -> None:
    run = run_benchmark("told_once_cost", "--notes", "10", "--changes", "3", "--rounds", "50", timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    for line in ("the check every call makes", "exactly once: reserve + commit", "at least once: settle alone"):
        assert re.search(rf"^{re.escape(line)}.*\s\d+\.\d µs$", run.stdout, re.MULTILINE), run.stdout
