"""What one character does with a pool: building it, auto-success, Willpower, several actions
in a turn, extended actions (docs/rules.md §A.2, §A.5 trait dots, §A.6, §A.7, §A.9, §A.11).

Everything here is arithmetic on dots and dice; the roll itself is :mod:`rules.d10`. A pool
that the rules reduce to nothing is a normal answer with ``PoolStatus.IMPOSSIBLE`` (§0.2),
never an exception: the player asked for something legal that simply cannot happen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from rules.d10 import D10Result, Degree, Outcome
from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_bool,
    check_int,
    check_ints,
    parse_enum,
)
from rules.profiles import (
    ExtendedBotch,
    MultipleActions,
    Profile,
    RollContext,
    ZeroAbility,
    check_profile,
)

TRAIT_MAX = 10
MORTAL_TRAIT_MAX = 5
DICE_MODIFIER_MAX = 50
WILLPOWER_MAX = 10


class TraitKind(StrEnum):
    """Which kind of trait a die comes from, because the rules treat them differently.

    Attributes and Abilities run 0–5 for mortals (S0, S1) and only magick or a supernatural
    nature lifts them higher. Advantages rolled alone — Willpower, Arete, Humanity, Paradox —
    are rated to 10 by their nature (S0 «Арете и Сила Воли имеют максимальный уровень, равный
    10»), so they need no supernatural excuse.
    """

    ATTRIBUTE = "attribute"
    ABILITY = "ability"
    ADVANTAGE = "advantage"


@dataclass(frozen=True)
class Trait:
    kind: TraitKind
    value: int


class PoolStatus(StrEnum):
    ROLL = "roll"
    # S0 «Если набор кубиков уменьшается до нуля или ниже, то персонаж не может предпринять
    # это действие.»
    IMPOSSIBLE = "impossible"
    # S4 «0 в Способности - автоматически [Неудача], если ГМ не решит иначе.»
    AUTO_FAILURE = "auto_failure"


@dataclass(frozen=True)
class Pool:
    """A pool ready to roll, or the reason no roll happens; ``dice`` keeps the computed count
    (possibly 0 or negative) so the bot can show why."""

    dice: int
    status: PoolStatus

    @property
    def rollable(self) -> bool:
        return self.status is PoolStatus.ROLL


class TraitDots(StrEnum):
    """Dot labels of §A.5 (S0 × Отвратительно … •••••• Легенда; S1 tops out at five)."""

    ABYSMAL = "abysmal"  # 0
    POOR = "poor"  # 1
    AVERAGE = "average"  # 2
    GOOD = "good"  # 3
    EXCEPTIONAL = "exceptional"  # 4
    OUTSTANDING = "outstanding"  # 5 Великолепно (S0) / превосходно (S1)
    LEGENDARY = "legendary"  # 6+ Легенда (S0 only)


_DOTS = tuple(TraitDots)


def trait_dots(value: int) -> TraitDots:
    """The §A.5 word code for a rating; everything above six is still «Легенда»."""
    check_int(value, "value", 0, TRAIT_MAX)
    return _DOTS[min(value, len(_DOTS) - 1)]


def _check_trait(trait: object, field: str, allow_supernatural: bool) -> Trait:
    if not isinstance(trait, Trait) or not isinstance(trait.kind, TraitKind):
        raise RulesInputError(ErrorCode.TYPE, field, "expected a Trait")
    natural_max = TRAIT_MAX if trait.kind is TraitKind.ADVANTAGE else MORTAL_TRAIT_MAX
    check_int(trait.value, field, 0, TRAIT_MAX if allow_supernatural else natural_max)
    return trait


def build_pool(
    traits: Sequence[Trait],
    profile: Profile,
    *,
    bonuses: Sequence[int] = (),
    penalties: Sequence[int] = (),
    allow_supernatural: bool = False,
    gm_override: bool = False,
) -> Pool:
    """Dice for one action: one die per dot of at most two traits, plus bonus dice, minus
    penalty dice (wounds, multiple actions, movement) — §A.2.

    S0 «не бывает случаев, когда набор кубиков собирается из более, чем двух Черт» makes a
    third trait invalid input. An Attribute+Ability roll with 0 in the Ability is a failure
    without a roll in the house profile unless the Storyteller overrides it (AMB-A8); the
    other profiles roll the Attribute alone, which is what the sum gives anyway.
    """
    check_profile(profile)
    if isinstance(traits, (str, bytes)) or not isinstance(traits, Sequence):
        raise RulesInputError(ErrorCode.TYPE, "traits", "expected a sequence of Trait")
    check_bool(allow_supernatural, "allow_supernatural")
    check_bool(gm_override, "gm_override")
    if not 1 <= len(traits) <= profile.max_traits_per_pool:
        code = ErrorCode.TOO_MANY_TRAITS if traits else ErrorCode.RANGE
        raise RulesInputError(code, "traits", f"{len(traits)} traits")
    checked = [_check_trait(t, f"traits[{i}]", allow_supernatural) for i, t in enumerate(traits)]
    plus = check_ints(bonuses, "bonuses", 0, DICE_MODIFIER_MAX)
    minus = check_ints(penalties, "penalties", 0, DICE_MODIFIER_MAX)
    dice = sum(t.value for t in checked) + sum(plus) - sum(minus)
    if dice > profile.pool_sanity_max:
        raise RulesInputError(ErrorCode.RANGE, "pool", f"{dice} > {profile.pool_sanity_max}")

    kinds = {t.kind for t in checked}
    zero_ability = any(t.kind is TraitKind.ABILITY and t.value == 0 for t in checked)
    if (
        profile.zero_ability is ZeroAbility.AUTO_FAILURE
        and kinds == {TraitKind.ATTRIBUTE, TraitKind.ABILITY}
        and zero_ability
        and not gm_override
    ):
        return Pool(dice, PoolStatus.AUTO_FAILURE)
    return Pool(dice, PoolStatus.ROLL if dice > 0 else PoolStatus.IMPOSSIBLE)


class AutoStatus(StrEnum):
    APPLIED = "applied"
    NOT_APPLICABLE = "not_applicable"  # the pool is smaller than the difficulty


@dataclass(frozen=True)
class AutoSuccess:
    """One success without a roll (§A.6), worth exactly one success: S0 «автоматический успех
    по силе равняется единственному успеху», S1 «Такой успех считается сомнительным»."""

    status: AutoStatus
    successes: int
    outcome: Outcome | None
    degree: Degree | None
    wp_delta: int


def auto_success(
    pool: int,
    difficulty: int,
    profile: Profile,
    context: RollContext = RollContext.NORMAL,
    wp_current: int = 0,
) -> AutoSuccess:
    """S0 «Если число кубиков в наборе для броска равно или превосходит уровень сложности
    действия, то персонажу везет автоматически.»

    Where it is forbidden depends on the book (AMB-A3: S0 no resisted, combat or stress rolls;
    S1 no fights; S4 no combat manoeuvre or soak; never for magick). S1's optional variant
    makes it cost one Willpower point, so with ``auto_success_costs_wp`` a character with no
    Willpower left cannot take it.
    """
    check_profile(profile)
    check_int(pool, "pool", 0, profile.pool_sanity_max)
    check_int(difficulty, "difficulty", 2, 10)
    context = parse_enum(RollContext, context, "context")
    check_int(wp_current, "wp_current", 0, WILLPOWER_MAX)
    if not profile.auto_success:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "auto_success", "off in this profile")
    if pool < difficulty:
        return AutoSuccess(AutoStatus.NOT_APPLICABLE, 0, None, None, 0)
    if context in profile.auto_success_forbidden:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "context", context.value)
    wp_delta = 0
    if profile.auto_success_costs_wp:
        if wp_current < 1:
            raise RulesInputError(ErrorCode.WP_UNAVAILABLE, "wp_current", "no Willpower left")
        wp_delta = -1
    return AutoSuccess(AutoStatus.APPLIED, 1, Outcome.AUTO_SUCCESS, Degree.MARGINAL, wp_delta)


def spend_willpower(wp_current: int, spent_this_turn: bool, profile: Profile) -> int:
    """The change to temporary Willpower for one automatic success (§A.7).

    S0 «Вы можете сделать это только один раз за ход.» The success itself is applied by
    :func:`rules.d10.resolve` with ``willpower=True``; this only checks the player may pay.
    """
    check_profile(profile)
    check_int(wp_current, "wp_current", 0, WILLPOWER_MAX)
    check_bool(spent_this_turn, "spent_this_turn")
    if not profile.wp_auto_success:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "willpower", "off in this profile")
    if wp_current < 1:
        raise RulesInputError(ErrorCode.WP_UNAVAILABLE, "wp_current", "no Willpower left")
    if spent_this_turn:
        raise RulesInputError(ErrorCode.WP_ALREADY_THIS_TURN, "spent_this_turn", "once per turn")
    return -1


def multiple_action_pools(
    base_pools: Sequence[int],
    profile: Profile,
    *,
    time_magick_extra_actions: int = 0,
) -> tuple[Pool, ...]:
    """Pools for N actions declared together, in the declared order (§A.9, ``CUMULATIVE``).

    S4 «…уменьшенное на общее кол-во действий + номер действия в порядке проверок - 1»: the
    k-th of N declared actions loses N + (k − 1) dice, so Mary Chen's 6, 7, 7 become 3, 3, 2
    (T-11). A single action is not "multiple" and loses nothing. The last
    ``time_magick_extra_actions`` entries are extra actions bought with Time Effects: S0 lets
    them be taken «без штрафов» and they do not count toward N.
    """
    check_profile(profile)
    if profile.multiple_actions is not MultipleActions.CUMULATIVE:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "multiple_actions", "profile splits pools")
    pools = check_ints(base_pools, "base_pools", 0, profile.pool_sanity_max)
    check_int(time_magick_extra_actions, "time_magick_extra_actions", 0, max(0, len(pools) - 1))
    declared = len(pools) - time_magick_extra_actions
    check_int(declared, "base_pools", 1, profile.max_declared_actions)

    out: list[Pool] = []
    for k, p in enumerate(pools[:declared], start=1):
        dice = p if declared == 1 else p - declared - (k - 1)
        out.append(Pool(dice, PoolStatus.ROLL if dice > 0 else PoolStatus.IMPOSSIBLE))
    out.extend(
        Pool(p, PoolStatus.ROLL if p > 0 else PoolStatus.IMPOSSIBLE) for p in pools[declared:]
    )
    return tuple(out)


def split_pool(pool: int, parts: Sequence[int], profile: Profile) -> tuple[int, ...]:
    """Dark Ages divides one pool between actions instead (§A.9, ``SPLIT_POOL``).

    S1 «…общим количеством кубиков, которые можно использовать в течение одного хода… хотя их
    и можно разделить между несколькими действиями»: every action needs at least one die and
    the parts cannot add up to more than the pool.
    """
    check_profile(profile)
    if profile.multiple_actions is not MultipleActions.SPLIT_POOL:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "multiple_actions", "profile is cumulative")
    check_int(pool, "pool", 0, profile.pool_sanity_max)
    checked = check_ints(parts, "parts", 1, profile.pool_sanity_max)
    check_int(len(checked), "parts", 1, profile.max_declared_actions)
    if sum(checked) > pool:
        raise RulesInputError(ErrorCode.RANGE, "parts", f"{sum(checked)} dice > pool {pool}")
    return tuple(checked)


def split_share(pool: int, actions: int, index: int) -> int:
    """The part of ``pool`` the ``index``-th of ``actions`` declared actions rolls when the
    player did not say how to split it (§A.9 ``SPLIT_POOL`` in a fight, [P]): an even split,
    the dice left over going to the first actions. One action keeps the whole pool."""
    dice = check_int(pool, "pool", 0, 100)
    n = check_int(actions, "actions", 1, 10)
    k = check_int(index, "index", 1, n)
    return dice // n + (1 if k <= dice % n else 0)


def is_extended(target: int) -> bool:
    """S1 «Действие, которое требует 2 и более успешных баллов, считается длительным.»"""
    return check_int(target, "target", 1) >= 2


class ExtendedStatus(StrEnum):
    IN_PROGRESS = "in_progress"
    COMPLETE = "complete"
    BOTCHED = "botched"
    OUT_OF_TIME = "out_of_time"


@dataclass(frozen=True)
class ExtendedState:
    """Progress of a длительное действие (§A.11). ``max_rolls`` is the time limit in rolls
    (S0: a spirit summoned in five hourly rolls before the Nephandus arrives)."""

    target: int
    max_rolls: int | None = None
    accumulated: int = 0
    rolls_made: int = 0
    status: ExtendedStatus = ExtendedStatus.IN_PROGRESS
    excess: int = 0


def start_extended(target: int, max_rolls: int | None = None) -> ExtendedState:
    check_int(target, "target", 1, 1000)
    if max_rolls is not None:
        check_int(max_rolls, "max_rolls", 1, 1000)
    return ExtendedState(target=target, max_rolls=max_rolls)


def _check_extended(state: object) -> ExtendedState:
    if not isinstance(state, ExtendedState) or not isinstance(state.status, ExtendedStatus):
        raise RulesInputError(ErrorCode.TYPE, "state", "expected an ExtendedState")
    check_int(state.target, "state.target", 1, 1000)
    check_int(state.accumulated, "state.accumulated", 0)
    check_int(state.rolls_made, "state.rolls_made", 0)
    if state.max_rolls is not None:
        check_int(state.max_rolls, "state.max_rolls", 1, 1000)
    return state


def extended_step(state: ExtendedState, roll: D10Result, profile: Profile) -> ExtendedState:
    """Add one roll's successes toward the target.

    A botch throws away everything gathered so far (S0 «Не только теряются накопленные ранее
    успехи…», S1 «…придется все начинать сначала»). Whether the work can go on after a botch
    is the Storyteller's call, so a ``BOTCHED`` state may be stepped again from zero; a
    finished or timed-out one may not (``E_STATE``).
    """
    check_profile(profile)
    _check_extended(state)
    if not isinstance(roll, D10Result):
        raise RulesInputError(ErrorCode.TYPE, "roll", "expected a D10Result")
    if state.status in (ExtendedStatus.COMPLETE, ExtendedStatus.OUT_OF_TIME):
        raise RulesInputError(ErrorCode.STATE, "state.status", state.status.value)
    if state.max_rolls is not None and state.rolls_made >= state.max_rolls:
        raise RulesInputError(ErrorCode.STATE, "state.rolls_made", "no rolls left")

    n = state.rolls_made + 1
    if roll.outcome is Outcome.BOTCH:
        kept = 0 if profile.extended_botch is ExtendedBotch.LOSE_ALL else state.accumulated
        return replace(state, accumulated=kept, rolls_made=n, status=ExtendedStatus.BOTCHED)
    total = state.accumulated + roll.successes
    if total >= state.target:
        excess = total - state.target
        return replace(
            state, accumulated=total, rolls_made=n, status=ExtendedStatus.COMPLETE, excess=excess
        )
    if state.max_rolls is not None and n >= state.max_rolls:
        return replace(state, accumulated=total, rolls_made=n, status=ExtendedStatus.OUT_OF_TIME)
    return replace(state, accumulated=total, rolls_made=n, status=ExtendedStatus.IN_PROGRESS)
