"""Mage magick: Effects, Paradox, Backlash and the Barrier (RULES.md §C, house sheet S4).

The house sheet (S4 «Создание Эффекта», «Расчёт Сложности для Магии», «Расчёт параметров
Эффекта», «Накопление Парадокса», «Отдача», «Барьер» and the two range tables) sits on the
Mage Revised core (S0): the Arete roll is an ordinary d10 roll (§A.4, ``rules.d10``) and an
Effect difficulty above 9 turns into a threshold (§A.8, ``rules.difficulty``).

Sections: §C.1 procedure, §C.2 base difficulty, §C.3 modifiers, §C.4 final difficulty, §C.5
the Arete roll, §C.6 magnitude, §C.7 allocating successes, §C.8 Correspondence ranges, §C.9
Time ranges, §C.10 Paradox gained, §C.11 the Quintessence/Paradox wheel, §C.12 Backlash,
§C.13 Paradox flaws, §C.14 Мороки, §C.15 the Barrier. The Sphere reference texts of §C.16
are data in ``rules.spheres``.

Every house-rule choice the sheet leaves open (§F.3, AMB-C1..AMB-C17) is a field of
``profile.magick``; results carry enum codes only, never words.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel, ConfigDict

from rules import d10, profiles
from rules.d10 import D10Result, Outcome, faces_or_roll
from rules.dice import Rng
from rules.difficulty import effective_difficulty
from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_bool,
    check_int,
    check_sequence,
    parse_enum,
)
from rules.health import DamageType
from rules.profiles import ExtendedBotch, MagickOptions, Profile, RollContext
from rules.spheres import Sphere, SphereLevel, sphere

# Limits on inputs that no rule sets but that keep a typo from becoming a 10 000-die roll.
MAX_SUCCESSES = 200
MAX_PARADOX_POOL = 500
MAX_RITUAL_ROLLS = 100


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True)


def _profile(profile: Profile | None) -> Profile:
    """The house Mage sheet is the default because §C is written from it."""
    if profile is None:
        return profiles.get("mage")
    if not isinstance(profile, Profile):
        raise RulesInputError(ErrorCode.TYPE, "profile", f"got {type(profile).__name__}")
    return profile


def _outcome(value: Outcome | str) -> Outcome:
    return parse_enum(Outcome, value, "outcome")


# ---------------------------------------------------------------------------------------------
# §C.1 Procedure (S4 «Создание Эффекта»)


class Step(StrEnum):
    """The five steps of S4 «Создание Эффекта», in order; the bot walks a player through them."""

    DESCRIBE = "describe"  # 1. Описание Эффекта
    CHOOSE_SPHERES = "choose_spheres"  # 2. Подбор необходимых Сфер
    SPEND = "spend"  # 3. Трата Квинтэссенции и/или Силы Воли (declared before the roll, S0)
    ROLL_ARETE = "roll_arete"  # 4. Бросок Арете («Арте» in S4 is a typo)
    GM_DESCRIBES = "gm_describes"  # 5. ГМ описывает результат


PROCEDURE: tuple[Step, ...] = tuple(Step)


class EffectAspect(StrEnum):
    """What step 1 asks the player to describe (S4 1a–1e)."""

    RESULT = "result"  # ожидаемый результат
    KIND = "kind"  # вид - естественный или вульгарный
    METHOD = "method"  # способ его создания
    MANIFESTATION = "manifestation"  # внешнее проявление
    DURATION = "duration"  # предполагаемая длительность


def highest_sphere_level(
    used: Mapping[Sphere | str, int], ratings: Mapping[Sphere | str, int]
) -> int:
    """``L`` of §C.1: the highest Sphere level an Effect uses, which the mage must possess.

    S4 step 2 «Подбор необходимых Сфер нужного уровня, если они есть у мага»: using a level
    above the mage's rating is ``E_RANGE``; a Sphere the mage lacks counts as rating 0.
    """
    if not isinstance(used, Mapping) or not used:
        raise RulesInputError(ErrorCode.RANGE, "spheres", "at least one Sphere is needed")
    if not isinstance(ratings, Mapping):
        raise RulesInputError(ErrorCode.TYPE, "ratings", "expected a mapping Sphere -> rating")
    have = {
        sphere(k, "ratings"): check_int(v, f"ratings[{k}]", 0, SphereLevel.MASTER)
        for k, v in ratings.items()
    }
    top = 0
    for k, v in used.items():
        key = sphere(k, "spheres")
        level = check_int(v, f"spheres[{key}]", SphereLevel.INITIATE, SphereLevel.MASTER)
        if level > have.get(key, 0):
            raise RulesInputError(
                ErrorCode.RANGE, f"spheres[{key}]", f"{level} > rating {have.get(key, 0)}"
            )
        top = max(top, level)
    return top


# ---------------------------------------------------------------------------------------------
# §C.2 Base difficulty


def base_difficulty(
    highest_sphere: int, vulgar: bool, witnesses: bool, *, profile: Profile | None = None
) -> int:
    """S4 step 4 table: natural L+3; vulgar L+4, or L+5 before witnesses.

    The «естественный / Есть свидетели» cell is empty; AMB-C1 reads it as merged with the
    no-witness cell (witnesses do not matter for coincidental magick) unless the profile adds
    ``natural_witness_difficulty_extra``.
    """
    opts = _profile(profile).magick
    level = check_int(highest_sphere, "highest_sphere", SphereLevel.INITIATE, SphereLevel.MASTER)
    if check_bool(vulgar, "vulgar"):
        return level + (5 if check_bool(witnesses, "witnesses") else 4)
    extra = opts.natural_witness_difficulty_extra if check_bool(witnesses, "witnesses") else 0
    return level + 3 + extra


# ---------------------------------------------------------------------------------------------
# §C.3 Modifiers (S4 «Расчёт Сложности для Магии»)


class Modifier(StrEnum):
    """Rows of S4's modifier table; the values allowed for each are in ``MODIFIER_RANGES``."""

    ANALYSIS = "analysis"  # Анализ свойств объекта перед применением на него магии
    TARGET_RESONANCE = "target_resonance"  # В резонансе с энергией цели
    NODE = "node"  # Рядом с Узлом
    SPHERE_FOCUS = "sphere_focus"  # Использование специального для Сферы Фокуса
    UNIQUE_FOCUS = "unique_focus"  # Использование уникального Фокуса
    UNNEEDED_FOCUS = "unneeded_focus"  # Использование Фокуса, даже если он не нужен
    EXTRA_TIME = "extra_time"  # Дополнительное время на сотворение магии
    QUINTESSENCE = "quintessence"  # Трата Квинтэссенции (via the ``quintessence`` argument)
    MATCHING_RESONANCE = "matching_resonance"  # Подходящий Резонанс
    OPPOSED_RESONANCE = "opposed_resonance"  # Противоположный Резонанс
    FAR_OR_HIDDEN = "far_or_hidden"  # Цель далеко или спрятана
    FAST_CASTING = "fast_casting"  # Быстрое творение магии
    DISTRACTED = "distracted"  # Мага отвлекают
    AVATAR_CONFLICT = "avatar_conflict"  # Маг конфликтует с Аватаром
    DOMINO = "domino"  # Эффект Домино
    VERY_POWERFUL = "very_powerful"  # Очень могучий Эффект
    MISSING_FOCUS = "missing_focus"  # Неприменение нужного Фокуса


MODIFIER_RANGES: Mapping[Modifier, tuple[int, int]] = MappingProxyType(
    {
        Modifier.ANALYSIS: (-3, -1),
        Modifier.TARGET_RESONANCE: (-3, -1),
        Modifier.NODE: (-3, -1),
        Modifier.SPHERE_FOCUS: (-1, -1),
        Modifier.UNIQUE_FOCUS: (-1, -1),
        Modifier.UNNEEDED_FOCUS: (-1, -1),
        Modifier.EXTRA_TIME: (-1, -1),
        Modifier.QUINTESSENCE: (-3, -1),  # «-1 к сложности за единицу, максимум 3»
        Modifier.MATCHING_RESONANCE: (-1, -1),
        Modifier.OPPOSED_RESONANCE: (1, 1),
        Modifier.FAR_OR_HIDDEN: (1, 1),
        Modifier.FAST_CASTING: (1, 1),
        Modifier.DISTRACTED: (1, 3),
        Modifier.AVATAR_CONFLICT: (1, 3),
        Modifier.DOMINO: (1, 3),
        Modifier.VERY_POWERFUL: (1, 3),
        Modifier.MISSING_FOCUS: (3, 3),
    }
)

# A bare number is a Storyteller's modifier outside the table; no row is worth more than 3.
UNKEYED_MODIFIER_LIMIT = 3

ModifierItem = int | Modifier | str | tuple[Modifier | str, int]
ModifierInput = Iterable[ModifierItem] | Mapping[Modifier | str, int]


class AppliedModifier(_Value):
    """One modifier as applied; ``key`` is None for a bare Storyteller number."""

    key: Modifier | None
    value: int


def _one_modifier(item: Any, index: int) -> AppliedModifier:
    field = f"modifiers[{index}]"
    if isinstance(item, int) and not isinstance(item, bool):
        value = check_int(item, field, -UNKEYED_MODIFIER_LIMIT, UNKEYED_MODIFIER_LIMIT)
        return AppliedModifier(key=None, value=value)
    if isinstance(item, tuple) and len(item) == 2:
        key = parse_enum(Modifier, item[0], field)
        lo, hi = MODIFIER_RANGES[key]
        return AppliedModifier(key=key, value=check_int(item[1], field, lo, hi))
    if isinstance(item, str):
        key = parse_enum(Modifier, item, field)
        lo, hi = MODIFIER_RANGES[key]
        if lo != hi:
            raise RulesInputError(ErrorCode.RANGE, field, f"{key} needs a value in {lo}..{hi}")
        return AppliedModifier(key=key, value=lo)
    raise RulesInputError(ErrorCode.TYPE, field, "expected int, key or (key, value)")


def parse_modifiers(
    modifiers: ModifierInput, *, profile: Profile | None = None
) -> tuple[AppliedModifier, ...]:
    """Validate §C.3 modifiers: each row at most once, with a value its row allows.

    Quintessence is not taken here: it has its own argument because it is spent from the wheel
    and limited by it (``E_QUINT_LIMIT``). «Фокус, даже если он не нужен» and «Неприменение
    нужного Фокуса» contradict each other; both Resonance rows together are the profile's call.
    """
    opts = _profile(profile).magick
    items: list[Any]
    if isinstance(modifiers, Mapping):
        items = list(modifiers.items())
    elif isinstance(modifiers, (str, bytes)) or not isinstance(modifiers, Iterable):
        raise RulesInputError(ErrorCode.TYPE, "modifiers", "expected a sequence of modifiers")
    else:
        items = list(modifiers)
    applied = tuple(_one_modifier(item, i) for i, item in enumerate(items))
    seen: set[Modifier] = set()
    for mod in applied:
        if mod.key is None:
            continue
        if mod.key is Modifier.QUINTESSENCE:
            raise RulesInputError(ErrorCode.NOT_ALLOWED, "modifiers", "use quintessence=")
        if mod.key in seen:
            raise RulesInputError(ErrorCode.RANGE, "modifiers", f"{mod.key} given twice")
        seen.add(mod.key)
    if {Modifier.UNNEEDED_FOCUS, Modifier.MISSING_FOCUS} <= seen:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "modifiers", "unneeded and missing focus")
    both = {Modifier.MATCHING_RESONANCE, Modifier.OPPOSED_RESONANCE}
    if both <= seen and not opts.resonance_both_allowed:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "modifiers", "matching and opposed resonance")
    return applied


def check_quintessence(
    quintessence: int, available: int | None = None, *, profile: Profile | None = None
) -> int:
    """Quintessence spent on one roll: at most 3 (S4 «максимум 3») and at most what is held."""
    opts = _profile(profile).magick
    q = check_int(quintessence, "quintessence", 0)
    if q > opts.quintessence_max_per_roll:
        raise RulesInputError(
            ErrorCode.QUINT_LIMIT, "quintessence", f"{q} > {opts.quintessence_max_per_roll}"
        )
    if available is not None and q > check_int(available, "quintessence_available", 0):
        raise RulesInputError(ErrorCode.QUINT_LIMIT, "quintessence", f"{q} > {available} held")
    return q


# ---------------------------------------------------------------------------------------------
# §C.4 Final difficulty


class EffectDifficulty(_Value):
    """The Arete difficulty of an Effect and how it was reached (§C.4).

    ``modifier_total`` is the uncapped sum including Quintessence, ``modifier_applied`` what
    the ±3 cap let through, ``wasted_quintessence`` the points of Quintessence that lowered
    nothing because the cap was already reached (a warning for the player, not an error).
    """

    base: int
    modifiers: tuple[AppliedModifier, ...]
    quintessence: int
    modifier_total: int
    modifier_applied: int
    difficulty: int
    threshold: int
    wasted_quintessence: int


def _clamp(value: int, cap: int) -> int:
    return max(-cap, min(cap, value))


def effect_difficulty(
    highest_sphere: int,
    vulgar: bool,
    witnesses: bool,
    modifiers: ModifierInput = (),
    quintessence: int = 0,
    *,
    quintessence_available: int | None = None,
    profile: Profile | None = None,
) -> EffectDifficulty:
    """Base (§C.2) + capped modifiers (§C.3), normalised like any difficulty (§A.8).

    S4 «Максимальная сумма модификаторов сложности: +/- 3.» Quintessence is a row of the same
    table, so by default it counts toward the cap (AMB-C2). Above 9 the surplus of modifier
    points becomes a threshold (S0 «Пороговые значения», AMB-C3); below the profile's
    ``effect_difficulty_min`` (3, S0 «все действия будут иметь сложность от 3 до 9») it is
    clamped. The base is system-computed, so the Storyteller range 4–10 does not apply.
    """
    prof = _profile(profile)
    opts = prof.magick
    base = base_difficulty(highest_sphere, vulgar, witnesses, profile=prof)
    applied = parse_modifiers(modifiers, profile=prof)
    q = check_quintessence(quintessence, quintessence_available, profile=prof)
    cap = opts.modifier_cap
    plain = sum(m.value for m in applied)
    total = plain - q
    if opts.quintessence_counts_in_cap:
        capped = _clamp(total, cap)
        wasted = q - (_clamp(plain, cap) - capped)
    else:
        capped = _clamp(plain, cap) - q
        wasted = 0
    final = effective_difficulty(
        base, [capped], prof, floor=prof.effect_difficulty_min, validate_base=False
    )
    return EffectDifficulty(
        base=base,
        modifiers=applied,
        quintessence=q,
        modifier_total=total,
        modifier_applied=capped,
        difficulty=final.difficulty,
        threshold=final.threshold,
        wasted_quintessence=wasted,
    )


# ---------------------------------------------------------------------------------------------
# §C.5 The Arete roll


class CastStatus(StrEnum):
    ROLLED = "rolled"
    IMPOSSIBLE = "impossible"  # wound penalties left no Arete dice (S0: pool 0 → no action)


class Casting(_Value):
    """One Arete roll for an Effect: its difficulty, the dice and the Paradox it earns."""

    status: CastStatus
    difficulty: EffectDifficulty
    pool: int
    roll: D10Result | None
    successes: int
    outcome: Outcome | None
    paradox: int


ARETE_MAX = 10  # S0 «Арете и Сила Воли имеют максимальный уровень, равный 10»


def cast(
    arete: int,
    highest_sphere: int,
    vulgar: bool,
    witnesses: bool,
    modifiers: ModifierInput = (),
    quintessence: int = 0,
    *,
    quintessence_available: int | None = None,
    willpower: bool = False,
    wound_penalty: int = 0,
    ritual_rolls: int = 0,
    auto_success: bool = False,
    faces: Sequence[int] | None = None,
    rng: Rng | None = None,
    profile: Profile | None = None,
) -> Casting:
    """Roll Arete for an Effect (S4 step 4) and report the Paradox of §C.10.

    Every profile forbids automatic success on Arete (AMB-C4: the roll's successes feed the
    allocation and its outcome the Paradox table), so ``auto_success=True`` is
    ``E_NOT_ALLOWED`` unless a group removes ``MAGICK`` from ``auto_success_forbidden``; then
    §A.6 applies (pool ≥ difficulty, no threshold, one success). Wound penalties take dice
    off Arete unless the profile says otherwise (AMB-C5). ``ritual_rolls`` is the number of
    rolls made so far in an extended casting, this one included; it only matters on a botch.
    """
    prof = _profile(profile)
    level = check_int(arete, "arete", 1, ARETE_MAX)
    penalty = check_int(wound_penalty, "wound_penalty", 0, ARETE_MAX)
    check_bool(willpower, "willpower")
    diff = effect_difficulty(
        highest_sphere,
        vulgar,
        witnesses,
        modifiers,
        quintessence,
        quintessence_available=quintessence_available,
        profile=prof,
    )
    pool = level - (penalty if prof.magick.wound_penalty_on_arete else 0)
    if pool <= 0:
        return Casting(
            status=CastStatus.IMPOSSIBLE,
            difficulty=diff,
            pool=pool,
            roll=None,
            successes=0,
            outcome=None,
            paradox=0,
        )
    if check_bool(auto_success, "auto_success"):
        return _auto_cast(diff, pool, highest_sphere, vulgar, witnesses, prof)
    dice = faces_or_roll(pool, faces, rng)
    result = d10.resolve(dice, diff.difficulty, prof, willpower, diff.threshold)
    paradox = paradox_gain(
        highest_sphere, vulgar, witnesses, result.outcome, ritual_rolls=ritual_rolls, profile=prof
    )
    return Casting(
        status=CastStatus.ROLLED,
        difficulty=diff,
        pool=pool,
        roll=result,
        successes=result.successes,
        outcome=result.outcome,
        paradox=paradox,
    )


def _auto_cast(
    diff: EffectDifficulty,
    pool: int,
    highest_sphere: int,
    vulgar: bool,
    witnesses: bool,
    profile: Profile,
) -> Casting:
    if not profile.auto_success or RollContext.MAGICK in profile.auto_success_forbidden:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "auto_success", "not on Arete (AMB-C4)")
    if pool < diff.difficulty or diff.threshold > 0:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "auto_success", "pool below difficulty")
    return Casting(
        status=CastStatus.ROLLED,
        difficulty=diff,
        pool=pool,
        roll=None,
        successes=1,
        outcome=Outcome.AUTO_SUCCESS,
        paradox=paradox_gain(
            highest_sphere, vulgar, witnesses, Outcome.AUTO_SUCCESS, profile=profile
        ),
    )


# ---------------------------------------------------------------------------------------------
# §C.6 Magnitude (S4 «Мощность Магии»)


class Magnitude(StrEnum):
    ORDINARY = "ordinary"  # Обычный: candle by touch, find someone, small flash, heal yourself
    COMPLEX = "complex"  # Сложный: strike with fire, compel someone, change appearance
    MIGHTY = "mighty"  # Могучий: knock down a wall, change a mind, summon a fantastic beast
    UNUSUAL = "unusual"  # Необычный: blow up a car, crowd of puppets, bind a mighty spirit
    GODLIKE = "godlike"  # Божественный: blow up a building, city asleep, change own Pattern


# (lowest, highest) successes needed; None = no upper bound («20+»). S4's ranges overlap at
# 10 and 20 (AMB-C6): the Storyteller fixes an exact number inside the row.
MAGNITUDE_SUCCESSES: Mapping[Magnitude, tuple[int, int | None]] = MappingProxyType(
    {
        Magnitude.ORDINARY: (1, 2),
        Magnitude.COMPLEX: (3, 4),
        Magnitude.MIGHTY: (5, 10),
        Magnitude.UNUSUAL: (10, 20),
        Magnitude.GODLIKE: (20, None),
    }
)


def magnitude_of(successes: int) -> Magnitude | None:
    """The grandest magnitude S successes can reach: the highest row whose floor is ≤ S.

    Because S4's rows overlap, 10 successes read as «Необычный» and 20 as «Божественный»
    (AMB-C6). Zero successes reach nothing.
    """
    s = check_int(successes, "successes", 0, MAX_SUCCESSES)
    found: Magnitude | None = None
    for kind, (low, _) in MAGNITUDE_SUCCESSES.items():
        if s >= low:
            found = kind
    return found


def check_required(magnitude: Magnitude | str, required: int) -> int:
    """The Storyteller's exact successes for an Effect must lie in its magnitude's row."""
    kind = parse_enum(Magnitude, magnitude, "magnitude")
    low, high = MAGNITUDE_SUCCESSES[kind]
    return check_int(required, "required", low, MAX_SUCCESSES if high is None else high)


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


def allocate(
    successes: int,
    required: int,
    *,
    damage: int = 0,
    duration: int = 0,
    area: int = 0,
    correspondence: int = 0,
    time: int = 0,
    targets: int = 0,
    includes_mage: bool = False,
    forces: bool = False,
    damaging: bool | None = None,
    in_combat: bool = False,
    permanent: bool = False,
    profile: Profile | None = None,
) -> EffectAllocation:
    """Spread an Effect's successes over damage, duration, area and range (§C.7).

    S4 «Все выпавшие успехи при сотворении Эффекта распределяются на следующие параметры».
    Spending more than was rolled, or too little Area for the targets, is ``E_RANGE``. The
    magnitude is a floor on the total, not an extra cost (AMB-C7), unless the profile says
    ``magnitude_is_separate_cost``. ``damaging`` defaults to "some success went on damage".
    """
    prof = _profile(profile)
    s = check_int(successes, "successes", 0, MAX_SUCCESSES)
    need = check_int(required, "required", 1, MAX_SUCCESSES)
    parts = {
        "damage": check_int(damage, "damage", 0, MAX_SUCCESSES),
        "duration": check_int(duration, "duration", 0, MAX_SUCCESSES),
        "area": check_int(area, "area", 0, MAX_SUCCESSES),
        "correspondence": check_int(correspondence, "correspondence", 0, MAX_SUCCESSES),
        "time": check_int(time, "time", 0, MAX_SUCCESSES),
    }
    spent = sum(parts.values())
    budget = max(0, s - need) if prof.magick.magnitude_is_separate_cost else s
    if spent > budget:
        raise RulesInputError(ErrorCode.RANGE, "allocation", f"{spent} > {budget} successes")
    cost = area_cost(targets, includes_mage=includes_mage, profile=prof)
    if parts["area"] < cost:
        raise RulesInputError(ErrorCode.RANGE, "area", f"{parts['area']} < {cost} for targets")
    works = s >= need
    hurts = parts["damage"] > 0 if damaging is None else check_bool(damaging, "damaging")
    levels = damage_levels(parts["damage"], forces=forces, profile=prof) if works and hurts else 0
    kind, turns = duration_of(
        parts["duration"],
        in_combat=in_combat,
        permanent=permanent,
        total=s,
        required=need,
        profile=prof,
    )
    return EffectAllocation(
        successes=s,
        required=need,
        works=works,
        spent=spent,
        unspent=s - spent,
        damage_successes=parts["damage"],
        damage_levels=levels,
        duration=kind,
        duration_turns=turns,
        area_successes=parts["area"],
        area_cost=cost,
        correspondence_successes=parts["correspondence"],
        time_successes=parts["time"],
    )


# ---------------------------------------------------------------------------------------------
# §C.8 Correspondence ranges (S4 «Таблица расстояний действия магии для Связей»)


class Place(StrEnum):
    """«Место» column; the row number is the successes needed."""

    LINE_OF_SIGHT = "line_of_sight"  # 1 В пределах взгляда
    VERY_FAMILIAR = "very_familiar"  # 2 Очень знакомое
    FAMILIAR = "familiar"  # 3 Знакомое
    VISITED_ONCE = "visited_once"  # 4 Однажды посещенное
    DESCRIBED = "described"  # 5 Знакомое по описанию
    ANYWHERE = "anywhere"  # 6+ Любое место на Земле


class Contact(StrEnum):
    """«Контакт» column (sympathetic link); the row number is the successes needed."""

    BODY_SAMPLE = "body_sample"  # 1 Через образец тела
    IMPORTANT_POSSESSION = "important_possession"  # 2 Важное имущество / очень близкий друг
    POSSESSION = "possession"  # 3 Имущество или просто друг
    ACQUAINTANCE = "acquaintance"  # 4 Знакомый или единожды использованный предмет
    SEEN_ONCE = "seen_once"  # 5 Человек/объект, единожды потроганный или увиденный
    NONE_NEEDED = "none_needed"  # 6+ Ничего не требуется


_PLACES = tuple(Place)
_CONTACTS = tuple(Contact)
CORRESPONDENCE_ROWS = len(_PLACES)


class CorrespondenceReach(_Value):
    place: Place
    contact: Contact


def correspondence_required(
    place: Place | str | None = None,
    contact: Contact | str | None = None,
    *,
    profile: Profile | None = None,
) -> int:
    """Successes a Correspondence link needs: the row of the place and/or the contact.

    With both, the better (cheaper) link decides by default [P, §C.8]; a profile may demand
    that both be reached.
    """
    opts = _profile(profile).magick
    rows = []
    if place is not None:
        rows.append(_PLACES.index(parse_enum(Place, place, "place")) + 1)
    if contact is not None:
        rows.append(_CONTACTS.index(parse_enum(Contact, contact, "contact")) + 1)
    if not rows:
        raise RulesInputError(ErrorCode.RANGE, "place", "a place or a contact is needed")
    return min(rows) if opts.correspondence_better_link else max(rows)


def correspondence_reach(successes: int) -> CorrespondenceReach:
    """The farthest place and weakest contact S successes reach («Шесть и больше» = row 6)."""
    s = check_int(successes, "successes", 1, MAX_SUCCESSES)
    row = min(s, CORRESPONDENCE_ROWS) - 1
    return CorrespondenceReach(place=_PLACES[row], contact=_CONTACTS[row])


# ---------------------------------------------------------------------------------------------
# §C.9 Time ranges (S4 «Временные Линии»)

# Years reached by 1, 2, … successes. S4's «6 и больше» (500) and «10 и больше» (1000 and
# more) overlap; 6–9 read as 500 years (AMB-C10). 1000 means "1000 years and more".
TIME_REACH_YEARS: tuple[int, ...] = (1, 5, 20, 50, 100, 500, 500, 500, 500, 1000)


def time_reach(successes: int) -> int:
    """Years into the past or future S successes reach; 1000 stands for «1000 лет и больше»."""
    s = check_int(successes, "successes", 1, MAX_SUCCESSES)
    return TIME_REACH_YEARS[min(s, len(TIME_REACH_YEARS)) - 1]


def time_required(years: int) -> int:
    """Fewest successes that reach ``years`` away."""
    y = check_int(years, "years", 0, 1_000_000)
    for i, reach in enumerate(TIME_REACH_YEARS, start=1):
        if y <= reach:
            return i
    return len(TIME_REACH_YEARS)


# ---------------------------------------------------------------------------------------------
# §C.10 Paradox gained (S4 «Накопление Парадокса»)


# (vulgar, witnesses, botched) -> (Paradox «сразу», Paradox «за уровень высшей Сферы»).
_PARADOX_TABLE: Mapping[tuple[bool, bool, bool], tuple[int, int]] = MappingProxyType(
    {
        # «Эффект успешный/неудачный»
        (False, False, False): (0, 0),
        (False, True, False): (0, 0),  # empty cell (AMB-C1)
        (True, False, False): (0, 1),
        (True, True, False): (1, 1),
        # «Эффект провальный»
        (False, False, True): (0, 1),
        (False, True, True): (0, 1),  # empty cell (AMB-C1)
        (True, False, True): (1, 1),
        (True, True, True): (2, 2),
    }
)


def paradox_gain(
    highest_sphere: int,
    vulgar: bool,
    witnesses: bool,
    outcome: Outcome | str,
    *,
    ritual_rolls: int = 0,
    profile: Profile | None = None,
) -> int:
    """Paradox an Effect earns, from the two S4 tables (success/failure and botch).

    «Эффект успешный/неудачный»: natural 0; vulgar L, with witnesses «1 Парадокс сразу + по 1
    за уровень высшей Сферы». «Эффект провальный»: natural L; vulgar 1 + L, with witnesses
    «2 Парадокса сразу + по 2 Парадоксу за уровень высшей Сферы». Empty natural/witness cells
    are merged with their neighbours (AMB-C1). A botched ritual adds «+1 Парадокс за каждый
    бросок» on top (AMB-C11), or replaces the table if the profile reads it so.
    """
    opts = _profile(profile).magick
    level = check_int(highest_sphere, "highest_sphere", SphereLevel.INITIATE, SphereLevel.MASTER)
    is_vulgar = check_bool(vulgar, "vulgar")
    seen = check_bool(witnesses, "witnesses")
    rolls = check_int(ritual_rolls, "ritual_rolls", 0, MAX_RITUAL_ROLLS)
    botch = _outcome(outcome) is Outcome.BOTCH
    flat, per_level = _PARADOX_TABLE[(is_vulgar, seen, botch)]
    gain = flat + per_level * level
    if seen and not is_vulgar:
        gain += opts.natural_witness_paradox_extra
    if botch and rolls > 0:
        gain = gain + rolls if opts.botched_ritual_adds_rolls else rolls
    return gain


# ---------------------------------------------------------------------------------------------
# §C.11 The Quintessence / Paradox wheel


class Wheel(_Value):
    """One track of ``size`` boxes: Quintessence fills from one end, Paradox from the other.

    S4 «Парадокс отмечается на одном треке с Квинтэссенцией, но с конца и против часовой
    стрелки.» Paradox may exceed the track («место на треке не ограничивают максимальное
    кол-во Парадокса»); Quintessence never shares a box with it.
    """

    quintessence: int
    paradox: int
    size: int

    @property
    def free(self) -> int:
        return max(0, self.size - self.paradox - self.quintessence)


class WheelChange(_Value):
    wheel: Wheel
    quintessence_burned: int  # Quintessence lost to incoming Paradox
    overflow: int  # Quintessence that found no free box


def wheel(quintessence: int, paradox: int, *, profile: Profile | None = None) -> Wheel:
    """A validated wheel; Quintessence in boxes Paradox already holds is ``E_STATE``."""
    size = _profile(profile).magick.wheel_size
    q = check_int(quintessence, "quintessence", 0, size)
    p = check_int(paradox, "paradox", 0)
    if q > max(0, size - p):
        raise RulesInputError(ErrorCode.STATE, "quintessence", f"{q} + {p} > {size} boxes")
    return Wheel(quintessence=q, paradox=p, size=size)


def add_paradox(
    quintessence: int, paradox: int, gain: int, *, profile: Profile | None = None
) -> WheelChange:
    """New Paradox goes on the track; it burns the Quintessence in boxes it needs.

    S4 «Парадокс сжигает Квинтэссенцию в квадратах, где ему нужно место на треке.»
    """
    before = wheel(quintessence, paradox, profile=profile)
    p = before.paradox + check_int(gain, "gain", 0)
    q = min(before.quintessence, max(0, before.size - p))
    after = Wheel(quintessence=q, paradox=p, size=before.size)
    return WheelChange(wheel=after, quintessence_burned=before.quintessence - q, overflow=0)


def add_quintessence(
    quintessence: int, paradox: int, amount: int, *, profile: Profile | None = None
) -> WheelChange:
    """Quintessence gained fills free boxes only; the rest is reported as ``overflow``."""
    before = wheel(quintessence, paradox, profile=profile)
    gained = check_int(amount, "amount", 0)
    kept = min(gained, before.free)
    after = Wheel(quintessence=before.quintessence + kept, paradox=before.paradox, size=before.size)
    return WheelChange(wheel=after, quintessence_burned=0, overflow=gained - kept)


def spend_quintessence(
    quintessence: int, paradox: int, amount: int, *, profile: Profile | None = None
) -> Wheel:
    """Quintessence spent (on a roll, §C.3) leaves the wheel; spending more is E_QUINT_LIMIT."""
    before = wheel(quintessence, paradox, profile=profile)
    spent = check_int(amount, "amount", 0)
    if spent > before.quintessence:
        raise RulesInputError(ErrorCode.QUINT_LIMIT, "amount", f"{spent} > {before.quintessence}")
    return Wheel(quintessence=before.quintessence - spent, paradox=before.paradox, size=before.size)


# ---------------------------------------------------------------------------------------------
# §C.12 Backlash (Отдача)


class BacklashEffect(StrEnum):
    """Consequences named in S4's Backlash tiers, besides the damage roll."""

    SLIGHT_FLAW = "slight_flaw"  # «возможен незначительный Парадоксовый Недостаток»
    NONMAGICAL_DIFFICULTY = "nonmagical_difficulty"  # +1-3 ко всем немагическим действиям
    ALL_DIFFICULTY = "all_difficulty"  # +4-6 ко всем действиям
    EXTRA_DAMAGE = "extra_damage"  # ещё немного урона
    OTHER_PUNISHMENT = "other_punishment"  # Недостатки, Духи Парадокса, Шторм… по решению ГМа
    UNCONSCIOUS = "unconscious"  # потеря сознания
    SEVERE_PUNISHMENT = "severe_punishment"  # возможное дополнительное суровое наказание
    PERMANENT_FLAW = "permanent_flaw"  # постоянный Парадоксовый Недостаток
    PERMANENT_PARADOX = "permanent_paradox"  # (успехи Отдачи − 20) постоянного Парадокса
    PARADOX_SPIRIT = "paradox_spirit"  # призыв сильного Духа Парадокса
    PARADOX_REALM = "paradox_realm"  # попадание в один из Миров Парадокса
    GM_ANYTHING = "gm_anything"  # всё, что только захочет сделать с персонажем ГМ


class Choice(StrEnum):
    """How the listed consequences combine in a tier."""

    ALL = "all"  # every listed consequence applies (some are marked possible)
    ONE_OF = "one_of"  # tier 3: «либо … либо … либо …» at the GM's choice
    AT_LEAST_ONE = "at_least_one"  # tier 5: «как минимум одно из следующего»


class BacklashOption(_Value):
    """One consequence; ``low``..``high`` is the GM's range, ``turns`` how long it lasts."""

    effect: BacklashEffect
    possible: bool = False
    low: int | None = None
    high: int | None = None
    turns: int | None = None
    amount: int | None = None


class BacklashEffects(_Value):
    """A Backlash tier as S4 writes it (§C.12), for B Backlash successes.

    ``discontinuity`` flags AMB-C12: S4's damage dice restart at tiers 3 and 5 (10 bashing
    dice at B = 10, 1 lethal die at B = 11; 10 lethal at B = 20, 1 aggravated at B = 21). It
    is true when this B gives fewer damage dice than the top of the tier below, so the bot can
    tell the Storyteller the sheet is applied as written.
    """

    successes: int
    tier: int
    damage_type: DamageType | None
    damage_dice: int
    damage_difficulty: int
    soakable: bool
    discontinuity: bool
    choice: Choice
    options: tuple[BacklashOption, ...]


# Upper bound of B for tiers 1–4 (S4 «1-5», «6-10», «11-15», «16-20»); tier 5 is «21+».
_TIER_TOPS = (5, 10, 15, 20)
# Damage type and how many B are taken off before rolling (S4 «(успехи Отдачи -10)», «-20»).
_TIER_DAMAGE: Mapping[int, tuple[DamageType, int]] = MappingProxyType(
    {
        1: (DamageType.BASHING, 0),
        2: (DamageType.BASHING, 0),
        3: (DamageType.LETHAL, 10),
        4: (DamageType.LETHAL, 10),
        5: (DamageType.AGGRAVATED, 20),
    }
)


def backlash_tier(successes: int) -> int:
    """Tier 1..5 of S4's Backlash table by Paradox successes B; 0 when nothing discharged.

    S4: «1-5 успехов Парадокса», «6-10», «11-15», «16-20», «21+».
    """
    b = check_int(successes, "successes", 0, MAX_PARADOX_POOL)
    if b == 0:
        return 0
    for tier, top in enumerate(_TIER_TOPS, start=1):
        if b <= top:
            return tier
    return len(_TIER_TOPS) + 1


def _tier_dice(tier: int, b: int) -> int:
    return b - _TIER_DAMAGE[tier][1]


def backlash_effects(successes: int, *, profile: Profile | None = None) -> BacklashEffects:
    """Damage spec and consequences of B Backlash successes (S4 «Принимайте Отдачу»).

    «урон предполагает бросок числа кубов, равного числу успехов Парадокса, если не написано
    иного», each at difficulty 6. Tier 5 damage is «непоглощаемый даже магически»; tiers 1–4
    soak normally by default (AMB-C12). The Storyteller picks every ranged number.
    """
    opts = _profile(profile).magick
    b = check_int(successes, "successes", 0, MAX_PARADOX_POOL)
    tier = backlash_tier(b)
    if tier == 0:
        return BacklashEffects(
            successes=0,
            tier=0,
            damage_type=None,
            damage_dice=0,
            damage_difficulty=opts.backlash_difficulty,
            soakable=True,
            discontinuity=False,
            choice=Choice.ALL,
            options=(),
        )
    options: tuple[BacklashOption, ...]
    choice = Choice.ALL
    if tier == 1:
        options = (BacklashOption(effect=BacklashEffect.SLIGHT_FLAW, possible=True),)
    elif tier == 2:
        options = (
            BacklashOption(effect=BacklashEffect.NONMAGICAL_DIFFICULTY, low=1, high=3, turns=b),
        )
    elif tier == 3:
        choice = Choice.ONE_OF
        options = (
            BacklashOption(effect=BacklashEffect.ALL_DIFFICULTY, low=4, high=6, turns=b),
            BacklashOption(effect=BacklashEffect.EXTRA_DAMAGE),
            BacklashOption(effect=BacklashEffect.OTHER_PUNISHMENT),
        )
    elif tier == 4:
        options = (
            BacklashOption(effect=BacklashEffect.UNCONSCIOUS, turns=b),
            BacklashOption(effect=BacklashEffect.SEVERE_PUNISHMENT, possible=True),
        )
    else:
        choice = Choice.AT_LEAST_ONE
        options = (
            BacklashOption(effect=BacklashEffect.PERMANENT_FLAW),
            BacklashOption(effect=BacklashEffect.PERMANENT_PARADOX, amount=b - 20),
            BacklashOption(effect=BacklashEffect.PARADOX_SPIRIT),
            BacklashOption(effect=BacklashEffect.PARADOX_REALM),
            BacklashOption(effect=BacklashEffect.GM_ANYTHING),
        )
    dice = _tier_dice(tier, b)
    below_top = _tier_dice(tier - 1, _TIER_TOPS[tier - 2]) if tier > 1 else 0
    return BacklashEffects(
        successes=b,
        tier=tier,
        damage_type=_TIER_DAMAGE[tier][0],
        damage_dice=dice,
        damage_difficulty=opts.backlash_difficulty,
        soakable=tier < 5 and opts.backlash_soakable_below_tier5,
        discontinuity=dice < below_top,
        choice=choice,
        options=options,
    )


class Backlash(_Value):
    """The Backlash roll: Paradox successes discharge, failed dice stay on the track."""

    faces: tuple[int, ...]
    difficulty: int
    paradox_before: int
    successes: int
    ones: int
    paradox_after: int
    effects: BacklashEffects


def backlash(
    paradox: int,
    *,
    faces: Sequence[int] | None = None,
    rng: Rng | None = None,
    profile: Profile | None = None,
) -> Backlash:
    """Roll the whole Paradox pool at difficulty 6 and take the tier (S4 «Отдача» 1–3).

    «бросьте (со сложностью 6) количество кубиков, равное, всему (вместе с новой порцией)
    своему накопленному Парадоксу»; «все неудачные кубы оставьте на треке Парадокса», so the
    successes leave the track. 1s cancel nothing here by default (AMB-C12): every die is
    either discharged or stays. The Storyteller rolls it a turn or two after a gain.
    """
    prof = _profile(profile)
    opts = prof.magick
    pool = check_int(paradox, "paradox", 1, MAX_PARADOX_POOL)
    dice = faces_or_roll(pool, faces, rng)
    raw = sum(1 for f in dice if f >= opts.backlash_difficulty)
    ones = dice.count(1)
    b = max(0, raw - ones) if opts.backlash_ones_cancel else raw
    return Backlash(
        faces=dice,
        difficulty=opts.backlash_difficulty,
        paradox_before=pool,
        successes=b,
        ones=ones,
        paradox_after=pool - b,
        effects=backlash_effects(b, profile=prof),
    )


# ---------------------------------------------------------------------------------------------
# §C.13 Paradox flaws (S4 «Парадоксовые недостатки»)


class ParadoxFlaw(StrEnum):
    TRIVIAL = "trivial"  # Тривиальные: hair on end, insects, the mage's clock goes wrong
    MINOR = "minor"  # Малые: uncontrollable sneezing, clothes vanish
    MODERATE = "moderate"  # Средние: slurred speech, perception problems
    SEVERE = "severe"  # Сильные: face vanishes, everything nearby gets wet
    RADICAL = "radical"  # Радикальные: maiming, deformation, wooden skin, fits of passion


class FlawLasting(StrEnum):
    BRIEF = "brief"  # недолгие
    LONG = "long"  # долгие
    MAY_BE_PERMANENT = "may_be_permanent"  # могут быть постоянными


class FlawSpec(_Value):
    """One row of S4's flaw list; ``difficulty_low/high`` None means the Storyteller decides."""

    flaw: ParadoxFlaw
    tier: int
    lasting: FlawLasting
    harmful: bool
    draws_attention: bool
    difficulty_low: int | None
    difficulty_high: int | None


PARADOX_FLAWS: Mapping[ParadoxFlaw, FlawSpec] = MappingProxyType(
    {
        spec.flaw: spec
        for spec in (
            # «недолгие и безвредные»
            FlawSpec(
                flaw=ParadoxFlaw.TRIVIAL,
                tier=1,
                lasting=FlawLasting.BRIEF,
                harmful=False,
                draws_attention=False,
                difficulty_low=0,
                difficulty_high=0,
            ),
            # «недолгие, весьма вредные … +1 к сложности действий, связанных с недостатком»
            FlawSpec(
                flaw=ParadoxFlaw.MINOR,
                tier=2,
                lasting=FlawLasting.BRIEF,
                harmful=True,
                draws_attention=False,
                difficulty_low=1,
                difficulty_high=1,
            ),
            # «долгие и опасные … +1-2»
            FlawSpec(
                flaw=ParadoxFlaw.MODERATE,
                tier=3,
                lasting=FlawLasting.LONG,
                harmful=True,
                draws_attention=False,
                difficulty_low=1,
                difficulty_high=2,
            ),
            # «долгие, очень мешают жить и обязательно привлекают внимание … +2-3»
            FlawSpec(
                flaw=ParadoxFlaw.SEVERE,
                tier=4,
                lasting=FlawLasting.LONG,
                harmful=True,
                draws_attention=True,
                difficulty_low=2,
                difficulty_high=3,
            ),
            # «могут быть постоянными, ухудшают жизнь мага на порядок»
            FlawSpec(
                flaw=ParadoxFlaw.RADICAL,
                tier=5,
                lasting=FlawLasting.MAY_BE_PERMANENT,
                harmful=True,
                draws_attention=False,
                difficulty_low=None,
                difficulty_high=None,
            ),
        )
    }
)


def paradox_flaw(flaw: ParadoxFlaw | str) -> FlawSpec:
    return PARADOX_FLAWS[parse_enum(ParadoxFlaw, flaw, "flaw")]


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
    place: BarrierPlace | str,
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
    Storyteller says otherwise. A botch loses the accumulated successes (§A.11).
    """
    prof = _profile(profile)
    opts = prof.magick
    size = check_int(pool, "pool", 1, prof.pool_sanity_max)
    so_far = check_int(accumulated, "accumulated", 0, MAX_SUCCESSES)
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
