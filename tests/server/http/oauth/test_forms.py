"""A refused registration's sentence (forms.metadata_refusal): the value quoted as the project's
other refusals quote one — whole when short, shortened with '…' when long, never cut mid-way
without saying so; and every OAuth error_description written within RFC 6749's characters
(forms.described)."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl, urlsplit

from starlette.responses import JSONResponse, RedirectResponse

from tests.support.oauth_browser import DESCRIBABLE
from vault_recall.server.http.oauth.forms import described, described_response, metadata_refusal, with_issuer


def url_error(value: object) -> dict[str, object]:
    return {"loc": ("redirect_uris", 0), "type": "url_parsing", "input": value, "msg": "Input should be a valid URL"}


def test_a_short_bad_url_is_quoted_whole() -> None:
    assert metadata_refusal([url_error("notaurl")]) == (
        "redirect_uris[0] must be an absolute URL (such as http://127.0.0.1:PORT/callback); got 'notaurl'"
    )


def test_a_long_bad_url_is_shortened_and_says_so() -> None:
    sentence = metadata_refusal([url_error("x" * 500)])
    shown = sentence.split("; got ", 1)[1]
    assert shown.startswith("'xxx") and shown.endswith("…") and len(shown) == 80


def test_a_bad_url_that_is_not_text_is_named_so_and_further_problems_counted() -> None:
    sentence = metadata_refusal([url_error(5), url_error("y"), url_error("z")])
    assert sentence.endswith("got a value that is not text (and 2 more problems)")


def test_a_description_keeps_to_the_characters_oauth_allows() -> None:
    shortened = metadata_refusal([url_error("https://é.example/" + "\\x" * 300 + '"')])
    told = described(shortened)
    assert set(told) <= DESCRIBABLE, told
    assert told.endswith("...") and told.startswith("redirect_uris[0] must be an absolute URL")
    assert described('got "a\tb" — 1–64 ’x’') == "got 'a?b' - 1-64 'x'"


def test_a_plain_description_is_left_as_it_is() -> None:
    sentence = "this server is http://127.0.0.1:8765/mcp, not 'https://mail.example.com/mcp'"
    assert described(sentence) == sentence


def test_a_redirect_to_the_app_carries_its_error_description_within_them_and_names_the_issuer() -> None:
    sent = RedirectResponse(
        "https://app.example/cb?error=invalid_request&error_description=a%0Ab+%E2%80%9Cc%E2%80%9D&state=s", 302
    )
    location = with_issuer(sent, "http://127.0.0.1:9", "http://127.0.0.1:9/wait?").headers["location"]
    fields = dict(parse_qsl(urlsplit(location).query))
    assert fields == {
        "error": "invalid_request",
        "error_description": "a?b 'c'",
        "state": "s",
        "iss": "http://127.0.0.1:9",
    }
    ours = RedirectResponse("http://127.0.0.1:9/wait?code=x", 302)
    assert with_issuer(ours, "http://127.0.0.1:9", "http://127.0.0.1:9/wait?").headers["location"].endswith("code=x")


def test_a_json_error_answer_is_described_and_anything_else_left_alone() -> None:
    answer = described_response(
        JSONResponse({"error": "invalid_request", "error_description": "x: Field required\ny"}, 400)
    )
    assert json.loads(bytes(answer.body)) == {"error": "invalid_request", "error_description": "x: Field required?y"}
    fine = JSONResponse({"access_token": "é"}, 200)
    assert described_response(fine) is fine
