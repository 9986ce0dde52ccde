"""Exact odds of a d10 roll and of an extended action (docs/rules.md §A.4, §A.7, §A.8, §A.11).

Why exact and not simulated: a Storyteller choosing between «сложность 6» and «сложность 7»
wants the real chance, and the texts' own figures are sometimes wrong (T-22's «в 75 случаях
из 100» ignores the rule of one; the true chance is 65%). The law of one roll is a ratio of
integers over ``10**pool`` faces, turned into a float only at the end (identical to icepool's
exact fractions, see bench/probability.py).

How: a die is a 1 (one face), a success (``11 - difficulty`` faces) or neither, so the joint
law of (raw successes, ones) over ``n`` dice is trinomial. Everything :func:`rules.d10.resolve`
does afterwards is a deterministic function of those two counts, the threshold and the
profile's switches, so the roll's law is the trinomial pushed through that function. The
function is written out once here, as :func:`_resolve_counts`, mirroring ``resolve`` step by
step; a brute-force test enumerates faces through ``resolve`` itself to keep them in step.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from rules.d10 import DIFFICULTY_MAX, DIFFICULTY_MIN, THRESHOLD_MAX, Outcome
from rules.errors import ErrorCode, RulesInputError, check_bool, check_int
from rules.profiles import BotchRule, ExtendedBotch, GameSystem, Profile

FACES = 10
# §A.11 gives no upper bound; these keep the extended chain well under a second.
EXTENDED_TARGET_MAX = 100
EXTENDED_ROLLS_MAX = 100


@dataclass(frozen=True, slots=True)
class D10Odds:
    """The law of one roll: outcome probabilities and the distribution of final successes.

    ``successes[k]`` is P(``resolve(...).successes == k``); only values with a nonzero chance
    appear. ``success + failure + botch == 1`` (an automatic success is not a roll, §A.6).
    """

    pool: int
    difficulty: int
    threshold: int
    willpower: bool
    success: float
    failure: float
    botch: float
    successes: Mapping[int, float]

    def at_least(self, k: int) -> float:
        """P(at least ``k`` successes): what an extended action or a magnitude needs (§A.11)."""
        check_int(k, "k")
        return sum(p for s, p in self.successes.items() if s >= k)

    @property
    def expected_successes(self) -> float:
        return sum(s * p for s, p in self.successes.items())


@dataclass(frozen=True, slots=True)
class ExtendedOdds:
    """Odds of an extended action (§A.11) reaching ``target`` within ``max_rolls`` rolls.

    ``by_roll[k - 1]`` is the chance that roll ``k`` is the one that completes it, so
    ``complete == sum(by_roll)``. ``botched`` is the chance that at least one roll botched
    before the action completed or ran out of rolls (with ``botch_ends`` it is the chance
    that a botch ended it).
    """

    target: int
    max_rolls: int
    complete: float
    by_roll: tuple[float, ...]
    botched: float


@dataclass(frozen=True, slots=True)
class _Counts:
    """Exact counts of face combinations out of ``denominator`` (``10**pool``)."""

    denominator: int
    success: int
    failure: int
    botch: int
    successes: tuple[tuple[int, int], ...]


# The switches of the profile that ``resolve`` reads; the cache key instead of the profile.
_Switches = tuple[BotchRule, bool, bool, bool]


def d10(
    pool: int,
    difficulty: int,
    profile: Profile,
    willpower: bool = False,
    threshold: int = 0,
) -> D10Odds:
    """The exact law of ``d10.roll(pool, difficulty, profile, willpower, threshold)``.

    A pool of 0 is allowed (``resolve`` of no faces): with Willpower it is one success, else
    a plain failure, since a botch needs a 1 on the table (§A.4).
    """
    _check_roll(pool, difficulty, profile, willpower, threshold)
    counts = _roll_counts(pool, difficulty, threshold, willpower, _switches(profile))
    den = counts.denominator
    return D10Odds(
        pool=pool,
        difficulty=difficulty,
        threshold=threshold,
        willpower=willpower,
        success=counts.success / den,
        failure=counts.failure / den,
        botch=counts.botch / den,
        successes={s: ways / den for s, ways in counts.successes},
    )


def extended(
    pool: int,
    difficulty: int,
    target: int,
    max_rolls: int,
    profile: Profile,
    willpower: bool = False,
    threshold: int = 0,
    botch_ends: bool = False,
) -> ExtendedOdds:
    """Chance to gather ``target`` successes in at most ``max_rolls`` rolls of the same pool.

    A botch follows ``profile.extended_botch``: ``LOSE_ALL`` wipes the running total and the
    character starts over (S1 «придется все начинать сначала, набранные ранее успешные баллы
    пропадают»), ``KEEP`` keeps it. ``botch_ends=True`` is the Storyteller forbidding a new
    start after a botch (S1 «Рассказчик может запретить игроку повторную попытку»; S0
    «достижение результата может сильно усложниться»). ``willpower`` means Willpower is
    spent on every roll, which §A.7 allows once per turn.
    """
    _check_roll(pool, difficulty, profile, willpower, threshold)
    check_int(target, "target", 1, EXTENDED_TARGET_MAX)
    check_int(max_rolls, "max_rolls", 1, EXTENDED_ROLLS_MAX)
    check_bool(botch_ends, "botch_ends")
    roll = _roll_counts(pool, difficulty, threshold, willpower, _switches(profile))
    lose_all = profile.extended_botch is ExtendedBotch.LOSE_ALL
    by_roll, botched = _extended_chain(roll, target, max_rolls, lose_all, botch_ends)
    return ExtendedOdds(
        target=target,
        max_rolls=max_rolls,
        # Rounding may leave a sure thing a hair above 1.
        complete=min(1.0, math.fsum(by_roll)),
        by_roll=tuple(by_roll),
        botched=min(1.0, botched),
    )


def cache_clear() -> None:
    """Forget every cached law (the benchmark measures cold caches)."""
    _joint.cache_clear()
    _by_net.cache_clear()
    _roll_counts.cache_clear()


def _check_roll(
    pool: int, difficulty: int, profile: Profile, willpower: bool, threshold: int
) -> None:
    """What ``d10.roll`` accepts, plus pool 0; a d6 profile has no d10 odds."""
    if not isinstance(profile, Profile):
        raise RulesInputError(ErrorCode.TYPE, "profile", f"expected Profile, got {profile!r}")
    if profile.system is not GameSystem.D10:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "profile", f"{profile.name} is not d10")
    check_int(pool, "pool", 0, profile.pool_sanity_max)
    check_int(difficulty, "difficulty", DIFFICULTY_MIN, DIFFICULTY_MAX)
    check_int(threshold, "threshold", 0, THRESHOLD_MAX)
    check_bool(willpower, "willpower")
    if willpower and not profile.wp_auto_success:  # as ``resolve`` (§A.7)
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "willpower", "profile has no WP successes")


def _switches(profile: Profile) -> _Switches:
    return (
        profile.botch_rule,
        profile.wp_eaten_by_threshold,
        profile.wp_cancellable_by_ones,
        profile.wp_prevents_botch,
    )


@lru_cache(maxsize=1024)
def _joint(pool: int, difficulty: int) -> tuple[tuple[int, ...], ...]:
    """``rows[raw][ones]``: how many of the ``10**pool`` face combinations give that pair.

    The trinomial: ``pool! / (r! o! rest!) * hits**r * 1**o * misses**rest`` where a die
    succeeds on ``11 - difficulty`` faces (a 10 always does, S0 «Получение 10 в броске всегда
    означает успех»), is a 1 on one face and does neither on the ``difficulty - 2`` others.
    A 1 is never a success because difficulty is at least 2.
    """
    hits = FACES + 1 - difficulty
    misses = difficulty - 2
    rows = []
    for raw in range(pool + 1):
        with_raw = math.comb(pool, raw) * hits**raw
        left = pool - raw
        rows.append(
            tuple(
                with_raw * math.comb(left, ones) * misses ** (left - ones)
                for ones in range(left + 1)
            )
        )
    return tuple(rows)


# A class of rolls that ``resolve`` cannot tell apart: (net, no success left after the
# threshold, threshold points left over), with its number of face combinations.
_NetClass = tuple[int, bool, bool, int]


@lru_cache(maxsize=4096)
def _by_net(pool: int, difficulty: int, threshold: int) -> tuple[_NetClass, ...]:
    """Group the trinomial by what ``resolve`` looks at once the threshold is applied.

    After the threshold (§A.8: it takes successes before the 1s do), ``resolve`` only needs
    ``net = after_threshold - ones``, whether ``after_threshold`` is 0 (the RAW_ZERO botch
    test, and then ``ones == -net``) and whether threshold points were left over (they eat
    the Willpower success, AMB-A4). NET_NEGATIVE's ``ones > after_threshold`` is ``net < 0``.
    Every net below -1 is folded into -1: no success is left either way, and one Willpower
    success that 1s may cancel (``wp_cancellable_by_ones``) cannot lift it above zero.
    """
    positive = [0] * (pool + 1)  # net >= 0 with successes left after the threshold
    negative = 0  # net < 0 with successes left after the threshold
    spent: dict[tuple[int, bool], int] = {}  # (net 0 or -1, threshold left) with none left
    for raw, row in enumerate(_joint(pool, difficulty)):
        after_threshold = raw - threshold
        if after_threshold > 0:
            for ones, ways in enumerate(row[: after_threshold + 1]):
                positive[after_threshold - ones] += ways
            negative += sum(row[after_threshold + 1 :])
        else:
            left = after_threshold < 0
            spent[0, left] = spent.get((0, left), 0) + row[0]
            spent[-1, left] = spent.get((-1, left), 0) + sum(row[1:])
    classes = [(net, False, False, ways) for net, ways in enumerate(positive) if ways]
    if negative:
        classes.append((-1, False, False, negative))
    classes.extend((net, True, left, ways) for (net, left), ways in spent.items() if ways)
    return tuple(classes)


def _resolve_counts(
    net: int,
    after_threshold_zero: bool,
    threshold_left: bool,
    willpower: bool,
    switches: _Switches,
) -> tuple[int, Outcome]:
    """``rules.d10.resolve`` restated on (net, flags): final successes and outcome.

    Line for line: the Willpower success is eaten by leftover threshold if the profile says
    so; it is cancellable by 1s only if the profile says so (S4 «Этот успех нельзя отменить
    или отнять единичкой!» is the default); a Willpower-backed roll cannot botch if the
    profile says so; otherwise the botch rule decides (§A.4, AMB-A1).
    """
    botch_rule, wp_eaten_by_threshold, wp_cancellable_by_ones, wp_prevents_botch = switches
    wp_success = 1 if willpower and not (wp_eaten_by_threshold and threshold_left) else 0
    if willpower and wp_cancellable_by_ones:
        successes = max(0, net + wp_success)
    else:
        successes = max(0, net) + wp_success
    if successes > 0:
        return successes, Outcome.SUCCESS
    if willpower and wp_prevents_botch:
        return 0, Outcome.FAILURE
    # NET_NEGATIVE (S1): more 1s than successes left after the threshold. RAW_ZERO (S0): no
    # success left after the threshold and a 1 on the table; then ones == -net, so net < 0.
    botch = net < 0 and (after_threshold_zero or botch_rule is BotchRule.NET_NEGATIVE)
    return 0, Outcome.BOTCH if botch else Outcome.FAILURE


@lru_cache(maxsize=4096)
def _roll_counts(
    pool: int, difficulty: int, threshold: int, willpower: bool, switches: _Switches
) -> _Counts:
    totals = {Outcome.SUCCESS: 0, Outcome.FAILURE: 0, Outcome.BOTCH: 0}
    by_successes: dict[int, int] = {}
    for net, zero, left, ways in _by_net(pool, difficulty, threshold):
        successes, outcome = _resolve_counts(net, zero, left, willpower, switches)
        totals[outcome] += ways
        by_successes[successes] = by_successes.get(successes, 0) + ways
    return _Counts(
        denominator=FACES**pool,
        success=totals[Outcome.SUCCESS],
        failure=totals[Outcome.FAILURE],
        botch=totals[Outcome.BOTCH],
        successes=tuple(sorted(by_successes.items())),
    )


def _extended_chain(
    roll: _Counts, target: int, max_rolls: int, lose_all: bool, botch_ends: bool
) -> tuple[list[float], float]:
    """Markov chain over the running total: per roll, the chance it completes; and P(botched).

    A state is (running total below ``target``, whether a botch has happened). The chain runs
    in floats on the exact one-roll law: it only multiplies and adds non-negative numbers, so
    its relative error stays near ``max_rolls * (pool + 2) * 2**-53`` (under 1e-12 at the
    limits), while exact integers over ``10**(pool * max_rolls)`` took seconds at pool 50.
    """
    den = roll.denominator
    botch = roll.botch / den
    # A botch always has 0 successes; what is left at 0 is a plain failure (§A.4).
    plain = [(s, (ways - roll.botch if s == 0 else ways) / den) for s, ways in roll.successes]
    plain = [(s, p) for s, p in plain if p]
    clean = [0.0] * target  # never botched, indexed by running total
    clean[0] = 1.0
    dirty = [0.0] * target  # botched at least once and still going
    ended = 0.0  # stopped by a botch (botch_ends)
    by_roll: list[float] = []
    for _ in range(max_rolls):
        new_clean = [0.0] * target
        new_dirty = [0.0] * target
        done = 0.0
        for source, dest in ((clean, new_clean), (dirty, new_dirty)):
            for total, weight in enumerate(source):
                if not weight:
                    continue
                for s, p in plain:
                    if total + s >= target:
                        done += weight * p
                    else:
                        dest[total + s] += weight * p
                if botch_ends:
                    ended += weight * botch
                else:
                    new_dirty[0 if lose_all else total] += weight * botch
        by_roll.append(done)
        clean, dirty = new_clean, new_dirty
    return by_roll, ended + math.fsum(dirty)
