"""The d6 tracker's buttons. Steps that move the round carry the number of steps taken so far
(``x``), so two people pressing «Действовать» at once move it one step, not two."""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData


class D6InitAction(StrEnum):
    ACT = "a"  # the one who is up acts: their highest die set aside (x: steps so far)
    HOLD = "h"  # выжидание (x: steps so far)
    CUT_IN = "c"  # a holder acts now (the presser's own, or the NPC at index y)
    DEFEND = "d"  # a response to the last action (the presser's own, or the NPC at index y)
    GUARD = "g"  # the presser defends the teammate at index y (x: steps so far); y=-1 picks
    GUARD_BY = "gb"  # the Storyteller picks the NPC at index y who protects someone (x: steps)
    JOIN = "j"  # the presser joins from their sheet
    NEW_ROUND = "nr"  # (x: steps so far)
    END = "end"
    PANEL = "p"  # the Storyteller picks an NPC for CUT_IN (x=1) or DEFEND (x=2); x=0 closes
    REMOVE = "rm"  # «Убрать»: y=-1 opens the list; the participant at index y leaves
    ATTACK = (
        "at"  # the one who is up attacks: y=-1 opens the targets; the one at index y (x: steps)
    )


class D6InitCallback(CallbackData, prefix="d6i"):
    f: str
    v: int
    a: D6InitAction
    x: int = 0
    y: int = -1
