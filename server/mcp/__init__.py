"""The MCP layer: thin tool wrappers with the docs the model reads, argument errors in one
sentence, and the `serve` entry point.  stdout is the wire; logs go to stderr.

The top of the server: may import every other part of `vault_recall.server`.
"""
