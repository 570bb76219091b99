"""Every exposure mode is handled wherever a mode decides something: a mode added to the closed
set and not handled fails here (each decision ends in `assert_never`), and in mypy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import pytest

from vault_recall.server.config.call_scope import exposure_of
from vault_recall.server.config.config_file import (
    NAMED_EXPOSURES,
    ClientEntry,
    ClientExposure,
    Config,
    NamedExposure,
    named_exposure,
    parse_config,
)
from vault_recall.server.recall.scope import Exposure, ExposureMode

EVERY_CLIENT_EXPOSURE: list[ClientExposure] = [*get_args(NamedExposure), ("build-system", "travel")]


@pytest.mark.parametrize("mode", get_args(ExposureMode))
def test_every_exposure_mode_decides_which_subjects_a_client_sees(mode: ExposureMode) -> None:
    exposure = Exposure(mode=mode, subjects=frozenset({"travel"}))
    limited = mode == "subjects"
    assert exposure.allows_subject("travel")
    assert exposure.allows_subject("build-system") is not limited
    assert exposure.allows_record_subjects(("build-system",)) is not limited
    assert exposure.allows_record_subjects(None) is not limited


def test_the_named_exposures_are_the_modes_but_subjects() -> None:
    assert set(NAMED_EXPOSURES) == set(get_args(NamedExposure)) == set(get_args(ExposureMode)) - {"subjects"}
    assert [named_exposure(word) for word in ("records", "vault", "subjects", "Vault", 1)] == [
        "records",
        "vault",
        None,
        None,
        None,
    ]


@pytest.mark.parametrize("exposure", EVERY_CLIENT_EXPOSURE)
def test_every_client_exposure_is_written_as_the_file_always_had_it_and_read_back(exposure: ClientExposure) -> None:
    config = Config(clients=(ClientEntry(id="claude-code", exposure=exposure),))
    written = config.to_json()["clients"][0]["exposure"]
    assert written == (list(exposure) if isinstance(exposure, tuple) else exposure)
    read = parse_config(json.dumps(config.to_json()).encode(), Path("config.json"))
    assert read.clients[0].exposure == exposure


@pytest.mark.parametrize("exposure", EVERY_CLIENT_EXPOSURE)
def test_every_client_exposure_becomes_the_scope_s_exposure(exposure: ClientExposure) -> None:
    scope_exposure = exposure_of(ClientEntry(id="claude-code", exposure=exposure))
    if isinstance(exposure, tuple):
        assert (scope_exposure.mode, scope_exposure.subjects) == ("subjects", frozenset(exposure))
    else:
        assert (scope_exposure.mode, scope_exposure.subjects) == (exposure, frozenset())
