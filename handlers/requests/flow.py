"""A roll request's state, stored as its flow: what was asked and each player's answer."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from rules.actions import PoolStatus
from rules.d10 import D10Result
from rules.health import ImpossibleReason
from rules.sheet import SheetSystem
from table.store import FlowState


class RequestAnswer(BaseModel):
    """One player's answer: the pool the sheet gave (§A.2 with the §B.9 wound penalty) and
    the roll, or why there was none (the zero-Ability rule, an emptied pool, wounds)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    user_id: int
    name: str
    status: PoolStatus
    base: int
    penalty: int = 0
    dice: int = 0
    reason: ImpossibleReason | None = None
    result: D10Result | None = None


class RequestState(FlowState):
    kind: ClassVar[str] = "request"
    model_config = ConfigDict(frozen=True, extra="forbid")

    system: SheetSystem
    codes: tuple[str, ...]
    difficulty: int
    asker: str
    answers: tuple[RequestAnswer, ...] = ()
    # A roll asked of one player (from the Storyteller's screen): only they press, once,
    # and their answer closes the request.
    only: int | None = None
    only_name: str | None = None

    def answered(self, user_id: int) -> bool:
        return any(a.user_id == user_id for a in self.answers)
