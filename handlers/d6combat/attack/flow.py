"""A d6 attack's flow (docs/rules.md §D.9–§D.11): the attack roll, the responses, the armour, the
call, and where the gain went."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from rules.d6.combat import AttackResult, GainUse, Manoeuvre
from rules.d6.roll import D6Result, EffortFuel
from table.store import FlowState

KIND = "d6attack"
DEFENDERS_MAX = 6
ALLY = -1  # a share of an advantage goes to the attacker or an ally, not to a foe


class Roll(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    name: str
    user_id: int | None = None
    faces: tuple[int, ...]
    measures: int
    label: str = ""  # how a defence's chance was made when a trick added to it (escaped)
    # The roll as rolled, so a special effort (§D.4) may reroll it «сразу после броска
    # кубиков», before «Итог»; and the effort's price once made (once per action).
    result: D6Result | None = None
    effort: EffortFuel | None = None
    rerolled: int = 0


class Share(BaseModel):
    """One measure of a split gain (§D.11): to the foe at ``foe`` in :meth:`D6AttackFlow.foes`
    (``ALLY`` for an advantage), as ``use``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    foe: int
    use: GainUse


class D6AttackFlow(FlowState):
    kind: ClassVar[str] = KIND
    model_config = ConfigDict(frozen=True, extra="forbid")

    attack: Roll
    label: str
    manoeuvre: Manoeuvre | None = None
    target_name: str | None = None
    target_user: int | None = None
    target_npc: str | None = None  # the Storyteller's NPC under attack, named on the line
    defences: tuple[Roll, ...] = ()
    armour: Roll | None = None
    outcome: AttackResult | None = None
    spent: str | None = None  # the GainChoice taken
    splitting: bool = False  # the gain is being shared out, a measure a tap
    split: tuple[Share, ...] = ()  # the measures given so far, in the order of the taps
    poison: int = 0  # a poisoned wound's severity, as the table reads it (AMB-D11)
    threshold: int = 0  # the broken item's durability threshold (§D.11)
    hold: int = 0  # a grapple's hold, the measures not put into wounds (§D.12)
    # an attack that needs no roll (S2 «бросать кубики не нужно»; S3: a helpless target is
    # bound or finished without one): its line as shown, with the house tag if any (escaped)
    auto: str | None = None

    def foes(self) -> tuple[tuple[int | None, str], ...]:
        """(user id, name) of everyone the gain may go to — the user id None for an NPC: the
        one replied to or named, then each defender, then whoever rolled the armour, once each
        (§D.11: «разделить все полученные меры успеха между оппонентами»)."""
        found: list[tuple[int | None, str]] = []
        if self.target_user is not None and self.target_name is not None:
            found.append((self.target_user, self.target_name))
        elif self.target_npc is not None:
            found.append((None, self.target_npc))
        rolls = (*self.defences, *((self.armour,) if self.armour is not None else ()))
        for roll in rolls:
            if roll.user_id is not None and all(uid != roll.user_id for uid, _n in found):
                found.append((roll.user_id, roll.name))
            elif roll.user_id is None and (None, roll.name) not in found:
                found.append((None, roll.name))
        return tuple(found)
