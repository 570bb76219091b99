"""A refused registration's sentence (forms.metadata_refusal): the value quoted as the project's
other refusals quote one — whole when short, shortened with '…' when long, never cut mid-way
without saying so."""

from __future__ import annotations

from vault_recall.server.http.oauth.forms import metadata_refusal


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
