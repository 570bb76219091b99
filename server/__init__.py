"""The recall server, installed as `vault_recall.server`: everything one `vault-recall serve`
process needs.

Its layers, lower first, each importing only those below it: `vault` (listing and reading
files) ← `obsidian` (notes, properties, links) ← `recall` (records and the tools' logic) ←
`config` (the config file and each call's scope) ← `activity` (the activity store) ← `mcp`
(tools and serve).  `errors` is the base every layer shares.  Nothing here imports
`vault_recall.app`, `pystray` or `PIL` (tests/project/test_layers.py checks all of this).
"""

# The one place the version is written: pyproject.toml reads it from here for the wheel's metadata
# ([tool.setuptools.dynamic]), and nothing reads the installed metadata at run time.
__version__ = "0.1.0"
