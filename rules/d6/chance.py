"""Chance (шанс на успех) of the d6 narrative system: docs/rules.md §D.1–§D.2 (S2 «Силы»,
«Преодоление препятствий») and helplessness (§D.11, S3 «Беспомощность»).

The chance is the number of d6 to roll: S2 «Сумма всех ступеней задействованных сил — это
твой шанс на успех», minus weakness and difficulties, plus advantages and luck dice. A chance
of zero or below is not an error but an ``IMPOSSIBLE`` status (§0.2): S2 «ты не способен
предпринять это действие и тебе придётся искать другой способ».

Difficulties, wounds and advantages are shared value types of the whole §D package, so they
live here, next to the arithmetic that consumes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_bool,
    check_int,
    check_sequence,
    parse_enum,
)
from rules.profiles import D6Options, Profile, check_profile

POWER_MIN = 1
POWER_MAX = 3  # S2 «Справа от названия каждой из них стоит цифра от 1 до 3.»
WEAKNESS_MIN = 1
WEAKNESS_MAX = 5  # S2 «шанс уменьшается на соответствующее число (от 1 до 5)»
MAGNITUDE_MAX = 100  # sanity bound on any magnitude, severity or measure count
LUCK_MAX = 100


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


def options(profile: Profile | None) -> D6Options:
    """The §D switches of ``profile``; ``None`` means the proposals of §F.4."""
    return check_profile(profile).d6 if profile is not None else D6Options()


class DifficultyKind(StrEnum):
    """What a difficulty («трудность») is; wounds are difficulties too (S2 «в том числе раны»)."""

    GENERAL = "general"
    PHYSICAL_WOUND = "physical_wound"  # телесная рана
    MENTAL_WOUND = "mental_wound"  # душевная рана
    SLOWNESS = "slowness"  # неспешный (§D.9)
    ON_EDGE = "on_edge"  # на взводе, a mental wound from inactivity (§D.8)
    KNOCKED_DOWN = "knocked_down"  # Толчок (§D.12)
    RESTRAINED = "restrained"  # Захват (§D.12)
    PURSUIT = "pursuit"  # Побег: the escapee's measures hinder attackers (§D.12)
    HARD_TARGET = "hard_target"  # Прицеливание: «непростая цель» (§D.12)


MENTAL_KINDS = frozenset({DifficultyKind.MENTAL_WOUND, DifficultyKind.ON_EDGE})
WOUND_KINDS = MENTAL_KINDS | {DifficultyKind.PHYSICAL_WOUND}


class Difficulty(_Frozen):
    """A difficulty or wound of ``magnitude`` (масштаб / тяжесть), written −N in the texts.

    ``family`` lets the GM group other states where only the strongest counts (AMB-D1's
    «самое сильное состояние»); mental wounds form such a group by default.
    """

    kind: DifficultyKind = DifficultyKind.GENERAL
    magnitude: int
    family: str | None = None


class AdvantageUse(StrEnum):
    """What an advantage («преимущество», +N) may be spent on (§D.9, §D.12)."""

    ANY = "any"  # lasts until the situation changes (S3 «пока не изменится ситуация»)
    NEXT_ATTACK = "next_attack"  # Атака с разгона
    NEXT_DEFENCE = "next_defence"  # Глухая оборона
    NEXT_ACTION_VS_FOE = "next_action_vs_foe"  # a winning defence, only against that attacker
    NEXT_TURN = "next_turn"  # Прицеливание: «преимуществом на следующий ход»
    POSITION = "position"  # «хороший обзор +1», lost on leaving the place


class Advantage(_Frozen):
    """An advantage of ``magnitude``; ``one_shot`` ones vanish after the next action."""

    magnitude: int
    use: AdvantageUse = AdvantageUse.ANY
    one_shot: bool = False
    against: str | None = None


def wound(kind: DifficultyKind, severity: int) -> Difficulty:
    """A wound of ``severity``; only the three wound kinds are wounds."""
    kind = parse_enum(DifficultyKind, kind, "kind")
    if kind not in WOUND_KINDS:
        raise RulesInputError(ErrorCode.RANGE, "kind", f"{kind} is not a wound")
    return Difficulty(kind=kind, magnitude=check_int(severity, "severity", 1, MAGNITUDE_MAX))


class ChanceStatus(StrEnum):
    OK = "ok"
    IMPOSSIBLE = "impossible"


class ImpossibleReason(StrEnum):
    NOT_POSITIVE = "not_positive"  # S2 «шанс становится равным нулю или даже отрицательным»
    NO_POWER = "no_power"  # the GM's «даже пробовать не стоит» (profile switch)


class Chance(_Frozen):
    """A computed chance. ``value`` is the signed sum; ``dice`` is what to roll (0 if impossible).

    ``luck_delta`` is negative whatever happens next: S2 «кубики удачи одноразовые и после
    использования не возвращаются независимо от результата действия».
    """

    value: int
    dice: int
    status: ChanceStatus
    reason: ImpossibleReason | None = None
    powers: int
    weakness: int
    difficulties: int
    advantages: int
    luck_delta: int


def _check_difficulty(d: object, field: str) -> Difficulty:
    if not isinstance(d, Difficulty):
        raise RulesInputError(ErrorCode.TYPE, field, "expected Difficulty")
    check_int(d.magnitude, f"{field}.magnitude", 1, MAGNITUDE_MAX)
    return d


def difficulty_total(difficulties: Iterable[Difficulty], profile: Profile | None = None) -> int:
    """The sum the difficulties take off the chance (S2, AMB-D1).

    Physical wounds and general difficulties add up; within mental wounds (and within any
    GM-declared ``family``) only the strongest counts, as S2 says: «в случае с душевными ранами
    и силами учитывается самое сильное состояние из тех, что могут повлиять на ситуацию».
    """
    opts = options(profile)
    total = 0
    strongest: dict[str, int] = {}
    for i, raw in enumerate(check_sequence(difficulties, "difficulties")):
        d = _check_difficulty(raw, f"difficulties[{i}]")
        group = d.family
        if group is None and opts.mental_wounds_max_only and d.kind in MENTAL_KINDS:
            group = "\x00mental"
        if group is None:
            total += d.magnitude
        else:
            strongest[group] = max(strongest.get(group, 0), d.magnitude)
    return total + sum(strongest.values())


def _advantage_value(a: object, field: str) -> int:
    if isinstance(a, Advantage):
        return check_int(a.magnitude, f"{field}.magnitude", 1, MAGNITUDE_MAX)
    return check_int(a, field, 1, MAGNITUDE_MAX)


def chance(
    powers: Sequence[int] | Mapping[str, int],
    *,
    weakness: int | None = None,
    weakness_applies: bool = False,
    difficulties: Sequence[Difficulty] = (),
    advantages: Sequence[int | Advantage] = (),
    luck_spent: int = 0,
    luck_available: int | None = None,
    profile: Profile | None = None,
) -> Chance:
    """The chance of one action (§D.2).

    ``powers`` are the levels of the powers the player names (a mapping by name keeps each power
    counted once). ``weakness_applies`` says whether the character's weakness hinders this
    action (S2 «Если тебе мешает слабость»). ``advantages`` include help from other characters.
    Each luck die adds one (S2 «Шанс возрастает на 1 за каждый из них»).
    """
    levels = list(powers.values()) if isinstance(powers, Mapping) else powers
    if isinstance(levels, (str, bytes)) or not isinstance(levels, Sequence):
        raise RulesInputError(ErrorCode.TYPE, "powers", "expected a sequence of int")
    power_sum = sum(
        check_int(p, f"powers[{i}]", POWER_MIN, POWER_MAX) for i, p in enumerate(levels)
    )
    check_bool(weakness_applies, "weakness_applies")
    if weakness is not None:
        check_int(weakness, "weakness", WEAKNESS_MIN, WEAKNESS_MAX)
    if weakness_applies and weakness is None:
        raise RulesInputError(ErrorCode.STATE, "weakness", "weakness applies but none is given")
    weak = weakness if weakness_applies and weakness is not None else 0
    diff = difficulty_total(difficulties, profile)
    adv = sum(
        _advantage_value(a, f"advantages[{i}]")
        for i, a in enumerate(check_sequence(advantages, "advantages"))
    )
    if luck_available is not None:
        check_int(luck_available, "luck_available", 0, LUCK_MAX)
    check_int(luck_spent, "luck_spent", 0, LUCK_MAX if luck_available is None else luck_available)
    value = power_sum - weak - diff + adv + luck_spent
    reason: ImpossibleReason | None = None
    if not levels and options(profile).no_power_impossible:
        reason = ImpossibleReason.NO_POWER
    elif value <= 0:
        reason = ImpossibleReason.NOT_POSITIVE
    return Chance(
        value=value,
        dice=value if reason is None else 0,
        status=ChanceStatus.OK if reason is None else ChanceStatus.IMPOSSIBLE,
        reason=reason,
        powers=power_sum,
        weakness=weak,
        difficulties=diff,
        advantages=adv,
        luck_delta=-luck_spent,
    )


def helpless(chances: Iterable[Chance], luck: int) -> bool:
    """Helplessness (§D.11, S3 «Беспомощность»).

    ``chances`` are the chances of every action the character could use to fight, flee, help or
    hinder. S3: helpless when they «неспособен использовать ни одну из своих сил … а также у него
    нет кубиков удачи». A helper's advantage goes into those chances, which is how S3's «у него
    есть кубики, которые он вправе бросить» lifts the state.
    """
    check_int(luck, "luck", 0, LUCK_MAX)
    items = check_sequence(chances, "chances")
    for i, c in enumerate(items):
        if not isinstance(c, Chance):
            raise RulesInputError(ErrorCode.TYPE, f"chances[{i}]", "expected Chance")
    return luck == 0 and all(c.status is ChanceStatus.IMPOSSIBLE for c in items)
