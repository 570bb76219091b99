"""The MCP Bundle's entry point (packaging/mcpb/manifest.json): `vault-recall serve` for Claude,
with the vault folder the person chose when installing the bundle (`--vault`, from the
manifest's user configuration).  uv installs the package beside it from the bundle's own wheel
(the bundle's pyproject.toml), so nothing of ours needs to be installed first."""

import sys

from vault_recall.app.cli.main import main

if __name__ == "__main__":
    sys.exit(main(["serve", "--client", "claude-desktop", *sys.argv[1:]]))
