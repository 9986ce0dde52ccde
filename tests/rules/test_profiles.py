"""The §A.0 profile table: named profiles and their d10 core switches."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from rules import profiles
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import (
    BotchRule,
    ExtendedBotch,
    LabelSet,
    MultipleActions,
    RetryPenalty,
    RollContext,
    TeamBotch,
    ZeroAbility,
)


@pytest.mark.parametrize("name", ["mage", "mage-revised", "dark-ages", "d6"])
def test_get_each_named_profile(name: str) -> None:
    assert profiles.get(name).name == name


def test_get_is_forgiving_about_case_and_spaces() -> None:
    assert profiles.get("  Dark-Ages ") is profiles.DARK_AGES


def test_default_profile_is_the_house_mage() -> None:
    assert profiles.DEFAULT == "mage"
    assert set(profiles.names()) == {"mage", "mage-revised", "dark-ages", "d6"}


def test_unknown_profile() -> None:
    with pytest.raises(RulesInputError) as info:
        profiles.get("werewolf")
    assert info.value.code is ErrorCode.UNKNOWN_PROFILE
    assert info.value.field == "profile"


@pytest.mark.parametrize("bad", [None, 3, b"mage"])
def test_profile_name_must_be_a_string(bad: Any) -> None:
    with pytest.raises(RulesInputError) as info:
        profiles.get(bad)
    assert info.value.code is ErrorCode.TYPE


def test_mage_revised_column() -> None:
    p = profiles.get("mage-revised")
    assert (p.difficulty_min, p.difficulty_max, p.default_difficulty) == (2, 10, 6)
    assert p.computed_difficulty_min == 2
    assert p.botch_rule is BotchRule.RAW_ZERO
    assert p.threshold_rule
    assert p.auto_success_forbidden == {
        RollContext.RESISTED,
        RollContext.COMBAT,
        RollContext.STRESS,
        RollContext.MAGICK,
    }
    assert not p.auto_success_costs_wp
    assert p.multiple_actions is MultipleActions.CUMULATIVE
    assert p.zero_ability is ZeroAbility.ATTRIBUTE_ONLY
    assert p.labels is LabelSet.S0


def test_dark_ages_column() -> None:
    p = profiles.get("dark-ages")
    assert (p.difficulty_min, p.default_difficulty) == (2, 6)
    assert p.botch_rule is BotchRule.NET_NEGATIVE
    assert not p.threshold_rule
    assert p.auto_success_forbidden == {RollContext.COMBAT, RollContext.MAGICK}  # «драка»
    assert not p.auto_success_costs_wp  # the WP-cost rule is S1's optional variant
    assert p.multiple_actions is MultipleActions.SPLIT_POOL
    assert p.zero_ability is ZeroAbility.ATTRIBUTE_ONLY
    assert p.labels is LabelSet.S1


def test_house_mage_column() -> None:
    p = profiles.get("mage")
    assert p.difficulty_min == 4  # S4 «со сложностью [4-10]»
    assert p.botch_rule is BotchRule.RAW_ZERO
    assert p.threshold_rule
    assert p.auto_success_forbidden == {
        RollContext.COMBAT_MANOEUVRE,
        RollContext.SOAK,
        RollContext.MAGICK,
    }
    assert not p.wp_cancellable_by_ones  # S4 «Этот успех нельзя отменить»
    assert p.multiple_actions is MultipleActions.CUMULATIVE
    assert p.zero_ability is ZeroAbility.AUTO_FAILURE
    assert p.labels is LabelSet.S0


@pytest.mark.parametrize("name", ["mage", "mage-revised", "dark-ages"])
def test_shared_d10_defaults(name: str) -> None:
    p = profiles.get(name)
    assert p.retry_penalty is RetryPenalty.ESCALATING
    assert p.extended_botch is ExtendedBotch.LOSE_ALL
    assert p.team_botch is TeamBotch.MEMBER_ONLY
    assert (p.max_traits_per_pool, p.pool_sanity_max) == (2, 50)
    assert p.wp_auto_success
    assert p.wp_prevents_botch
    assert p.wp_eaten_by_threshold


def test_profiles_are_frozen_and_changed_by_copy() -> None:
    p = profiles.get("mage")
    with pytest.raises(ValidationError):
        p.botch_rule = BotchRule.NET_NEGATIVE  # type: ignore[misc]
    variant = p.model_copy(update={"botch_rule": BotchRule.NET_NEGATIVE})
    assert variant.botch_rule is BotchRule.NET_NEGATIVE
    assert profiles.get("mage").botch_rule is BotchRule.RAW_ZERO
