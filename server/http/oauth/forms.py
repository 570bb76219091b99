"""The OAuth endpoints' forms, read within bounds, and what every OAuth answer keeps to on the
way out: a form of more fields than any OAuth request has, or with a file in it, is refused in
one sentence (`invalid_request`) before any handler reads it — never a 500 with a traceback; a
redirect from /authorize back to the app names the issuer (RFC 9207), errors too; a token asked
for another server's `resource` is refused with `invalid_target` (RFC 8707).

Starlette keeps the form it read on the request, so the SDK's handlers, which read it again,
get this bounded one.  Imports only the SDK, Starlette and http_address.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from vault_recall.server.errors import FormRefused, show_value

# An OAuth request has at most about ten fields (a token request: grant_type, code,
# redirect_uri, client_id, client_secret, code_verifier, resource, scope); files, never.
MAX_FIELDS = 32
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


async def read_form(request: Request) -> FormData:
    """The request's form, bounded (the same object on every later read)."""
    try:
        return await request.form(max_fields=MAX_FIELDS, max_files=0)
    except (MultiPartException, HTTPException) as exc:
        raise FormRefused(_why(str(exc.detail if isinstance(exc, HTTPException) else exc.message))) from None


def _why(problem: str) -> str:
    # Starlette's messages are two sentences naming its own limits: one of ours instead.
    if "files" in problem.lower():
        return "this form carries a file, which no OAuth request does"
    if "fields" in problem.lower():
        return f"this form has more than {MAX_FIELDS} fields, which no OAuth request has"
    return "this body cannot be read as a form"


def refused(error: str, description: str) -> JSONResponse:
    return JSONResponse(
        {"error": error, "error_description": described(description)}, status_code=400, headers=NO_STORE
    )


# RFC 6749 (5.2, 4.1.2.1) allows an error_description only printable ASCII without '"' or
# '\\'; a strict app may refuse the whole answer otherwise.  Our sentences quote what was sent
# (shortened with '…'), which may be anything: each is written within that set.
_ASCII_FOR = str.maketrans(
    {"…": "...", "–": "-", "—": "-", "‘": "'", "’": "'", "“": "'", "”": "'", '"': "'", "\\": "/"}
)


def described(sentence: str) -> str:
    """`sentence` as an OAuth error_description may carry it: what has no ASCII form is '?'."""
    text = sentence.translate(_ASCII_FOR)
    if text.isascii() and text.isprintable():
        return text
    return "".join(c if " " <= c <= "~" else "?" for c in text)


def redirect_to(redirect_uri: str, **params: str | None) -> str:
    """`redirect_uri` with `params` added to its query (those that are None left out), every
    value percent-encoded, a space as %20: RFC 6749 §4.1.2 says application/x-www-form-urlencoded,
    whose '+' for a space some apps show as it is (Codex showed `the+request+was+denied`); %20
    reads as a space under either decoding.  The SDK's construct_redirect_uri writes '+'."""
    parts = urlsplit(redirect_uri)
    fields = parse_qsl(parts.query, keep_blank_values=True)
    fields += [(name, value) for name, value in params.items() if value is not None]
    return urlunsplit(parts._replace(query=urlencode(fields, quote_via=quote)))


def with_issuer(response: Response, issuer: str, own_prefix: str) -> Response:
    """A redirect from /authorize to the app, with `iss` added where the SDK left it out (its
    error redirects), its error_description `described`, and its query written as `redirect_to`
    writes one; a redirect to our own waiting page (`own_prefix`) is left alone.  Any other
    answer: as `described_response` gives it."""
    location = response.headers.get("location")
    if response.status_code not in (302, 303) or not location or location.startswith(own_prefix):
        return described_response(response)
    parts = urlsplit(location)
    fields = [
        (name, described(value) if name == "error_description" else value)
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
    ]
    if all(name != "iss" for name, _ in fields):
        fields.append(("iss", issuer))
    response.headers["location"] = urlunsplit(parts._replace(query=urlencode(fields, quote_via=quote)))
    return response


def described_response(response: Response) -> Response:
    """An OAuth error answer of the SDK's handlers (JSON), its error_description `described`:
    the SDK quotes what the app sent ("Client ID '…' not found") and joins pydantic's messages
    with line breaks.  Any other answer is left as it is."""
    if response.status_code < 400 or not response.headers.get("content-type", "").startswith("application/json"):
        return response
    try:
        body = json.loads(bytes(response.body))
    except (ValueError, UnicodeDecodeError):
        return response
    told = body.get("error_description") if isinstance(body, dict) else None
    if not isinstance(told, str) or described(told) == told:
        return response
    headers = {k: v for k, v in response.headers.items() if k.lower() not in ("content-length", "content-type")}
    return JSONResponse({**body, "error_description": described(told)}, response.status_code, headers=headers)


# RFC 7636 §4.1: a code_verifier is 43 to 128 characters of the unreserved set.
CODE_VERIFIER = re.compile(r"[A-Za-z0-9._~-]{43,128}")
# The SDK's /token answers a redirect_uri other than the authorization's with `invalid_request`;
# RFC 6749 §5.2 names that case `invalid_grant` ("does not match the redirection URI used in the
# authorization request").  Its sentence, exactly: a test fails when the SDK changes it.
SDK_REDIRECT_MISMATCH = "redirect_uri did not match the one used when creating auth code"


def verifier_refusal(form: Mapping[str, object]) -> str | None:
    """Why a token request's PKCE code_verifier is refused before it is compared (RFC 7636
    §4.1), or None.  A missing one is the SDK's to refuse."""
    verifier = form.get("code_verifier")
    if form.get("grant_type") != "authorization_code" or not isinstance(verifier, str):
        return None
    if CODE_VERIFIER.fullmatch(verifier):
        return None
    return (
        f"code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_' and '~' (RFC 7636 4.1); "
        f"this one has {len(verifier)}" + ("" if verifier.isascii() else ", not all of them ASCII")
    )


def token_response(response: Response) -> Response:
    """The SDK's /token answer with RFC 6749's error code where the SDK gives another, then
    `described`."""
    if response.status_code == 400 and response.headers.get("content-type", "").startswith("application/json"):
        try:
            body = json.loads(bytes(response.body))
        except (ValueError, UnicodeDecodeError):
            body = None
        if isinstance(body, dict) and body.get("error_description") == SDK_REDIRECT_MISMATCH:
            body = {
                **body,
                "error": "invalid_grant",
                "error_description": "redirect_uri is not the one the authorization was asked with",
            }
            return JSONResponse(body, status_code=400, headers=NO_STORE)
    return described_response(response)


def metadata_refusal(errors: Sequence[Mapping[str, Any]]) -> str:
    """One sentence for a registration whose client metadata is refused (RFC 7591's
    `invalid_client_metadata`): the first problem in our words, and how many more there are —
    not pydantic's lines, one per field, in its own vocabulary."""
    first = errors[0]
    where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in first.get("loc", ()))
    field = where.lstrip(".") or "the registration"
    kind = str(first.get("type", ""))
    value = first.get("input")
    if kind in ("json_invalid", "json_type", "model_type", "model_attributes_type", "dict_type"):
        sentence = "the registration must be one JSON object of client metadata (RFC 7591)"
    elif kind == "missing":
        sentence = f"{field} is required"
    elif kind == "string_type":
        sentence = f"{field} must be text"
    elif kind == "list_type":
        sentence = f"{field} must be a list"
    elif kind.startswith("url_"):
        shown = show_value(value, 80) if isinstance(value, str) else "a value that is not text"
        sentence = f"{field} must be an absolute URL (such as http://127.0.0.1:PORT/callback); got {shown}"
    else:
        sentence = f"{field} is not valid: {str(first.get('msg', 'refused')).lower()}"
    more = len(errors) - 1
    return sentence + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")
