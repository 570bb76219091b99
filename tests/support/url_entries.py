"""Our entry as a client that connects by URL gets it, read back from a snippet or a client's
file: the entry itself and the bearer token it carries (or names, for Codex)."""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

from vault_recall.app.clients.catalogue import SERVER_NAME, TOKEN_ENV, client_spec

TOKEN = re.compile(r"vrt_[A-Za-z0-9_-]{43}")


def our_entry(client_id: str, text: str) -> dict[str, Any]:
    spec = client_spec(client_id)
    assert spec is not None
    data = tomllib.loads(text) if spec.format == "toml" else json.loads(text)
    entry = data[spec.container][SERVER_NAME]
    assert isinstance(entry, dict)
    return entry


def token_of(entry: dict[str, Any], stderr: str) -> str:
    if "bearer_token_env_var" in entry:  # Codex: the token lives in the environment
        assert entry["bearer_token_env_var"] == TOKEN_ENV
        found = TOKEN.search(stderr.split(f"export {TOKEN_ENV}=", 1)[1])
        assert found is not None
        return found.group(0)
    scheme, _, token = str(entry["headers"]["Authorization"]).partition(" ")
    assert scheme == "Bearer"
    return token
