"""Where `vault-recall http` listens and the URL clients use: light enough for the CLI and the
tray to import without the HTTP server itself."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

from vault_recall.server import defaults
from vault_recall.server.errors import ListenError

DEFAULT_PORT = defaults.HTTP_PORT
DEFAULT_LISTEN = f"{defaults.HTTP_HOST}:{DEFAULT_PORT}"
PATH = "/mcp"
DEFAULT_URL = f"http://{DEFAULT_LISTEN}{PATH}"


@dataclass(frozen=True)
class Listen:
    host: str
    port: int

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def url(self, port: int | None = None) -> str:
        """The endpoint's URL (an unspecified address is reached on this machine by 127.0.0.1)."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port if port is not None else self.port}{PATH}"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_listen(text: str) -> Listen:
    """'127.0.0.1:27183', '[::1]:27183', 'localhost:0' (any free port) → Listen."""
    text = text.strip()
    if text.startswith("["):
        host, sep, port = text[1:].partition("]:")
    else:
        host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ListenError(f"--listen {text!r} is not HOST:PORT (e.g. {DEFAULT_LISTEN} or [::1]:{DEFAULT_PORT})")
    if host != "localhost":
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise ListenError(f"--listen needs an IP address or 'localhost', not {host!r}") from None
    return Listen(host=host, port=int(port))


@dataclass(frozen=True)
class PublicUrl:
    """The address people's clients reach the endpoint by from elsewhere (a tunnel or a reverse
    proxy with TLS in front of the loopback endpoint): OAuth metadata and redirects carry it,
    and its host is accepted in Host and Origin headers."""

    base: str  # scheme://host[:port], no path: the OAuth issuer
    host: str  # lowercased, without port or brackets

    @property
    def url(self) -> str:
        return self.base + PATH


def parse_public_url(text: str) -> PublicUrl:
    """'https://desktop.tailnet.ts.net' or '…/mcp' → PublicUrl; https unless the host is loopback."""
    shown = text.strip()
    try:
        parts = urlsplit(shown)
        host = parts.hostname
        port = parts.port
    except ValueError:
        raise ListenError(f"--public-url {shown!r} is not a URL") from None
    if parts.scheme not in ("http", "https") or not host:
        raise ListenError(f"--public-url {shown!r} must be an address like https://desktop.example.net")
    if parts.username is not None or parts.password is not None or parts.query or parts.fragment:
        raise ListenError(f"--public-url {shown!r} must hold no user, query or fragment")
    if parts.path.rstrip("/") not in ("", PATH):
        raise ListenError(
            f"--public-url {shown!r} must end at the host or at {PATH}: the endpoint answers at {PATH}, so a proxy "
            "must pass paths through unchanged"
        )
    if parts.scheme != "https" and not is_loopback(host):
        raise ListenError(
            f"--public-url {shown!r} must start with https:// — clients send their tokens to it, so only TLS may "
            "carry them between machines"
        )
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != {"https": 443, "http": 80}[parts.scheme]:
        netloc += f":{port}"
    return PublicUrl(base=f"{parts.scheme}://{netloc}", host=host.lower())
