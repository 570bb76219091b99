"""The CLI says every client exposure in words, the same words as always."""

from __future__ import annotations

from typing import get_args

from vault_recall.app.cli.config_commands import describe_exposure
from vault_recall.server.config.config_file import NamedExposure


def test_every_client_exposure_has_its_words() -> None:
    said = {word: describe_exposure(word) for word in get_args(NamedExposure)}
    assert said == {"records": "memory records of every subject", "vault": "every note of the vault"}
    assert describe_exposure(("build-system", "travel")) == "records of build-system, travel"
