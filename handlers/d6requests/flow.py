"""A d6 roll request's flow: what was asked and each player's roll."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from rules.d6.roll import D6Result
from table.store import FlowState

KIND = "d6request"


class D6Answer(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    user_id: int
    name: str
    label: str
    result: D6Result


class D6RequestState(FlowState):
    kind: ClassVar[str] = KIND
    model_config = ConfigDict(frozen=True, extra="forbid")

    powers: tuple[str, ...]
    required: int = 1
    asker: str
    answers: tuple[D6Answer, ...] = ()

    def answered(self, user_id: int) -> bool:
        return any(a.user_id == user_id for a in self.answers)
