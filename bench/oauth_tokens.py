"""What an OAuth access token costs per request against a client token, on a real `vault-recall
http` process: the same `tools/list` request over one kept-alive connection, sent with a client
token (checked against the config) or with an OAuth access token (checked against the OAuth
store), interleaved so the machine's drift hits both alike.  The grant is made through the
store, as an approval would make it (no browser).

Reported: p50 and p95 per request for each, and the difference of medians.

    .venv/bin/python -m bench.oauth_tokens [--requests 300]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def oauth_token() -> str:
    from vault_recall.server.oauth import approvals as oauth_approvals
    from vault_recall.server.oauth import tokens as oauth_tokens

    info = json.dumps({"client_id": "bench", "client_name": "Bench", "redirect_uris": ["http://127.0.0.1:9/cb"]})
    oauth_approvals.register_app("bench", "Bench", info, None)
    app = oauth_approvals.get_app("bench")
    assert app is not None
    handle, request = oauth_approvals.open_request(
        app,
        redirect_uri="http://127.0.0.1:9/cb",
        redirect_explicit=True,
        code_challenge="c",
        state=None,
        scopes=(),
        resource="r",
        issuer="i",
    )
    oauth_approvals.approve(request.approval_code, "bench-oauth")
    _, code = oauth_approvals.hand_out_code(handle)
    assert code is not None
    return oauth_tokens.exchange_code(code).access_token


def session(http: httpx2.Client, url: str, token: str) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    answer = http.post(url, json=INITIALIZE, headers=headers)
    answer.raise_for_status()
    headers["Mcp-Session-Id"] = answer.headers["mcp-session-id"]
    headers["Mcp-Protocol-Version"] = "2025-06-18"
    http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    return headers


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="vault-recall-bench-")
    os.environ["VAULT_RECALL_HOME"] = home
    from vault_recall.app.state.config_store import issue_token

    static = issue_token("bench-static")[0]
    oauth = oauth_token()
    script = Path(sys.executable).with_name("vault-recall")
    endpoint = subprocess.Popen(
        [str(script), "http", "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert endpoint.stdout is not None
        found = re.search(r"(http://\S+)", endpoint.stdout.readline())
        assert found is not None
        url = found.group(1)
        times: dict[str, list[float]] = {"client token": [], "OAuth access token": []}
        with httpx2.Client(timeout=30) as http:
            headers = {"client token": session(http, url, static), "OAuth access token": session(http, url, oauth)}
            for _ in range(args.requests):
                for name, sent in headers.items():
                    start = time.perf_counter()
                    http.post(url, json=LIST, headers=sent).raise_for_status()
                    times[name].append((time.perf_counter() - start) * 1000)
    finally:
        endpoint.terminate()
        endpoint.wait(30)
    for name, samples in times.items():
        samples.sort()
        p50, p95 = statistics.median(samples), samples[int(len(samples) * 0.95)]
        print(f"{name:<20} p50 {p50:6.2f} ms   p95 {p95:6.2f} ms   ({len(samples)} requests)")
    difference = statistics.median(times["OAuth access token"]) - statistics.median(times["client token"])
    print(f"OAuth - client token: {difference:+.2f} ms per request (medians)")


if __name__ == "__main__":
    main()
