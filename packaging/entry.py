"""The bundle's one executable: `vault-recall` with no command starts the tray, `serve` the
stdio server, like the console script."""

import sys

from vault_recall.app.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
