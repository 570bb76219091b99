"""The tray on a real D-Bus, Xvfb and panels."""
