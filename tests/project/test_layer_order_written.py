"""Every place the layer order is written out says the order tests/support/layers.py holds —
the one the import check (test_layers.py) enforces.

The order is prose in several places (CONTRIBUTING.md, docs/architecture.md, the packages'
docstrings, tests/README.md): a chain `vault ← obsidian ← …` (remarks in parentheses and
backticks aside), or a list of the rooms in parentheses.  A chain that starts at a side's lowest
layer, or a list naming four of one side's layers or more, must name all of that side's layers,
in order; a shorter list naming a few of them (the layers that read the vault) is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.layers import APP_ORDER, SERVER_ORDER
from tests.support.paths import REPO_ROOT

ORDERS = {SERVER_ORDER[0]: SERVER_ORDER, APP_ORDER[0]: APP_ORDER}
_REMARK = re.compile(r"\s*\([^()]*\)")  # '`vault` (listing and reading files) ←'
_CHAIN = re.compile(r"\w+(?:\s*←\s*\w+)+")
_LIST = re.compile(r"\(((?:`\w+/?`,?\s*(?:and\s+)?)+)\)")


def written_in() -> list[Path]:
    """The files that may write the order: the Markdown docs and our packages' docstrings."""
    docs = [*REPO_ROOT.glob("*.md"), *(REPO_ROOT / "docs").glob("*.md"), REPO_ROOT / "tests" / "README.md"]
    inits = [*(REPO_ROOT / "server").rglob("__init__.py"), *(REPO_ROOT / "app").rglob("__init__.py")]
    return sorted([*docs, *inits, REPO_ROOT / "tests" / "project" / "test_layers.py"])


def chains(text: str) -> Iterator[tuple[str, ...]]:
    """Each chain `a ← b ← c` in the text, its names in order, remarks and backticks left out."""
    plain = _REMARK.sub("", text).replace("`", "").replace("/", "")
    for found in _CHAIN.finditer(plain):
        yield tuple(re.split(r"\s*←\s*", found.group()))


def listed(text: str) -> Iterator[tuple[str, ...]]:
    """Each parenthesised list of backticked names in the text."""
    for found in _LIST.finditer(text):
        yield tuple(name.strip("/") for name in re.findall(r"`(\w+/?)`", found.group(1)))


def wrong_orders(text: str) -> list[tuple[str, ...]]:
    wrong = []
    for chain in chains(text):
        order = ORDERS.get(chain[0])
        if order is not None and len(chain) > 2 and chain != order:
            wrong.append(chain)
    for names in listed(text):
        for order in ORDERS.values():
            if sum(name in order for name in names) >= 4 and names != order:
                wrong.append(names)
    return wrong


@pytest.mark.parametrize("path", written_in(), ids=lambda path: str(path.relative_to(REPO_ROOT)))
def test_every_written_layer_order_is_the_one_the_import_check_enforces(path: Path) -> None:
    assert wrong_orders(path.read_text(encoding="utf-8")) == []


def test_the_order_is_written_where_a_newcomer_reads_it() -> None:
    """The check above passes on a file that writes no order: here, that the places a newcomer
    reads still write both orders whole."""
    for name in ("CONTRIBUTING.md", "docs/architecture.md"):
        found = set(chains((REPO_ROOT / name).read_text(encoding="utf-8")))
        assert {SERVER_ORDER, APP_ORDER} <= found, name
    for name, order in (("server/__init__.py", SERVER_ORDER), ("app/__init__.py", APP_ORDER)):
        assert order in set(chains((REPO_ROOT / name).read_text(encoding="utf-8"))), name


def test_a_chain_missing_a_layer_is_caught() -> None:
    text = "- **Layers.** `server/`: vault ← obsidian ← recall ← config ← activity ← mcp; `app/`: state ←\n  clients"
    assert wrong_orders(text) == [("vault", "obsidian", "recall", "config", "activity", "mcp")]
    remarks = "`vault` (listing and reading files) ← `obsidian` (notes) ← `recall`"
    assert list(chains(remarks)) == [("vault", "obsidian", "recall")]
    tiers = "one folder per layer (`vault`, `obsidian`, `recall`, `config`, `activity`, `mcp`)"
    assert wrong_orders(tiers) == [("vault", "obsidian", "recall", "config", "activity", "mcp")]
    assert wrong_orders("the layers that read the vault (`vault`, `obsidian`, `recall`)") == []
