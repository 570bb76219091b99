"""What a client id (`serve --client ID`) may be: a module of its own, so `serve` can check one
before importing the config reader (which loads YAML and the recall layer)."""

import re

CLIENT_ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")  # always used with fullmatch
