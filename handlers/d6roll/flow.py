"""The state behind one d6 roll's message: the wizard's choices, then the roll itself and
whether its one special effort (§D.4) was made."""

from __future__ import annotations

from typing import ClassVar

from pydantic import ConfigDict

from rules.d6.combat import Edge
from rules.d6.roll import D6Result, EffortFuel
from table.store import FlowState

KIND = "d6roll"


class D6RollState(FlowState):
    """``result`` None while the wizard is open. ``choosing``: the price buttons of the
    special effort are shown. ``label`` is how the chance was made, as shown (escaped)."""

    kind: ClassVar[str] = KIND

    model_config = ConfigDict(frozen=True, extra="forbid")

    roller: str
    powers: tuple[str, ...] = ()
    chance: int | None = None
    weakness: bool = False
    luck: int = 0
    required: int = 1
    modifier: int = 0
    aim: int | None = None  # aiming: the target's difficulty (§D.12), None when not aiming
    escape: bool = False  # an escape (§D.12): the measures become the pursuers' difficulty
    charge: bool = False  # a run-up (§D.12): the measures help the next attack
    full_defence: bool = False  # full defence (§D.12): the measures help the next defence
    # The tricks a trick's roll left waiting on the sheet, None for any other roll: a special
    # effort on it changes them only while the sheet still holds exactly these.
    left: tuple[Edge, ...] | None = None
    label: str = ""
    result: D6Result | None = None
    choosing: bool = False
    price: EffortFuel | None = None
    wound_written: bool = False
