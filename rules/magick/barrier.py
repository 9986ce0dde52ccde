"""Madness and Мороки (§C.14) and the Barrier (§C.15)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from types import MappingProxyType

from rules import d10
from rules.d10 import D10Result, Outcome, faces_or_roll
from rules.dice import Rng
from rules.errors import (
    check_bool,
    check_int,
    check_type,
    parse_enum,
)
from rules.health import DamageType
from rules.magick.limits import MAX_SUCCESSES, _profile, _Value
from rules.profiles import ExtendedBotch, MagickOptions, Profile

# ---------------------------------------------------------------------------------------------
# §C.14 Madness and Мороки


class HauntDuration(_Value):
    amount: int
    unit: MagickOptions.HauntUnit


def haunt_duration(
    paradox: int,
    *,
    unit: MagickOptions.HauntUnit | str | None = None,
    profile: Profile | None = None,
) -> HauntDuration:
    """How long Мороки pursue the mage: «число дней, равное количеству накопленного парадокса».

    S4 lets days become «недели, месяцы и даже годы» for large pools without saying where
    (AMB-C15): the unit is the profile's (days) unless the Storyteller names one.
    """
    p = check_int(paradox, "paradox", 0)
    chosen = _profile(profile).magick.haunt_unit if unit is None else unit
    return HauntDuration(amount=p, unit=parse_enum(MagickOptions.HauntUnit, chosen, "unit"))


# ---------------------------------------------------------------------------------------------
# §C.15 The Barrier (Барьер)


class BarrierPlace(StrEnum):
    NODE = "node"  # Узел
    DEEP_WILDERNESS = "deep_wilderness"  # Редкая глушь
    COUNTRYSIDE = "countryside"  # Сельская местность
    MOST_CITIES = "most_cities"  # Большая часть городов
    DOWNTOWN = "downtown"  # Деловой центр
    TECHNOCRACY_LAB = "technocracy_lab"  # Лаборатория Технократии*


# (difficulty, successes needed); the lab's «5 и больше» is the only open-ended row.
BARRIER_TABLE: Mapping[BarrierPlace, tuple[int, int]] = MappingProxyType(
    {
        BarrierPlace.NODE: (3, 1),
        BarrierPlace.DEEP_WILDERNESS: (5, 2),
        BarrierPlace.COUNTRYSIDE: (6, 3),
        BarrierPlace.MOST_CITIES: (7, 4),
        BarrierPlace.DOWNTOWN: (8, 5),
        BarrierPlace.TECHNOCRACY_LAB: (9, 5),
    }
)
BARRIER_ADJUSTMENT_LIMIT = 2  # «может повышаться или понижаться на 1 или 2»
BARRIER_DAMAGE_TYPE = DamageType.LETHAL  # [P] §C.15: «непоглощаемых повреждений», type unnamed


class Barrier(_Value):
    place: BarrierPlace
    difficulty: int
    successes: int
    at_least: bool  # «5 и больше»: the Storyteller may ask for more


def barrier(
    place: BarrierPlace | str,
    adjustment: int = 0,
    *,
    technocratic: bool = False,
    profile: Profile | None = None,
) -> Barrier:
    """The Barrier's difficulty and successes at a place (S4 «Барьер»).

    A Technocracy lab counts as a Node for Technocratic procedures («Физика Пространств
    Технократии считает это место Узлом»). The local ±1–2 shift moves the difficulty only by
    default (AMB-C14), clamped to 2..10; successes never drop below 1.
    """
    opts = _profile(profile).magick
    where = parse_enum(BarrierPlace, place, "place")
    shift = check_int(adjustment, "adjustment", -BARRIER_ADJUSTMENT_LIMIT, BARRIER_ADJUSTMENT_LIMIT)
    row = where
    if check_bool(technocratic, "technocratic") and where is BarrierPlace.TECHNOCRACY_LAB:
        row = BarrierPlace.NODE
    difficulty, successes = BARRIER_TABLE[row]
    mode = opts.barrier_adjustment
    if mode is not MagickOptions.BarrierAdjustment.SUCCESSES:
        difficulty = max(d10.DIFFICULTY_MIN, min(d10.DIFFICULTY_MAX, difficulty + shift))
    if mode is not MagickOptions.BarrierAdjustment.DIFFICULTY:
        successes = max(1, successes + shift)
    return Barrier(
        place=where,
        difficulty=difficulty,
        successes=successes,
        at_least=row is BarrierPlace.TECHNOCRACY_LAB,
    )


class BarrierCrossing(_Value):
    """One roll of an attempt to cross the Barrier (an extended roll, §A.11)."""

    barrier: Barrier
    roll: D10Result
    accumulated: int
    crossed: bool
    damage_levels: int  # unsoakable levels of ``BARRIER_DAMAGE_TYPE`` from this roll
    damage_type: DamageType


def cross_barrier(
    pool: int,
    place: BarrierPlace | str | Barrier,
    *,
    accumulated: int = 0,
    adjustment: int = 0,
    technocratic: bool = False,
    faces: Sequence[int] | None = None,
    rng: Rng | None = None,
    profile: Profile | None = None,
) -> BarrierCrossing:
    """Roll once toward crossing the Barrier and count the harm of failure.

    «Пересечение Барьера… причиняет один уровень непоглощаемых повреждений за каждую неудачу
    при броске кубиков.» By default that is one level per roll that fails or botches; a
    profile may read it as per failed die (AMB-C14). The pool is Arete unless the
    Storyteller says otherwise. A botch loses the accumulated successes (§A.11). ``place``
    may be a :class:`Barrier` already read (:func:`barrier_for`): a blinded caster's.
    """
    prof = _profile(profile)
    opts = prof.magick
    size = check_int(pool, "pool", 1, prof.pool_sanity_max)
    so_far = check_int(accumulated, "accumulated", 0, MAX_SUCCESSES)
    if isinstance(place, Barrier):
        target = place  # the caller's own reading of it (a blinded caster's harder one)
    else:
        target = barrier(place, adjustment, technocratic=technocratic, profile=prof)
    dice = faces_or_roll(size, faces, rng)
    result = d10.resolve(dice, target.difficulty, prof)
    if result.outcome is Outcome.BOTCH and prof.extended_botch is ExtendedBotch.LOSE_ALL:
        total = 0
    else:
        total = so_far + result.successes
    if opts.barrier_damage_per is MagickOptions.BarrierDamagePer.FAILED_DIE:
        harm = sum(1 for f in dice if f < target.difficulty)
    else:
        harm = 1 if result.outcome in (Outcome.FAILURE, Outcome.BOTCH) else 0
    return BarrierCrossing(
        barrier=target,
        roll=result,
        accumulated=total,
        crossed=total >= target.successes,
        damage_levels=harm,
        damage_type=BARRIER_DAMAGE_TYPE,
    )


def barrier_for(target: Barrier, condition_difficulty: int) -> Barrier:
    """The Barrier as a caster with §B.8 conditions meets it: S4 «Ослепление: +2 сложности ко
    всем действиям», each roll across it being one (never above 10)."""
    check_type(target, Barrier, "target")
    extra = check_int(condition_difficulty, "condition_difficulty", 0, 10)
    harder = min(d10.DIFFICULTY_MAX, target.difficulty + extra)
    return target.model_copy(update={"difficulty": harder})
