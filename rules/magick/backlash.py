"""Backlash (§C.12, Отдача) and the Paradox flaws it may bring (§C.13)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from types import MappingProxyType

from rules.d10 import faces_or_roll
from rules.dice import Rng
from rules.errors import (
    check_int,
    parse_enum,
)
from rules.health import DamageType
from rules.magick.limits import MAX_PARADOX_POOL, _profile, _Value
from rules.profiles import Profile

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
