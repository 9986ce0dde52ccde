"""Exact d10 odds (rules.probability) against icepool, brute force and the texts' own figures."""

from __future__ import annotations

import importlib.util
import itertools
import math
import random
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import actions, d10, probability, profiles
from rules.d10 import Outcome
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import BotchRule, ExtendedBotch, Profile


def _load_bench() -> ModuleType:
    """The icepool oracle lives in bench/probability.py so the benchmark and tests share it."""
    path = Path(__file__).resolve().parents[2] / "bench" / "probability.py"
    spec = importlib.util.spec_from_file_location("bench_probability", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = _load_bench()

MAGE = profiles.get("mage")
MAGE_REVISED = profiles.get("mage-revised")
DARK_AGES = profiles.get("dark-ages")
D10_PROFILES = (MAGE, MAGE_REVISED, DARK_AGES)
TOL = 1e-12


def _switch_variants() -> Iterator[Profile]:
    """Every combination of the switches ``d10.resolve`` reads (§A.4, §A.7, AMB-A1, AMB-A4)."""
    for rule, eaten, cancellable, prevents in itertools.product(
        BotchRule, (False, True), (False, True), (False, True)
    ):
        yield MAGE_REVISED.model_copy(
            update={
                "botch_rule": rule,
                "wp_eaten_by_threshold": eaten,
                "wp_cancellable_by_ones": cancellable,
                "wp_prevents_botch": prevents,
            }
        )


SWITCH_VARIANTS = tuple(_switch_variants())


def _assert_matches(ours: probability.D10Odds, oracle: Any, case: object) -> None:
    outcomes, successes = oracle
    for code in ("success", "failure", "botch"):
        assert abs(getattr(ours, code) - float(outcomes[code])) <= TOL, (case, code)
    nonzero = {s for s, p in ours.successes.items() if p}
    assert nonzero == set(successes), case
    for s, p in successes.items():
        assert abs(ours.successes[s] - float(p)) <= TOL, (case, s)


# --- icepool -------------------------------------------------------------------------------


@pytest.mark.parametrize("pool", range(1, 31))
def test_equals_icepool_on_the_grid(pool: int) -> None:
    """docs/product.md §5: identical to icepool for pools 1–30 × difficulties × botch rule × WP."""
    for difficulty, profile, willpower, threshold in itertools.product(
        range(2, 11), (MAGE_REVISED, DARK_AGES), (False, True), range(4)
    ):
        case = (pool, difficulty, profile.name, willpower, threshold)
        oracle = bench.joint_oracle(pool, difficulty, profile.botch_rule, willpower, threshold)
        ours = probability.d10(
            pool=pool,
            difficulty=difficulty,
            profile=profile,
            willpower=willpower,
            threshold=threshold,
        )
        _assert_matches(ours, oracle, case)


@pytest.mark.parametrize(
    ("pool", "difficulty", "botch_rule", "willpower", "threshold"),
    [
        (1, 2, BotchRule.RAW_ZERO, False, 0),
        (7, 6, BotchRule.RAW_ZERO, True, 1),
        (12, 9, BotchRule.NET_NEGATIVE, False, 2),
        (20, 10, BotchRule.NET_NEGATIVE, True, 3),
    ],
)
def test_both_icepool_oracles_agree(
    pool: int, difficulty: int, botch_rule: BotchRule, willpower: bool, threshold: int
) -> None:
    """The grid test judges icepool's joint law in Python; icepool's own ``map`` agrees."""
    mapped = bench.icepool_d10(pool, difficulty, botch_rule, willpower, threshold)
    judged = bench.joint_oracle(pool, difficulty, botch_rule, willpower, threshold)
    assert mapped[0] == judged[0]
    assert mapped[1] == judged[1]


# --- brute force through d10.resolve ---------------------------------------------------------


def _brute_force(
    faces_list: list[tuple[int, ...]],
    difficulty: int,
    profile: Profile,
    willpower: bool,
    threshold: int,
) -> tuple[dict[str, Fraction], dict[int, Fraction]]:
    outcomes: Counter[Outcome] = Counter()
    successes: Counter[int] = Counter()
    for faces in faces_list:
        result = d10.resolve(faces, difficulty, profile, willpower, threshold)
        outcomes[result.outcome] += 1
        successes[result.successes] += 1
    total = len(faces_list)
    return (
        {o.value: Fraction(outcomes[o], total) for o in (Outcome.SUCCESS, Outcome.FAILURE)}
        | {"botch": Fraction(outcomes[Outcome.BOTCH], total)},
        {s: Fraction(n, total) for s, n in successes.items()},
    )


def _variants_by_willpower() -> Iterator[tuple[bool, Profile]]:
    """Without Willpower ``resolve`` reads only the botch rule: one variant per rule will do."""
    yield from ((False, p) for p in SWITCH_VARIANTS[:: len(SWITCH_VARIANTS) // len(BotchRule)])
    yield from ((True, p) for p in SWITCH_VARIANTS)


def _d10(profile: Profile, pool: int, difficulty: int, willpower: bool, threshold: int) -> Any:
    return probability.d10(
        pool=pool, difficulty=difficulty, profile=profile, willpower=willpower, threshold=threshold
    )


@pytest.mark.parametrize("pool", range(3))
def test_brute_force_every_switch(pool: int) -> None:
    """All 10**pool faces through ``resolve`` for every switch combination and difficulty."""
    faces_list = list(itertools.product(range(1, 11), repeat=pool))
    for difficulty, (willpower, profile), threshold in itertools.product(
        range(2, 11), _variants_by_willpower(), range(pool + 2)
    ):
        exact = _brute_force(faces_list, difficulty, profile, willpower, threshold)
        case = (difficulty, profile.botch_rule, _switches(profile), willpower, threshold)
        _assert_matches(_d10(profile, pool, difficulty, willpower, threshold), exact, case)


def test_brute_force_three_dice_every_switch() -> None:
    """Three dice by sorted face multiset, each weighted by its number of orderings."""
    assert sum(orderings for _, orderings in _MULTISETS_3) == 1000
    for difficulty, (willpower, profile), threshold in itertools.product(
        (2, 3, 6, 9, 10), _variants_by_willpower(), range(5)
    ):
        exact = _brute_force_multisets(difficulty, profile, willpower, threshold)
        case = (difficulty, profile.botch_rule, _switches(profile), willpower, threshold)
        _assert_matches(_d10(profile, 3, difficulty, willpower, threshold), exact, case)


_MULTISETS_3 = [
    (faces, len(set(itertools.permutations(faces))))
    for faces in itertools.combinations_with_replacement(range(1, 11), 3)
]


def _brute_force_multisets(
    difficulty: int, profile: Profile, willpower: bool, threshold: int
) -> tuple[dict[str, Fraction], dict[int, Fraction]]:
    outcomes: Counter[str] = Counter()
    successes: Counter[int] = Counter()
    for faces, orderings in _MULTISETS_3:
        result = d10.resolve(faces, difficulty, profile, willpower, threshold)
        outcomes[result.outcome.value] += orderings
        successes[result.successes] += orderings
    return (
        {o: Fraction(outcomes[o], 1000) for o in ("success", "failure", "botch")},
        {s: Fraction(n, 1000) for s, n in successes.items()},
    )


def _switches(profile: Profile) -> tuple[object, ...]:
    return (
        profile.wp_eaten_by_threshold,
        profile.wp_cancellable_by_ones,
        profile.wp_prevents_botch,
    )


@pytest.mark.parametrize("pool", [3, 4])
@pytest.mark.parametrize("profile", D10_PROFILES, ids=lambda p: p.name)
def test_brute_force_named_profiles(profile: Profile, pool: int) -> None:
    """Every ordered face tuple of 3 and 4 dice through ``resolve``, profiles as shipped."""
    faces_list = list(itertools.product(range(1, 11), repeat=pool))
    for difficulty, willpower, threshold in ((6, False, 0), (8, True, 2), (10, False, 1)):
        exact = _brute_force(faces_list, difficulty, profile, willpower, threshold)
        ours = _d10(profile, pool, difficulty, willpower, threshold)
        _assert_matches(ours, exact, (difficulty, willpower, threshold))


# --- the texts' own figures (docs/rules.md §E.1) --------------------------------------------------


@pytest.mark.parametrize("pool", range(1, 21))
def test_t19_t23_difficulty_10_botch_parity_under_net_negative(pool: int) -> None:
    """T-19/T-23: S1 «шанс провала равен шансу получить успешные баллы» at difficulty 10.

    Under NET_NEGATIVE a 1 and a 10 are mirror images, so the counts are equal exactly.
    """
    odds = probability.d10(pool=pool, difficulty=10, profile=DARK_AGES)
    assert odds.success == odds.botch


@pytest.mark.parametrize(
    ("pool", "success", "botch"), [(1, 0.1, 0.1), (2, 0.17, 0.17), (3, 0.22, 0.217)]
)
def test_t19_raw_zero_parity_only_up_to_two_dice(pool: int, success: float, botch: float) -> None:
    """T-19 under S0's own RAW_ZERO rule: P(botch) = 0.9**n - 0.8**n, parity only for n <= 2."""
    odds = probability.d10(pool=pool, difficulty=10, profile=MAGE_REVISED)
    assert odds.success == pytest.approx(success, abs=TOL)
    assert odds.botch == pytest.approx(botch, abs=TOL)
    assert odds.botch == pytest.approx(0.9**pool - 0.8**pool, abs=TOL)


def test_t19_raw_zero_five_dice() -> None:
    odds = probability.d10(pool=5, difficulty=10, profile=MAGE_REVISED)
    assert round(odds.success, 4) == 0.2838
    assert round(odds.botch, 4) == 0.2628
    for pool in range(3, 21):
        odds = probability.d10(pool=pool, difficulty=10, profile=MAGE_REVISED)
        assert odds.success > odds.botch


def test_t23_three_dice_dark_ages() -> None:
    odds = probability.d10(pool=3, difficulty=10, profile=DARK_AGES)
    assert odds.success == pytest.approx(0.22, abs=TOL)
    assert odds.botch == pytest.approx(0.22, abs=TOL)
    assert odds.failure == pytest.approx(0.56, abs=TOL)


@pytest.mark.parametrize("profile", D10_PROFILES, ids=lambda p: p.name)
def test_t22_two_dice_difficulty_6(profile: Profile) -> None:
    """T-22: S1's «в 75 случаях из 100» is P(some die >= 6); after the rule of one it is 0.65.

    The botch is 0.09 under both rules: no 6+ and at least one 1 is 0.5**2 - 0.4**2.
    """
    odds = probability.d10(pool=2, difficulty=6, profile=profile)
    assert odds.success == pytest.approx(0.65, abs=TOL)
    assert odds.botch == pytest.approx(0.09, abs=TOL)
    assert odds.failure == pytest.approx(0.26, abs=TOL)
    assert odds.successes == pytest.approx({0: 0.35, 1: 0.40, 2: 0.25}, abs=TOL)
    # The text's 0.75 counts the 0.10 of "one 6+ and one 1" (2 * 0.5 * 0.1) as a success.
    assert odds.success + 2 * 0.5 * 0.1 == pytest.approx(0.75, abs=TOL)


def test_pool_zero_is_resolve_of_no_faces() -> None:
    """No dice: no 1 can botch; Willpower still gives its success unless threshold eats it."""
    plain = probability.d10(pool=0, difficulty=6, profile=MAGE)
    assert (plain.success, plain.failure, plain.botch) == (0.0, 1.0, 0.0)
    assert plain.successes == {0: 1.0}
    backed = probability.d10(pool=0, difficulty=6, profile=MAGE, willpower=True)
    assert (backed.success, backed.successes) == (1.0, {1: 1.0})
    eaten = probability.d10(pool=0, difficulty=6, profile=MAGE, willpower=True, threshold=1)
    assert (eaten.failure, eaten.successes) == (1.0, {0: 1.0})


def test_willpower_never_botches_with_default_switches() -> None:
    """AMB-A4 [P]: a Willpower-backed roll cannot botch (``wp_prevents_botch``)."""
    for profile in D10_PROFILES:
        odds = probability.d10(pool=5, difficulty=9, profile=profile, willpower=True, threshold=2)
        assert odds.botch == 0.0
        plain = probability.d10(pool=5, difficulty=9, profile=profile, threshold=2)
        assert plain.botch > 0.0
        assert odds.success > plain.success


def test_at_least_and_expected_successes() -> None:
    odds = probability.d10(pool=2, difficulty=6, profile=MAGE)
    assert odds.at_least(0) == pytest.approx(1.0, abs=TOL)
    assert odds.at_least(1) == pytest.approx(0.65, abs=TOL)
    assert odds.at_least(2) == pytest.approx(0.25, abs=TOL)
    assert odds.at_least(3) == 0.0
    assert odds.expected_successes == pytest.approx(0.9, abs=TOL)


# --- extended actions (§A.11) ----------------------------------------------------------------


def test_extended_single_success_needed_by_hand() -> None:
    """Pool 1, difficulty 6: each roll is 0.5 success, 0.1 botch, 0.4 failure."""
    odds = probability.extended(pool=1, difficulty=6, target=1, max_rolls=3, profile=MAGE)
    assert odds.by_roll == pytest.approx((0.5, 0.25, 0.125), abs=TOL)
    assert odds.complete == pytest.approx(0.875, abs=TOL)
    assert odds.botched == pytest.approx(0.5**3 - 0.4**3, abs=TOL)
    ended = probability.extended(
        pool=1, difficulty=6, target=1, max_rolls=3, profile=MAGE, botch_ends=True
    )
    assert ended.by_roll == pytest.approx((0.5, 0.2, 0.08), abs=TOL)
    assert ended.complete == pytest.approx(0.78, abs=TOL)
    assert ended.botched == pytest.approx(0.1 + 0.4 * 0.1 + 0.16 * 0.1, abs=TOL)


def test_extended_lose_all_versus_keep_by_hand() -> None:
    """Target 2 in 3 rolls of one die: a botch between two successes only hurts LOSE_ALL.

    KEEP: at least 2 successes in 3 fair trials = 0.5. LOSE_ALL: SS .25 + SFS .1 + FSS .1 +
    BSS .025 = 0.475 (SBS resets to zero and fails).
    """
    keep = MAGE.model_copy(update={"extended_botch": ExtendedBotch.KEEP})
    lose = probability.extended(pool=1, difficulty=6, target=2, max_rolls=3, profile=MAGE)
    kept = probability.extended(pool=1, difficulty=6, target=2, max_rolls=3, profile=keep)
    assert lose.complete == pytest.approx(0.475, abs=TOL)
    assert kept.complete == pytest.approx(0.5, abs=TOL)
    assert lose.by_roll == pytest.approx((0.0, 0.25, 0.225), abs=TOL)


def _extended_by_enumeration(
    pool: int,
    difficulty: int,
    target: int,
    max_rolls: int,
    profile: Profile,
    willpower: bool,
) -> tuple[Fraction, list[Fraction], Fraction]:
    """Every sequence of face tuples through ``d10.resolve`` and ``actions.extended_step``."""
    rolls = [
        d10.resolve(faces, difficulty, profile, willpower)
        for faces in itertools.product(range(1, 11), repeat=pool)
    ]
    total = Fraction(1, len(rolls) ** max_rolls)
    by_roll = [Fraction(0)] * max_rolls
    botched = Fraction(0)
    for sequence in itertools.product(rolls, repeat=max_rolls):
        state = actions.start_extended(target, max_rolls)
        ever_botched = False
        for k, roll in enumerate(sequence):
            state = actions.extended_step(state, roll, profile)
            ever_botched |= state.status is actions.ExtendedStatus.BOTCHED
            if state.status is actions.ExtendedStatus.COMPLETE:
                by_roll[k] += total
                break
        else:
            if ever_botched:
                botched += total
    return sum(by_roll, Fraction(0)), by_roll, botched


@pytest.mark.parametrize(
    ("pool", "difficulty", "target", "max_rolls", "willpower", "keep"),
    [
        (1, 6, 2, 4, False, False),
        (1, 6, 2, 4, False, True),
        (1, 4, 3, 4, True, False),
        (2, 7, 3, 2, False, False),
        (2, 8, 2, 2, True, True),
    ],
)
def test_extended_equals_enumeration_through_extended_step(
    pool: int, difficulty: int, target: int, max_rolls: int, willpower: bool, keep: bool
) -> None:
    profile = DARK_AGES.model_copy(
        update={"extended_botch": ExtendedBotch.KEEP if keep else ExtendedBotch.LOSE_ALL}
    )
    complete, by_roll, botched = _extended_by_enumeration(
        pool, difficulty, target, max_rolls, profile, willpower
    )
    odds = probability.extended(
        pool=pool,
        difficulty=difficulty,
        target=target,
        max_rolls=max_rolls,
        profile=profile,
        willpower=willpower,
    )
    assert odds.complete == pytest.approx(float(complete), abs=TOL)
    assert odds.by_roll == pytest.approx(tuple(float(p) for p in by_roll), abs=TOL)
    assert odds.botched == pytest.approx(float(botched), abs=TOL)


def test_extended_t13_yago_chain() -> None:
    """T-13 (pool 7, difficulty 9, target 5): a Markov chain in Fractions over ``d10``'s law."""
    roll = probability.d10(pool=7, difficulty=9, profile=MAGE)
    law = {s: Fraction(p).limit_denominator(10**7) for s, p in roll.successes.items()}
    botch = Fraction(roll.botch).limit_denominator(10**7)
    law[0] -= botch
    states = {0: Fraction(1)}
    done = Fraction(0)
    for _ in range(6):
        nxt: dict[int, Fraction] = {}
        for acc, p in states.items():
            for s, q in law.items():
                if acc + s >= 5:
                    done += p * q
                else:
                    nxt[acc + s] = nxt.get(acc + s, Fraction(0)) + p * q
            nxt[0] = nxt.get(0, Fraction(0)) + p * botch
        states = nxt
    odds = probability.extended(pool=7, difficulty=9, target=5, max_rolls=6, profile=MAGE)
    assert odds.complete == pytest.approx(float(done), abs=TOL)


# --- a seeded statistical check of d10.roll against the exact law ----------------------------


def _chi2_sf(x: float, df: int) -> float:
    """Upper tail of the chi-square law (closed forms by parity of ``df``)."""
    half = x / 2
    if df % 2 == 0:
        return math.exp(-half) * sum(half**i / math.factorial(i) for i in range(df // 2))
    tail = math.erfc(math.sqrt(half))
    for i in range(1, (df - 1) // 2 + 1):
        tail += math.exp((i - 0.5) * math.log(half) - half - math.lgamma(i + 0.5))
    return tail


def test_chi2_sf_known_values() -> None:
    assert _chi2_sf(3.841458820694124, 1) == pytest.approx(0.05, rel=1e-9)
    assert _chi2_sf(5.991464547107979, 2) == pytest.approx(0.05, rel=1e-9)
    assert _chi2_sf(11.070497693516351, 5) == pytest.approx(0.05, rel=1e-9)


@pytest.mark.parametrize(
    ("seed", "pool", "difficulty", "profile", "willpower", "threshold"),
    [
        (1, 5, 6, MAGE, False, 0),
        (2, 3, 10, MAGE_REVISED, False, 0),
        (3, 7, 8, DARK_AGES, False, 1),
        (4, 6, 7, DARK_AGES, True, 2),
    ],
    ids=lambda v: getattr(v, "name", str(v)),
)
def test_seeded_rolls_fit_the_exact_law(
    seed: int, pool: int, difficulty: int, profile: Profile, willpower: bool, threshold: int
) -> None:
    rng = random.Random(seed)
    n = 20_000
    outcomes: Counter[tuple[str, int]] = Counter()
    for _ in range(n):
        result = d10.roll(pool, difficulty, profile, willpower, threshold, rng=rng)
        outcomes[result.outcome.value, result.successes] += 1
    odds = probability.d10(
        pool=pool, difficulty=difficulty, profile=profile, willpower=willpower, threshold=threshold
    )
    # Cells: failure, botch, and each success count; rare tails merged so every cell >= 5.
    expected = {("failure", 0): odds.failure, ("botch", 0): odds.botch}
    expected |= {("success", s): p for s, p in odds.successes.items() if s > 0}
    assert set(outcomes) <= set(expected)
    cells: list[tuple[float, int]] = []
    tail_p, tail_n = 0.0, 0
    for key in sorted(expected, key=lambda k: (k[0] != "success", k[1])):
        p, observed = expected[key], outcomes[key]
        if p * n < 5 or (key[0] == "success" and tail_p):
            tail_p, tail_n = tail_p + p, tail_n + observed
        else:
            cells.append((p, observed))
    if tail_p:
        cells.append((tail_p, tail_n))
    cells = [(p, o) for p, o in cells if p > 0]
    chi2 = sum((o - n * p) ** 2 / (n * p) for p, o in cells)
    assert _chi2_sf(chi2, len(cells) - 1) > 1e-4, (chi2, cells)


# --- properties ------------------------------------------------------------------------------

pools = st.integers(0, 50)
difficulties = st.integers(2, 10)
thresholds = st.integers(0, 10)
d10_profiles = st.sampled_from(D10_PROFILES + SWITCH_VARIANTS)


@settings(max_examples=150, deadline=None)
@given(pools, difficulties, d10_profiles, st.booleans(), thresholds)
def test_a_law_of_probability(
    pool: int, difficulty: int, profile: Profile, willpower: bool, threshold: int
) -> None:
    odds = probability.d10(
        pool=pool, difficulty=difficulty, profile=profile, willpower=willpower, threshold=threshold
    )
    for p in (odds.success, odds.failure, odds.botch, *odds.successes.values()):
        assert 0.0 <= p <= 1.0
    assert odds.success + odds.failure + odds.botch == pytest.approx(1.0, abs=TOL)
    assert sum(odds.successes.values()) == pytest.approx(1.0, abs=TOL)
    # Success means at least one success; failure and botch both leave none (§A.4).
    assert odds.success == pytest.approx(odds.at_least(1), abs=TOL)
    assert odds.failure + odds.botch == pytest.approx(odds.successes.get(0, 0.0), abs=TOL)
    assert max(odds.successes) <= pool + (1 if willpower else 0)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 49),
    st.integers(3, 10),
    d10_profiles.filter(lambda p: not p.wp_cancellable_by_ones),
    st.booleans(),
    thresholds,
)
def test_more_dice_never_lower_the_chance_of_success(
    pool: int, difficulty: int, profile: Profile, willpower: bool, threshold: int
) -> None:
    """Holds from difficulty 3 up and while 1s cannot cancel Willpower (counterexamples below)."""
    fewer = probability.d10(pool, difficulty, profile, willpower, threshold)
    more = probability.d10(pool + 1, difficulty, profile, willpower, threshold)
    assert more.success >= fewer.success - TOL
    assert more.expected_successes >= fewer.expected_successes - TOL


def test_more_dice_can_lower_the_chance() -> None:
    """At difficulty 2 a die is 0.9 success, 0.1 one: 1 die succeeds 0.9, 2 dice only 0.81.

    And if 1s may cancel Willpower, a first die can only cost the sure Willpower success.
    """
    assert probability.d10(1, 2, MAGE).success == pytest.approx(0.9, abs=TOL)
    assert probability.d10(2, 2, MAGE).success == pytest.approx(0.81, abs=TOL)
    cancellable = MAGE.model_copy(update={"wp_cancellable_by_ones": True})
    assert probability.d10(0, 6, cancellable, willpower=True).success == 1.0
    assert probability.d10(1, 6, cancellable, willpower=True).success == pytest.approx(0.9)


@settings(max_examples=150, deadline=None)
@given(pools, st.integers(2, 9), d10_profiles, st.booleans(), st.integers(0, 9))
def test_harder_rolls_are_less_likely(
    pool: int, difficulty: int, profile: Profile, willpower: bool, threshold: int
) -> None:
    base = probability.d10(pool, difficulty, profile, willpower, threshold)
    assert probability.d10(pool, difficulty + 1, profile, willpower, threshold).success <= (
        base.success + TOL
    )
    assert probability.d10(pool, difficulty, profile, willpower, threshold + 1).success <= (
        base.success + TOL
    )


@settings(max_examples=100, deadline=None)
@given(
    st.integers(0, 12),
    difficulties,
    st.integers(1, 12),
    st.integers(1, 12),
    st.sampled_from(D10_PROFILES),
    st.booleans(),
)
def test_extended_properties(
    pool: int, difficulty: int, target: int, max_rolls: int, profile: Profile, willpower: bool
) -> None:
    odds = probability.extended(pool, difficulty, target, max_rolls, profile, willpower)
    assert len(odds.by_roll) == max_rolls
    assert 0.0 <= odds.complete <= 1.0
    assert 0.0 <= odds.botched <= 1.0 - odds.complete + TOL
    assert sum(odds.by_roll) == pytest.approx(odds.complete, abs=TOL)
    longer = probability.extended(pool, difficulty, target, max_rolls + 1, profile, willpower)
    assert longer.complete >= odds.complete - TOL
    keep = profile.model_copy(update={"extended_botch": ExtendedBotch.KEEP})
    kept = probability.extended(pool, difficulty, target, max_rolls, keep, willpower)
    assert kept.complete >= odds.complete - TOL
    ends = probability.extended(
        pool, difficulty, target, max_rolls, profile, willpower, botch_ends=True
    )
    assert ends.complete <= odds.complete + TOL
    if target == 1:
        single = probability.d10(pool, difficulty, profile, willpower)
        assert odds.by_roll[0] == pytest.approx(single.success, abs=TOL)


_bad_values = st.one_of(
    st.booleans(),
    st.floats(allow_nan=True),
    st.text(max_size=3),
    st.none(),
    st.integers(-1000, -1),
    st.integers(51, 10**6),
)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["pool", "difficulty", "threshold", "willpower"]), _bad_values)
def test_invalid_input_raises_rules_input_error(field: str, value: object) -> None:
    kwargs: dict[str, Any] = {"pool": 5, "difficulty": 6, "willpower": False, "threshold": 0}
    kwargs[field] = value
    if field == "willpower" and isinstance(value, bool):
        return  # a real bool is valid
    with pytest.raises(RulesInputError) as caught:
        probability.d10(profile=MAGE, **kwargs)
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("kwargs", "field", "code"),
    [
        ({"pool": 51}, "pool", ErrorCode.RANGE),
        ({"pool": -1}, "pool", ErrorCode.RANGE),
        ({"pool": True}, "pool", ErrorCode.TYPE),
        ({"difficulty": 1}, "difficulty", ErrorCode.RANGE),
        ({"difficulty": 11}, "difficulty", ErrorCode.RANGE),
        ({"difficulty": 6.0}, "difficulty", ErrorCode.TYPE),
        ({"threshold": -1}, "threshold", ErrorCode.RANGE),
        ({"willpower": 1}, "willpower", ErrorCode.TYPE),
        ({"profile": profiles.get("d6")}, "profile", ErrorCode.NOT_ALLOWED),
        ({"profile": "mage"}, "profile", ErrorCode.TYPE),
        (
            {"profile": MAGE.model_copy(update={"wp_auto_success": False}), "willpower": True},
            "willpower",
            ErrorCode.NOT_ALLOWED,
        ),
    ],
)
def test_invalid_d10_arguments(kwargs: dict[str, Any], field: str, code: ErrorCode) -> None:
    args: dict[str, Any] = {"pool": 5, "difficulty": 6, "profile": MAGE} | kwargs
    with pytest.raises(RulesInputError) as caught:
        probability.d10(**args)
    assert (caught.value.field, caught.value.code) == (field, code)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"target": 0}, "target"),
        ({"target": 101}, "target"),
        ({"max_rolls": 0}, "max_rolls"),
        ({"max_rolls": 1.5}, "max_rolls"),
        ({"botch_ends": 0}, "botch_ends"),
        ({"pool": 60}, "pool"),
    ],
)
def test_invalid_extended_arguments(kwargs: dict[str, Any], field: str) -> None:
    args: dict[str, Any] = {
        "pool": 5,
        "difficulty": 6,
        "target": 5,
        "max_rolls": 3,
        "profile": MAGE,
    } | kwargs
    with pytest.raises(RulesInputError) as caught:
        probability.extended(**args)
    assert caught.value.field == field


def test_results_are_fresh_values() -> None:
    """A caller editing the returned dict must not change the next answer (the law is cached)."""
    first = probability.d10(pool=3, difficulty=6, profile=MAGE)
    first.successes[0] = 42.0  # type: ignore[index]
    assert probability.d10(pool=3, difficulty=6, profile=MAGE).successes[0] != 42.0


def test_worst_case_extended_is_fast_enough() -> None:
    """The limits keep the chain cheap enough to answer a tap without a thread."""
    odds = probability.extended(
        pool=probability.EXTENDED_TARGET_MAX // 2,
        difficulty=6,
        target=probability.EXTENDED_TARGET_MAX,
        max_rolls=probability.EXTENDED_ROLLS_MAX,
        profile=MAGE,
    )
    assert 0.0 < odds.complete <= 1.0
