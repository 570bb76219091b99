"""The one page a person's browser shows during an authorization: which app asks, the short
code to compare, and how to approve it (the tray, or `vault-recall client approve CODE` on the
computer running Vault Recall).  The page reloads itself until the person answers; then the
browser goes back to the app.  Approving is never a button here: whoever holds this page's
address (the app itself) must not be able to approve its own request."""

from __future__ import annotations

from html import escape

from starlette.responses import HTMLResponse

# The page runs nothing and loads nothing; framing it elsewhere is refused.
HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
RELOAD_SECONDS = 2

_STYLE = (
    "body{font:16px/1.5 system-ui,sans-serif;max-width:38em;margin:3em auto;padding:0 1em;color:#222}"
    "code{font-size:1.6em;letter-spacing:.1em;background:#eef;padding:.1em .4em;border-radius:4px}"
    "pre{background:#f4f4f4;padding:.6em;border-radius:4px;overflow-x:auto}"
)


def _page(title: str, body: str, status: int = 200, reload: bool = False) -> HTMLResponse:
    refresh = f'<meta http-equiv="refresh" content="{RELOAD_SECONDS}">' if reload else ""
    html = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8">{refresh}'
        f'<meta name="viewport" content="width=device-width"><title>{escape(title)}</title>'
        f"<style>{_STYLE}</style></head><body><h1>{escape(title)}</h1>{body}</body></html>"
    )
    return HTMLResponse(html, status_code=status, headers=HEADERS)


def waiting(name: str, approval_code: str, client: str) -> HTMLResponse:
    return _page(
        "Vault Recall: approve this app",
        f"<p><b>{escape(name)}</b> asks to recall the notes of your vault, as the client "
        f"<b>{escape(client)}</b>.</p>"
        f"<p>Its code is <code>{escape(approval_code)}</code>. Approve only an app you just connected, "
        "with this same code in the tray or in <code style='font-size:1em'>vault-recall client grants</code>."
        "</p>"
        "<p>On the computer running Vault Recall, approve it from the tray icon's menu, or run:</p>"
        f"<pre>vault-recall client approve {escape(approval_code)}</pre>"
        f"<p>(add <code style='font-size:1em'>--as ID</code> to name the client otherwise). "
        "This page goes on by itself once you have answered.</p>",
        reload=True,
    )


def answered(text: str) -> HTMLResponse:
    return _page("Vault Recall", f"<p>{escape(text)}</p>")


def unknown() -> HTMLResponse:
    return _page(
        "Vault Recall: no such request",
        "<p>This authorization request is unknown here or has ended. Start the connection again from your app.</p>",
        status=400,
    )
