"""Benchmark: exact d10 odds from ``rules.probability`` against the icepool library.

docs/product.md §5 "Performance": identical (to 1e-12) to icepool on every pool 1–30 × difficulty
2–10 × botch rule × Willpower, and at least 20× faster. The grid also covers thresholds 0–3
(§A.8). Both sides run cold in the same process and the ratio is printed; the exit status is
1 if any value differs, so CI can run it.

The icepool side is an independent oracle written from docs/rules.md §A.4's pseudo-code: icepool
sums ``pool`` copies of a die whose outcome is the vector (is a success, is a 1), and the
rules text maps each (raw successes, ones) to (successes, outcome). The tests of
``rules.probability`` import this oracle from here so that there is only one.

Run: ``.venv/bin/python bench/probability.py``
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from fractions import Fraction
from functools import cache
from pathlib import Path

import icepool

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules import probability, profiles
from rules.profiles import BotchRule, Profile

POOLS = range(1, 31)
DIFFICULTIES = range(2, 11)
PROFILES = ("mage-revised", "dark-ages")  # RAW_ZERO and NET_NEGATIVE (§A.4, AMB-A1)
WILLPOWER = (False, True)
THRESHOLDS = range(4)
TOLERANCE = 1e-12
TARGET_RATIO = 20.0

SUCCESS, FAILURE, BOTCH = "success", "failure", "botch"
_OUTCOME_CODES = (SUCCESS, FAILURE, BOTCH)

OracleLaw = tuple[dict[str, Fraction], dict[int, Fraction]]


@cache
def joint_law(pool: int, difficulty: int) -> icepool.Die:
    """Joint law of (raw successes, ones): a sum of ``pool`` vector-valued d10s.

    Built one die at a time from the law of ``pool - 1`` dice, which icepool convolves
    faster than ``pool @ face`` recomputed for every pool.
    """
    if pool == 0:
        return icepool.Die([icepool.Vector((0, 0))])
    face = icepool.Die([icepool.Vector((int(f >= difficulty), int(f == 1))) for f in range(1, 11)])
    return joint_law(pool - 1, difficulty) + face


def judge(
    raw: int, ones: int, threshold: int, willpower: bool, botch_rule: BotchRule
) -> tuple[int, str]:
    """docs/rules.md §A.4 ``roll_d10`` after the faces, as written there (default switches)."""
    after_t = max(0, raw - threshold)  # threshold first (S0)
    t_left = max(0, threshold - raw)
    net = after_t - ones
    succ = max(0, net)
    if willpower:
        succ += 1 if t_left == 0 else 0  # leftover threshold eats the WP success [P]
    if succ > 0:
        outcome = SUCCESS
    elif willpower:
        outcome = FAILURE  # a WP-backed roll never botches [P]
    elif (botch_rule is BotchRule.RAW_ZERO and after_t == 0 and ones >= 1) or (
        botch_rule is BotchRule.NET_NEGATIVE and ones > after_t
    ):
        outcome = BOTCH
    else:
        outcome = FAILURE
    return succ, outcome


def icepool_d10(
    pool: int, difficulty: int, botch_rule: BotchRule, willpower: bool, threshold: int
) -> OracleLaw:
    """Outcome probabilities and the successes distribution, exact, all computed by icepool.

    One ``map`` per roll: its outcome packs (successes, outcome) into one sortable int.
    """

    def packed(raw: int, ones: int) -> int:
        succ, outcome = judge(raw, ones, threshold, willpower, botch_rule)
        return succ * len(_OUTCOME_CODES) + _OUTCOME_CODES.index(outcome)

    law = joint_law(pool, difficulty).map(packed, star=True)
    outcomes = {code: Fraction(0) for code in _OUTCOME_CODES}
    successes: dict[int, Fraction] = {}
    for code in law.outcomes():
        p = law.probability(code)
        if p:
            succ, index = divmod(code, len(_OUTCOME_CODES))
            outcomes[_OUTCOME_CODES[index]] += p
            successes[succ] = successes.get(succ, Fraction(0)) + p
    return outcomes, successes


def joint_oracle(
    pool: int, difficulty: int, botch_rule: BotchRule, willpower: bool, threshold: int
) -> OracleLaw:
    """The same law as :func:`icepool_d10`, judging icepool's joint counts in plain Python.

    Shares one icepool convolution per (pool, difficulty) across every botch rule, Willpower
    and threshold, so the test suite can afford the whole grid.
    """
    joint = joint_law(pool, difficulty)
    den = joint.denominator()
    outcomes = dict.fromkeys(_OUTCOME_CODES, 0)
    successes: dict[int, int] = {}
    for (raw, ones), quantity in joint.items():
        succ, outcome = judge(raw, ones, threshold, willpower, botch_rule)
        outcomes[outcome] += quantity
        successes[succ] = successes.get(succ, 0) + quantity
    return (
        {code: Fraction(q, den) for code, q in outcomes.items()},
        {s: Fraction(q, den) for s, q in successes.items() if q},
    )


def grid() -> Iterator[tuple[int, int, Profile, bool, int]]:
    for pool in POOLS:
        for difficulty in DIFFICULTIES:
            for name in PROFILES:
                for willpower in WILLPOWER:
                    for threshold in THRESHOLDS:
                        yield pool, difficulty, profiles.get(name), willpower, threshold


def mismatches(ours: probability.D10Odds, oracle: OracleLaw) -> list[str]:
    """Every value that differs by more than ``TOLERANCE``, described for a report."""
    outcomes, successes = oracle
    found = [
        f"{code}: {getattr(ours, code)!r} != {float(outcomes[code])!r}"
        for code in _OUTCOME_CODES
        if abs(getattr(ours, code) - float(outcomes[code])) > TOLERANCE
    ]
    ours_nonzero = {s for s, p in ours.successes.items() if p}
    if ours_nonzero != set(successes):
        found.append(f"successes support {sorted(ours_nonzero)} != {sorted(successes)}")
    found.extend(
        f"successes[{s}]: {ours.successes[s]!r} != {float(p)!r}"
        for s, p in successes.items()
        if abs(ours.successes.get(s, 0.0) - float(p)) > TOLERANCE
    )
    return found


def main() -> int:
    cases = list(grid())
    start = time.perf_counter()
    oracle = [icepool_d10(pool, d, p.botch_rule, wp, t) for pool, d, p, wp, t in cases]
    icepool_seconds = time.perf_counter() - start

    probability.cache_clear()
    start = time.perf_counter()
    ours = [
        probability.d10(pool=pool, difficulty=d, profile=p, willpower=wp, threshold=t)
        for pool, d, p, wp, t in cases
    ]
    ours_seconds = time.perf_counter() - start

    failures = 0
    worst = 0.0
    for case, mine, theirs in zip(cases, ours, oracle, strict=True):
        problems = mismatches(mine, theirs)
        worst = max(
            worst,
            *(abs(getattr(mine, c) - float(theirs[0][c])) for c in _OUTCOME_CODES),
            *(abs(mine.successes.get(s, 0.0) - float(p)) for s, p in theirs[1].items()),
        )
        if problems:
            failures += 1
            pool, d, p, wp, t = case
            print(f"MISMATCH pool={pool} diff={d} {p.name} wp={wp} thr={t}: {problems}")

    ratio = icepool_seconds / ours_seconds
    print(
        f"grid: pools {POOLS.start}-{POOLS.stop - 1} x difficulties "
        f"{DIFFICULTIES.start}-{DIFFICULTIES.stop - 1} x {len(PROFILES)} botch rules x "
        f"WP on/off x thresholds {THRESHOLDS.start}-{THRESHOLDS.stop - 1} = {len(cases)} rolls"
    )
    print(f"icepool:           {icepool_seconds:8.3f} s")
    print(f"rules.probability: {ours_seconds:8.3f} s (cold caches)")
    print(f"speed ratio:       {ratio:8.1f}x (target >= {TARGET_RATIO:.0f}x)")
    print(f"largest difference: {worst:.3g} (tolerance {TOLERANCE:g})")
    if failures:
        print(f"FAIL: {failures} of {len(cases)} rolls differ from icepool")
        return 1
    print("OK: every value identical to icepool within tolerance")
    if ratio < TARGET_RATIO:
        print(f"WARNING: below the {TARGET_RATIO:.0f}x target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
