"""Bearer tokens of `vault-recall http`: which client a presented token names.

The config keeps only each token's SHA-256, never the token: a token is 256 random bits, so a
plain hash is enough (nothing to guess, nothing to stretch), and a config file that leaks
lets nobody in.  Tokens are made and written by the app (app/state/config_store.py); this
module only checks them, on every request, against the config as it is now, so a token
revoked or rotated a moment ago fails on its very next request.
"""

from __future__ import annotations

import hashlib
import hmac

from vault_recall.server.config.config_file import Config

TOKEN_PREFIX = "vrt_"  # makes a leaked token recognisable (secret scanners, a person reading a log)
# A real token is the prefix and 43 URL-safe characters; anything much longer is refused before
# hashing, so a request cannot make us hash megabytes.
MAX_TOKEN_LENGTH = 200


def token_hash(token: str) -> str:
    """The hex SHA-256 the config keeps for `token`."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def client_of_token(config: Config, token: str) -> str | None:
    """The id of the client whose token this is, or None.

    Every stored hash is compared, in constant time, whatever matched before: how long this
    takes says nothing about which client (if any) a guess came close to.
    """
    if not token or len(token) > MAX_TOKEN_LENGTH:
        return None
    presented = token_hash(token).encode("ascii")
    found: str | None = None
    for client in config.clients:
        if client.token_sha256 is not None and hmac.compare_digest(presented, client.token_sha256.encode("ascii")):
            found = client.id
    return found
