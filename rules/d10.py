"""One Storyteller d10 roll: faces, successes, the rule of one, botches (docs/rules.md §A.1–§A.7).

The order of operations is §A.4's: successes are counted, the threshold takes its share
first (S0 «Пороговое значение отнимает успехи до того, как их отнимут единицы»), then each
1 cancels a success, then a Willpower success is added that 1s cannot cancel (S4 «Этот успех
нельзя отменить или отнять единичкой!»). Whether the roll botches depends on the profile:
``RAW_ZERO`` (S0, S4) or ``NET_NEGATIVE`` (S1).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict

from rules.dice import Rng, roll_faces
from rules.errors import ErrorCode, RulesInputError, check_bool, check_int, parse_enum
from rules.profiles import BotchRule, Profile, check_profile

DIFFICULTY_MIN = 2
DIFFICULTY_MAX = 10
THRESHOLD_MAX = 50


class Outcome(StrEnum):
    SUCCESS = "success"  # Успех
    FAILURE = "failure"  # Неудача
    BOTCH = "botch"  # Провал
    AUTO_SUCCESS = "auto_success"  # Автоуспех (§A.6)


class Degree(StrEnum):
    """Degree of success by net successes (§A.5); the words differ by ``LabelSet``."""

    MARGINAL = "marginal"
    MODERATE = "moderate"
    COMPLETE = "complete"
    EXCEPTIONAL = "exceptional"
    PHENOMENAL = "phenomenal"


_DEGREES = (Degree.MARGINAL, Degree.MODERATE, Degree.COMPLETE, Degree.EXCEPTIONAL)


def degree(successes: int) -> Degree | None:
    """None for no successes; 5 and more are all «Феноменальный» (S1 tops out at 5)."""
    if check_int(successes, "successes") <= 0:
        return None
    return _DEGREES[successes - 1] if successes <= 4 else Degree.PHENOMENAL


class D10Result(BaseModel):
    """A resolved roll. ``net`` is signed (successes after threshold minus 1s, before WP)."""

    model_config = ConfigDict(frozen=True)

    faces: tuple[int, ...]
    difficulty: int
    threshold: int
    willpower: bool
    raw_successes: int
    ones: int
    net: int
    successes: int
    outcome: Outcome
    botch_severity: int
    degree: Degree | None


def parse_face(value: Any, field: str = "face") -> int:
    """A face as players type it: 1–10, and 0 means 10 because many d10s print 0 (§A.1)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesInputError(ErrorCode.TYPE, field, f"expected int, got {type(value).__name__}")
    if value == 0:
        return 10
    if not 1 <= value <= 10:
        raise RulesInputError(ErrorCode.FACE_VALUE, field, f"{value} is not a d10 face")
    return value


def parse_faces(values: Sequence[Any]) -> tuple[int, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise RulesInputError(ErrorCode.TYPE, "faces", "expected a sequence of int")
    return tuple(parse_face(v, f"faces[{i}]") for i, v in enumerate(values))


def resolve(
    faces: Sequence[int],
    difficulty: int,
    profile: Profile,
    willpower: bool = False,
    threshold: int = 0,
) -> D10Result:
    """Resolve given faces at a computed difficulty (2–10) and threshold (§A.4, §A.7)."""
    check_profile(profile)
    parsed = parse_faces(faces)
    if len(parsed) > profile.pool_sanity_max:
        raise RulesInputError(ErrorCode.RANGE, "faces", f"more than {profile.pool_sanity_max} dice")
    check_int(difficulty, "difficulty", DIFFICULTY_MIN, DIFFICULTY_MAX)
    check_int(threshold, "threshold", 0, THRESHOLD_MAX)
    check_bool(willpower, "willpower")
    if willpower and not profile.wp_auto_success:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "willpower", "profile has no WP successes")

    raw = sum(1 for f in parsed if f >= difficulty)
    ones = parsed.count(1)
    after_threshold = max(0, raw - threshold)
    threshold_left = max(0, threshold - raw)
    wp_success = 0
    if willpower and not (profile.wp_eaten_by_threshold and threshold_left > 0):
        wp_success = 1
    net = after_threshold - ones
    if willpower and profile.wp_cancellable_by_ones:
        successes = max(0, after_threshold + wp_success - ones)
    else:
        successes = max(0, net) + wp_success

    if successes > 0:
        outcome = Outcome.SUCCESS
    elif willpower and profile.wp_prevents_botch:
        outcome = Outcome.FAILURE
    elif is_botch(after_threshold, ones, profile.botch_rule):
        outcome = Outcome.BOTCH
    else:
        outcome = Outcome.FAILURE
    return D10Result(
        faces=parsed,
        difficulty=difficulty,
        threshold=threshold,
        willpower=willpower,
        raw_successes=raw,
        ones=ones,
        net=net,
        successes=successes,
        outcome=outcome,
        botch_severity=ones if outcome is Outcome.BOTCH else 0,
        degree=degree(successes),
    )


def is_botch(successes_after_threshold: int, ones: int, rule: BotchRule) -> bool:
    """The two botch rules of §A.4 (AMB-A1), given no net success was left."""
    check_int(successes_after_threshold, "successes_after_threshold", 0)
    check_int(ones, "ones", 0)
    rule = parse_enum(BotchRule, rule, "rule")
    if rule is BotchRule.RAW_ZERO:
        return successes_after_threshold == 0 and ones >= 1
    return ones > successes_after_threshold


def roll(
    pool: int,
    difficulty: int,
    profile: Profile,
    willpower: bool = False,
    threshold: int = 0,
    rng: Rng | None = None,
    faces: Sequence[int] | None = None,
) -> D10Result:
    """Roll ``pool`` dice and resolve them.

    ``faces`` are dice a player rolled at the table (§0.2: explicit faces win over ``rng``);
    they must number exactly ``pool``, or the player has misread the pool (``E_FACES_LEN``).
    Without them the dice come from ``rng``, the OS source by default.
    """
    check_profile(profile)
    check_int(pool, "pool", 1, profile.pool_sanity_max)
    return resolve(faces_or_roll(pool, faces, rng), difficulty, profile, willpower, threshold)


def faces_or_roll(
    pool: int, faces: Sequence[int] | None = None, rng: Rng | None = None, field: str = "faces"
) -> tuple[int, ...]:
    """§0.2: dice rolled at the table (``faces``) win over ``rng`` and must number ``pool``.

    A different count means the player misread the pool (``E_FACES_LEN``). Every d10 roll
    of the package — actions, damage, soak, Arete, Backlash, Barrier — takes its dice here.
    """
    check_int(pool, "pool", 0, 1000)
    if faces is None:
        return tuple(roll_faces(pool, 10, rng))
    parsed = parse_faces(faces)
    if len(parsed) != pool:
        raise RulesInputError(ErrorCode.FACES_LEN, field, f"{len(parsed)} faces for {pool} dice")
    return parsed
