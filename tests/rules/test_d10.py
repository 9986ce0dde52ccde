"""One d10 roll against docs/rules.md §A.1–§A.7 and the §E.1 / §E.2 vectors (MAGE_REV unless
named)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import d10
from rules.d10 import Degree, Outcome
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import DARK_AGES, HOUSE_MAGE, MAGE_REVISED, BotchRule, Profile
from tests.rules.helpers import refused

PROFILES = (MAGE_REVISED, DARK_AGES, HOUSE_MAGE)
FAST = settings(max_examples=150, deadline=None)


# --- §E.1 text vectors ---------------------------------------------------------------------


def test_t04_three_successes_at_difficulty_6() -> None:
    r = d10.resolve([2, 3, 4, 5, 8, 9, 10], difficulty=6, profile=MAGE_REVISED)
    assert (r.raw_successes, r.ones, r.successes) == (3, 0, 3)
    assert r.outcome is Outcome.SUCCESS
    assert r.degree is Degree.COMPLETE  # «Полный»


def test_t05_raven_no_successes_no_ones_is_failure_not_botch() -> None:
    r = d10.resolve([2, 7, 6, 4, 5], difficulty=8, profile=MAGE_REVISED)
    assert (r.successes, r.ones) == (0, 0)
    assert r.outcome is Outcome.FAILURE
    assert r.degree is None


@pytest.mark.parametrize("profile", [MAGE_REVISED, DARK_AGES], ids=["raw_zero", "net_negative"])
def test_t06_three_successes_three_ones_is_failure_under_both_rules(profile: Profile) -> None:
    r = d10.resolve([6, 7, 8, 1, 1, 1], difficulty=6, profile=profile)
    assert (r.net, r.successes) == (0, 0)
    assert r.outcome is Outcome.FAILURE


def test_t07_no_successes_no_ones_is_failure() -> None:
    assert d10.resolve([2, 3, 4], 6, MAGE_REVISED).outcome is Outcome.FAILURE


@pytest.mark.parametrize(
    ("profile", "expected"),
    [(MAGE_REVISED, Outcome.FAILURE), (HOUSE_MAGE, Outcome.FAILURE), (DARK_AGES, Outcome.BOTCH)],
    ids=["mage-revised", "mage", "dark-ages"],
)
def test_t08_eight_ones_one_success_is_the_key_contrast(
    profile: Profile, expected: Outcome
) -> None:
    r = d10.resolve([1, 1, 1, 1, 1, 1, 1, 1, 7], 6, profile)
    assert r.outcome is expected
    assert r.successes == 0


@pytest.mark.parametrize("profile", [MAGE_REVISED, DARK_AGES], ids=["raw_zero", "net_negative"])
def test_t09_no_success_and_a_one_is_a_botch_under_both_rules(profile: Profile) -> None:
    r = d10.resolve([1, 3, 5], 6, profile)
    assert r.outcome is Outcome.BOTCH
    assert r.botch_severity == 1


@pytest.mark.parametrize(("faces", "severity"), [([1, 2, 3], 1), ([1, 1, 1, 1, 4], 4)])
def test_t10_botch_severity_counts_the_ones(faces: list[int], severity: int) -> None:
    r = d10.resolve(faces, 6, MAGE_REVISED)
    assert r.outcome is Outcome.BOTCH
    assert r.botch_severity == severity


def test_t13_yago_first_day_two_raw_one_one_gives_one() -> None:
    r = d10.roll(7, 9, MAGE_REVISED, faces=[1, 9, 10, 3, 5, 6, 6])
    assert (r.raw_successes, r.ones, r.successes) == (2, 1, 1)


def test_t16_teamwork_member_rolls() -> None:
    yago = d10.roll(5, 7, MAGE_REVISED, faces=[7, 4, 1, 9, 8])
    nessa = d10.roll(6, 7, MAGE_REVISED, faces=[2, 8, 10, 6, 6, 7])
    jules = d10.roll(4, 7, MAGE_REVISED, faces=[5, 3, 4, 4])
    assert (yago.raw_successes, yago.ones, yago.successes) == (3, 1, 2)
    assert nessa.successes == 3  # 8, 10, 7; the 6s miss at 7
    assert jules.successes == 0
    assert jules.outcome is Outcome.FAILURE


def test_t17_mark_gillan_four_successes_minus_threshold_one() -> None:
    r = d10.resolve([9, 9, 10, 9, 3], difficulty=9, profile=MAGE_REVISED, threshold=1)
    assert r.raw_successes == 4
    assert r.successes == 3
    assert r.outcome is Outcome.SUCCESS


@pytest.mark.parametrize(
    ("faces", "successes", "outcome"),
    [
        ([6, 6, 6, 6], 1, Outcome.SUCCESS),  # a) «минимум четыре шестерки»
        ([6, 6, 6, 2], 0, Outcome.FAILURE),  # b) the threshold alone never botches
        ([6, 6, 6, 1], 0, Outcome.BOTCH),  # c) threshold took everything and a 1 is present
        ([6, 6, 6, 6, 1], 0, Outcome.FAILURE),  # d) 4 - 3 = 1, then the 1 cancels it
    ],
    ids=["a", "b", "c", "d"],
)
def test_t18_difficulty_6_threshold_3(faces: list[int], successes: int, outcome: Outcome) -> None:
    r = d10.resolve(faces, 6, MAGE_REVISED, threshold=3)
    assert (r.successes, r.outcome) == (successes, outcome)


def test_t21_dark_ages_two_successes_moderate() -> None:
    r = d10.resolve([2, 3, 6, 5, 9], 6, DARK_AGES)
    assert r.successes == 2
    assert r.degree is Degree.MODERATE  # «Средний»


@pytest.mark.parametrize(
    ("successes", "degree"),
    [(1, Degree.MARGINAL), (3, Degree.COMPLETE), (5, Degree.PHENOMENAL)],
)
def test_t28_dark_ages_degree_codes(successes: int, degree: Degree) -> None:
    # Сомнительный / Полный / Невероятный in the S1 label set
    r = d10.resolve([10] * successes, 6, DARK_AGES)
    assert r.degree is degree
    assert DARK_AGES.labels.value == "s1"


def test_degree_table_and_beyond_five() -> None:
    assert [d10.degree(n) for n in range(0, 8)] == [
        None,
        Degree.MARGINAL,
        Degree.MODERATE,
        Degree.COMPLETE,
        Degree.EXCEPTIONAL,
        Degree.PHENOMENAL,
        Degree.PHENOMENAL,
        Degree.PHENOMENAL,
    ]


# --- §E.2 derived vectors ------------------------------------------------------------------


def test_g_a01_one_success_two_ones() -> None:
    assert d10.resolve([1, 1, 6], 6, MAGE_REVISED).outcome is Outcome.FAILURE
    assert d10.resolve([1, 1, 6], 6, DARK_AGES).outcome is Outcome.BOTCH


@pytest.mark.parametrize("faces", [[1, 3], [6, 1, 1]])
def test_g_a02_willpower_success_survives_ones_and_prevents_botch(faces: list[int]) -> None:
    r = d10.resolve(faces, 6, MAGE_REVISED, willpower=True)
    assert r.successes == 1
    assert r.outcome is Outcome.SUCCESS


def test_g_a02_house_willpower_success_is_not_cancelled() -> None:
    # S4 «Этот успех нельзя отменить или отнять единичкой!»
    assert d10.resolve([1, 1, 1], 6, HOUSE_MAGE, willpower=True).successes == 1


def test_g_a03_leftover_threshold_eats_the_willpower_success() -> None:
    r = d10.resolve([3, 4], 6, MAGE_REVISED, willpower=True, threshold=1)
    assert r.successes == 0
    assert r.outcome is Outcome.FAILURE


def test_g_a03_without_a_threshold_the_same_dice_get_the_willpower_success() -> None:
    assert d10.resolve([3, 4], 6, MAGE_REVISED, willpower=True).successes == 1


def test_g_a06_threshold_then_ones() -> None:
    first = d10.resolve([9, 9, 1], 9, MAGE_REVISED, threshold=1)
    assert (first.successes, first.outcome) == (0, Outcome.FAILURE)
    assert d10.resolve([9, 1], 9, MAGE_REVISED, threshold=1).outcome is Outcome.BOTCH


def test_g_a15_faces_must_match_the_pool() -> None:
    refused(ErrorCode.FACES_LEN, d10.roll, 3, 6, MAGE_REVISED, faces=[1, 2])


def test_g_a15_zero_is_ten_and_eleven_is_not_a_face() -> None:
    assert d10.parse_face(0) == 10
    assert d10.resolve([0, 5], 6, MAGE_REVISED).faces == (10, 5)
    refused(ErrorCode.FACE_VALUE, d10.resolve, [0, 5, 11], 6, MAGE_REVISED)


# --- other behaviour -----------------------------------------------------------------------


def test_roll_uses_the_injected_rng_and_is_repeatable() -> None:
    a = d10.roll(6, 6, MAGE_REVISED, rng=random.Random(7))
    b = d10.roll(6, 6, MAGE_REVISED, rng=random.Random(7))
    assert a == b
    assert len(a.faces) == 6
    assert all(1 <= f <= 10 for f in a.faces)


def test_willpower_cancellable_variant_lets_ones_take_it() -> None:
    variant = MAGE_REVISED.model_copy(update={"wp_cancellable_by_ones": True})
    assert d10.resolve([1, 3], 6, variant, willpower=True).successes == 0


def test_willpower_refused_when_the_profile_has_no_willpower_successes() -> None:
    variant = MAGE_REVISED.model_copy(update={"wp_auto_success": False})
    refused(ErrorCode.NOT_ALLOWED, d10.resolve, [6], 6, variant, willpower=True)


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"faces": [6, 11]}, ErrorCode.FACE_VALUE),
        ({"faces": [6, -1]}, ErrorCode.FACE_VALUE),
        ({"faces": [6, 6.0]}, ErrorCode.TYPE),
        ({"faces": [True]}, ErrorCode.TYPE),
        ({"faces": "66"}, ErrorCode.TYPE),
        ({"difficulty": 1}, ErrorCode.RANGE),
        ({"difficulty": 11}, ErrorCode.RANGE),
        ({"difficulty": 6.0}, ErrorCode.TYPE),
        ({"difficulty": True}, ErrorCode.TYPE),
        ({"threshold": -1}, ErrorCode.RANGE),
        ({"willpower": 1}, ErrorCode.TYPE),
        ({"faces": [6] * 51}, ErrorCode.RANGE),
    ],
)
def test_resolve_rejects_invalid_input(kwargs: dict[str, Any], code: ErrorCode) -> None:
    args: dict[str, Any] = {"faces": [6, 1], "difficulty": 6, "profile": MAGE_REVISED}
    args.update(kwargs)
    refused(code, d10.resolve, **args)


@pytest.mark.parametrize(
    ("pool", "code"), [(0, ErrorCode.RANGE), (-2, ErrorCode.RANGE), (51, ErrorCode.RANGE)]
)
def test_roll_rejects_bad_pools(pool: int, code: ErrorCode) -> None:
    refused(code, d10.roll, pool, 6, MAGE_REVISED)


def test_roll_rejects_bool_pool() -> None:
    refused(ErrorCode.TYPE, d10.roll, True, 6, MAGE_REVISED)


# --- properties ----------------------------------------------------------------------------

faces_st = st.lists(st.integers(1, 10), min_size=1, max_size=15)
profile_st = st.sampled_from(PROFILES)


@FAST
@given(faces_st, st.integers(2, 10), st.integers(0, 5), st.booleans(), profile_st)
def test_property_outcome_matches_successes(
    faces: list[int], difficulty: int, threshold: int, wp: bool, profile: Profile
) -> None:
    r = d10.resolve(faces, difficulty, profile, willpower=wp, threshold=threshold)
    assert r.successes >= 0
    assert (r.outcome is Outcome.SUCCESS) == (r.successes > 0)
    assert r.degree == d10.degree(r.successes)
    assert (r.botch_severity > 0) == (r.outcome is Outcome.BOTCH)
    if r.outcome is Outcome.BOTCH:
        assert r.ones >= 1
        assert r.botch_severity == r.ones
    assert r.raw_successes == sum(1 for f in faces if f >= difficulty)


@FAST
@given(faces_st, st.integers(2, 10), st.integers(0, 5), profile_st)
def test_property_willpower_rolls_never_botch_and_add_at_most_one(
    faces: list[int], difficulty: int, threshold: int, profile: Profile
) -> None:
    plain = d10.resolve(faces, difficulty, profile, threshold=threshold)
    wp = d10.resolve(faces, difficulty, profile, willpower=True, threshold=threshold)
    assert wp.outcome is not Outcome.BOTCH
    assert plain.successes <= wp.successes <= plain.successes + 1


@FAST
@given(faces_st, st.integers(2, 10), st.integers(0, 5))
def test_property_raw_zero_botch_implies_net_negative_botch(
    faces: list[int], difficulty: int, threshold: int
) -> None:
    raw_zero = d10.resolve(faces, difficulty, MAGE_REVISED, threshold=threshold)
    net_negative = d10.resolve(faces, difficulty, DARK_AGES, threshold=threshold)
    # Zero successes with a 1 present always leaves a 1 after cancelling; not the converse (T-08).
    if raw_zero.outcome is Outcome.BOTCH:
        assert net_negative.outcome is Outcome.BOTCH
    assert raw_zero.successes == net_negative.successes


@FAST
@given(faces_st, st.integers(2, 10), st.integers(0, 5), st.booleans(), profile_st)
def test_property_more_threshold_never_adds_successes(
    faces: list[int], difficulty: int, threshold: int, wp: bool, profile: Profile
) -> None:
    lower = d10.resolve(faces, difficulty, profile, willpower=wp, threshold=threshold)
    higher = d10.resolve(faces, difficulty, profile, willpower=wp, threshold=threshold + 1)
    assert higher.successes <= lower.successes


@FAST
@given(faces_st, st.integers(2, 9), profile_st)
def test_property_a_harder_difficulty_never_adds_successes(
    faces: list[int], difficulty: int, profile: Profile
) -> None:
    easier = d10.resolve(faces, difficulty, profile)
    harder = d10.resolve(faces, difficulty + 1, profile)
    assert harder.successes <= easier.successes


@FAST
@given(faces_st, st.integers(2, 10))
def test_property_botch_rules_match_their_definitions(faces: list[int], difficulty: int) -> None:
    raw = sum(1 for f in faces if f >= difficulty)
    ones = faces.count(1)
    assert d10.is_botch(raw, ones, BotchRule.RAW_ZERO) == (raw == 0 and ones >= 1)
    assert d10.is_botch(raw, ones, BotchRule.NET_NEGATIVE) == (ones > raw)


bad_scalar = st.one_of(
    st.booleans(),
    st.floats(allow_nan=True),
    st.text(max_size=3),
    st.none(),
    st.integers(-1000, 1),
    st.integers(11, 1000),
)


@FAST
@given(bad_scalar, st.sampled_from(["face", "difficulty"]))
def test_property_invalid_input_raises_only_rules_input_error(bad: Any, where: str) -> None:
    faces: list[Any] = [6, 6]
    difficulty: Any = 6
    if where == "face":
        faces = [6, bad]
    else:
        difficulty = bad
    if where == "face" and bad in (0, 1) and not isinstance(bad, bool | float):
        return  # 0 and 1 are real faces
    with pytest.raises(RulesInputError) as info:
        d10.resolve(faces, difficulty, MAGE_REVISED)
    assert info.value.code in (ErrorCode.TYPE, ErrorCode.RANGE, ErrorCode.FACE_VALUE)
    if isinstance(bad, bool) or not isinstance(bad, int):
        assert info.value.code is ErrorCode.TYPE
