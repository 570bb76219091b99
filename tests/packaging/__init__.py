"""The wheel, fresh venvs, the bundle, the wheels other platforms get."""
