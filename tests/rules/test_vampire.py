"""Vampires by the book (docs/rules.md §B.13): soak, the halved bashing, blood healing at the
Generation's rate, the bite, Potence and Celerity; and mortals staying mortal."""

from __future__ import annotations

import pytest

from rules import combat, d10
from rules.combat import AttackSetup, Manoeuvre, Rolled, Target, attack_plan, resolve_attack
from rules.errors import ErrorCode, RulesInputError
from rules.health import DamageEvent, DamageType, HealthTrack, apply_damage
from rules.profiles import DARK_AGES, VampireOptions
from rules.sheet import SheetSystem, in_torpor, is_vampire, new_sheet, set_health, set_trait
from rules.vampire import (
    CelerityActions,
    blood_per_turn,
    blood_pool_max,
    celerity_actions,
    halved_bashing,
    heal_aggravated_with_blood,
    heal_with_blood,
    potence_damage,
    torpid,
)

B, L, A = DamageType.BASHING, DamageType.LETHAL, DamageType.AGGRAVATED


@pytest.mark.parametrize(
    ("generation", "pool", "per_turn"),
    [
        (4, 50, 10),
        (5, 40, 8),
        (6, 30, 6),
        (7, 20, 4),
        (8, 15, 3),
        (9, 14, 2),
        (10, 13, 1),
        (11, 12, 1),
        (12, 11, 1),
        (13, 10, 1),
    ],
)
def test_generation_table(generation: int, pool: int, per_turn: int) -> None:
    assert blood_pool_max(generation) == pool
    assert blood_per_turn(generation) == per_turn


def test_generation_out_of_the_table_is_a_range_error() -> None:
    for bad in (3, 14, 0):
        with pytest.raises(RulesInputError) as err:
            blood_per_turn(bad)
        assert err.value.code is ErrorCode.RANGE


def test_the_sheet_says_who_is_a_vampire() -> None:
    mortal = set_trait(new_sheet("dark-ages"), "stamina", 3)
    assert not is_vampire(mortal)
    assert is_vampire(set_trait(mortal, "generation", 12))
    assert is_vampire(set_trait(mortal, "blood", 5))
    assert not is_vampire(new_sheet("mage"))
    with pytest.raises(RulesInputError):
        set_trait(mortal, "generation", 20)


def test_vampire_soaks_lethal_with_stamina_and_fortitude_aggravated_with_fortitude() -> None:
    vampire = Target(stamina=3, vampire=True, fortitude=2)
    mortal = Target(stamina=3)
    assert combat.soak_pool(vampire, B) == 5
    assert combat.soak_pool(vampire, L) == 5
    assert combat.soak_pool(vampire, A) == 2
    assert combat.soak_pool(Target(stamina=3, vampire=True), A) == 0
    # a mortal soaks bashing only, unless the house rule says Stamina soaks lethal
    assert combat.soak_pool(mortal, B) == 3
    assert combat.soak_pool(mortal, L) == 0
    lethal_soak = DARK_AGES.combat.model_copy(update={"stamina_soaks_lethal": True})
    assert combat.soak_pool(mortal, L, lethal_soak) == 3


def _strike(faces: list[int], *, vampire_attacker: bool = False, **setup: object) -> object:
    plan = attack_plan(
        AttackSetup(
            code=setup.pop("code", Manoeuvre.STRIKE),  # type: ignore[arg-type]
            dexterity=3,
            ability=3,
            strength=3,
            vampire=vampire_attacker,
            **setup,  # type: ignore[arg-type]
        ),
        DARK_AGES,
    )
    return plan, d10.resolve(faces, difficulty=plan.roll.difficulty, profile=DARK_AGES)


def test_bashing_through_a_vampires_soak_is_halved_rounded_down() -> None:
    plan, attack = _strike([8, 8, 2, 2, 2, 2])  # two successes: 3 + 1 damage dice
    vampire = Target(stamina=2, vampire=True)
    out = resolve_attack(
        plan,  # type: ignore[arg-type]
        vampire,
        DARK_AGES,
        Rolled(attack=attack, damage_faces=[9, 9, 9, 9], soak_faces=[2, 2]),  # type: ignore[arg-type]
    )
    assert out.levels == 2
    assert out.halved == 2
    mortal = resolve_attack(
        plan,  # type: ignore[arg-type]
        Target(stamina=2),
        DARK_AGES,
        Rolled(attack=attack, damage_faces=[9, 9, 9, 9], soak_faces=[2, 2]),  # type: ignore[arg-type]
    )
    assert mortal.levels == 4
    assert halved_bashing(3, B) == 1
    assert halved_bashing(3, L) == 3
    assert halved_bashing(3, B, VampireOptions(bashing_halved=False)) == 3


def test_the_bite_is_aggravated_strength_plus_one_and_only_a_vampires() -> None:
    with pytest.raises(RulesInputError) as err:
        _strike([8], code=Manoeuvre.BITE)
    assert err.value.code is ErrorCode.NOT_ALLOWED
    plan, _attack = _strike([8], code=Manoeuvre.BITE, vampire_attacker=True)
    assert plan.damage_type is A  # type: ignore[attr-defined]
    assert plan.damage_dice == 4  # type: ignore[attr-defined]


def test_potence_adds_automatic_damage_successes_in_melee() -> None:
    plan, attack = _strike([8, 2, 2, 2, 2, 2], potence=2)
    assert plan.damage_successes == 2
    assert plan.damage_dice == 3
    out = resolve_attack(
        plan,  # type: ignore[arg-type]
        Target(stamina=1),
        DARK_AGES,
        Rolled(attack=attack, damage_faces=[2, 2, 2], soak_faces=[2]),  # type: ignore[arg-type]
    )
    assert out.levels == 2  # no damage die hit; Potence's two did
    assert potence_damage(2, VampireOptions(potence_as_dice=True)) == (2, 0)
    shot = attack_plan(
        AttackSetup(code=Manoeuvre.SHOT, dexterity=3, ability=3, weapon_damage=4, potence=2),
        DARK_AGES,
    )
    assert shot.damage_successes == 0
    assert shot.damage_dice == 4


def test_blood_heals_a_level_a_point_within_the_generations_turn() -> None:
    track = HealthTrack((A, L, B, B))
    ninth = heal_with_blood(track, 3, blood=10, generation=9)
    assert (ninth.levels, ninth.blood, ninth.limited) == (2, 2, True)
    assert ninth.track == HealthTrack((A, L))
    all_in = heal_with_blood(track, 7, blood=10, generation=6)
    assert all_in.track == HealthTrack((A,))
    assert all_in.blood == 3
    assert not all_in.limited
    spent = heal_with_blood(track, 1, blood=10, generation=12, spent_this_turn=1)
    assert spent.levels == 0
    assert spent.limited
    poor = heal_with_blood(track, 3, blood=1, generation=4)
    assert poor.levels == 1
    assert not poor.limited


def test_aggravated_heals_with_five_blood_and_a_days_rest() -> None:
    track = HealthTrack((A, A, B))
    healed = heal_aggravated_with_blood(track, blood=5)
    assert healed.track == HealthTrack((A, B))
    assert healed.blood == 5
    assert healed.willpower == 0
    with pytest.raises(RulesInputError) as err:
        heal_aggravated_with_blood(track, blood=4)
    assert err.value.code is ErrorCode.RANGE
    strict = VampireOptions(aggravated_heal_willpower=True)
    with pytest.raises(RulesInputError) as err:
        heal_aggravated_with_blood(track, blood=5, options=strict, willpower=0)
    assert err.value.code is ErrorCode.WP_UNAVAILABLE
    assert heal_aggravated_with_blood(track, blood=5, options=strict, willpower=1).willpower == 1


def test_celerity_extra_actions_cost_blood() -> None:
    assert celerity_actions(3, 2, blood=5) == CelerityActions(2, 2)
    assert celerity_actions(3, 0, blood=0) == CelerityActions(0, 0)
    with pytest.raises(RulesInputError):
        celerity_actions(1, 2, blood=5)
    with pytest.raises(RulesInputError):
        celerity_actions(3, 2, blood=1)


def test_blood_drunk_stops_at_the_generations_pool() -> None:
    from rules.sheet import gain_blood

    sheet = set_trait(set_trait(new_sheet("dark-ages"), "generation", 12), "blood", 9)
    assert gain_blood(sheet, 5).blood == 11
    no_generation = set_trait(new_sheet("dark-ages"), "blood", 9)
    assert gain_blood(no_generation, 5).blood == 14


def test_celerity_within_the_generation_s_blood_a_turn() -> None:
    assert celerity_actions(3, 2, 5, generation=9) == CelerityActions(2, 2)
    with pytest.raises(RulesInputError) as info:
        celerity_actions(3, 3, 5, generation=9)  # the 9th spends two a turn
    assert info.value.field == "generation"


def test_past_incapacitated_a_vampire_lies_in_torpor_until_aggravated_ends_them() -> None:
    """§B.13 torpor [P]: bashing and lethal past «Без Сознания» keep a vampire in torpor; an
    aggravated level turns a lighter box aggravated; seven aggravated and one more is Final
    Death."""
    full = HealthTrack((DamageType.LETHAL,) * 7)
    assert torpid(full)
    kept = apply_damage(full, DamageType.LETHAL, 3, undead=True)
    assert kept.track == full
    assert DamageEvent.TORPOR in kept.events
    assert torpid(kept.track)
    assert apply_damage(full, DamageType.LETHAL, 1).track.dead  # a mortal dies
    bruised = HealthTrack((DamageType.BASHING,) * 7)
    bashed = apply_damage(bruised, DamageType.BASHING, 9, undead=True)
    assert bashed.track == full  # bashing overflow turns lethal, then only torpor
    burnt = apply_damage(full, DamageType.AGGRAVATED, 7, undead=True)
    assert burnt.track == HealthTrack((DamageType.AGGRAVATED,) * 7)
    assert not burnt.track.dead
    ended = apply_damage(burnt.track, DamageType.AGGRAVATED, 1, undead=True)
    assert ended.track.dead
    assert not torpid(ended.track)
    assert not torpid(HealthTrack((DamageType.LETHAL,) * 6))


def test_a_vampire_sheet_at_incapacitated_is_in_torpor_and_a_mortal_is_not() -> None:
    vampire = set_trait(new_sheet(SheetSystem.DARK_AGES), "generation", 12)
    hurt = HealthTrack((DamageType.LETHAL,) * 7)
    assert in_torpor(set_health(vampire, hurt))
    assert not in_torpor(vampire)
    assert not in_torpor(set_health(new_sheet(SheetSystem.DARK_AGES), hurt))
