"""The HTTP endpoint (`vault-recall http`): the same tools as `serve`, over Streamable HTTP on
uvicorn, behind a guard for Host, Origin and tokens, with each client's share of connections
and sessions, a request deadline, one refusal format and a quick stop.  OAuth over HTTP — its
routes, the SDK's provider over our store, the approval page — is in `oauth/`.

The top of the server: may import every other part of `vault_recall.server`.
"""
