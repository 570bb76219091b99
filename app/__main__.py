"""`python -m vault_recall.app …` runs the same command line as the `vault-recall` console script."""

import sys

from vault_recall.app.cli.main import main

sys.exit(main())
