"""A d6 contest's flow: every side's roll so far and, once called, the outcome (§D.5)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from rules.d6.roll import ContestResult
from table.store import FlowState

KIND = "d6vs"
SIDES_MAX = 8
ACTIONS_MAX = 10  # a challenge of more actions each is a project, not one message of rolls


class Side(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    name: str
    label: str
    faces: tuple[int, ...]
    measures: int
    # A challenge (S2 «у состязающихся сторон есть определённое количество действий»): the
    # measures of each of the side's actions; ``faces`` are all their dice, ``measures`` the
    # total. Empty for a contest of one roll.
    rolls: tuple[int, ...] = ()


class ContestFlow(FlowState):
    kind: ClassVar[str] = KIND
    model_config = ConfigDict(frozen=True, extra="forbid")

    sides: tuple[Side, ...]
    outcome: ContestResult | None = None
    actions: int = 1  # a challenge's actions for each side (1: an ordinary contest)
