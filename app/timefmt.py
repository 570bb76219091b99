"""Times as a person reads them in a menu or a terminal: '2 min ago'."""

from __future__ import annotations

import time


def ago(ts: float, now: float | None = None) -> str:
    seconds = max(0, int((now if now is not None else time.time()) - ts))
    if seconds < 45:
        return "just now"
    if seconds < 90:
        return "1 min ago"
    if seconds < 3600:
        return f"{round(seconds / 60)} min ago"
    if seconds < 36 * 3600:
        hours = round(seconds / 3600)
        return f"{hours} h ago"
    days = round(seconds / 86400)
    return f"{days} day{'s' if days != 1 else ''} ago"


def clock(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))
