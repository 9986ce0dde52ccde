"""The challenge's state, stored as its flow: both sides and each round (§A.12, §A.14)."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from rules import d10
from rules.contests import (
    ContestKind,
    ContestState,
    Side,
    contest_step,
    start_contest,
    start_extended_opposed,
)
from table.store import FlowState

KIND = "vs"


class Party(BaseModel):
    """One side. ``user_id`` None: known only by @username until they press, or the NPC side
    that any Storyteller may play."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    user_id: int | None = None
    username: str | None = None
    name: str
    storyteller: bool = False
    pool: int | None = None
    difficulty: int
    source: str | None = None  # the sheet's traits the pool came from, as shown
    threshold: int = 0  # what this side's conditions push past the difficulty's cap (§A.8)


class OpposedFlow(FlowState):
    kind: ClassVar[str] = KIND
    model_config = ConfigDict(frozen=True, extra="forbid")

    a: Party
    b: Party
    race_to: int | None = None
    roll_a: d10.D10Result | None = None
    roll_b: d10.D10Result | None = None
    rounds: tuple[tuple[int, int, int, int], ...] = ()
    total_a: int = 0
    total_b: int = 0
    finished: bool = False
    winner: Side | None = None
    net: int = 0
    cancelled: bool = False

    @property
    def choosing(self) -> bool:
        """The challenged side still picks its pool (only before its first roll)."""
        return not self.rounds and self.roll_b is None

    def contest(self) -> ContestState:
        base = (
            start_contest(ContestKind.SINGLE_ROLL)
            if self.race_to is None
            else start_extended_opposed(self.race_to)
        )
        return replace(
            base, total_a=self.total_a, total_b=self.total_b, rolls_made=len(self.rounds)
        )

    def settled(self) -> OpposedFlow:
        """Both sides rolled this round: the rules' verdict, and a new round if none yet."""
        if self.roll_a is None or self.roll_b is None:
            return self
        state = contest_step(self.contest(), self.roll_a, self.roll_b)
        update: dict[str, object] = {
            "total_a": state.total_a,
            "total_b": state.total_b,
            "finished": state.finished,
            "winner": state.winner,
            "net": state.net,
        }
        if self.race_to is not None:
            round_ = (self.roll_a.successes, self.roll_b.successes, state.total_a, state.total_b)
            update["rounds"] = (*self.rounds, round_)
            if not state.finished:
                update["roll_a"] = None
                update["roll_b"] = None
        return self.model_copy(update=update)
