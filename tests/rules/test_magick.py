"""Mage magick against docs/rules.md §C, the §E.2 vectors G-C01..G-C16 and the house sheet (S4).

The vectors run on the default profile (``mage``, the house sheet). Where a vector rests on a
[P] proposal, a second test flips the matching ``profile.magick`` switch and checks the other
reading, so each switch is proven to be wired.
"""

from __future__ import annotations

import contextlib
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import magick, spheres
from rules.d10 import Outcome
from rules.errors import ErrorCode, RulesInputError
from rules.health import DamageType
from rules.magick import (
    BacklashEffect,
    BarrierPlace,
    CastStatus,
    Choice,
    Contact,
    Duration,
    Magnitude,
    Modifier,
    ParadoxFlaw,
    Place,
)
from rules.profiles import DARK_AGES, HOUSE_MAGE, MAGE_REVISED, MagickOptions, Profile
from rules.spheres import Sphere
from tests.rules.helpers import refused

FAST = settings(max_examples=150, deadline=None)


def _house(**switches: Any) -> Profile:
    """The house profile with some §C switches flipped, as a Storyteller would do."""
    return HOUSE_MAGE.model_copy(update={"magick": HOUSE_MAGE.magick.model_copy(update=switches)})


# --- The public surface other code relies on ------------------------------------------------


def test_public_effect_difficulty_example() -> None:
    result = magick.effect_difficulty(
        highest_sphere=3, vulgar=True, witnesses=True, modifiers=[-2, 1], quintessence=3
    )
    assert (result.difficulty, result.threshold) == (5, 0)
    assert result.wasted_quintessence == 1


def test_public_paradox_gain_example() -> None:
    assert magick.paradox_gain(highest_sphere=3, vulgar=True, witnesses=True, outcome="botch") == 8
    assert magick.paradox_gain(3, True, True, Outcome.BOTCH) == 8


def test_public_backlash_tier_example() -> None:
    # S4 «6-10 успехов Парадокса» is the second row of the Backlash table.
    assert magick.backlash_tier(7) == 2


def test_profile_defaults_to_house_mage_and_accepts_others() -> None:
    for profile in (None, HOUSE_MAGE, MAGE_REVISED):
        got = magick.effect_difficulty(3, True, True, [-2, 1], 3, profile=profile)
        assert got.difficulty == 5
    refused(ErrorCode.TYPE, magick.effect_difficulty, 3, True, True, profile="mage")


# --- §E.2 Magick vectors ------------------------------------------------------------------


def test_g_c01_base_difficulty() -> None:
    """G-C01: L=3 natural / vulgar / vulgar + witnesses / natural + witnesses → 6/7/8/6 [P]."""
    assert magick.base_difficulty(3, vulgar=False, witnesses=False) == 6
    assert magick.base_difficulty(3, vulgar=True, witnesses=False) == 7
    assert magick.base_difficulty(3, vulgar=True, witnesses=True) == 8
    assert magick.base_difficulty(3, vulgar=False, witnesses=True) == 6  # AMB-C1 merged cell
    assert magick.effect_difficulty(3, False, True).difficulty == 6


def test_g_c01_natural_witness_switch() -> None:
    profile = _house(natural_witness_difficulty_extra=1)
    assert magick.base_difficulty(3, vulgar=False, witnesses=True, profile=profile) == 7
    assert magick.base_difficulty(3, vulgar=False, witnesses=False, profile=profile) == 6


def test_g_c02_cap_with_quintessence() -> None:
    """G-C02: 8 + node −2 + distracted +1 − Q3 = raw −4 → capped −3 → 5, one Q wasted."""
    result = magick.effect_difficulty(
        3, True, True, [(Modifier.NODE, -2), ("distracted", 1)], quintessence=3
    )
    assert result.base == 8
    assert result.modifier_total == -4
    assert result.modifier_applied == -3
    assert (result.difficulty, result.threshold) == (5, 0)
    assert result.wasted_quintessence == 1


def test_g_c02_quintessence_outside_cap_switch() -> None:
    """AMB-C2 alternative: Quintessence lowers the difficulty after the cap, never wasted."""
    profile = _house(quintessence_counts_in_cap=False)
    result = magick.effect_difficulty(
        3, True, True, {"node": -2, "distracted": 1}, 3, profile=profile
    )
    assert result.modifier_applied == -4
    assert result.difficulty == 4
    assert result.wasted_quintessence == 0


def test_g_c03_threshold_above_nine() -> None:
    """G-C03: 9 + 2 → (9, thr 2); 10 + 1 → (10, thr 1); 10 alone → (10, thr 0)."""
    high = magick.effect_difficulty(4, True, True, [(Modifier.VERY_POWERFUL, 2)])
    assert (high.difficulty, high.threshold) == (9, 2)
    top = magick.effect_difficulty(5, True, True, [1])
    assert (top.difficulty, top.threshold) == (10, 1)
    plain = magick.effect_difficulty(5, True, True)
    assert (plain.difficulty, plain.threshold) == (10, 0)


def test_g_c04_floor_of_three() -> None:
    """G-C04: 4 − 3 = 1 → clamped to 3; 5 − analysis 1 − Q1 = 3."""
    assert magick.effect_difficulty(1, False, False, [-3]).difficulty == 3
    low = magick.effect_difficulty(2, False, False, [(Modifier.ANALYSIS, -1)], quintessence=1)
    assert (low.difficulty, low.threshold, low.wasted_quintessence) == (3, 0, 0)
    assert low.floor_quintessence == 0  # the point took 4 to 3: it counted


def test_quintessence_below_the_floor_lowers_nothing() -> None:
    """§C.4: 4 − focus 1 is already 3; two points of Quintessence buy nothing there, and one
    of two on a bare 4 buys the step to 3."""
    idle = magick.effect_difficulty(1, False, False, [(Modifier.SPHERE_FOCUS, -1)], 2)
    assert (idle.difficulty, idle.floor_quintessence, idle.wasted_quintessence) == (3, 2, 0)
    half = magick.effect_difficulty(1, False, False, [], 2)
    assert (half.difficulty, half.floor_quintessence) == (3, 1)
    capped = magick.effect_difficulty(1, False, False, [(Modifier.NODE, -3)], 1)
    assert (capped.wasted_quintessence, capped.floor_quintessence) == (1, 0)


def test_g_c01_to_c04_under_mage_revised() -> None:
    """§E.2 vectors default to MAGE_REV; its §C columns match the house sheet's."""
    vectors: list[tuple[tuple[int, bool, bool, list[Any], int], tuple[int, int]]] = [
        ((3, True, True, [(Modifier.NODE, -2), (Modifier.DISTRACTED, 1)], 3), (5, 0)),
        ((4, True, True, [(Modifier.VERY_POWERFUL, 2)], 0), (9, 2)),
        ((5, True, True, [1], 0), (10, 1)),
        ((1, False, False, [-3], 0), (3, 0)),
        ((3, False, True, [], 0), (6, 0)),
    ]
    for args, expected in vectors:
        got = magick.effect_difficulty(*args, profile=MAGE_REVISED)
        assert (got.difficulty, got.threshold) == expected


def test_g_c05_damage() -> None:
    """G-C05: S4 «сразу 1 ур. (Сфера Сил) + по 2 ур. за успех» → 5 with Forces, 4 without."""
    assert magick.damage_levels(2, forces=True) == 5
    assert magick.damage_levels(2, forces=False) == 4
    with_forces = magick.allocate(
        3, 3, magick.EffectParts(damage=2, area=1, targets=1, forces=True)
    )
    assert (with_forces.works, with_forces.damage_levels) == (True, 5)
    matter = magick.allocate(3, 3, magick.EffectParts(damage=2, area=1, targets=1))
    assert matter.damage_levels == 4


def test_g_c05_forces_switch_and_failed_effect() -> None:
    # AMB-C16: a damaging Forces Effect with nothing on damage still burns one level…
    assert magick.allocate(2, 1, magick.EffectParts(forces=True, damaging=True)).damage_levels == 1
    # …unless the group reads the bonus as riding on a damage success.
    strict = _house(forces_damage_without_damage_successes=False)
    assert (
        magick.allocate(
            2, 1, magick.EffectParts(forces=True, damaging=True), profile=strict
        ).damage_levels
        == 0
    )
    # An Effect that falls short of its magnitude deals nothing.
    short = magick.allocate(2, 3, magick.EffectParts(damage=2, forces=True))
    assert (short.works, short.damage_levels) == (False, 0)


def test_g_c06_duration() -> None:
    """G-C06: combat 3 → 3 turns; out of combat 2 → сутки, 4 → полгода."""
    combat = magick.allocate(3, 1, magick.EffectParts(duration=3, in_combat=True))
    assert (combat.duration, combat.duration_turns) == (Duration.TURNS, 3)
    assert magick.allocate(2, 1, magick.EffectParts(duration=2)).duration is Duration.DAY
    assert magick.allocate(4, 1, magick.EffectParts(duration=4)).duration is Duration.HALF_YEAR
    assert magick.duration_of(1)[0] is Duration.SCENE
    assert magick.duration_of(3)[0] is Duration.STORY
    assert magick.duration_of(7)[0] is Duration.GM_DECIDES
    assert magick.duration_of(0)[0] is Duration.INSTANT


def test_g_c06_permanent_duration_rules() -> None:
    # AMB-C9 default: «x2 необходимого количества - постоянный».
    assert (
        magick.allocate(6, 3, magick.EffectParts(duration=1, permanent=True)).duration
        is Duration.PERMANENT
    )
    assert (
        magick.allocate(5, 3, magick.EffectParts(duration=1, permanent=True)).duration
        is Duration.SCENE
    )
    assert (
        magick.allocate(6, 3, magick.EffectParts(duration=1)).duration is Duration.SCENE
    )  # not asked for
    ten = _house(permanent_duration_rule=MagickOptions.PermanentRule.TEN_ON_DURATION)
    assert magick.allocate(
        6, 3, magick.EffectParts(duration=1, permanent=True), profile=ten
    ).duration is (Duration.SCENE)
    assert magick.allocate(
        10, 3, magick.EffectParts(duration=10, permanent=True), profile=ten
    ).duration is (Duration.PERMANENT)


def test_g_c07_area() -> None:
    """G-C07: mage only 0; one other 1; three others 3; mage + two others 2 [P]."""
    assert magick.area_cost(0, includes_mage=True) == 0
    assert magick.area_cost(1) == 1
    assert magick.area_cost(3) == 3
    assert magick.area_cost(2, includes_mage=True) == 2
    counted = _house(area_counts_mage=True)
    assert magick.area_cost(2, includes_mage=True, profile=counted) == 3
    assert magick.area_cost(0, includes_mage=True, profile=counted) == 0


def test_g_c07_area_must_cover_targets() -> None:
    err = refused(ErrorCode.RANGE, magick.allocate, 3, 1, magick.EffectParts(area=1, targets=2))
    assert err.field == "area"


def test_g_c08_over_allocation() -> None:
    """G-C08: 4 successes cannot buy damage 2 + duration 2 + area 1."""
    refused(
        ErrorCode.RANGE,
        magick.allocate,
        4,
        1,
        magick.EffectParts(damage=2, duration=2, area=1, targets=1),
    )
    ok = magick.allocate(5, 1, magick.EffectParts(damage=2, duration=2, area=1, targets=1))
    assert (ok.spent, ok.unspent) == (5, 0)


def test_g_c08_separate_magnitude_cost() -> None:
    """AMB-C7 alternative: the magnitude is paid first, only the rest is allocated."""
    paid = _house(magnitude_is_separate_cost=True)
    refused(ErrorCode.RANGE, magick.allocate, 4, 3, magick.EffectParts(damage=2), profile=paid)
    assert magick.allocate(5, 3, magick.EffectParts(damage=2), profile=paid).damage_levels == 4


@pytest.mark.parametrize(
    ("level", "vulgar", "witnesses", "outcome", "rolls", "expected"),
    [
        (3, True, True, Outcome.SUCCESS, 0, 4),
        (3, True, True, Outcome.BOTCH, 0, 8),
        (3, False, False, Outcome.SUCCESS, 0, 0),
        (2, False, False, Outcome.BOTCH, 0, 2),
        (2, True, False, Outcome.SUCCESS, 0, 2),
        (2, True, False, Outcome.BOTCH, 0, 3),
        (1, True, True, Outcome.FAILURE, 0, 2),
        (4, True, False, Outcome.BOTCH, 4, 9),
    ],
)
def test_g_c09_paradox(
    level: int, vulgar: bool, witnesses: bool, outcome: Outcome, rolls: int, expected: int
) -> None:
    """G-C09: 4 / 8 / 0 / 2 / 2 / 3 / 2 / 5 + 4 = 9 (botched ritual after 4 rolls)."""
    gain = magick.paradox_gain(level, vulgar, witnesses, outcome, ritual_rolls=rolls)
    assert gain == expected
    assert magick.paradox_gain(level, vulgar, witnesses, outcome.value, ritual_rolls=rolls) == (
        expected
    )


def test_g_c09_merged_cells_and_ritual_switch() -> None:
    # AMB-C1: natural magick before witnesses earns what it would without them.
    assert magick.paradox_gain(3, False, True, "success") == 0
    assert magick.paradox_gain(3, False, True, "botch") == 3
    # A ritual's rolls only count when it botches.
    assert magick.paradox_gain(4, True, False, "failure", ritual_rolls=4) == 4
    # AMB-C11 alternative: «= +1 Парадокс за каждый бросок» replaces the table value.
    assert (
        magick.paradox_gain(
            4, True, False, "botch", ritual_rolls=4, profile=_house(botched_ritual_adds_rolls=False)
        )
        == 4
    )
    assert magick.paradox_gain(3, True, True, Outcome.AUTO_SUCCESS) == 4


def test_g_c10_wheel() -> None:
    """G-C10: Q15 P0 +8 → Q12 P8; Q5 P10 +12 → Q0 P22 (size 20, Paradox unbounded)."""
    first = magick.add_paradox(15, 0, 8)
    assert (first.wheel.quintessence, first.wheel.paradox) == (12, 8)
    assert first.quintessence_burned == 3
    second = magick.add_paradox(5, 10, 12)
    assert (second.wheel.quintessence, second.wheel.paradox) == (0, 22)
    assert second.quintessence_burned == 5


def test_g_c10_wheel_size_switch_and_other_moves() -> None:
    small = _house(wheel_size=10)
    assert magick.add_paradox(8, 0, 5, profile=small).wheel.quintessence == 5
    gained = magick.add_quintessence(5, 10, 8)
    assert (gained.wheel.quintessence, gained.overflow) == (10, 3)
    assert magick.spend_quintessence(5, 10, 3).quintessence == 2
    refused(ErrorCode.QUINT_LIMIT, magick.spend_quintessence, 2, 0, 3)
    refused(ErrorCode.STATE, magick.wheel, 15, 10)
    refused(ErrorCode.RANGE, magick.wheel, 21, 0)
    refused(ErrorCode.RANGE, magick.add_paradox, 0, 0, -1)


def test_g_c11_backlash_roll() -> None:
    """G-C11: P 7, faces 6,7,2,3,10,1,5 → B 3 (the 1 cancels nothing), P 4, tier 1."""
    result = magick.backlash(7, faces=[6, 7, 2, 3, 10, 1, 5])
    assert (result.successes, result.paradox_after) == (3, 4)
    effects = result.effects
    assert effects.tier == 1
    assert (effects.damage_type, effects.damage_dice, effects.damage_difficulty) == (
        DamageType.BASHING,
        3,
        6,
    )
    assert effects.soakable
    assert [o.effect for o in effects.options] == [BacklashEffect.SLIGHT_FLAW]


def test_g_c11_backlash_switch_and_faces() -> None:
    cancelling = magick.backlash(
        7, faces=[6, 7, 2, 3, 10, 1, 5], profile=_house(backlash_ones_cancel=True)
    )
    assert (cancelling.successes, cancelling.paradox_after) == (2, 5)
    refused(ErrorCode.FACES_LEN, magick.backlash, 3, faces=[6, 7])
    refused(ErrorCode.FACE_VALUE, magick.backlash, 2, faces=[6, 11])
    refused(ErrorCode.RANGE, magick.backlash, 0)
    rolled = magick.backlash(12, rng=random.Random(4))
    assert len(rolled.faces) == 12
    assert rolled.successes + rolled.paradox_after == 12


@pytest.mark.parametrize(
    ("b", "tier", "damage_type", "dice"),
    [
        (5, 1, DamageType.BASHING, 5),
        (6, 2, DamageType.BASHING, 6),
        (10, 2, DamageType.BASHING, 10),
        (11, 3, DamageType.LETHAL, 1),
        (15, 3, DamageType.LETHAL, 5),
        (16, 4, DamageType.LETHAL, 6),
        (20, 4, DamageType.LETHAL, 10),
        (21, 5, DamageType.AGGRAVATED, 1),
        (23, 5, DamageType.AGGRAVATED, 3),
    ],
)
def test_g_c12_backlash_tiers(b: int, tier: int, damage_type: DamageType, dice: int) -> None:
    """G-C12: t1 B5 / t2 B6 / t2 B10 / t3 L1 / t3 L5 / t4 L6 / t4 L10 / t5 A1 / t5 A3."""
    effects = magick.backlash_effects(b)
    assert magick.backlash_tier(b) == tier
    assert (effects.tier, effects.damage_type, effects.damage_dice) == (tier, damage_type, dice)
    assert effects.soakable is (tier < 5)  # S4 tier 5 «непоглощаемый даже магически»


def test_g_c12_tier_contents() -> None:
    t2 = magick.backlash_effects(8).options[0]
    assert (t2.effect, t2.low, t2.high, t2.turns) == (BacklashEffect.NONMAGICAL_DIFFICULTY, 1, 3, 8)
    t3 = magick.backlash_effects(12)
    assert t3.choice is Choice.ONE_OF
    assert (t3.options[0].low, t3.options[0].high, t3.options[0].turns) == (4, 6, 12)
    t4 = magick.backlash_effects(17)
    assert t4.options[0].effect is BacklashEffect.UNCONSCIOUS
    assert t4.options[0].turns == 17
    t5 = magick.backlash_effects(23)
    assert t5.choice is Choice.AT_LEAST_ONE
    permanent = [o for o in t5.options if o.effect is BacklashEffect.PERMANENT_PARADOX]
    assert permanent[0].amount == 3  # «(число успехов Отдачи -20) постоянного Парадокса»


def test_g_c12_discontinuity_flag() -> None:
    """AMB-C12: B 10 rolls 10 bashing dice but B 11 only 1 lethal die; flag it for the GM."""
    assert not magick.backlash_effects(10).discontinuity
    assert magick.backlash_effects(11).discontinuity
    assert not magick.backlash_effects(16).discontinuity
    assert magick.backlash_effects(21).discontinuity
    assert not magick.backlash_effects(30).discontinuity
    assert magick.backlash_tier(0) == 0
    assert magick.backlash_effects(0).damage_dice == 0


def test_g_c13_barrier() -> None:
    """G-C13: most cities 7/4; dark parking lot −1 → 6/4; Node 3/1; Technocratic lab 3/1."""
    cities = magick.barrier(BarrierPlace.MOST_CITIES)
    assert (cities.difficulty, cities.successes) == (7, 4)
    lot = magick.barrier("most_cities", -1)
    assert (lot.difficulty, lot.successes) == (6, 4)
    node = magick.barrier("node")
    assert (node.difficulty, node.successes) == (3, 1)
    lab = magick.barrier(BarrierPlace.TECHNOCRACY_LAB, technocratic=True)
    assert (lab.difficulty, lab.successes, lab.at_least) == (3, 1, False)


def test_g_c13_barrier_rows_and_switches() -> None:
    # S4's own parking-lot example sits in the business centre: 8 − 1.
    downtown_lot = magick.barrier("downtown", -1)
    assert (downtown_lot.difficulty, downtown_lot.successes) == (7, 5)
    lab = magick.barrier("technocracy_lab")
    assert (lab.difficulty, lab.successes, lab.at_least) == (9, 5, True)
    wild = magick.barrier("deep_wilderness", 2, technocratic=True)
    assert (wild.difficulty, wild.successes) == (7, 2)
    both = _house(barrier_adjustment=MagickOptions.BarrierAdjustment.BOTH)
    shifted = magick.barrier("countryside", -2, profile=both)
    assert (shifted.difficulty, shifted.successes) == (4, 1)
    refused(ErrorCode.RANGE, magick.barrier, "node", 3)
    refused(ErrorCode.UNKNOWN_KEY, magick.barrier, "umbra")


def test_barrier_crossing_rolls() -> None:
    step = magick.cross_barrier(3, "most_cities", faces=[7, 8, 2])
    assert (step.accumulated, step.crossed, step.damage_levels) == (2, False, 0)
    done = magick.cross_barrier(3, "most_cities", accumulated=2, faces=[7, 9, 10])
    assert (done.accumulated, done.crossed) == (5, True)
    miss = magick.cross_barrier(3, "most_cities", accumulated=2, faces=[2, 3, 4])
    assert (miss.accumulated, miss.damage_levels, miss.damage_type) == (2, 1, DamageType.LETHAL)
    botch = magick.cross_barrier(3, "most_cities", accumulated=3, faces=[1, 2, 3])
    assert (botch.roll.outcome, botch.accumulated, botch.damage_levels) == (Outcome.BOTCH, 0, 1)
    per_die = _house(barrier_damage_per=MagickOptions.BarrierDamagePer.FAILED_DIE)
    dice = magick.cross_barrier(3, "most_cities", faces=[7, 3, 4], profile=per_die)
    assert dice.damage_levels == 2


def test_g_c14_correspondence() -> None:
    """G-C14: familiar place (3) + body sample (1) → 1; visited once → 4; 7 → row 6."""
    assert magick.correspondence_required(Place.FAMILIAR, Contact.BODY_SAMPLE) == 1
    assert magick.correspondence_required("visited_once") == 4
    reach = magick.correspondence_reach(7)
    assert (reach.place, reach.contact) == (Place.ANYWHERE, Contact.NONE_NEEDED)
    assert magick.correspondence_reach(2).place is Place.VERY_FAMILIAR
    both = _house(correspondence_better_link=False)
    assert magick.correspondence_required("familiar", "body_sample", profile=both) == 3
    refused(ErrorCode.RANGE, magick.correspondence_required)
    refused(ErrorCode.UNKNOWN_KEY, magick.correspondence_required, contact="hair")


def test_g_c15_time() -> None:
    """G-C15: 4 → 50 y, 7 → 500 y, 10 → 1000+ y; 30 y needs 4, 600 y needs 10."""
    assert magick.time_reach(4) == 50
    assert magick.time_reach(7) == 500
    assert magick.time_reach(10) == 1000
    assert magick.time_reach(1) == 1
    assert magick.time_required(30) == 4
    assert magick.time_required(600) == 10
    assert magick.time_required(1) == 1
    assert magick.time_required(500) == 6


def test_g_c16_magnitude() -> None:
    """G-C16: S 4 → Сложный; 10 → Необычный [P]; 20 → Божественный [P]."""
    assert magick.magnitude_of(4) is Magnitude.COMPLEX
    assert magick.magnitude_of(10) is Magnitude.UNUSUAL
    assert magick.magnitude_of(20) is Magnitude.GODLIKE
    assert magick.magnitude_of(1) is Magnitude.ORDINARY
    assert magick.magnitude_of(0) is None
    assert magick.check_required("mighty", 10) == 10
    refused(ErrorCode.RANGE, magick.check_required, Magnitude.COMPLEX, 5)
    refused(ErrorCode.UNKNOWN_KEY, magick.check_required, "huge", 5)


# --- §C.1 / §C.5 casting ------------------------------------------------------------------


def test_procedure_order() -> None:
    assert magick.PROCEDURE[0] is magick.Step.DESCRIBE
    assert magick.PROCEDURE[3] is magick.Step.ROLL_ARETE
    assert len(magick.PROCEDURE) == 5


def test_highest_sphere_needs_the_rating() -> None:
    ratings = {Sphere.FORCES: 3, "matter": 2}
    assert magick.highest_sphere_level({"forces": 3, Sphere.MATTER: 1}, ratings) == 3
    refused(ErrorCode.RANGE, magick.highest_sphere_level, {"forces": 4}, ratings)
    refused(ErrorCode.RANGE, magick.highest_sphere_level, {"life": 1}, ratings)
    refused(ErrorCode.UNKNOWN_KEY, magick.highest_sphere_level, {"fire": 1}, ratings)
    refused(ErrorCode.RANGE, magick.highest_sphere_level, {}, ratings)


def test_cast_success_and_paradox() -> None:
    # L2 vulgar, no witnesses: difficulty 6; two successes, one cancelled by the 1.
    cast = magick.cast(magick.Spell(4, 2, True, False), faces=[6, 7, 1, 3])
    assert cast.status is CastStatus.ROLLED
    assert (cast.difficulty.difficulty, cast.successes, cast.outcome) == (6, 1, Outcome.SUCCESS)
    assert cast.paradox == 2


def test_cast_botch_and_threshold() -> None:
    botch = magick.cast(magick.Spell(4, 2, True, False), faces=[1, 2, 3, 4])
    assert (botch.outcome, botch.paradox) == (Outcome.BOTCH, 3)
    # L5 vulgar before witnesses, distracted +1: difficulty 10, threshold 1 (§A.8).
    hard = magick.cast(
        magick.Spell(3, 5, True, True, [(Modifier.DISTRACTED, 1)]), faces=[10, 10, 3]
    )
    assert (hard.difficulty.threshold, hard.successes) == (1, 1)


def test_cast_never_auto_succeeds() -> None:
    """AMB-C4: 8 Arete dice at difficulty 4 still roll; no successes is a failure."""
    cast = magick.cast(magick.Spell(8, 1, False, False), faces=[2, 2, 2, 2, 3, 3, 3, 3])
    assert (cast.outcome, cast.successes, cast.paradox) == (Outcome.FAILURE, 0, 0)


def test_cast_auto_success_is_a_profile_choice() -> None:
    refused(ErrorCode.NOT_ALLOWED, magick.cast, magick.Spell(8, 1, False, False, auto_success=True))
    lenient = HOUSE_MAGE.model_copy(update={"auto_success_forbidden": frozenset()})
    auto = magick.cast(magick.Spell(8, 1, True, False, auto_success=True), profile=lenient)
    assert (auto.outcome, auto.successes, auto.roll, auto.paradox) == (
        Outcome.AUTO_SUCCESS,
        1,
        None,
        1,
    )
    refused(
        ErrorCode.NOT_ALLOWED,
        magick.cast,
        magick.Spell(4, 1, True, False, auto_success=True),
        profile=lenient,
    )


def test_cast_wounds_willpower_and_dice_source() -> None:
    assert (
        magick.cast(magick.Spell(2, 1, False, False, wound_penalty=2)).status
        is CastStatus.IMPOSSIBLE
    )
    tough = _house(wound_penalty_on_arete=False)
    assert (
        magick.cast(
            magick.Spell(2, 1, False, False, wound_penalty=2), faces=[5, 5], profile=tough
        ).pool
        == 2
    )
    wp = magick.cast(magick.Spell(2, 3, True, True, willpower=True), faces=[1, 2])
    assert (wp.successes, wp.outcome) == (1, Outcome.SUCCESS)
    refused(ErrorCode.FACES_LEN, magick.cast, magick.Spell(3, 1, False, False), faces=[5, 5])
    rolled = magick.cast(magick.Spell(5, 2, False, False), rng=random.Random(7))
    assert rolled.roll is not None
    assert len(rolled.roll.faces) == 5
    ritual = magick.cast(magick.Spell(3, 4, True, False, ritual_rolls=4), faces=[1, 2, 3])
    assert ritual.paradox == 9


# --- §C.3 modifier validation ---------------------------------------------------------------


def test_modifier_forms() -> None:
    got = magick.parse_modifiers(["sphere_focus", (Modifier.DOMINO, 2), -1, ("missing_focus", 3)])
    assert [m.value for m in got] == [-1, 2, -1, 3]
    assert magick.parse_modifiers({"analysis": -3})[0].key is Modifier.ANALYSIS


@pytest.mark.parametrize(
    ("modifiers", "code"),
    [
        ([("fireball", 1)], ErrorCode.UNKNOWN_KEY),
        (["teleport"], ErrorCode.UNKNOWN_KEY),
        ([("analysis", 1)], ErrorCode.RANGE),
        ([("analysis", -4)], ErrorCode.RANGE),
        (["analysis"], ErrorCode.RANGE),
        ([("missing_focus", 2)], ErrorCode.RANGE),
        ([4], ErrorCode.RANGE),
        ([("node", -1), ("node", -1)], ErrorCode.RANGE),
        (["unneeded_focus", "missing_focus"], ErrorCode.NOT_ALLOWED),
        ([("quintessence", -2)], ErrorCode.NOT_ALLOWED),
        ([True], ErrorCode.TYPE),
        ([1.0], ErrorCode.TYPE),
        ([("node", -1.0)], ErrorCode.TYPE),
        ("node", ErrorCode.TYPE),
        ([None], ErrorCode.TYPE),
    ],
)
def test_modifier_errors(modifiers: Any, code: ErrorCode) -> None:
    refused(code, magick.effect_difficulty, 2, True, False, modifiers)


def test_resonance_rows_together_is_a_switch() -> None:
    both = ["matching_resonance", "opposed_resonance"]
    assert magick.effect_difficulty(2, True, False, both).difficulty == 6
    strict = _house(resonance_both_allowed=False)
    refused(ErrorCode.NOT_ALLOWED, magick.effect_difficulty, 2, True, False, both, profile=strict)


def test_quintessence_limits() -> None:
    refused(ErrorCode.QUINT_LIMIT, magick.effect_difficulty, 2, True, False, quintessence=4)
    refused(
        ErrorCode.QUINT_LIMIT,
        magick.effect_difficulty,
        2,
        True,
        False,
        quintessence=2,
        quintessence_available=1,
    )
    refused(ErrorCode.RANGE, magick.effect_difficulty, 2, True, False, quintessence=-1)
    refused(ErrorCode.TYPE, magick.effect_difficulty, 2, True, False, quintessence=True)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ((0, True, False), ErrorCode.RANGE),
        ((6, True, False), ErrorCode.RANGE),
        ((2.0, True, False), ErrorCode.TYPE),
        ((2, 1, False), ErrorCode.TYPE),
        ((2, True, None), ErrorCode.TYPE),
    ],
)
def test_effect_input_errors(args: tuple[Any, ...], code: ErrorCode) -> None:
    refused(code, magick.effect_difficulty, *args)
    refused(code, magick.paradox_gain, *args, "success")


def test_unknown_outcome() -> None:
    refused(ErrorCode.UNKNOWN_KEY, magick.paradox_gain, 2, True, False, "crit")
    refused(ErrorCode.TYPE, magick.paradox_gain, 2, True, False, 3)


# --- §C.13, §C.14, §C.16 --------------------------------------------------------------------


def test_paradox_flaws() -> None:
    moderate = magick.paradox_flaw("moderate")
    assert (moderate.difficulty_low, moderate.difficulty_high) == (1, 2)
    assert magick.paradox_flaw(ParadoxFlaw.MINOR).difficulty_high == 1
    severe = magick.paradox_flaw(ParadoxFlaw.SEVERE)
    assert (severe.difficulty_low, severe.difficulty_high, severe.draws_attention) == (2, 3, True)
    assert magick.paradox_flaw("trivial").harmful is False
    assert magick.paradox_flaw("radical").difficulty_high is None
    assert [magick.PARADOX_FLAWS[f].tier for f in ParadoxFlaw] == [1, 2, 3, 4, 5]
    refused(ErrorCode.UNKNOWN_KEY, magick.paradox_flaw, "cosmic")


def test_haunt_duration() -> None:
    days = magick.haunt_duration(7)
    assert (days.amount, days.unit) == (7, MagickOptions.HauntUnit.DAYS)
    assert magick.haunt_duration(30, unit="months").unit is MagickOptions.HauntUnit.MONTHS
    weeks = _house(haunt_unit=MagickOptions.HauntUnit.WEEKS)
    assert magick.haunt_duration(3, profile=weeks).unit is MagickOptions.HauntUnit.WEEKS
    refused(ErrorCode.UNKNOWN_KEY, magick.haunt_duration, 3, unit="aeons")
    refused(ErrorCode.RANGE, magick.haunt_duration, -1)


def test_damage_type_defaults() -> None:
    assert magick.default_damage_type(["mind"]) is DamageType.BASHING
    assert magick.default_damage_type([Sphere.FORCES]) is DamageType.LETHAL
    assert magick.default_damage_type(["prime", "forces"]) is DamageType.AGGRAVATED
    assert magick.default_damage_type(["life"], pattern_attack=True) is DamageType.AGGRAVATED


def test_sphere_reference_cards() -> None:
    assert len(spheres.SPHERE_LEVELS) == 9
    assert all(len(levels) == 5 for levels in spheres.SPHERE_LEVELS.values())
    assert all(t.ru and t.en for levels in spheres.SPHERE_LEVELS.values() for t in levels)
    prime = spheres.level_text("prime", 5)
    assert "сжигание Парадокса" in prime.ru
    assert "burn Paradox" in prime.en
    assert spheres.level_text(Sphere.SPIRIT, 4).ru.startswith("Воздействовать на Барьер")
    assert spheres.SPHERE_NAMES[Sphere.CORRESPONDENCE].ru == "Связи"
    assert spheres.LEVEL_NAMES[spheres.SphereLevel.DISCIPLE].ru == "Посвященный"
    refused(ErrorCode.UNKNOWN_KEY, spheres.level_text, "fire", 1)
    refused(ErrorCode.RANGE, spheres.level_text, "time", 6)


# --- Properties ---------------------------------------------------------------------------

_KEYED = st.sampled_from(
    [m for m in Modifier if m not in (Modifier.QUINTESSENCE, Modifier.UNNEEDED_FOCUS)]
)


@st.composite
def _modifier_lists(draw: st.DrawFn) -> list[tuple[Modifier, int]]:
    keys = draw(st.lists(_KEYED, unique=True, max_size=6))
    out: list[tuple[Modifier, int]] = []
    for key in keys:
        lo, hi = magick.MODIFIER_RANGES[key]
        out.append((key, draw(st.integers(lo, hi))))
    return out


_PROFILES = st.sampled_from([HOUSE_MAGE, MAGE_REVISED, DARK_AGES])


@FAST
@given(
    level=st.integers(1, 5),
    vulgar=st.booleans(),
    witnesses=st.booleans(),
    mods=_modifier_lists(),
    q=st.integers(0, 3),
    profile=_PROFILES,
)
def test_difficulty_bounds_and_cap(
    level: int,
    vulgar: bool,
    witnesses: bool,
    mods: list[tuple[Modifier, int]],
    q: int,
    profile: Profile,
) -> None:
    got = magick.effect_difficulty(level, vulgar, witnesses, mods, q, profile=profile)
    assert profile.effect_difficulty_min <= got.difficulty <= 10
    assert got.threshold >= 0
    assert -3 <= got.modifier_applied <= 3
    assert 0 <= got.wasted_quintessence <= q
    assert 0 <= got.floor_quintessence <= q - got.wasted_quintessence
    if got.floor_quintessence:
        assert got.difficulty == profile.effect_difficulty_min
    assert got.modifier_total == sum(v for _, v in mods) - q
    # What is not clamped is base + applied, split into difficulty and threshold.
    raw = got.base + got.modifier_applied
    if profile.effect_difficulty_min <= raw and (profile.threshold_rule or raw <= 10):
        assert got.difficulty + got.threshold == raw
    if got.threshold:
        assert got.difficulty >= 9


@FAST
@given(
    level=st.integers(1, 5),
    vulgar=st.booleans(),
    witnesses=st.booleans(),
    rolls=st.integers(0, 20),
)
def test_paradox_gain_properties(level: int, vulgar: bool, witnesses: bool, rolls: int) -> None:
    gains = {
        o: magick.paradox_gain(level, vulgar, witnesses, o, ritual_rolls=rolls) for o in Outcome
    }
    assert all(g >= 0 for g in gains.values())
    assert gains[Outcome.BOTCH] > gains[Outcome.SUCCESS]  # a botch always costs more
    assert gains[Outcome.SUCCESS] == gains[Outcome.FAILURE]
    assert magick.paradox_gain(level, True, witnesses, "success") >= magick.paradox_gain(
        level, False, witnesses, "success"
    )


@FAST
@given(size=st.integers(1, 30), data=st.data())
def test_wheel_limits(size: int, data: st.DataObject) -> None:
    profile = _house(wheel_size=size)
    p = data.draw(st.integers(0, 40))
    q = data.draw(st.integers(0, max(0, size - p)))
    gain = data.draw(st.integers(0, 40))
    change = magick.add_paradox(q, p, gain, profile=profile)
    after = change.wheel
    assert after.paradox == p + gain  # Paradox is never capped by the track
    assert after.quintessence + min(after.paradox, size) <= size
    assert after.quintessence + change.quintessence_burned == q
    if p + gain + q <= size:
        assert change.quintessence_burned == 0
    amount = data.draw(st.integers(0, 40))
    filled = magick.add_quintessence(q, p, amount, profile=profile)
    assert filled.wheel.quintessence + filled.overflow == q + amount
    assert filled.wheel.quintessence + min(p, size) <= size


@FAST
@given(a=st.integers(0, 60), b=st.integers(0, 60))
def test_backlash_tier_monotone(a: int, b: int) -> None:
    low, high = sorted((a, b))
    assert magick.backlash_tier(low) <= magick.backlash_tier(high)
    assert 0 <= magick.backlash_tier(high) <= 5
    assert (magick.backlash_tier(high) == 0) is (high == 0)


@FAST
@given(faces=st.lists(st.integers(1, 10), min_size=1, max_size=40))
def test_backlash_conserves_paradox(faces: list[int]) -> None:
    result = magick.backlash(len(faces), faces=faces)
    assert result.successes + result.paradox_after == len(faces)
    assert result.successes == sum(1 for f in faces if f >= 6)
    assert result.effects.damage_dice >= 0


_JUNK = st.one_of(
    st.integers(-20, 20),
    st.booleans(),
    st.floats(allow_nan=False, width=16),
    st.text(max_size=5),
    st.none(),
)


@FAST
@given(args=st.tuples(_JUNK, _JUNK, _JUNK, _JUNK, _JUNK))
def test_junk_input_raises_only_rules_errors(args: tuple[Any, ...]) -> None:
    level, vulgar, witnesses, modifier, q = args
    calls = (
        lambda: magick.effect_difficulty(level, vulgar, witnesses, [modifier], q),
        lambda: magick.paradox_gain(level, vulgar, witnesses, q),
        lambda: magick.backlash_tier(level),
        lambda: magick.add_paradox(level, q, modifier),
        lambda: magick.allocate(level, q, magick.EffectParts(damage=modifier)),
        lambda: magick.barrier(modifier, level),
        lambda: magick.time_reach(level),
        lambda: magick.correspondence_required(modifier, q),
    )
    for call in calls:
        with contextlib.suppress(RulesInputError):
            call()


def test_blindness_adds_two_to_an_effect_and_the_barrier_outside_the_cap() -> None:
    """S4 «Ослепление: +2 сложности ко всем действиям»: an Arete roll is one, and the +2
    is not one of magick's own modifiers (their ±3 cap does not hold it back)."""
    from rules import magick as m

    seen = m.effect_difficulty(2, False, False, profile=HOUSE_MAGE)
    blind = m.effect_difficulty(2, False, False, condition_difficulty=2, profile=HOUSE_MAGE)
    assert blind.difficulty == seen.difficulty + 2
    capped = m.effect_difficulty(2, False, False, (3,), condition_difficulty=2, profile=HOUSE_MAGE)
    assert capped.difficulty + capped.threshold == seen.difficulty + 3 + 2
    place = "most_cities"
    plain = m.cross_barrier(3, place, faces=[9, 9, 9], profile=HOUSE_MAGE)
    blinded = m.barrier_for(m.barrier(place, profile=HOUSE_MAGE), 2)
    dark = m.cross_barrier(3, blinded, faces=[9, 9, 9], profile=HOUSE_MAGE)
    assert dark.barrier.difficulty == min(10, plain.barrier.difficulty + 2)
