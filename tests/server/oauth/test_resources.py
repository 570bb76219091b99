"""Which resource a request names (RFC 8707): this endpoint's URL, compared as a URL, and the
one sentence both the authorization and the token request refuse another with."""

from __future__ import annotations

from vault_recall.server.oauth.resources import other_resource, same_resource

OURS = "http://127.0.0.1:8765/mcp"


def test_this_endpoint_named_any_way_a_url_may_be_written_is_no_other() -> None:
    for asked in (OURS, "HTTP://127.0.0.1:8765/mcp/", " http://127.0.0.1:8765/mcp", None, ""):
        assert other_resource(asked, OURS) is None, asked
    assert same_resource("https://example.com/mcp", "https://EXAMPLE.com:443/mcp/")


def test_another_resource_is_refused_in_one_sentence_naming_both() -> None:
    assert other_resource("https://mail.example.com/mcp", OURS) == (
        f"this server is {OURS}, not 'https://mail.example.com/mcp'"
    )
    # Another port, path, scheme, or a query: another resource.
    for asked in ("http://127.0.0.1:8766/mcp", "http://127.0.0.1:8765/", "https://127.0.0.1:8765/mcp", OURS + "?a=1"):
        why = other_resource(asked, OURS)
        assert why is not None and why.endswith(repr(asked)), asked


def test_a_long_resource_is_quoted_shortened_and_says_so() -> None:
    asked = "https://attacker.example/" + "x" * 5000
    why = other_resource(asked, OURS)
    assert why is not None and why.startswith(f"this server is {OURS}, not 'https://attacker.example/xx")
    quoted = why.removeprefix(f"this server is {OURS}, not ")
    assert len(quoted) == 200 and quoted.endswith("…")
