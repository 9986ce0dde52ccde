"""An Effect's difficulty: the base (§C.2), the modifiers (§C.3) and the final number (§C.4)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from rules.difficulty import effective_difficulty
from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_bool,
    check_int,
    parse_enum,
)
from rules.magick.limits import _profile, _Value
from rules.profiles import Profile
from rules.spheres import SphereLevel

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
    nothing because the cap was already reached (a warning for the player, not an error), and
    ``floor_quintessence`` those that lowered nothing because the difficulty already sits at
    the profile's floor (3): S4 «-1 к сложности за единицу» buys nothing there, so a caster
    need not pay them.
    """

    base: int
    modifiers: tuple[AppliedModifier, ...]
    quintessence: int
    modifier_total: int
    modifier_applied: int
    difficulty: int
    threshold: int
    wasted_quintessence: int
    floor_quintessence: int = 0


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
    condition_difficulty: int = 0,
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
    # §B.8 on the caster's own action, outside the ±3 of magick's own modifiers: blinded is
    # S4 «+2 сложности ко всем действиям», an Effect included
    extra = check_int(condition_difficulty, "condition_difficulty", 0, 10)
    final = effective_difficulty(
        base, [capped, extra], prof, floor=prof.effect_difficulty_min, validate_base=False
    )
    # What the Quintessence the cap let through really lowered: the difficulty (and the
    # threshold above the cap) with and without it; the rest hit the floor.
    useful = q - wasted
    bare = effective_difficulty(
        base,
        [capped + useful, extra],
        prof,
        floor=prof.effect_difficulty_min,
        validate_base=False,
    )
    lowered = (bare.difficulty + bare.threshold) - (final.difficulty + final.threshold)
    return EffectDifficulty(
        base=base,
        modifiers=applied,
        quintessence=q,
        modifier_total=total,
        modifier_applied=capped,
        difficulty=final.difficulty,
        threshold=final.threshold,
        wasted_quintessence=wasted,
        floor_quintessence=(
            max(0, useful - lowered) if final.difficulty <= prof.effect_difficulty_min else 0
        ),
    )
