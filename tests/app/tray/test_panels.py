"""Which backend the panels call for, and following them as they come and go (app/tray/views/panels.py),
as data and time."""

from __future__ import annotations

from vault_recall.app.desktop.tray_hosts import Hosts
from vault_recall.app.tray.views.panels import (
    LEAVE_SNI_SECONDS,
    MISSING_SECONDS,
    TO_SNI_SECONDS,
    HostFollower,
    missing_host,
    preferred,
)

NONE, SNI, XEMBED, BOTH = Hosts(False, False), Hosts(True, False), Hosts(False, True), Hosts(True, True)


def with_gtk() -> bool:
    return True


def without_gtk() -> bool:
    return False


def test_a_statusnotifieritem_host_wins_and_an_xembed_tray_needs_gtk() -> None:
    assert preferred(BOTH, with_gtk) == "sni" and preferred(SNI, without_gtk) == "sni"
    assert preferred(XEMBED, with_gtk) == "gtk"
    assert preferred(XEMBED, without_gtk) is None and preferred(NONE, with_gtk) is None


JARGON = ("org.kde", "StatusNotifierWatcher", "session bus", "selection", "D-Bus")


def test_what_is_missing_is_one_sentence_in_plain_words_naming_what_to_start_or_install() -> None:
    assert missing_host(SNI, without_gtk) is None and missing_host(XEMBED, with_gtk) is None
    nothing = missing_host(NONE, with_gtk)
    assert nothing is not None and nothing.startswith("no panel shows tray icons right now")
    assert "start your desktop's panel" in nothing and "appears by itself" in nothing
    gtk = missing_host(XEMBED, without_gtk)
    assert gtk is not None and "python3-gi" in gtk and "\n" not in gtk
    assert not any(word in text for text in (nothing, gtk) for word in JARGON)


def test_a_panel_restart_moves_nothing_and_says_nothing() -> None:
    follower = HostFollower("sni", with_gtk)
    follower.seen(BOTH, 0.0)
    follower.seen(NONE, 10.0)  # the panel is restarting
    assert follower.switch_to(12.0) is None and follower.missing(12.0) is None
    follower.seen(XEMBED, 12.0)  # its XEmbed half is back first
    assert follower.switch_to(12.0 + LEAVE_SNI_SECONDS - 0.1) is None
    follower.seen(BOTH, 13.0)
    assert follower.switch_to(100.0) is None and follower.missing(100.0) is None


def test_an_xembed_tray_alone_takes_the_icon_after_a_while_and_a_new_sni_panel_takes_it_back() -> None:
    follower = HostFollower("sni", with_gtk)
    follower.seen(XEMBED, 0.0)
    assert follower.switch_to(LEAVE_SNI_SECONDS - 0.1) is None
    assert follower.switch_to(LEAVE_SNI_SECONDS) == "gtk"
    follower.moved("gtk")
    assert follower.switch_to(60.0) is None
    follower.seen(BOTH, 60.0)
    assert follower.switch_to(60.0 + TO_SNI_SECONDS) == "sni"


def test_with_no_panel_at_all_the_person_is_told_once_until_one_shows_the_icon() -> None:
    follower = HostFollower("sni", with_gtk)
    follower.seen(NONE, 0.0)
    assert follower.missing(MISSING_SECONDS - 0.1) is None
    told = follower.missing(MISSING_SECONDS)
    assert told is not None and told.startswith("no panel shows tray icons right now")
    assert follower.missing(MISSING_SECONDS + 60) is None  # once
    follower.seen(SNI, 100.0)
    follower.seen(NONE, 200.0)
    assert follower.missing(200.0 + MISSING_SECONDS) is not None  # a new absence is news again
    assert follower.switch_to(1000.0) is None  # nothing better to move to: it waits where it is


def test_the_watcher_is_told_when_a_panel_change_will_have_lasted_and_nothing_else() -> None:
    follower = HostFollower("sni", with_gtk)
    assert follower.due_at() is None  # no panel heard of yet
    follower.seen(SNI, 10.0)
    assert follower.due_at() is None  # shown where it is: nothing to wait for
    follower.seen(XEMBED, 20.0)
    assert follower.due_at() == 20.0 + LEAVE_SNI_SECONDS
    follower.moved("gtk")
    follower.seen(BOTH, 40.0)
    assert follower.due_at() == 40.0 + TO_SNI_SECONDS
    follower.seen(NONE, 50.0)
    assert follower.due_at() == 50.0 + MISSING_SECONDS
    assert follower.missing(50.0 + MISSING_SECONDS) is not None
    assert follower.due_at() is None  # told: nothing more until the panels change
