"""Desktop integration, one small module per concern, each choosing its platform in one place:
clipboard, opening links and folders, the folder picker, start at login."""
