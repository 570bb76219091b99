"""The reservations behind `changed_since_recalled`: an answer reserves what it tells and hands
out, and only the transport's word that it was delivered makes that known to the client."""

from __future__ import annotations

from pathlib import Path

from vault_recall.server.recall.answers.changed_since import Handed, HandedOutNotes, NoteChange, Pending

VAULT = Path("/v")


def tell_all(untold: list[NoteChange]) -> list[NoteChange]:
    return untold


def reserve(
    memory: HandedOutNotes,
    changes: list[NoteChange],
    handed: list[Handed] | None = None,
    *,
    read_from: int = 0,
    checked_by: int = 0,
) -> Pending | None:
    return memory.reserve("c", changes, tell_all, handed or [], read_from, checked_by)


def given(memory: HandedOutNotes) -> dict[str, str]:
    return {note.path: note.revision for note in memory.notes("c")}


def test_a_change_held_by_an_answer_in_flight_is_not_told_by_another_until_it_is_released() -> None:
    memory = HandedOutNotes()
    memory.settle("c", [], [Handed(VAULT, "A.md", "1")])
    change = NoteChange(VAULT, "A.md", "1", "2")
    first = reserve(memory, [change])
    assert first is not None and first.told == (change,)
    assert reserve(memory, [change]) is None  # the other call of the same client passes over it
    assert memory.held("c") == 1
    first.release()  # not delivered: told by the next answer instead
    second = reserve(memory, [change])
    assert second is not None and second.told == (change,)
    second.commit()
    assert given(memory) == {"A.md": "2"} and memory.held("c") == 0


def test_only_a_delivered_answer_makes_its_changes_told_and_its_notes_remembered() -> None:
    memory = HandedOutNotes()
    lost = reserve(memory, [], [Handed(VAULT, "A.md", "1")])
    assert lost is not None
    lost.release()
    assert given(memory) == {}  # a revision the client never got is never told a change from
    delivered = reserve(memory, [], [Handed(VAULT, "A.md", "1")])
    assert delivered is not None
    delivered.commit()
    delivered.release()  # whichever comes first counts
    assert given(memory) == {"A.md": "1"}
    told = reserve(memory, [NoteChange(VAULT, "A.md", "1", "2")])
    assert told is not None
    told.commit()
    assert reserve(memory, [NoteChange(VAULT, "A.md", "1", "2")]) is None  # told once


def test_a_change_found_from_a_revision_no_longer_remembered_is_not_told() -> None:
    memory = HandedOutNotes()
    memory.settle("c", [], [Handed(VAULT, "A.md", "1")])
    stale = NoteChange(VAULT, "A.md", "1", "3")  # found before another answer told 1 -> 2
    memory.settle("c", [NoteChange(VAULT, "A.md", "1", "2")], [])
    assert reserve(memory, [stale]) is None


def test_an_answer_delivered_late_does_not_bring_back_an_older_revision() -> None:
    memory = HandedOutNotes()
    memory.settle("c", [], [Handed(VAULT, "A.md", "1")])
    slow = reserve(memory, [], [Handed(VAULT, "A.md", "1")], read_from=10)  # read 1 at 10
    quick = reserve(memory, [NoteChange(VAULT, "A.md", "1", "2")], read_from=20, checked_by=30)
    assert slow is not None and quick is not None
    quick.commit()
    slow.commit()  # delivered after: the client was told of 2 already
    assert given(memory) == {"A.md": "2"}
    assert reserve(memory, [NoteChange(VAULT, "A.md", "1", "2")]) is None  # not told twice


def test_an_answer_that_hands_out_a_note_and_tells_it_changed_since_remembers_the_change() -> None:
    memory = HandedOutNotes()
    memory.settle("c", [], [Handed(VAULT, "A.md", "1")])
    both = reserve(
        memory, [NoteChange(VAULT, "A.md", "1", "2")], [Handed(VAULT, "A.md", "1")], read_from=5, checked_by=9
    )
    assert both is not None
    both.commit()
    assert given(memory) == {"A.md": "2"}


def test_a_gone_note_told_is_forgotten_once_delivered() -> None:
    memory = HandedOutNotes()
    memory.settle("c", [], [Handed(VAULT, "A.md", "1"), Handed(VAULT, "B.md", "1")])
    gone = reserve(memory, [NoteChange(VAULT, "A.md", "1", None)])
    assert gone is not None
    assert given(memory) == {"A.md": "1", "B.md": "1"}  # still held, not yet delivered
    gone.commit()
    assert given(memory) == {"B.md": "1"}


def test_an_answer_delivered_late_does_not_bring_back_a_note_told_gone() -> None:
    memory = HandedOutNotes()
    memory.settle("c", [], [Handed(VAULT, "A.md", "1")])
    slow = reserve(memory, [], [Handed(VAULT, "A.md", "1")], read_from=10)  # read 1 at 10
    gone = reserve(memory, [NoteChange(VAULT, "A.md", "1", None)], read_from=20, checked_by=30)
    assert slow is not None and gone is not None
    gone.commit()  # the client knows its 1 is gone (deleted, or no longer shown to it)
    slow.commit()  # delivered after: its 1 is what the client was just told is gone
    assert given(memory) == {}
    # Back as 2 (restored by a sync tool, or shown again): nothing is told from 1 a second time.
    assert reserve(memory, [NoteChange(VAULT, "A.md", "1", "2")]) is None
    # An answer that read it after it came back hands it out anew, and its changes are told.
    fresh = reserve(memory, [], [Handed(VAULT, "A.md", "2")], read_from=40)
    assert fresh is not None
    fresh.commit()
    assert given(memory) == {"A.md": "2"}


def test_an_answer_begun_later_that_read_before_an_edit_does_not_bring_back_the_old_revision() -> None:
    # The race CI saw once over stdio ("the change from fcb60893 was told twice").  Times are
    # now_stamp values: `slow` begins first but reads the note after an edit; `early` begins
    # later but read it before.  Their starts say nothing of which read first.
    memory = HandedOutNotes()
    memory.settle("c", [], [Handed(VAULT, "A.md", "1")])
    t = 10**18  # after the settle's stamp
    # slow: begins at t+10, reads 2 (after the edit 1 -> 2 at t+30) and tells 1 -> 2.
    slow = reserve(
        memory, [NoteChange(VAULT, "A.md", "1", "2")], [Handed(VAULT, "A.md", "2")], read_from=t + 10, checked_by=t + 45
    )
    # early: begins at t+20 and read the note at t+25, before the edit.
    early = reserve(memory, [], [Handed(VAULT, "A.md", "1")], read_from=t + 20, checked_by=t + 60)
    assert slow is not None and slow.told and early is not None
    slow.commit()
    early.commit()  # delivered after: 1 is no newer than the 2 the client was just told of
    assert given(memory) == {"A.md": "2"}
    assert reserve(memory, [NoteChange(VAULT, "A.md", "1", "2")], read_from=t + 70, checked_by=t + 80) is None
    # An answer begun after 2 was surely read hands out what it read (a later edit, 3).
    later = reserve(memory, [], [Handed(VAULT, "A.md", "3")], read_from=t + 90, checked_by=t + 95)
    assert later is not None
    later.commit()
    assert given(memory) == {"A.md": "3"}
