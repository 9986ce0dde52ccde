"""Opposed rolls, teamwork, house contests and the drinking duel (docs/rules.md §A.12–§A.15)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import d10
from rules.contests import (
    ContestKind,
    ContestState,
    DuelState,
    DuelTraits,
    Side,
    contest_step,
    drinking_duel_difficulty,
    drinking_duel_step,
    opposed,
    start_contest,
    start_extended_opposed,
    teamwork,
)
from rules.d10 import Outcome
from rules.errors import ErrorCode
from rules.profiles import DARK_AGES, HOUSE_MAGE, MAGE_REVISED, TeamBotch
from tests.rules.helpers import botched, hits, refused

FAST = settings(max_examples=150, deadline=None)


# --- opposed (§A.12) -----------------------------------------------------------------------


def test_t14_boxing_five_against_four_nets_one_and_no_knockdown() -> None:
    result = opposed(hits(5), hits(4))
    assert (result.winner, result.net) == (Side.A, 1)
    state = contest_step(start_extended_opposed(5), hits(5), hits(4))
    assert (state.total_a, state.finished) == (1, False)  # knockdown needs 5


def test_t15_yago_against_cass_four_against_two() -> None:
    yago = d10.roll(8, 7, MAGE_REVISED, faces=[7, 8, 9, 10, 2, 3, 4, 5])
    cass = d10.roll(6, 7, MAGE_REVISED, faces=[7, 8, 2, 3, 4, 5])
    result = opposed(yago, cass)
    assert (yago.successes, cass.successes) == (4, 2)
    assert (result.winner, result.net) == (Side.A, 2)


def test_g_a10_tie_has_no_winner() -> None:
    result = opposed(hits(3), hits(3))
    assert (result.winner, result.net) == (None, 0)


def test_opposed_reports_each_botch_separately() -> None:
    result = opposed(hits(2), botched())
    assert (result.winner, result.net, result.b_outcome) == (Side.A, 2, Outcome.BOTCH)


def test_g_a11_extended_opposed_first_to_five() -> None:
    state = start_extended_opposed(5)
    totals = []
    for a, b in [(3, 1), (2, 4), (5, 1)]:
        state = contest_step(state, hits(a), hits(b))
        totals.append((state.total_a, state.total_b))
    assert totals == [(2, 0), (2, 2), (6, 2)]
    assert (state.finished, state.winner) == (True, Side.A)
    refused(ErrorCode.STATE, contest_step, state, hits(1), hits(1))


def test_extended_opposed_botch_resets_only_that_side() -> None:
    state = ContestState(ContestKind.RACE_TO_N, target=9, subtract=True, total_a=4, total_b=3)
    after = contest_step(state, botched(), hits(1))
    assert (after.total_a, after.total_b) == (0, 4)


def test_race_both_reach_together_equal_totals_roll_again() -> None:
    state = ContestState(ContestKind.RACE_TO_N, target=5, subtract=False, total_a=3, total_b=3)
    tied = contest_step(state, hits(2), hits(2))
    assert (tied.finished, tied.winner) == (False, None)
    higher = contest_step(state, hits(3), hits(2))
    assert (higher.finished, higher.winner, higher.net) == (True, Side.A, 1)


# --- teamwork (§A.13) ----------------------------------------------------------------------


def test_t16_lorraine_search_team_reaches_five_nessa_finds_the_clue() -> None:
    yago = d10.resolve([7, 4, 1, 9, 8], 7, MAGE_REVISED)
    nessa = d10.resolve([2, 8, 10, 6, 6, 7], 7, MAGE_REVISED)
    jules = d10.resolve([5, 3, 4, 4], 7, MAGE_REVISED)
    team = teamwork([yago, nessa, jules], MAGE_REVISED, target=5)
    assert team.total == 5
    assert team.reached
    assert team.best_member == 1
    assert team.outcomes == (Outcome.SUCCESS, Outcome.SUCCESS, Outcome.FAILURE)


def test_teamwork_botch_member_only_by_default_ruins_all_as_variant() -> None:
    rolls = [hits(3), botched(), hits(2)]
    assert teamwork(rolls, MAGE_REVISED, target=5).total == 5
    ruins = MAGE_REVISED.model_copy(update={"team_botch": TeamBotch.RUINS_ALL})
    team = teamwork(rolls, ruins, target=5)
    assert (team.total, team.reached, team.best_member) == (0, False, 0)


def test_teamwork_nobody_scores() -> None:
    team = teamwork([hits(0), hits(0)], MAGE_REVISED)
    assert (team.total, team.reached, team.best_member) == (0, False, None)


def test_teamwork_rejects_invalid_input() -> None:
    refused(ErrorCode.TYPE, teamwork, [], MAGE_REVISED)
    refused(ErrorCode.TYPE, teamwork, [3], MAGE_REVISED)
    refused(ErrorCode.RANGE, teamwork, [hits(1)], MAGE_REVISED, target=0)


# --- house contests (§A.14) ----------------------------------------------------------------


def test_g_a12_house_race_to_five() -> None:
    state = start_contest(ContestKind.RACE_TO_N, target=5)
    state = contest_step(state, hits(2, HOUSE_MAGE), hits(3, HOUSE_MAGE))
    assert (state.total_a, state.total_b, state.finished) == (2, 3, False)
    state = contest_step(state, hits(3, HOUSE_MAGE), hits(1, HOUSE_MAGE))
    assert (state.total_a, state.total_b) == (5, 4)
    assert (state.finished, state.winner) == (True, Side.A)


def test_house_single_roll_is_opposed() -> None:
    state = contest_step(start_contest(ContestKind.SINGLE_ROLL), hits(2), hits(4))
    assert (state.finished, state.winner, state.net) == (True, Side.B, 2)


def test_house_fixed_rolls_without_subtraction_compares_sums() -> None:
    state = start_contest(ContestKind.FIXED_ROLLS, rolls=2, subtract=False)
    state = contest_step(state, hits(3), hits(1))
    state = contest_step(state, hits(0), hits(3))
    assert (state.total_a, state.total_b) == (3, 4)
    assert (state.finished, state.winner, state.net) == (True, Side.B, 1)


def test_house_fixed_rolls_with_subtraction_keeps_the_balance() -> None:
    state = start_contest(ContestKind.FIXED_ROLLS, rolls=2, subtract=True)
    state = contest_step(state, hits(3), hits(1))
    state = contest_step(state, hits(0), hits(3))
    assert (state.total_a, state.total_b) == (2, 3)
    assert (state.finished, state.winner, state.net) == (True, Side.B, 1)


def test_house_fixed_rolls_draw() -> None:
    state = start_contest(ContestKind.FIXED_ROLLS, rolls=1, subtract=False)
    state = contest_step(state, hits(2), hits(2))
    assert (state.finished, state.winner) == (True, None)


@pytest.mark.parametrize(
    ("kind", "kwargs", "code"),
    [
        (ContestKind.RACE_TO_N, {"target": 0}, ErrorCode.RANGE),
        (ContestKind.RACE_TO_N, {}, ErrorCode.RANGE),
        (ContestKind.FIXED_ROLLS, {"rolls": 0, "subtract": True}, ErrorCode.RANGE),
        (ContestKind.FIXED_ROLLS, {"rolls": 3}, ErrorCode.RANGE),
        (ContestKind.FIXED_ROLLS, {"rolls": 3, "subtract": 1}, ErrorCode.TYPE),
        ("race", {"target": 5}, ErrorCode.TYPE),
    ],
)
def test_start_contest_rejects_invalid_input(
    kind: Any, kwargs: dict[str, Any], code: ErrorCode
) -> None:
    refused(code, start_contest, kind, **kwargs)


@FAST
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=12))
def test_property_subtracting_contest_banks_the_running_difference(
    rounds: list[tuple[int, int]],
) -> None:
    state = start_contest(ContestKind.FIXED_ROLLS, rolls=len(rounds), subtract=True)
    for a, b in rounds:
        state = contest_step(state, hits(a), hits(b))
    # Without botches only one side's bank grows per roll, by the difference.
    assert state.total_a - state.total_b == sum(a - b for a, b in rounds)
    assert state.finished
    assert state.net == abs(state.total_a - state.total_b)


# --- drinking duel (§A.15) -----------------------------------------------------------------


def test_t25_drinking_duel_difficulties() -> None:
    opponent = DuelTraits(manipulation=2, stamina=3, willpower=6)
    assert [drinking_duel_difficulty(n, opponent) for n in (1, 2, 3, 4, 5, 9)] == [
        5,
        6,
        6,
        6,
        6,
        6,
    ]


def test_drinking_duel_difficulty_clamps_to_2_10() -> None:
    assert drinking_duel_difficulty(1, DuelTraits(manipulation=9, stamina=1, willpower=1)) == 10
    assert drinking_duel_difficulty(4, DuelTraits(manipulation=1, stamina=1, willpower=1)) == 2


def test_t25_win_at_a_lead_of_five() -> None:
    state = DuelState()
    state = drinking_duel_step(state, hits(3, DARK_AGES), hits(1, DARK_AGES))
    assert (state.lead, state.winner) == (2, None)
    state = drinking_duel_step(state, hits(3, DARK_AGES), hits(0, DARK_AGES))
    assert (state.total_a, state.total_b, state.lead, state.winner) == (6, 1, 5, Side.A)
    refused(ErrorCode.STATE, drinking_duel_step, state, hits(1), hits(1))


def test_t25_a_botch_wipes_that_drinkers_successes() -> None:
    state = DuelState(total_a=4, total_b=3, rolls_made=2)
    state = drinking_duel_step(state, hits(1, DARK_AGES), botched(DARK_AGES))
    assert (state.total_a, state.total_b, state.winner) == (5, 0, Side.A)


def test_drinking_duel_rejects_bad_input() -> None:
    refused(ErrorCode.RANGE, drinking_duel_difficulty, 0, DuelTraits(2, 3, 6))
    refused(ErrorCode.TYPE, drinking_duel_difficulty, 1, DuelTraits(2, 3.0, 6))  # type: ignore[arg-type]
    refused(ErrorCode.RANGE, drinking_duel_step, DuelState(total_a=-1), hits(1), hits(1))
