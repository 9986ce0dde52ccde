"""The extended action's state, stored as its flow: the request and the rules' progress (§A.11)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import ConfigDict

from bot import table_text
from rules import d10
from rules.actions import ExtendedState, ExtendedStatus, extended_step, start_extended
from rules.profiles import Profile
from table.store import FlowState

KIND = "ext"


FINAL = (ExtendedStatus.COMPLETE, ExtendedStatus.OUT_OF_TIME)


class ExtendedFlow(FlowState):
    """The flow's data: the request, the rules' progress and the latest rolls to show."""

    kind: ClassVar[str] = KIND

    model_config = ConfigDict(frozen=True, extra="forbid")

    roller: str
    pool: int
    difficulty: int
    target: int
    max_rolls: int | None = None
    accumulated: int = 0
    rolls_made: int = 0
    status: ExtendedStatus = ExtendedStatus.IN_PROGRESS
    excess: int = 0
    history: tuple[d10.D10Result, ...] = ()
    source: str | None = None  # the sheet's traits the pool came from, as shown
    threshold: int = 0  # what the roller's conditions push past the difficulty's cap (§A.8)

    def rules_state(self) -> ExtendedState:
        return ExtendedState(
            target=self.target,
            max_rolls=self.max_rolls,
            accumulated=self.accumulated,
            rolls_made=self.rolls_made,
            status=self.status,
            excess=self.excess,
        )

    def after(self, result: d10.D10Result, profile: Profile) -> ExtendedFlow:
        """One more roll counted by the rules; the shown history keeps the latest rolls."""
        state = extended_step(self.rules_state(), result, profile)
        history = (*self.history, result)[-table_text.HISTORY_SHOWN :]
        return self.model_copy(
            update={
                "accumulated": state.accumulated,
                "rolls_made": state.rolls_made,
                "status": state.status,
                "excess": state.excess,
                "history": history,
            }
        )


def finished(state: ExtendedFlow) -> bool:
    """Complete or out of rolls: nothing left to press (a botch may still start over, but
    not on the last roll it was allowed, §A.11)."""
    out_of_rolls = state.max_rolls is not None and state.rolls_made >= state.max_rolls
    return state.status in FINAL or out_of_rolls


def begin(
    roller: str,
    pool: int,
    difficulty: int,
    target: int,
    max_rolls: int | None,
    first: d10.D10Result,
    profile: Profile,
) -> ExtendedFlow:
    """A new extended action whose first roll is ``first`` (typed /ext, or a /r «Продлить»)."""
    start = start_extended(target, max_rolls)
    state = ExtendedFlow(
        roller=roller, pool=pool, difficulty=difficulty, target=start.target, max_rolls=max_rolls
    )
    return state.after(first, profile)
