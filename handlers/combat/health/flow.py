"""A wound typed with ``/dmg`` that its character may still soak (docs/rules.md §B.3 step 4,
§B.10): the damage as typed, the track before and after it, and the soak once rolled."""

from __future__ import annotations

from typing import ClassVar

from pydantic import ConfigDict

from rules.combat.damage import DiceTally
from rules.health import DamageType, HealthTrack
from table.store import FlowState

KIND = "wound"


class WoundFlow(FlowState):
    """``levels`` is the damage as typed, before soak; ``after`` the track the wound left,
    which the soak replaces only while the sheet still shows it."""

    kind: ClassVar[str] = KIND
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    user_id: int | None = None  # the wounded player's; None for an NPC
    npc: str | None = None
    damage: DamageType
    levels: int
    dice: int  # the soak pool (§B.10: Stamina, or nothing against this damage)
    stamina: int | None = None  # what a stun is measured against after the soak (§B.11)
    before: HealthTrack
    after: HealthTrack
    soak: DiceTally | None = None
    kept: int | None = None  # the levels left after the soak
    vampire: bool = False  # a vampire's sheet: bashing through the soak is halved (§B.13)
