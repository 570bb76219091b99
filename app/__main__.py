"""`python -m app …` runs the same command line as the `vault-recall` console script."""

import sys

from app.cli import main

sys.exit(main())
