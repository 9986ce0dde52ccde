"""Allocating an Effect's successes (§C.7, S4 «Расчёт параметров Эффекта»)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_bool,
    check_int,
    check_sequence,
)
from rules.health import DamageType
from rules.magick.limits import MAX_SUCCESSES, _profile, _Value
from rules.profiles import MagickOptions, Profile
from rules.spheres import Sphere, sphere

# ---------------------------------------------------------------------------------------------
# §C.7 Allocating successes (S4 «Расчёт параметров Эффекта»)


class Duration(StrEnum):
    """How long an Effect lasts (S4 «Длительность Магии»)."""

    INSTANT = "instant"  # [P] no success spent on duration
    TURNS = "turns"  # in combat: «по ходу на успех»
    SCENE = "scene"  # 1 success: сцена
    DAY = "day"  # 2: сутки
    STORY = "story"  # 3: на историю
    HALF_YEAR = "half_year"  # 4: на полгода
    GM_DECIDES = "gm_decides"  # 5: сколько разрешит ГМ
    PERMANENT = "permanent"  # «x2 необходимого количества - постоянный» (AMB-C9)


# Out of combat, indexed by successes spent on duration (5 and more: as the GM allows).
_OUT_OF_COMBAT: tuple[Duration, ...] = (
    Duration.INSTANT,
    Duration.SCENE,
    Duration.DAY,
    Duration.STORY,
    Duration.HALF_YEAR,
    Duration.GM_DECIDES,
)
PERMANENT_ON_DURATION = 10  # the alternative reading of AMB-C9


def duration_of(
    successes: int,
    *,
    in_combat: bool = False,
    permanent: bool = False,
    total: int = 0,
    required: int = 1,
    profile: Profile | None = None,
) -> tuple[Duration, int | None]:
    """The Duration code and, in combat, the number of turns (S4 «Длительность Магии»).

    «в бою - по ходу на успех, потраченный на длительность, вне боя - сцена за 1 успех,
    сутки - за 2, на историю - за 3, на полгода - за 4, сколько разрешит ГМ - за 5, x2
    необходимого количества - постоянный». A permanent Effect must be asked for.
    """
    opts = _profile(profile).magick
    t = check_int(successes, "duration", 0, MAX_SUCCESSES)
    check_int(total, "total", 0, MAX_SUCCESSES)
    check_int(required, "required", 1, MAX_SUCCESSES)
    if check_bool(permanent, "permanent"):
        if opts.permanent_duration_rule is MagickOptions.PermanentRule.DOUBLE_REQUIRED:
            if total >= 2 * required:
                return Duration.PERMANENT, None
        elif t >= PERMANENT_ON_DURATION:
            return Duration.PERMANENT, None
    if check_bool(in_combat, "in_combat"):
        return (Duration.TURNS, t) if t > 0 else (Duration.INSTANT, None)
    return _OUT_OF_COMBAT[min(t, len(_OUT_OF_COMBAT) - 1)], None


def area_cost(targets: int, *, includes_mage: bool = False, profile: Profile | None = None) -> int:
    """Successes the Area of an Effect costs (S4 «Площадь Магии»).

    «1 успех на цель, которой не является сам маг, и по 1 успеху на каждую дополнительную
    цель»: one per target other than the mage; the mage alone is free, and by default the
    mage stays free alongside others (AMB-C8).
    """
    opts = _profile(profile).magick
    others = check_int(targets, "targets", 0, MAX_SUCCESSES)
    mage_too = check_bool(includes_mage, "includes_mage")
    return others + (1 if opts.area_counts_mage and mage_too and others > 0 else 0)


def damage_levels(
    damage_successes: int, *, forces: bool = False, profile: Profile | None = None
) -> int:
    """Health levels a working, damaging Effect deals (S4 «Урон Магией»).

    «сразу 1 ур. Здоровья (если используется Сфера Сил) + по 2 ур. Здоровья за успех,
    потраченный на урон». The Forces level comes with any damaging Effect by default
    (AMB-C16); a profile may demand at least one success on damage for it.
    """
    opts = _profile(profile).magick
    d = check_int(damage_successes, "damage", 0, MAX_SUCCESSES)
    bonus = check_bool(forces, "forces") and (opts.forces_damage_without_damage_successes or d > 0)
    return 2 * d + (1 if bonus else 0)


def default_damage_type(
    spheres: Iterable[Sphere | str], *, pattern_attack: bool = False
) -> DamageType:
    """AMB-C17 defaults, which the Storyteller may override: Prime or an attack on the Pattern
    is aggravated, a purely mental attack is bashing, anything else lethal."""
    used = {sphere(s, f"spheres[{i}]") for i, s in enumerate(check_sequence(spheres, "spheres"))}
    if Sphere.PRIME in used or check_bool(pattern_attack, "pattern_attack"):
        return DamageType.AGGRAVATED
    if used == {Sphere.MIND}:
        return DamageType.BASHING
    return DamageType.LETHAL


class EffectAllocation(_Value):
    """Where the Arete successes went and what they buy (§C.7).

    ``works`` is false when the successes fall short of the magnitude the Storyteller set; a
    failed Effect deals no damage.
    """

    successes: int
    required: int
    works: bool
    spent: int
    unspent: int
    damage_successes: int
    damage_levels: int
    duration: Duration
    duration_turns: int | None
    area_successes: int
    area_cost: int
    correspondence_successes: int
    time_successes: int


@dataclass(frozen=True)
class EffectParts:
    """How a caster spreads an Effect's successes (§C.7): on damage, duration, area,
    correspondence and time; the ``targets`` the area must pay for (``includes_mage``: the
    mage among them), a Forces Effect (``forces``), whether it hurts (``damaging``; None: a
    success on damage says so), in combat, and a permanent duration asked for."""

    damage: int = 0
    duration: int = 0
    area: int = 0
    correspondence: int = 0
    time: int = 0
    targets: int = 0
    includes_mage: bool = False
    forces: bool = False
    damaging: bool | None = None
    in_combat: bool = False
    permanent: bool = False


NOTHING_SPENT = EffectParts()


def allocate(
    successes: int,
    required: int,
    spread: EffectParts = NOTHING_SPENT,
    *,
    profile: Profile | None = None,
) -> EffectAllocation:
    """Spread an Effect's successes over damage, duration, area and range (§C.7).

    S4 «Все выпавшие успехи при сотворении Эффекта распределяются на следующие параметры».
    Spending more than was rolled, or too little Area for the targets, is ``E_RANGE``. The
    magnitude is a floor on the total, not an extra cost (AMB-C7), unless the profile says
    ``magnitude_is_separate_cost``. ``damaging`` defaults to "some success went on damage".
    """
    if not isinstance(spread, EffectParts):
        raise RulesInputError(ErrorCode.TYPE, "spread", "expected EffectParts")
    prof = _profile(profile)
    s = check_int(successes, "successes", 0, MAX_SUCCESSES)
    need = check_int(required, "required", 1, MAX_SUCCESSES)
    parts = {
        "damage": check_int(spread.damage, "damage", 0, MAX_SUCCESSES),
        "duration": check_int(spread.duration, "duration", 0, MAX_SUCCESSES),
        "area": check_int(spread.area, "area", 0, MAX_SUCCESSES),
        "correspondence": check_int(spread.correspondence, "correspondence", 0, MAX_SUCCESSES),
        "time": check_int(spread.time, "time", 0, MAX_SUCCESSES),
    }
    spent = sum(parts.values())
    budget = max(0, s - need) if prof.magick.magnitude_is_separate_cost else s
    if spent > budget:
        raise RulesInputError(ErrorCode.RANGE, "allocation", f"{spent} > {budget} successes")
    cost = area_cost(spread.targets, includes_mage=spread.includes_mage, profile=prof)
    if parts["area"] < cost:
        raise RulesInputError(ErrorCode.RANGE, "area", f"{parts['area']} < {cost} for targets")
    works = s >= need
    damaging = spread.damaging
    hurts = parts["damage"] > 0 if damaging is None else check_bool(damaging, "damaging")
    levels = (
        damage_levels(parts["damage"], forces=spread.forces, profile=prof) if works and hurts else 0
    )
    kind, turns = duration_of(
        parts["duration"],
        in_combat=spread.in_combat,
        permanent=spread.permanent,
        total=s,
        required=need,
        profile=prof,
    )
    return EffectAllocation(
        successes=s,
        required=need,
        works=works,
        spent=spent,
        unspent=budget - spent,  # what is still free to spend (after the magnitude, AMB-C7)
        damage_successes=parts["damage"],
        damage_levels=levels,
        duration=kind,
        duration_turns=turns,
        area_successes=parts["area"],
        area_cost=cost,
        correspondence_successes=parts["correspondence"],
        time_successes=parts["time"],
    )
