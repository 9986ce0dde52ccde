"""Difficulty, the threshold rule, retries and labels (docs/rules.md §A.3, §A.5, §A.8, §A.10)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.difficulty import (
    Difficulty,
    DifficultyLabel,
    difficulty_label,
    effective_difficulty,
    retry_difficulty,
)
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import DARK_AGES, HOUSE_MAGE, MAGE_REVISED, Profile, RetryPenalty

FAST = settings(max_examples=150, deadline=None)


def _d(difficulty: int, threshold: int = 0) -> Difficulty:
    return Difficulty(difficulty=difficulty, threshold=threshold)


def test_t12_father_michael_second_attempt_is_7_third_is_8() -> None:
    assert retry_difficulty(6, 2, MAGE_REVISED) == _d(7)
    assert retry_difficulty(6, 3, MAGE_REVISED) == _d(8)


def test_t12_first_attempt_has_no_penalty() -> None:
    assert retry_difficulty(6, 1, MAGE_REVISED) == _d(6)


def test_t17_mark_gillan_base_8_plus_2_becomes_9_threshold_1() -> None:
    assert effective_difficulty(8, [2], MAGE_REVISED) == _d(9, 1)


@pytest.mark.parametrize(
    ("base", "mods", "expected"),
    [(9, [3], _d(9, 3)), (10, [], _d(10, 0)), (10, [1], _d(10, 1)), (6, [4], _d(9, 1))],
)
def test_g_a05_threshold_rule(base: int, mods: list[int], expected: Difficulty) -> None:
    assert effective_difficulty(base, mods, MAGE_REVISED) == expected


def test_g_a05_dark_ages_has_no_threshold_and_clamps_to_10() -> None:
    assert effective_difficulty(8, [3], DARK_AGES) == _d(10, 0)


@pytest.mark.parametrize("profile", [MAGE_REVISED, DARK_AGES, HOUSE_MAGE])
def test_g_a05_negative_modifiers_clamp_to_2(profile: Profile) -> None:
    assert effective_difficulty(4, [-3], profile) == _d(2, 0)


def test_g_a08_retry_escalates_into_threshold_in_mage_and_clamps_in_dark_ages() -> None:
    assert retry_difficulty(6, 2, MAGE_REVISED) == _d(7)
    assert retry_difficulty(6, 3, MAGE_REVISED) == _d(8)
    assert retry_difficulty(6, 5, MAGE_REVISED) == _d(9, 1)
    assert retry_difficulty(6, 5, DARK_AGES) == _d(10, 0)


def test_retry_triangular_variant_and_none() -> None:
    triangular = MAGE_REVISED.model_copy(
        update={"retry_penalty": RetryPenalty.ESCALATING_TRIANGULAR}
    )
    assert [retry_difficulty(5, n, triangular).difficulty for n in (1, 2, 3)] == [5, 6, 8]
    none = MAGE_REVISED.model_copy(update={"retry_penalty": RetryPenalty.NONE})
    assert retry_difficulty(6, 4, none) == _d(6)


def test_explicit_threshold_without_changing_difficulty() -> None:
    # S0 «Вполне возможно действие со сложностью 6 и пороговым значением 3.»
    assert effective_difficulty(6, [], MAGE_REVISED, explicit_threshold=3) == _d(6, 3)
    assert effective_difficulty(8, [2], MAGE_REVISED, explicit_threshold=2) == _d(9, 3)


def test_effect_floor_of_3() -> None:
    assert effective_difficulty(4, [-3], MAGE_REVISED, floor=3) == _d(3)


def test_house_base_range_is_4_to_10_but_computed_bases_are_exempt() -> None:
    # S4 «Атрибут + Способность со сложностью [4-10]»; AMB-A2 exempts system-computed bases.
    with pytest.raises(RulesInputError) as info:
        effective_difficulty(3, [], HOUSE_MAGE)
    assert info.value.code is ErrorCode.RANGE
    assert effective_difficulty(3, [], MAGE_REVISED) == _d(3)
    assert effective_difficulty(3, [], HOUSE_MAGE, validate_base=False) == _d(3)


@pytest.mark.parametrize(
    ("args", "kwargs", "code"),
    [
        ((1, []), {}, ErrorCode.RANGE),
        ((11, []), {}, ErrorCode.RANGE),
        ((6.0, []), {}, ErrorCode.TYPE),
        ((True, []), {}, ErrorCode.TYPE),
        ((6, [11]), {}, ErrorCode.RANGE),
        ((6, [-11]), {}, ErrorCode.RANGE),
        ((6, [True]), {}, ErrorCode.TYPE),
        ((6, "1"), {}, ErrorCode.TYPE),
        ((6, []), {"explicit_threshold": -1}, ErrorCode.RANGE),
    ],
)
def test_effective_difficulty_rejects_invalid_input(
    args: tuple[Any, ...], kwargs: dict[str, Any], code: ErrorCode
) -> None:
    with pytest.raises(RulesInputError) as info:
        effective_difficulty(args[0], args[1], MAGE_REVISED, **kwargs)
    assert info.value.code is code


def test_retry_rejects_attempt_zero() -> None:
    with pytest.raises(RulesInputError) as info:
        retry_difficulty(6, 0, MAGE_REVISED)
    assert info.value.code is ErrorCode.RANGE


@pytest.mark.parametrize(
    ("difficulty", "label"),
    [
        (2, DifficultyLabel.TRIVIAL),
        (3, DifficultyLabel.EASY),
        (4, DifficultyLabel.ROUTINE),
        (5, DifficultyLabel.STRAIGHTFORWARD),
        (6, DifficultyLabel.STANDARD),
        (7, DifficultyLabel.CHALLENGING),
        (8, DifficultyLabel.DIFFICULT),
        (9, DifficultyLabel.EXTREMELY_DIFFICULT),
        (10, DifficultyLabel.ALMOST_IMPOSSIBLE),
    ],
)
def test_difficulty_labels_a5(difficulty: int, label: DifficultyLabel) -> None:
    assert difficulty_label(difficulty) is label


def test_difficulty_label_rejects_out_of_range() -> None:
    with pytest.raises(RulesInputError) as info:
        difficulty_label(1)
    assert info.value.code is ErrorCode.RANGE


@FAST
@given(
    st.integers(2, 10),
    st.lists(st.integers(-10, 10), max_size=4),
    st.integers(0, 5),
    st.sampled_from([MAGE_REVISED, DARK_AGES]),
)
def test_property_result_is_always_a_legal_difficulty(
    base: int, mods: list[int], explicit: int, profile: Profile
) -> None:
    r = effective_difficulty(base, mods, profile, explicit_threshold=explicit)
    assert 2 <= r.difficulty <= 10
    assert r.threshold >= explicit
    if not profile.threshold_rule:
        assert r.threshold == explicit
    raw = base + sum(mods)
    if 2 <= raw <= 9:
        assert r == _d(raw, explicit)
    if profile.threshold_rule and sum(mods) > 0:
        # Nothing is lost: every modifier point is either difficulty or threshold.
        assert r.difficulty + r.threshold - explicit == raw


@FAST
@given(st.integers(2, 10), st.integers(1, 8))
def test_property_retry_never_gets_easier(base: int, attempt: int) -> None:
    now = retry_difficulty(base, attempt, MAGE_REVISED)
    later = retry_difficulty(base, attempt + 1, MAGE_REVISED)
    assert (later.difficulty, later.threshold) >= (now.difficulty, now.threshold)
