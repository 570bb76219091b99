"""OAuth as the endpoint serves it: the routes per address (`routes.py`), the SDK's provider over
our OAuth store (`provider.py`), the page a browser waits on for approval (`page.py`), forms read
within bounds (`forms.py`).  What OAuth keeps — apps, requests, grants, tokens — is the store in
`vault_recall.server.oauth`, a layer below, shared with the command line and the tray.

Part of the `http` layer: uses the endpoint's address and guard, and is imported by the
endpoint; may import every other part of `vault_recall.server`.
"""
