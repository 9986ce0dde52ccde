"""Pools, auto-success, Willpower, multiple and extended actions, presets
(docs/rules.md §A.2, §A.5, §A.6, §A.7, §A.9, §A.11, §A.16)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import d10
from rules.actions import (
    AutoStatus,
    ExtendedState,
    ExtendedStatus,
    Pool,
    PoolStatus,
    Trait,
    TraitDots,
    TraitKind,
    auto_success,
    build_pool,
    extended_step,
    is_extended,
    multiple_action_pools,
    spend_willpower,
    split_pool,
    start_extended,
    trait_dots,
)
from rules.d10 import Degree, Outcome
from rules.errors import ErrorCode, RulesInputError
from rules.presets import (
    DARK_AGES_ABILITY_COUNT,
    PRESETS,
    Ability,
    Attribute,
    NoteCode,
    Situation,
    note_for,
    preset,
)
from rules.profiles import (
    DARK_AGES,
    HOUSE_MAGE,
    MAGE_REVISED,
    ExtendedBotch,
    Profile,
    RollContext,
)
from tests.rules.helpers import botched, hits, refused

FAST = settings(max_examples=150, deadline=None)
ATTR = TraitKind.ATTRIBUTE
ABIL = TraitKind.ABILITY
ADV = TraitKind.ADVANTAGE


# --- pools (§A.2) --------------------------------------------------------------------------


def test_t01_one_trait_intelligence_3() -> None:
    assert build_pool([Trait(ATTR, 3)], MAGE_REVISED) == Pool(3, PoolStatus.ROLL)


def test_t02_colin_intelligence_3_plus_academics_4() -> None:
    assert build_pool([Trait(ATTR, 3), Trait(ABIL, 4)], MAGE_REVISED).dice == 7


def test_t03_ordinary_max_is_10_and_arete_willpower_go_to_10() -> None:
    assert build_pool([Trait(ATTR, 5), Trait(ABIL, 5)], MAGE_REVISED).dice == 10
    refused(ErrorCode.RANGE, build_pool, [Trait(ATTR, 6)], MAGE_REVISED)
    assert build_pool([Trait(ADV, 10)], MAGE_REVISED).dice == 10
    refused(ErrorCode.RANGE, build_pool, [Trait(ADV, 11)], MAGE_REVISED)


def test_supernatural_traits_above_5() -> None:
    pool = build_pool([Trait(ATTR, 7), Trait(ABIL, 3)], MAGE_REVISED, allow_supernatural=True)
    assert pool.dice == 10
    refused(ErrorCode.RANGE, build_pool, [Trait(ATTR, 11)], MAGE_REVISED, allow_supernatural=True)


def test_t20_strength_4_and_perception_1() -> None:
    assert build_pool([Trait(ATTR, 4)], DARK_AGES).dice == 4
    assert build_pool([Trait(ATTR, 1)], DARK_AGES).dice == 1


def test_t24_anatole_dexterity_4_plus_stealth_3_is_seven() -> None:
    entry = preset(Situation.HIDE_FROM_MOB)
    assert (entry.attribute, entry.ability, entry.difficulty) == (
        Attribute.DEXTERITY,
        Ability.STEALTH,
        7,
    )
    assert build_pool([Trait(ATTR, 4), Trait(ABIL, 3)], DARK_AGES).dice == 7
    assert [note_for(entry, n) for n in (0, 1, 2, 3, 4)] == [
        None,
        NoteCode.DUCKED_INTO_COVER,
        NoteCode.CROUCHED_BEHIND_LEDGE,
        NoteCode.UNSEEN_NO_PERCEPTION_ROLL,
        NoteCode.UNSEEN_NO_PERCEPTION_ROLL,
    ]


def test_three_traits_are_too_many() -> None:
    traits = [Trait(ATTR, 3), Trait(ABIL, 2), Trait(ADV, 1)]
    refused(ErrorCode.TOO_MANY_TRAITS, build_pool, traits, MAGE_REVISED)


def test_bonus_and_penalty_dice() -> None:
    pool = build_pool([Trait(ATTR, 3), Trait(ABIL, 2)], HOUSE_MAGE, bonuses=[2, 1], penalties=[2])
    assert pool == Pool(6, PoolStatus.ROLL)


@pytest.mark.parametrize("penalty", [5, 7])
def test_pool_reduced_to_zero_or_below_is_impossible_not_an_error(penalty: int) -> None:
    pool = build_pool([Trait(ATTR, 3), Trait(ABIL, 2)], MAGE_REVISED, penalties=[penalty])
    assert pool.status is PoolStatus.IMPOSSIBLE
    assert pool.dice == 5 - penalty
    assert not pool.rollable


def test_pool_above_sanity_max_is_e_range() -> None:
    refused(ErrorCode.RANGE, build_pool, [Trait(ATTR, 5)], MAGE_REVISED, bonuses=[46])


def test_g_a14_house_zero_ability_fails_without_a_roll() -> None:
    traits = [Trait(ATTR, 3), Trait(ABIL, 0)]  # Ловкость 3 + Огн. Оружие 0
    assert build_pool(traits, HOUSE_MAGE) == Pool(3, PoolStatus.AUTO_FAILURE)
    assert build_pool(traits, HOUSE_MAGE, gm_override=True) == Pool(3, PoolStatus.ROLL)


@pytest.mark.parametrize("profile", [MAGE_REVISED, DARK_AGES])
def test_g_a14_other_profiles_roll_the_attribute_alone(profile: Profile) -> None:
    assert build_pool([Trait(ATTR, 3), Trait(ABIL, 0)], profile) == Pool(3, PoolStatus.ROLL)


def test_zero_ability_rule_needs_an_attribute_ability_pair() -> None:
    # A lone Attribute (S1: breaking a door with Strength) is not an Ability roll at all.
    assert build_pool([Trait(ATTR, 3)], HOUSE_MAGE).status is PoolStatus.ROLL


@pytest.mark.parametrize(
    ("traits", "kwargs", "code"),
    [
        ([], {}, ErrorCode.RANGE),
        ([Trait(ATTR, -1)], {}, ErrorCode.RANGE),
        ([Trait(ATTR, True)], {}, ErrorCode.TYPE),
        ([Trait(ATTR, 2.0)], {}, ErrorCode.TYPE),  # type: ignore[arg-type]
        ([3], {}, ErrorCode.TYPE),
        ("33", {}, ErrorCode.TYPE),
        ([Trait(ATTR, 3)], {"bonuses": [-1]}, ErrorCode.RANGE),
        ([Trait(ATTR, 3)], {"penalties": [1.5]}, ErrorCode.TYPE),
        ([Trait(ATTR, 3)], {"gm_override": 1}, ErrorCode.TYPE),
    ],
)
def test_build_pool_rejects_invalid_input(
    traits: Any, kwargs: dict[str, Any], code: ErrorCode
) -> None:
    refused(code, build_pool, traits, MAGE_REVISED, **kwargs)


@pytest.mark.parametrize(
    ("value", "dots"),
    [
        (0, TraitDots.ABYSMAL),
        (1, TraitDots.POOR),
        (5, TraitDots.OUTSTANDING),
        (6, TraitDots.LEGENDARY),
        (10, TraitDots.LEGENDARY),
    ],
)
def test_trait_dot_labels(value: int, dots: TraitDots) -> None:
    assert trait_dots(value) is dots


# --- auto-success (§A.6) -------------------------------------------------------------------


def test_g_a04_pool_6_difficulty_6_is_automatic() -> None:
    r = auto_success(6, 6, MAGE_REVISED, RollContext.NORMAL)
    assert (r.status, r.successes, r.outcome, r.wp_delta) == (
        AutoStatus.APPLIED,
        1,
        Outcome.AUTO_SUCCESS,
        0,
    )
    assert r.degree is Degree.MARGINAL  # S1 «Такой успех считается сомнительным»


def test_g_a04_pool_5_is_not_applicable() -> None:
    r = auto_success(5, 6, MAGE_REVISED)
    assert (r.status, r.successes, r.outcome) == (AutoStatus.NOT_APPLICABLE, 0, None)


def test_g_a04_house_soak_is_not_allowed() -> None:
    refused(ErrorCode.NOT_ALLOWED, auto_success, 6, 6, HOUSE_MAGE, RollContext.SOAK)


def test_g_a04_mage_combat_is_not_allowed() -> None:
    refused(ErrorCode.NOT_ALLOWED, auto_success, 6, 6, MAGE_REVISED, RollContext.COMBAT)


def test_g_a04_dark_ages_wp_variant_without_willpower() -> None:
    variant = DARK_AGES.model_copy(update={"auto_success_costs_wp": True})
    refused(ErrorCode.WP_UNAVAILABLE, auto_success, 6, 6, variant, wp_current=0)
    assert auto_success(6, 6, variant, wp_current=3).wp_delta == -1


@pytest.mark.parametrize(
    ("profile", "allowed", "forbidden"),
    [
        (MAGE_REVISED, RollContext.SOAK, RollContext.STRESS),
        (DARK_AGES, RollContext.RESISTED, RollContext.COMBAT),
        (HOUSE_MAGE, RollContext.COMBAT, RollContext.COMBAT_MANOEUVRE),
    ],
)
def test_auto_success_exclusions_per_book(
    profile: Profile, allowed: RollContext, forbidden: RollContext
) -> None:
    assert auto_success(7, 6, profile, allowed).status is AutoStatus.APPLIED
    refused(ErrorCode.NOT_ALLOWED, auto_success, 7, 6, profile, forbidden)
    refused(ErrorCode.NOT_ALLOWED, auto_success, 7, 6, profile, RollContext.MAGICK)


# --- Willpower (§A.7) ----------------------------------------------------------------------


def test_spend_willpower_costs_one_point() -> None:
    assert spend_willpower(3, False, MAGE_REVISED) == -1


def test_spend_willpower_needs_a_point() -> None:
    refused(ErrorCode.WP_UNAVAILABLE, spend_willpower, 0, False, MAGE_REVISED)


def test_spend_willpower_once_per_turn() -> None:
    refused(ErrorCode.WP_ALREADY_THIS_TURN, spend_willpower, 3, True, MAGE_REVISED)


def test_spend_willpower_rejects_bad_types() -> None:
    refused(ErrorCode.TYPE, spend_willpower, 3, 0, MAGE_REVISED)
    refused(ErrorCode.TYPE, spend_willpower, 3.0, False, MAGE_REVISED)


# --- multiple actions (§A.9) ---------------------------------------------------------------


def test_t11_mary_chen_three_actions_3_3_2() -> None:
    pools = multiple_action_pools([6, 7, 7], MAGE_REVISED)
    assert [p.dice for p in pools] == [3, 3, 2]
    assert all(p.status is PoolStatus.ROLL for p in pools)


def test_g_a07_two_actions() -> None:
    assert [p.dice for p in multiple_action_pools([5, 5], HOUSE_MAGE)] == [3, 2]


def test_g_a07_four_actions_with_impossible_entries() -> None:
    pools = multiple_action_pools([4, 6, 6, 6], MAGE_REVISED)
    assert [p.status for p in pools] == [
        PoolStatus.IMPOSSIBLE,
        PoolStatus.ROLL,
        PoolStatus.IMPOSSIBLE,
        PoolStatus.IMPOSSIBLE,
    ]
    assert pools[1].dice == 1


def test_g_a07_one_action_has_no_penalty() -> None:
    assert multiple_action_pools([7], MAGE_REVISED) == (Pool(7, PoolStatus.ROLL),)


def test_time_magick_extra_actions_carry_no_penalty() -> None:
    # Two split actions (6 → 4, 6 → 3) plus one Time-Effect extra action at its full 5.
    pools = multiple_action_pools([6, 6, 5], MAGE_REVISED, time_magick_extra_actions=1)
    assert [p.dice for p in pools] == [4, 3, 5]
    solo = multiple_action_pools([6, 5], MAGE_REVISED, time_magick_extra_actions=1)
    assert [p.dice for p in solo] == [6, 5]


@pytest.mark.parametrize(
    ("pools", "kwargs", "code"),
    [
        ([], {}, ErrorCode.RANGE),
        ([5, -1], {}, ErrorCode.RANGE),
        ([5] * 11, {}, ErrorCode.RANGE),
        ([5, 5], {"time_magick_extra_actions": 2}, ErrorCode.RANGE),
        ([5, True], {}, ErrorCode.TYPE),
    ],
)
def test_multiple_actions_reject_invalid_input(
    pools: list[Any], kwargs: dict[str, Any], code: ErrorCode
) -> None:
    refused(code, multiple_action_pools, pools, MAGE_REVISED, **kwargs)


def test_cumulative_and_split_are_per_profile() -> None:
    refused(ErrorCode.NOT_ALLOWED, multiple_action_pools, [5, 5], DARK_AGES)
    refused(ErrorCode.NOT_ALLOWED, split_pool, 7, [4, 3], MAGE_REVISED)


def test_g_a13_dark_ages_split_pool() -> None:
    assert split_pool(7, [4, 3], DARK_AGES) == (4, 3)
    refused(ErrorCode.RANGE, split_pool, 7, [4, 4], DARK_AGES)
    refused(ErrorCode.RANGE, split_pool, 7, [0, 7], DARK_AGES)


@FAST
@given(st.lists(st.integers(0, 20), min_size=2, max_size=10))
def test_property_cumulative_penalty_formula(pools: list[int]) -> None:
    out = multiple_action_pools(pools, MAGE_REVISED)
    n = len(pools)
    for k, (base, pool) in enumerate(zip(pools, out, strict=True), start=1):
        assert pool.dice == base - n - (k - 1)
        assert (pool.status is PoolStatus.ROLL) == (pool.dice > 0)


# --- extended actions (§A.11) --------------------------------------------------------------


def test_t13_yago_repair_completes_on_day_six() -> None:
    day_one = d10.resolve([1, 9, 10, 3, 5, 6, 6], 9, MAGE_REVISED)
    rolls = [day_one, hits(0), hits(0), hits(2), hits(1), hits(1)]
    state = start_extended(5)
    totals = []
    for r in rolls:
        state = extended_step(state, r, MAGE_REVISED)
        totals.append(state.accumulated)
    assert totals == [1, 1, 1, 3, 4, 5]
    assert state.status is ExtendedStatus.COMPLETE
    assert (state.rolls_made, state.excess) == (6, 0)
    refused(ErrorCode.STATE, extended_step, state, hits(1), MAGE_REVISED)


def test_t27_simple_versus_extended() -> None:
    assert not is_extended(1)
    assert is_extended(7)


def test_g_a09_botch_loses_everything() -> None:
    state = ExtendedState(target=10, accumulated=4, rolls_made=3)
    after = extended_step(state, botched(), MAGE_REVISED)
    assert (after.accumulated, after.status, after.rolls_made) == (0, ExtendedStatus.BOTCHED, 4)
    # The Storyteller may let the work start over (S1 «все начинать сначала»).
    again = extended_step(after, hits(2), MAGE_REVISED)
    assert (again.accumulated, again.status) == (2, ExtendedStatus.IN_PROGRESS)


def test_extended_botch_keep_variant() -> None:
    keep = MAGE_REVISED.model_copy(update={"extended_botch": ExtendedBotch.KEEP})
    after = extended_step(ExtendedState(target=10, accumulated=4), botched(), keep)
    assert (after.accumulated, after.status) == (4, ExtendedStatus.BOTCHED)


def test_extended_out_of_time_and_excess() -> None:
    # S0: five hourly rolls before the Nephandus arrives.
    state = start_extended(8, max_rolls=2)
    state = extended_step(state, hits(3), MAGE_REVISED)
    state = extended_step(state, hits(2), MAGE_REVISED)
    assert (state.status, state.accumulated) == (ExtendedStatus.OUT_OF_TIME, 5)
    refused(ErrorCode.STATE, extended_step, state, hits(1), MAGE_REVISED)
    done = extended_step(start_extended(3), hits(5), MAGE_REVISED)
    assert (done.status, done.excess) == (ExtendedStatus.COMPLETE, 2)


def test_extended_rejects_bad_state() -> None:
    refused(ErrorCode.RANGE, extended_step, ExtendedState(target=0), hits(1), MAGE_REVISED)
    refused(
        ErrorCode.RANGE,
        extended_step,
        ExtendedState(target=5, accumulated=-1),
        hits(1),
        MAGE_REVISED,
    )
    refused(ErrorCode.TYPE, extended_step, ExtendedState(target=5), 3, MAGE_REVISED)
    refused(ErrorCode.RANGE, start_extended, 5, max_rolls=0)


# --- presets (§A.16) -----------------------------------------------------------------------


def test_presets_cover_the_s1_list() -> None:
    assert len(PRESETS) == 20  # nineteen listed examples plus Anatole's hiding roll
    assert len({p.situation for p in PRESETS}) == len(PRESETS)
    assert all(2 <= p.difficulty <= 10 for p in PRESETS)
    ballad = preset("ballad_for_lord")
    assert (ballad.attribute, ballad.ability, ballad.difficulty) == (
        Attribute.CHARISMA,
        Ability.MUSIC,
        7,
    )


def test_t26_nine_attributes_times_thirty_abilities() -> None:
    assert len(Attribute) * DARK_AGES_ABILITY_COUNT == 270
    assert len(Attribute) == 9


def test_t29_messenger_three_successes_understands_everything() -> None:
    entry = preset(Situation.UNDERSTAND_MESSENGER)
    assert (entry.attribute, entry.ability, entry.difficulty) == (
        Attribute.PERCEPTION,
        Ability.LINGUISTICS,
        9,
    )
    assert note_for(entry, 2) is None
    assert note_for(entry, 3) is NoteCode.UNDERSTANDS_EVERYTHING


def test_t30_nobles_one_and_five_successes() -> None:
    entry = preset(Situation.ALLY_NOBLES)
    assert (entry.attribute, entry.ability, entry.difficulty) == (
        Attribute.MANIPULATION,
        Ability.POLITICS,
        7,
    )
    assert note_for(entry, 1) is NoteCode.SUPPORT_WITHOUT_TROOPS
    assert note_for(entry, 4) is NoteCode.SUPPORT_WITHOUT_TROOPS
    assert note_for(entry, 5) is NoteCode.NOBLES_JOIN_BATTLE


def test_unknown_preset_is_e_unknown_key() -> None:
    refused(ErrorCode.UNKNOWN_KEY, preset, "dance_with_the_devil")


junk = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=True),
    st.text(max_size=3),
    st.integers(-100, 100),
    st.lists(st.one_of(st.integers(-5, 60), st.booleans(), st.floats()), max_size=12),
)


@FAST
@given(junk, junk)
def test_property_junk_input_raises_only_rules_input_error(first: Any, second: Any) -> None:
    calls: list[tuple[Any, tuple[Any, ...], dict[str, Any]]] = [
        (multiple_action_pools, (first, MAGE_REVISED), {}),
        (split_pool, (first, second, DARK_AGES), {}),
        (auto_success, (first, second, MAGE_REVISED), {}),
        (spend_willpower, (first, second, MAGE_REVISED), {}),
        (build_pool, ([Trait(ATTR, first)], MAGE_REVISED), {}),
        (build_pool, ([Trait(ATTR, 3)], MAGE_REVISED), {"bonuses": first, "penalties": second}),
        (trait_dots, (first,), {}),
        (is_extended, (first,), {}),
    ]
    codes: list[object] = []
    for fn, args, kwargs in calls:
        try:
            fn(*args, **kwargs)
        except RulesInputError as error:  # anything else fails the test
            codes.append(error.code)
    assert all(isinstance(code, ErrorCode) for code in codes)


def test_split_share_is_even_with_the_odd_dice_first() -> None:
    from rules.actions import split_share

    assert [split_share(7, 2, k) for k in (1, 2)] == [4, 3]
    assert [split_share(7, 3, k) for k in (1, 2, 3)] == [3, 2, 2]
    assert split_share(5, 1, 1) == 5
    assert sum(split_share(9, 4, k) for k in range(1, 5)) == 9
    with pytest.raises(RulesInputError):
        split_share(5, 2, 3)
