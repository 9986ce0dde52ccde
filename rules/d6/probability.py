"""Exact probabilities of the d6 roll (docs/rules.md §D.3–§D.5), as :class:`fractions.Fraction`.

Each die is a measure with probability 1/3 (S2 «Каждая пятёрка и шестёрка … означает одну меру
успеха»), so the measures of a chance of ``n`` dice are binomial. A special effort (§D.4) rerolls
every die not showing 5 or 6 once (S2 «перебросить все кубики, на которых не выпали результаты 5
и 6»); a die is then a measure with 1/3 + 2/3 · 1/3 = 5/9. Rerolling only non-measures never loses
one, so rerolling all of them is the best policy, and a player who pays only when short of the
required measures succeeds exactly as often as one who always pays: P(success with effort) uses
5/9, and :func:`p_effort_needed` tells how often the price is actually paid.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb

from rules.d6.chance import options
from rules.errors import check_bool, check_int
from rules.profiles import Profile

N_MAX = 200
MEASURE = Fraction(1, 3)
MEASURE_WITH_EFFORT = MEASURE + (1 - MEASURE) * MEASURE  # 5/9


# A die is a measure with probability hit/base, a miss with miss/base (1/3 and 5/9 above).
_ODDS = {False: (1, 2, 3), True: (5, 4, 9)}


@cache
def _numerators(n: int, special_effort: bool) -> tuple[tuple[int, ...], int]:
    """Integer numerators of P(measures = k) over the common denominator base**n."""
    hit, miss, base = _ODDS[special_effort]
    return tuple(comb(n, k) * hit**k * miss ** (n - k) for k in range(n + 1)), base**n


@cache
def _distribution(n: int, special_effort: bool) -> tuple[Fraction, ...]:
    nums, den = _numerators(n, special_effort)
    return tuple(Fraction(x, den) for x in nums)


@cache
def _tails(n: int, special_effort: bool) -> tuple[Fraction, ...]:
    """P(measures >= k) for k = 0..n+1, summed as integers before dividing."""
    nums, den = _numerators(n, special_effort)
    tails = [0] * (n + 2)
    for k in range(n, -1, -1):
        tails[k] = tails[k + 1] + nums[k]
    return tuple(Fraction(t, den) for t in tails)


def measures_distribution(n: int, special_effort: bool = False) -> tuple[Fraction, ...]:
    """P(measures = k) for k = 0..n with a chance of ``n`` dice."""
    check_int(n, "n", 0, N_MAX)
    return _distribution(n, check_bool(special_effort, "special_effort"))


def p_fiasco(n: int, special_effort: bool = False) -> Fraction:
    """P(no measure at all), the fiasco of S2 («ни одной меры успеха»)."""
    return measures_distribution(n, special_effort)[0]


def p_success(n: int, required: int = 1, special_effort: bool = False) -> Fraction:
    """P(at least ``required`` measures); with ``special_effort`` the effort is available."""
    check_int(n, "n", 0, N_MAX)
    check_int(required, "required", 0, N_MAX)
    tails = _tails(n, check_bool(special_effort, "special_effort"))
    return tails[required] if required <= n else Fraction(0)


def p_fiasco_of(
    n: int, required: int = 1, profile: Profile | None = None, special_effort: bool = False
) -> Fraction:
    """P(the roll ends in a fiasco) as the table reads it: no measure at all (S2 «ни одной
    меры успеха»), or, with the house reading ``d6.shortfall_is_fiasco`` (AMB-D3), every roll
    with fewer measures than required."""
    if options(profile).shortfall_is_fiasco:
        return 1 - p_success(n, required, special_effort)
    return p_fiasco(n, special_effort)


def p_effort_needed(n: int, required: int = 1) -> Fraction:
    """How often a player who spends a special effort only when short of ``required`` pays it."""
    return 1 - p_success(n, required)


def p_contest(
    n_a: int, n_b: int, effort_a: bool = False, effort_b: bool = False
) -> tuple[Fraction, Fraction, Fraction]:
    """(P(A wins), P(tie), P(B wins)) of a two-sided contest (§D.5) with ``n_a`` and ``n_b`` dice.

    With effort the distribution is that of always rerolling; an effort spent only when losing
    is a different game, not modelled here.
    """
    da = measures_distribution(n_a, effort_a)
    db = measures_distribution(n_b, effort_b)
    win = tie = lose = Fraction(0)
    for i, pa in enumerate(da):
        for j, pb in enumerate(db):
            if i > j:
                win += pa * pb
            elif i == j:
                tie += pa * pb
            else:
                lose += pa * pb
    return win, tie, lose
