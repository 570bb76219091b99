"""The one freedesktop.org Desktop Entry template, for the launcher and the autostart entry."""

from __future__ import annotations

TEMPLATE = """[Desktop Entry]
Type=Application
Name=Vault Recall
GenericName=AI memory from your Obsidian vault
Comment=Lets every AI client recall the decisions kept in your Obsidian vault
Exec={exec}
Icon=vault-recall
Terminal=false
Categories=Utility;
StartupNotify=false
{extra}"""


def exec_line(argv: list[str]) -> str:
    """argv as a Desktop Entry Exec value: arguments with reserved characters double-quoted with
    `"`, backquote, `$` and backslash escaped; then backslashes escaped again (the value is a
    'string'), `%` doubled (field codes), and control characters written as escapes."""

    def quote(arg: str) -> str:
        if arg and all(c.isalnum() or c in "/._-+=:," for c in arg):
            return arg
        return '"' + "".join("\\" + c if c in '"`$\\' else c for c in arg) + '"'

    value = " ".join(quote(a) for a in argv).replace("\\", "\\\\").replace("%", "%%")
    return value.replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


def desktop_entry(argv: list[str], *, autostart: bool) -> str:
    """The entry that starts `argv` from the applications menu, or at login."""
    extra = "X-GNOME-Autostart-enabled=true\n" if autostart else "Keywords=Obsidian;MCP;AI;memory;notes;\n"
    return TEMPLATE.format(exec=exec_line(argv), extra=extra)
