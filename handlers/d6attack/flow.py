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

    def foes(self) -> tuple[tuple[int, str], ...]:
        """(user id, name) of everyone the gain may go to: the one replied to, then each
        defender, once each (§D.11: «разделить выигрыш между противниками»)."""
        found: list[tuple[int, str]] = []
        if self.target_user is not None and self.target_name is not None:
            found.append((self.target_user, self.target_name))
        for roll in self.defences:
            if roll.user_id is not None and all(uid != roll.user_id for uid, _n in found):
                found.append((roll.user_id, roll.name))
        return tuple(found)

    spent: str | None = None  # the GainChoice taken
    splitting: bool = False  # the gain is being shared among the foes, a measure a tap
    shares: tuple[int, ...] = ()  # per foe (in the order of :meth:`foes`), measures given
    poison: int = 0  # a poisoned wound's severity, as the table reads it (AMB-D11)
    threshold: int = 0  # the broken item's durability threshold (§D.11)
