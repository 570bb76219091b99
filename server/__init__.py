"""The stdio recall server: everything one `vault-recall serve` process needs.

Nothing in this package imports `app`, `pystray` or `PIL` (tests/test_layers.py checks).
"""

__version__ = "0.1.0"
