"""The Effect as a flow: what the caster chose, then what the Arete roll and the wheel did
(docs/rules.md §C.1–§C.12). The wizard and the typed line share it; «Отдача» reads it back."""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

from pydantic import ConfigDict, Field

from rules import magick
from rules.combat.damage import DiceTally
from rules.combat.situation import own_action
from rules.d10 import D10Result
from rules.errors import RulesInputError
from rules.health import DamageType, HealthTrack
from rules.profiles import Profile
from rules.sheet import Sheet
from rules.spheres import Sphere
from table.store import FlowState

KIND = "effect"
ABANDONED_KIND = "abandoned"  # a ritual's log line when it is given up: no roll, its Paradox
# The §C.3 rows a mage or the Storyteller taps in the wizard (Quintessence has its own row).
NAMED_MODIFIERS = tuple(m for m in magick.Modifier if m is not magick.Modifier.QUINTESSENCE)
LEVELS = (1, 2, 3, 4, 5)
MODIFIER_CAP = 3  # the buttons offer −3…+3 (S4 «Максимальная сумма модификаторов: +/- 3»)


class Stage(StrEnum):
    SETUP = "setup"
    RITUAL = "ritual"  # an extended casting under way: the next roll or giving up (§C.10)
    CAST = "cast"  # rolled (a ritual: finished); «Отдача» may follow
    BACKLASH = "backlash"  # the Backlash rolled
    CANCELLED = "cancelled"


class Panel(StrEnum):
    CAST = "cast"
    ALLOCATE = "allocate"
    CORRESPONDENCE = "correspondence"
    TIME = "time"


PANELS = tuple(Panel)
# Where an Effect's successes can go (S4 «Расчёт параметров Эффекта», §C.7).
PARTS = ("damage", "duration", "area", "correspondence", "time")
EXTEND_TARGETS = (5, 10, 15, 20, 25, 30)  # a ritual's successes (S4 «Сложный» … «Божественный»)


class EffectFlow(FlowState):
    kind: ClassVar[str] = KIND
    model_config = ConfigDict(frozen=True, extra="forbid")

    caster: str
    user_id: int
    arete: int
    held: int  # Quintessence on the sheet when the wizard opened (the buttons' ceiling)
    wound_penalty: int = 0  # dice wounds take off Arete (AMB-C5), as a positive number
    condition_difficulty: int = 0  # §B.8 on the caster (blinded: +2), as the sheet was read
    stage: Stage = Stage.SETUP
    level: int = 1
    sphere: Sphere | None = None
    vulgar: bool = False
    witnesses: bool = False
    quintessence: int = 0
    modifier: int = 0
    named: dict[str, int] = Field(default_factory=dict)  # §C.3 row → its value
    modifiers_open: bool = False
    willpower: bool = False
    # A ritual (extended casting): the successes to gather, gathered so far, rolls made.
    target: int | None = None
    gathered: int = 0
    rolls: int = 0
    abandoned: bool = False
    in_combat: bool = False  # a fight was on when the Effect was cast: durations in turns
    prepaid: int = 0  # Paradox a cast turned into a ritual already paid (the end pays the rest)
    extending: bool = False  # «Продлить»: the targets are shown
    # After the cast:
    pool: int = 0
    result: D10Result | None = None
    wasted: int = 0
    kept: int = 0  # Quintessence asked for but not spent: the difficulty sat at its floor
    paradox: int = 0
    wheel: tuple[int, int] | None = None  # (Quintessence, Paradox) after the cast
    willpower_left: tuple[int, int] | None = None
    # After «Отдача»:
    backlash: magick.Backlash | None = None
    damage: DiceTally | None = None
    soak: DiceTally | None = None
    levels: int = 0
    damage_type: DamageType | None = None
    track: HealthTrack | None = None
    # The allocation helper (§C.7) and the range tables (§C.8, §C.9) under a cast:
    panel: Panel = Panel.CAST
    allocation: dict[str, int] = Field(default_factory=dict)
    damaging: bool = False  # the Effect hurts: a Forces Effect deals its level (AMB-C16)
    magnitude: int = 1  # the successes the Storyteller says the Effect needs (§C.6)
    mage_too: bool = False  # «маг тоже в зоне»: the mage is among the targets (AMB-C8)
    permanent: bool = False  # the caster asks for a permanent Effect (AMB-C9)
    # §C.8: the place and the sympathetic contact a Correspondence Effect reaches through.
    link_place: magick.Place | None = None
    link_contact: magick.Contact | None = None

    def allocated_successes(self) -> int:
        """The successes the Effect has to spend: a finished ritual's gathered ones."""
        if self.result is None or self.abandoned:
            return 0
        if self.target is not None:
            botched = self.result.outcome.value == "botch"
            return 0 if botched or self.gathered < self.target else self.gathered
        return max(0, self.result.successes)

    def allocated(self, profile: Profile) -> magick.EffectAllocation | None:
        """What the successes buy as allocated now; None before a successful cast."""
        successes = self.allocated_successes()
        if successes <= 0 or self.stage is Stage.RITUAL:
            return None
        part = {p: self.allocation.get(p, 0) for p in PARTS}
        try:
            spread = magick.EffectParts(
                damage=part["damage"],
                duration=part["duration"],
                area=part["area"],
                correspondence=part["correspondence"],
                time=part["time"],
                targets=self.others_reached(profile),
                includes_mage=self.mage_too,
                forces=self.sphere is Sphere.FORCES,
                damaging=True if self.damaging else None,  # None: a success on damage says so
                in_combat=self.in_combat,
                permanent=self.permanent,
            )
            return magick.allocate(successes, self.magnitude, spread, profile=profile)
        except RulesInputError:
            return None

    def others_reached(self, profile: Profile) -> int:
        """The targets other than the mage the successes on area pay for (§C.7): one each,
        and, when the mage stands among them, whatever the table charges for the mage too
        (AMB-C8)."""
        area = min(self.allocation.get("area", 0), magick.MAX_SUCCESSES)
        for others in range(area, 0, -1):
            if magick.area_cost(others, includes_mage=self.mage_too, profile=profile) <= area:
                return others
        return 0

    def link_required(self, profile: Profile) -> int | None:
        """The successes on distance the named links need (§C.8): the better link or both,
        as the table reads it; None while no link is named."""
        if self.link_place is None and self.link_contact is None:
            return None
        return magick.correspondence_required(self.link_place, self.link_contact, profile=profile)

    def difficulty(self, profile: Profile) -> magick.EffectDifficulty:
        """§C.2–§C.4 for the choices now; ``RulesInputError`` on an impossible one."""
        return magick.effect_difficulty(
            self.level,
            self.vulgar,
            self.witnesses,
            self.modifier_items(),
            self.quintessence,
            quintessence_available=self.held,
            profile=profile,
            condition_difficulty=self.condition_difficulty,
        )

    def modifier_items(self) -> list[magick.ModifierItem]:
        items: list[magick.ModifierItem] = [(k, v) for k, v in self.named.items()]
        if self.modifier:
            items.append(self.modifier)
        return items

    def dice(self, profile: Profile) -> int:
        """Arete less wounds unless the table switched that off (AMB-C5)."""
        penalty = self.wound_penalty if profile.magick.wound_penalty_on_arete else 0
        return max(0, self.arete - penalty)

    def paradox_if(self, botch: bool, profile: Profile) -> int:
        outcome = "botch" if botch else "failure"
        return magick.paradox_gain(
            self.level, self.vulgar, self.witnesses, outcome, profile=profile
        )


BARRIER_KIND = "barrier"


class BarrierFlow(FlowState):
    """Crossing the Barrier (§C.15): an extended Arete roll at the place's difficulty toward
    its successes; every failed roll hurts (unsoakable)."""

    kind: ClassVar[str] = BARRIER_KIND
    model_config = ConfigDict(frozen=True, extra="forbid")

    caster: str
    user_id: int
    arete: int
    place: magick.BarrierPlace = magick.BarrierPlace.MOST_CITIES
    shift: int = 0
    rolls: tuple[D10Result, ...] = ()
    gathered: int = 0
    harm: int = 0
    crossed: bool = False
    stopped: bool = False
    track: HealthTrack | None = None
    # The dice the caster's wounds take off Arete (a positive number) as the sheet was last
    # read: at /barrier, then after each roll's harm; the header shows the next roll's pool.
    wound_penalty: int = 0
    condition_difficulty: int = 0  # §B.8 on the caster (blinded: +2 on every roll)

    def difficulty(self, profile: Profile) -> int:
        """The Barrier's difficulty at this place, and the caster's conditions on top."""
        return magick.barrier_for(self.barrier(profile), self.condition_difficulty).difficulty

    def dice(self, profile: Profile) -> int:
        """What the next roll throws: Arete, less the wounds when the table's rule says so."""
        penalty = self.wound_penalty if profile.magick.wound_penalty_on_arete else 0
        return max(0, self.arete - penalty)

    def barrier(self, profile: Profile) -> magick.Barrier:
        return magick.barrier(self.place, self.shift, profile=profile)

    @property
    def over(self) -> bool:
        return self.crossed or self.stopped


def conditions_difficulty(sheet: Sheet) -> int:
    """What the caster's own §B.8 conditions add to a magick roll: S4 «Ослепление: +2
    сложности ко всем действиям» (an Arete roll is an action)."""
    return own_action(sheet.conditions).difficulty
