"""The tray and the management CLI.  May import `server`; `server` never imports this."""
