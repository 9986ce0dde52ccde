"""A d6 attack's flow (RULES.md §D.9–§D.11): the attack roll, the responses, the armour, the
call, and where the gain went."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from bot.store import FlowState
from rules.d6.combat import AttackResult, Manoeuvre

KIND = "d6attack"
DEFENDERS_MAX = 6


class Roll(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    name: str
    user_id: int | None = None
    faces: tuple[int, ...]
    measures: int


class D6AttackFlow(FlowState):
    kind: ClassVar[str] = KIND
    model_config = ConfigDict(frozen=True, extra="forbid")

    attack: Roll
    label: str
    manoeuvre: Manoeuvre | None = None
    target_name: str | None = None
    target_user: int | None = None
    defences: tuple[Roll, ...] = ()
    armour: Roll | None = None
    outcome: AttackResult | None = None
    spent: str | None = None  # the GainChoice taken
    poison: int = 0  # a poisoned wound's severity, as the table reads it (AMB-D11)
