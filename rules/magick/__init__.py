"""Mage magick: Effects, Paradox, Backlash and the Barrier (docs/rules.md §C, house sheet S4).

The house sheet (S4 «Создание Эффекта», «Расчёт Сложности для Магии», «Расчёт параметров
Эффекта», «Накопление Парадокса», «Отдача», «Барьер» and the two range tables) sits on the
Mage Revised core (S0): the Arete roll is an ordinary d10 roll (§A.4, ``rules.d10``) and an
Effect difficulty above 9 turns into a threshold (§A.8, ``rules.difficulty``).

One module per part of §C: :mod:`.effect` (§C.1 procedure), :mod:`.difficulty` (§C.2–§C.4),
:mod:`.arete` (§C.5 the roll, §C.6 magnitude), :mod:`.successes` (§C.7), :mod:`.ranges`
(§C.8 Correspondence, §C.9 Time), :mod:`.paradox` (§C.10 gained, §C.11 the wheel),
:mod:`.backlash` (§C.12 Backlash, §C.13 flaws) and :mod:`.barrier` (§C.14 Мороки, §C.15 the
Barrier). The Sphere reference texts of §C.16 are data in ``rules.spheres``. Usage:
``from rules import magick; magick.effect_difficulty(...)``.

Every house-rule choice the sheet leaves open (§F.3, AMB-C1..AMB-C17) is a field of
``profile.magick``; results carry enum codes only, never words.
"""

from __future__ import annotations

from rules.magick.arete import (
    ARETE_MAX,
    MAGNITUDE_SUCCESSES,
    Casting,
    CastStatus,
    Magnitude,
    Spell,
    cast,
    check_required,
    magnitude_of,
)
from rules.magick.backlash import (
    PARADOX_FLAWS,
    Backlash,
    BacklashEffect,
    BacklashEffects,
    BacklashOption,
    Choice,
    FlawLasting,
    FlawSpec,
    ParadoxFlaw,
    backlash,
    backlash_effects,
    backlash_tier,
    paradox_flaw,
)
from rules.magick.barrier import (
    BARRIER_ADJUSTMENT_LIMIT,
    BARRIER_DAMAGE_TYPE,
    BARRIER_TABLE,
    Barrier,
    BarrierCrossing,
    BarrierPlace,
    HauntDuration,
    barrier,
    barrier_for,
    cross_barrier,
    haunt_duration,
)
from rules.magick.difficulty import (
    MODIFIER_RANGES,
    UNKEYED_MODIFIER_LIMIT,
    AppliedModifier,
    EffectDifficulty,
    Modifier,
    ModifierInput,
    ModifierItem,
    base_difficulty,
    check_quintessence,
    effect_difficulty,
    parse_modifiers,
)
from rules.magick.effect import (
    PROCEDURE,
    EffectAspect,
    Step,
    highest_sphere_level,
)
from rules.magick.limits import (
    MAX_PARADOX_POOL,
    MAX_RITUAL_ROLLS,
    MAX_SUCCESSES,
)
from rules.magick.paradox import (
    Wheel,
    WheelChange,
    add_paradox,
    add_quintessence,
    paradox_gain,
    spend_quintessence,
    wheel,
)
from rules.magick.ranges import (
    CORRESPONDENCE_ROWS,
    TIME_REACH_YEARS,
    Contact,
    CorrespondenceReach,
    Place,
    correspondence_reach,
    correspondence_required,
    time_reach,
    time_required,
)
from rules.magick.successes import (
    PERMANENT_ON_DURATION,
    Duration,
    EffectAllocation,
    EffectParts,
    allocate,
    area_cost,
    damage_levels,
    default_damage_type,
    duration_of,
)

__all__ = [
    "ARETE_MAX",
    "BARRIER_ADJUSTMENT_LIMIT",
    "BARRIER_DAMAGE_TYPE",
    "BARRIER_TABLE",
    "CORRESPONDENCE_ROWS",
    "MAGNITUDE_SUCCESSES",
    "MAX_PARADOX_POOL",
    "MAX_RITUAL_ROLLS",
    "MAX_SUCCESSES",
    "MODIFIER_RANGES",
    "PARADOX_FLAWS",
    "PERMANENT_ON_DURATION",
    "PROCEDURE",
    "TIME_REACH_YEARS",
    "UNKEYED_MODIFIER_LIMIT",
    "AppliedModifier",
    "Backlash",
    "BacklashEffect",
    "BacklashEffects",
    "BacklashOption",
    "Barrier",
    "BarrierCrossing",
    "BarrierPlace",
    "CastStatus",
    "Casting",
    "Choice",
    "Contact",
    "CorrespondenceReach",
    "Duration",
    "EffectAllocation",
    "EffectAspect",
    "EffectDifficulty",
    "EffectParts",
    "FlawLasting",
    "FlawSpec",
    "HauntDuration",
    "Magnitude",
    "Modifier",
    "ModifierInput",
    "ModifierItem",
    "ParadoxFlaw",
    "Place",
    "Spell",
    "Step",
    "Wheel",
    "WheelChange",
    "add_paradox",
    "add_quintessence",
    "allocate",
    "area_cost",
    "backlash",
    "backlash_effects",
    "backlash_tier",
    "barrier",
    "barrier_for",
    "base_difficulty",
    "cast",
    "check_quintessence",
    "check_required",
    "correspondence_reach",
    "correspondence_required",
    "cross_barrier",
    "damage_levels",
    "default_damage_type",
    "duration_of",
    "effect_difficulty",
    "haunt_duration",
    "highest_sphere_level",
    "magnitude_of",
    "paradox_flaw",
    "paradox_gain",
    "parse_modifiers",
    "spend_quintessence",
    "time_reach",
    "time_required",
    "wheel",
]
