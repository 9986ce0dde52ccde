"""Exact d6 probabilities (rules.d6.probability) against icepool and brute-force enumeration."""

from __future__ import annotations

import itertools
from fractions import Fraction

import icepool
import pytest

from rules.d6 import probability as prob
from rules.errors import RulesInputError

MEASURE = icepool.d6.map(lambda f: 1 if f >= 5 else 0)
# Special effort modelled independently: a die that is not 5–6 is replaced by a fresh d6.
MEASURE_EFFORT = icepool.d6.map(lambda f: 1 if f >= 5 else MEASURE)


def _oracle(n: int, effort: bool) -> icepool.Die:
    return (MEASURE_EFFORT if effort else MEASURE).pool(n).sum()


@pytest.mark.parametrize("effort", [False, True])
@pytest.mark.parametrize("n", range(1, 21))
def test_distribution_matches_icepool(n: int, effort: bool) -> None:
    ours = prob.measures_distribution(n, special_effort=effort)
    oracle = _oracle(n, effort)
    assert len(ours) == n + 1
    assert sum(ours) == 1
    for k, p in enumerate(ours):
        assert abs(float(p) - float(oracle.probability(k))) < 1e-12
    assert abs(float(prob.p_fiasco(n, effort)) - float(oracle.probability(0))) < 1e-12
    for required in (1, 2, 3, n):
        expected = oracle.probability(">=", required)
        assert abs(float(prob.p_success(n, required, effort)) - float(expected)) < 1e-12


def _enumerate(n: int, effort: bool) -> list[Fraction]:
    """Every sequence of faces, and with effort every reroll of the dice that showed 1–4."""
    dist = [Fraction(0)] * (n + 1)
    for faces in itertools.product(range(1, 7), repeat=n):
        base = sum(1 for f in faces if f >= 5)
        misses = n - base
        weight = Fraction(1, 6**n)
        if not effort:
            dist[base] += weight
            continue
        for again in itertools.product(range(1, 7), repeat=misses):
            dist[base + sum(1 for f in again if f >= 5)] += weight / 6**misses
    return dist


@pytest.mark.parametrize("n", range(0, 5))
def test_brute_force_small_pools(n: int) -> None:
    assert list(prob.measures_distribution(n)) == _enumerate(n, False)
    assert list(prob.measures_distribution(n, special_effort=True)) == _enumerate(n, True)


def test_known_values() -> None:
    assert prob.p_fiasco(1) == Fraction(2, 3)
    assert prob.p_fiasco(3) == Fraction(8, 27)
    assert prob.p_fiasco(2, special_effort=True) == Fraction(16, 81)
    assert prob.p_success(2, 2) == Fraction(1, 9)
    assert prob.p_success(2, 3) == 0
    assert prob.p_success(2, 0) == 1
    assert prob.p_effort_needed(1) == Fraction(2, 3)
    assert prob.measures_distribution(0) == (Fraction(1),)


def test_large_chance_stays_exact() -> None:
    d = prob.measures_distribution(30, special_effort=True)
    assert sum(d) == 1
    assert d[30] == Fraction(5, 9) ** 30


def test_contest_odds_sum_to_one_and_are_symmetric() -> None:
    win, tie, lose = prob.p_contest(3, 3)
    assert win + tie + lose == 1
    assert win == lose
    # 1 die each: tie when both or neither measure: 1/9 + 4/9.
    assert prob.p_contest(1, 1) == (Fraction(2, 9), Fraction(5, 9), Fraction(2, 9))


def test_invalid_inputs() -> None:
    for bad in (-1, True, 2.0, prob.N_MAX + 1):
        with pytest.raises(RulesInputError):
            prob.measures_distribution(bad)  # type: ignore[arg-type]
    with pytest.raises(RulesInputError):
        prob.p_success(3, 1, special_effort=1)  # type: ignore[arg-type]
