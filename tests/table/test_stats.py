"""/stats: the chi-square p-value against known quantiles, verdicts, per-player aggregates."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table.stats import (
    ChatStats,
    RollEntry,
    Tally,
    Verdict,
    chat_stats,
    chi2_sf,
    face_counts,
    fairness,
    from_counters,
    regularized_gamma_q,
    tally,
)


@pytest.mark.parametrize(
    ("x", "df", "p"),
    [
        # Upper quantiles of the chi-square law as printed in statistical tables.
        (16.919, 9, 0.05),
        (11.070, 5, 0.05),
        (21.666, 9, 0.01),
        (27.877, 9, 0.001),
        (15.086, 5, 0.01),
        (20.515, 5, 0.001),
        (3.841, 1, 0.05),
        (4.168, 9, 0.90),
        (1.610, 5, 0.90),
    ],
)
def test_chi2_sf_against_table_quantiles(x: float, df: int, p: float) -> None:
    assert chi2_sf(x, df) == pytest.approx(p, abs=1e-4)


def test_chi2_sf_at_precise_quantiles() -> None:
    assert chi2_sf(16.918977604620448, 9) == pytest.approx(0.05, rel=1e-9)
    assert chi2_sf(11.070497693516351, 5) == pytest.approx(0.05, rel=1e-9)
    assert chi2_sf(21.665994333461924, 9) == pytest.approx(0.01, rel=1e-9)


@settings(max_examples=200, deadline=None)
@given(st.floats(0.0, 400.0), st.integers(1, 15))
def test_even_df_matches_the_poisson_closed_form(x: float, k: int) -> None:
    # For df = 2k, Q(k, y) = e^-y Σ_{i<k} y^i / i!  (y = x / 2): an independent formula.
    y = x / 2
    expected = math.exp(-y) * sum(y**i / math.factorial(i) for i in range(k))
    assert chi2_sf(x, 2 * k) == pytest.approx(expected, rel=1e-9, abs=1e-300)


@settings(max_examples=200, deadline=None)
@given(st.floats(0.0, 300.0), st.integers(0, 10))
def test_odd_df_matches_the_half_integer_closed_form(x: float, n: int) -> None:
    # Q(n + 1/2, y) = erfc(√y) + e^-y Σ_{k=1..n} y^(k-1/2) / Γ(k + 1/2): df = 9 is n = 4.
    y = x / 2
    tail = sum(y ** (k - 0.5) / math.gamma(k + 0.5) for k in range(1, n + 1))
    expected = math.erfc(math.sqrt(y)) + math.exp(-y) * tail
    assert chi2_sf(x, 2 * n + 1) == pytest.approx(expected, rel=1e-9, abs=1e-300)


@settings(max_examples=200, deadline=None)
@given(st.floats(0.0, 1400.0))
def test_df_one_matches_erfc(x: float) -> None:
    assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-9, abs=1e-300)


@settings(max_examples=200, deadline=None)
@given(st.floats(0.0, 200.0), st.floats(0.0, 200.0), st.integers(1, 30))
def test_sf_is_a_decreasing_probability(x1: float, x2: float, df: int) -> None:
    lo, hi = sorted((x1, x2))
    p_lo, p_hi = chi2_sf(lo, df), chi2_sf(hi, df)
    assert 0.0 <= p_hi <= p_lo <= 1.0


def test_gamma_q_edges() -> None:
    assert regularized_gamma_q(4.5, 0.0) == 1.0
    assert regularized_gamma_q(4.5, math.inf) == 0.0
    assert regularized_gamma_q(1.0, 3.0) == pytest.approx(math.exp(-3.0), rel=1e-12)
    assert 0.0 <= chi2_sf(10_000.0, 9) < 1e-300
    with pytest.raises(ValueError, match="positive"):
        regularized_gamma_q(0.0, 1.0)
    with pytest.raises(ValueError, match="non-negative"):
        regularized_gamma_q(1.0, -1.0)
    with pytest.raises(ValueError, match="df"):
        chi2_sf(1.0, 0)
    with pytest.raises(ValueError, match="df"):
        chi2_sf(1.0, True)


def test_face_counts() -> None:
    assert face_counts([1, 10, 10, 5]) == (1, 0, 0, 0, 1, 0, 0, 0, 0, 2)
    assert face_counts([6, 6, 1], 6) == (1, 0, 0, 0, 0, 2)
    for bad in ([0], [11], [True], [7.0]):
        with pytest.raises(ValueError, match="face"):
            face_counts(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="face"):
        face_counts([7], 6)
    with pytest.raises(ValueError, match="sides"):
        face_counts([1], 8)


def test_fairness_by_hand() -> None:
    # 60 d10 faces: 15 tens, 5 of each other face. Expected 6 each.
    counts = (5,) * 9 + (15,)
    found = fairness(counts)
    assert found.sides == 10
    assert found.total == 60
    assert found.df == 9
    assert found.expected_mean == 5.5
    assert found.mean == pytest.approx((5 * 45 + 15 * 10) / 60)
    assert found.chi_square == pytest.approx((9 * 1 + 81) / 6)  # 15.0
    assert found.p_value == pytest.approx(chi2_sf(15.0, 9))
    assert found.p_value == pytest.approx(0.0909, abs=1e-4)
    assert found.verdict is Verdict.LOOKS_FAIR


def test_perfectly_even_counts_have_p_one() -> None:
    found = fairness((10,) * 6)
    assert found.chi_square == 0.0
    assert found.p_value == 1.0
    assert found.mean == 3.5
    assert found.verdict is Verdict.LOOKS_FAIR


def test_uniform_rolls_mostly_look_fair() -> None:
    verdicts = []
    for seed in range(60):
        rng = random.Random(seed)
        faces = [rng.randint(1, 10) for _ in range(500)]
        verdicts.append(fairness(face_counts(faces)).verdict)
    # A fair die falls under p = 0.01 one time in a hundred: 60 checks allow a stray one.
    assert verdicts.count(Verdict.LOOKS_FAIR) >= 57
    assert Verdict.VERY_UNLIKELY not in verdicts
    assert Verdict.NOT_ENOUGH_DATA not in verdicts


def test_uniform_p_values_spread_out() -> None:
    # Under a fair die the p-value is itself uniform: about a tenth fall under 0.1.
    low = 0
    for seed in range(200):
        rng = random.Random(1000 + seed)
        p = fairness(face_counts([rng.randint(1, 6) for _ in range(300)], 6)).p_value
        assert p is not None
        low += p < 0.1
    assert 8 <= low <= 35


def test_loaded_die_is_very_unlikely() -> None:
    found = fairness(face_counts([10] * 100))
    assert found.mean == 10.0
    assert found.p_value is not None
    assert found.p_value < 1e-100
    assert found.verdict is Verdict.VERY_UNLIKELY


def test_a_mildly_weighted_die_is_caught_with_enough_rolls() -> None:
    rng = random.Random(7)
    faces = rng.choices(range(1, 11), weights=[1] * 9 + [2], k=3000)
    assert fairness(face_counts(faces)).verdict is Verdict.VERY_UNLIKELY


def test_verdict_bands_around_the_cuts() -> None:
    # 100 d10 faces, expected 10 each; chi-square = Σ (c - 10)² / 10.
    near = fairness((1, 5, 10, 10, 10, 10, 10, 10, 15, 19))
    assert near.chi_square == pytest.approx(21.2)
    assert near.p_value == pytest.approx(0.011791, abs=1e-6)
    assert near.verdict is Verdict.LOOKS_FAIR
    suspicious = fairness((0, 5, 10, 10, 10, 10, 10, 10, 15, 20))
    assert suspicious.chi_square == pytest.approx(25.0)
    assert suspicious.p_value == pytest.approx(0.002971, abs=1e-6)
    assert suspicious.verdict is Verdict.SUSPICIOUS
    extreme = fairness((0, 2, 10, 10, 10, 10, 10, 10, 18, 20))
    assert extreme.chi_square == pytest.approx(32.8)
    assert extreme.p_value is not None
    assert extreme.p_value < 0.001
    assert extreme.verdict is Verdict.VERY_UNLIKELY


def test_small_samples_are_not_enough_data() -> None:
    assert fairness((0,) * 10).verdict is Verdict.NOT_ENOUGH_DATA
    assert fairness((0,) * 10).p_value is None
    assert fairness((0,) * 10).mean is None
    # Even an absurd-looking small sample is not judged: 49 tens.
    assert fairness((0,) * 9 + (49,)).verdict is Verdict.NOT_ENOUGH_DATA
    assert fairness((0,) * 9 + (50,)).verdict is Verdict.VERY_UNLIKELY
    assert fairness((5,) * 5 + (4,)).verdict is Verdict.NOT_ENOUGH_DATA  # 29 d6 faces
    assert fairness((5,) * 6).verdict is Verdict.LOOKS_FAIR  # 30 d6 faces


@pytest.mark.parametrize(
    ("counts", "sides"),
    [((1,) * 8, None), ((1,) * 10, 6), ((1,) * 9 + (-1,), None), ((1,) * 9 + (True,), None)],
)
def test_fairness_rejects_bad_counts(counts: tuple[int, ...], sides: int | None) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - sides, length or count each has its message
        fairness(counts, sides)


def _entry(
    user_id: int, name: str, faces: list[int], successes: int, outcome: str
) -> dict[str, Any]:
    # The shape handlers/roll.py logs today.
    return {
        "user_id": user_id,
        "name": name,
        "pool": len(faces),
        "difficulty": 6,
        "threshold": 0,
        "willpower": False,
        "faces": faces,
        "successes": successes,
        "outcome": outcome,
        "attempt": 1,
    }


LOG: list[dict[str, Any]] = [  # newest first, as Store.recent_rolls returns it
    _entry(1, "Анна", [10, 7, 1], 1, "success"),
    _entry(2, "Boris", [1, 1, 3], 0, "botch"),
    _entry(1, "Аня", [6, 6, 6, 6], 4, "success"),
    _entry(1, "Аня", [], 1, "auto_success"),
    {**_entry(3, "Вера", [6, 5], 1, "success"), "sides": 6},
    _entry(2, "Boris", [2, 5], 0, "failure"),
    {"user_id": 4, "faces": [11], "successes": 0, "outcome": "failure"},  # face off the die
    {"user_id": True, "faces": [], "successes": 0, "outcome": "failure"},
    "garbage",  # type: ignore[list-item]
    {"user_id": 5, "name": "X", "faces": [3], "successes": 0},  # no outcome
]


def test_aggregates_on_a_hand_made_log() -> None:
    found = chat_stats(LOG)
    assert found.rolls == 6
    assert found.skipped == 4
    assert found.outcomes == {"success": 3, "botch": 1, "auto_success": 1, "failure": 1}
    anna, boris, vera = found.players
    assert (anna.user_id, anna.name, anna.rolls) == (1, "Анна", 3)
    assert anna.dice_rolled == 7
    assert anna.successes == 6
    assert anna.mean_successes == 2.0
    assert anna.outcomes == {"success": 2, "auto_success": 1}
    assert set(anna.dice) == {10}
    assert anna.dice[10].counts == (1, 0, 0, 0, 0, 4, 1, 0, 0, 1)
    assert anna.dice[10].mean == pytest.approx(42 / 7)
    assert anna.dice[10].verdict is Verdict.NOT_ENOUGH_DATA
    assert (boris.user_id, boris.rolls, boris.successes, boris.mean_successes) == (2, 2, 0, 0.0)
    assert boris.outcomes == {"botch": 1, "failure": 1}
    assert boris.dice[10].counts == (2, 1, 1, 0, 1, 0, 0, 0, 0, 0)
    assert (vera.user_id, vera.rolls) == (3, 1)
    assert set(vera.dice) == {6}
    assert vera.dice[6].counts == (0, 0, 0, 0, 1, 1)
    assert vera.dice[6].expected_mean == 3.5
    assert set(found.dice) == {6, 10}
    assert found.dice[10].total == 12
    assert found.dice[10].counts == (3, 1, 1, 0, 1, 4, 1, 0, 0, 1)
    assert found.dice[6].total == 2


def test_empty_log() -> None:
    found = chat_stats([])
    assert found.players == ()
    assert found.rolls == 0
    assert found.dice == {}


def test_many_fair_rolls_per_player() -> None:
    rng = random.Random(3)
    log = []
    for i in range(120):
        faces = [rng.randint(1, 10) for _ in range(6)]
        log.append(_entry(i % 2, f"p{i % 2}", faces, sum(f >= 6 for f in faces), "success"))
    found = chat_stats(log)
    assert [p.rolls for p in found.players] == [60, 60]
    assert [p.user_id for p in found.players] == [0, 1]
    assert found.dice[10].total == 720
    assert found.dice[10].verdict is Verdict.LOOKS_FAIR
    assert all(p.dice[10].verdict is Verdict.LOOKS_FAIR for p in found.players)


@pytest.mark.parametrize(
    "raw",
    [
        {"user_id": 1, "faces": [3], "successes": 0, "outcome": "failure", "sides": 8},
        {"user_id": 1, "faces": [3], "successes": 0, "outcome": "failure", "sides": True},
        {"user_id": 1, "faces": [True], "successes": 0, "outcome": "failure"},
        {"user_id": 1, "faces": "3", "successes": 0, "outcome": "failure"},
        {"user_id": 1, "faces": [3], "successes": 0.0, "outcome": "failure"},
        {"user_id": 1, "faces": [3], "successes": 0, "outcome": "failure", "name": 5},
        {"user_id": "1", "faces": [3], "successes": 0, "outcome": "failure"},
    ],
)
def test_damaged_entries_are_refused(raw: dict[str, Any]) -> None:
    assert RollEntry.from_log(raw) is None


def test_entry_defaults() -> None:
    entry = RollEntry.from_log({"user_id": 9, "faces": [10], "successes": 1, "outcome": "x"})
    assert entry == RollEntry(user_id=9, name="", faces=(10,), successes=1, outcome="x", sides=10)


# ----- the campaign's counters -----


def as_hash(tally: Tally) -> dict[str, str]:
    """The counters' hash as Redis hands it back after the tally was added to an empty one."""
    return {**{k: str(v) for k, v in tally.counts.items()}, **tally.names}


def same_stats(found: ChatStats, expected: ChatStats) -> None:
    assert found.rolls == expected.rolls
    assert found.outcomes == expected.outcomes
    assert found.dice == expected.dice
    assert found.players == expected.players


def test_counters_say_what_the_log_says() -> None:
    counted = tally(reversed(LOG))  # written oldest first
    same_stats(from_counters(as_hash(counted)), chat_stats(LOG))
    assert counted.names == {"n:1": "Анна", "n:2": "Boris", "n:3": "Вера"}  # the newest names


def test_counters_of_batches_add_up() -> None:
    oldest_first = list(reversed(LOG))
    batches = tally(oldest_first[:3]) + tally(oldest_first[3:7]) + tally(oldest_first[7:])
    assert batches == tally(oldest_first)


def test_a_follow_up_counts_its_fresh_dice_only() -> None:
    first = {**_entry(1, "Аня", [6, 2], 1, "success"), "system": "d6", "measures": 1}
    again = {**first, "faces": [6, 5], "fresh": [5]}  # the special effort rerolled the 2
    counted = tally([first, again])
    assert counted.counts["r:1"] == 1
    assert (counted.counts["f:1:6:6"], counted.counts["f:1:6:5"]) == (1, 1)
    assert counted.counts["f:1:6:2"] == 1
    same_stats(from_counters(as_hash(counted)), chat_stats([again, first]))


def test_a_player_only_followed_up_has_no_average_to_divide() -> None:
    again = {**_entry(1, "Аня", [6], 1, "success"), "sides": 6, "fresh": [6]}
    [alone] = from_counters(as_hash(tally([again]))).players
    assert (alone.rolls, alone.mean_successes, alone.dice_rolled) == (0, 0.0, 1)
    assert chat_stats([again]).players[0].mean_successes == 0.0


def test_a_renamed_player_is_one_player_under_the_newest_name() -> None:
    counted = tally([_entry(7, "Аня", [1], 0, "failure"), _entry(7, "Анна", [2], 0, "failure")])
    [player] = from_counters(as_hash(counted)).players
    assert (player.user_id, player.name, player.rolls) == (7, "Анна", 2)


def test_damaged_counters_count_for_nothing() -> None:
    fields = {
        "r:1": "2",
        "s:1": "x",
        "o:1:success": "2",
        "f:1:10:3": "5",
        "f:1:10:11": "4",  # off the die
        "f:1:8:3": "4",  # no such die
        "r:abc": "9",
        "zz:1": "3",
        "n:1": "Аня",
        "logged": "12",
        "seeded": "1",
    }
    [player] = from_counters(fields).players
    assert (player.name, player.rolls, player.successes, player.dice_rolled) == ("Аня", 2, 0, 5)
    assert player.dice[10].counts == (0, 0, 5, 0, 0, 0, 0, 0, 0, 0)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(1, 4),
            st.sampled_from([6, 10]),
            st.lists(st.integers(1, 6), max_size=8),
            st.integers(0, 5),
            st.sampled_from(["success", "failure", "botch"]),
            st.booleans(),
        ),
        max_size=40,
    ),
    st.integers(0, 40),
)
def test_counters_agree_with_the_log_however_it_is_split(rolls: list[Any], cut: int) -> None:
    entries: list[dict[str, Any]] = []
    for user, sides, faces, successes, outcome, fresh in rolls:
        entry = {**_entry(user, f"p{user}", faces, successes, outcome), "sides": sides}
        entries.append({**entry, "fresh": faces[:1]} if fresh else entry)
    counted = tally(entries[:cut]) + tally(entries[cut:])
    same_stats(from_counters(as_hash(counted)), chat_stats(list(reversed(entries))))


def test_the_counters_do_not_grow_with_the_rolls() -> None:
    rng = random.Random(5)
    total = Tally()
    for i in range(3000):
        faces = [rng.randint(1, 10) for _ in range(rng.randint(1, 9))]
        outcome = rng.choice(["success", "failure", "botch"])
        total += tally([_entry(i % 3, f"p{i % 3}", faces, 1, outcome)])
    fields = as_hash(total)
    assert len(fields) <= 3 * (1 + 1 + 3 + 10 + 1)  # rolls, successes, outcomes, faces, name
    found = from_counters(fields)
    assert found.rolls == 3000
    assert found.dice[10].verdict is Verdict.LOOKS_FAIR
