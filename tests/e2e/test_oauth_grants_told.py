"""What `vault-recall client grants` and `doctor` tell of OAuth grants, run as processes against a
real `vault-recall http`: a grant a replay revoked is told with why (nothing else says why the
app lost its access), and the list keeps every name whole and its columns straight whatever the
length of names and ids."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

from tests.support.doctor import doctor_line
from tests.support.e2e import use_sample_vault
from tests.support.http_e2e import running_endpoint
from tests.support.oauth_browser import approved_app, vault_recall

pytestmark = [pytest.mark.e2e]


def test_a_grant_revoked_by_a_replayed_code_is_told_in_client_grants_and_doctor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    use_sample_vault(tmp_path)
    home = tmp_path / "me"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    with running_endpoint() as endpoint:
        base = f"http://127.0.0.1:{endpoint.port}"
        (home / ".claude.json").write_text(
            json.dumps({"mcpServers": {"vault-recall": {"type": "http", "url": endpoint.url}}}), encoding="utf-8"
        )
        _, form = approved_app(base, "Claude Code (vault-recall)", "claude-laptop")
        assert httpx2.post(f"{base}/token", data=form, timeout=30).status_code == 200
        assert doctor_line("claude-code")[0] == "ok"
        replayed = httpx2.post(f"{base}/token", data=form, timeout=30)
        assert replayed.status_code == 400 and replayed.json()["error"] == "invalid_grant"
        listed = vault_recall("client", "grants")
        assert listed.returncode == 0, listed.stderr
        assert "Revoked for a replay" in listed.stdout, listed.stdout
        told = next(line for line in listed.stdout.splitlines() if "Claude Code (vault-recall)" in line)
        assert "'claude-laptop'" in told and "its authorization code was presented a second time" in told, told
        verdict, line, fix = doctor_line("claude-code")
        assert verdict == "FAIL" and "its grant ('claude-laptop') was revoked because its authorization code" in line
        assert fix.startswith("fix: claude mcp login vault-recall"), fix
        # A revocation by the person is no news of that kind.
        _, other = approved_app(base, "Desk app")
        assert httpx2.post(f"{base}/token", data=other, timeout=30).status_code == 200
        assert vault_recall("client", "revoke", "desk-app").returncode == 0
        assert "Desk app" not in vault_recall("client", "grants").stdout


def test_client_grants_keeps_long_names_whole_and_columns_straight(tmp_path: Path) -> None:
    use_sample_vault(tmp_path)
    long_name = "A connector with a rather long name — " + "x" * 40  # 78 characters, under the 80 kept
    long_id = "a-client-id-that-is-as-long-as-they-may-be-" + "y" * 21  # 64 characters
    with running_endpoint() as endpoint:
        base = f"http://127.0.0.1:{endpoint.port}"
        for name, as_client in ((long_name, long_id), ("Short", None)):
            _, form = approved_app(base, name, as_client)
            assert httpx2.post(f"{base}/token", data=form, timeout=30).status_code == 200
    listed = vault_recall("client", "grants").stdout.splitlines()
    header = next(i for i, line in enumerate(listed) if line.split()[:2] == ["grant", "client"])
    rows = listed[header : header + 3]
    assert any(row.endswith(long_name) for row in rows), rows
    assert any(f" {long_id} " in row for row in rows), rows
    for column in ("client", "approved", "last used", "app"):
        at = rows[0].index(column)
        assert all(row[at - 2 : at] == "  " and row[at] != " " for row in rows), (column, rows)
