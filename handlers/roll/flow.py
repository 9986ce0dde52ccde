"""The states behind ``/r``: the wizard's choices, and a result's record for its buttons."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from rules import d10
from table.store import FlowState

WIZARD = "wizard"


RESULT = "roll"


class AutoDone(BaseModel):
    """The automatic success a wizard ended with (§A.6): what its message says."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pool: int
    difficulty: int
    roller: str
    degree: d10.Degree
    source: str | None = None
    willpower_left: tuple[int, int] | None = None  # after the point the table's variant takes


class WizardState(FlowState):
    """The wizard's choices so far; ``pool`` None until the first pool button."""

    kind: ClassVar[str] = WIZARD

    model_config = ConfigDict(frozen=True, extra="forbid")

    pool: int | None = None
    difficulty: int
    willpower: bool = False
    willpower_offered: bool = True  # False once the sheet has no Willpower left (§A.7)
    traits: tuple[str, ...] = ()  # trait codes picked on the sheet's buttons (§A.2)
    recent: tuple[str, ...] = ()  # the player's latest sheet pools, «dexterity+brawl»
    modifier: int = 0  # dice added or taken on top of the pool
    done: AutoDone | None = None  # «Автоуспех» closed the wizard with this


class RollRecord(FlowState):
    """What «Ещё раз» needs: the original request and how many attempts were made (§A.10)."""

    kind: ClassVar[str] = RESULT

    model_config = ConfigDict(frozen=True, extra="forbid")

    pool: int
    base: int
    willpower: bool = False
    threshold: int = 0
    attempt: int = 1
    result: d10.D10Result | None = None  # what «Продлить» counts as the first roll
    source: str | None = None  # the sheet's traits the pool came from, as shown
    traits: str | None = None  # their codes, «dexterity+brawl», kept in the log
    npc: str | None = None  # the Storyteller's NPC whose sheet rolled
    asking: bool = False  # «Продлить» pressed: the targets are shown under the result
