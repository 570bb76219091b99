"""The recall server, installed as `vault_recall.server`: everything one `vault-recall serve`
process needs.

Its layers, lower first, each importing only those below it: `vault` (listing and reading
files) ← `obsidian` (notes, properties, links) ← `recall` (records and the tools' logic) ←
`config` (the config file and each call's scope) ← `oauth` (the OAuth store) ← `activity`
(the activity store) ← `mcp` (tools and serve) ← `http` (`vault-recall http`).  `errors` is
the base every layer shares.  Nothing here imports `vault_recall.app`, `pystray` or `PIL`
(tests/project/test_layers.py checks all of this; the order is written once in
tests/support/layers.py).
"""

# The version comes from git: setuptools-scm writes it into _version.py (not committed) at every
# build and editable install (pyproject.toml's [tool.setuptools_scm]).  Read from that module, not
# from the installed metadata, so the PyInstaller bundle, which carries modules only, knows it too.
try:
    from vault_recall.server._version import __version__ as __version__
except ImportError:  # a tree no build or install has run in
    __version__ = "0+unknown"
