"""A d6 contest's flow: every side's roll so far and, once called, the outcome (§D.5)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from rules.d6.roll import ContestResult
from table.store import FlowState

KIND = "d6vs"
SIDES_MAX = 8


class Side(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    name: str
    label: str
    faces: tuple[int, ...]
    measures: int


class ContestFlow(FlowState):
    kind: ClassVar[str] = KIND
    model_config = ConfigDict(frozen=True, extra="forbid")

    sides: tuple[Side, ...]
    outcome: ContestResult | None = None
