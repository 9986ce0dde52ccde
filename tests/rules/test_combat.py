"""Combat on the house sheet S4: docs/rules.md §B.1–§B.8 and the §E.2 vectors G-B01..G-B06, G-B12,
G-B13 (the health vectors G-B07..G-B11 live in test_health.py; G-B06 and G-B10 also here)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import profiles
from rules.combat import (
    MANOEUVRES,
    STAND_UP_INITIATIVE,
    Approach,
    AttackSetup,
    Combatant,
    Condition,
    Cover,
    DefenceManoeuvre,
    DefenceSetup,
    Effect,
    HitResult,
    Manoeuvre,
    PlanReason,
    PlanStatus,
    Rolled,
    Situation,
    Slot,
    Target,
    Trait,
    ambush,
    approach_dice,
    attack_plan,
    blind_fire_check,
    build_turn_schedule,
    cover_difficulty,
    damage_pool,
    declaration_order,
    defence_plan,
    delay_action,
    desperate_defence_pools,
    free_move_metres,
    hold_broken,
    initiative,
    initiative_order,
    interruption_allowed,
    manoeuvre,
    movement,
    ready_weapon,
    resolve_attack,
    roll_damage,
    soak_pool,
    split_spray,
    stand_up,
    stand_up_plan,
    tally,
)
from rules.d10 import resolve
from rules.errors import ErrorCode, RulesInputError
from rules.health import DamageType, HealthTrack, is_stunned
from rules.profiles import CombatOptions

HOUSE = profiles.get("mage")
B, L, A = DamageType.BASHING, DamageType.LETHAL, DamageType.AGGRAVATED


def with_options(**changes: object) -> profiles.Profile:
    return HOUSE.model_copy(update={"combat": HOUSE.combat.model_copy(update=changes)})


# ----- §E.2 vectors -----


def test_g_b01_initiative_and_standing_up() -> None:
    """G-B01: Ловкость 3 + Смекалка 2 + face 7 = 12; standing up at once (−2) gives 10."""
    assert initiative(3, 2, face=7).score == 12
    assert initiative(3, 2, face=7, modifier=STAND_UP_INITIATIVE).score == 10


def test_g_b02_kick() -> None:
    """G-B02: Пинок, Ловкость 3 + Драка 2, Сила 2 → pool 5, diff 7, damage 3 (+ net − 1)."""
    plan = attack_plan(AttackSetup(code=Manoeuvre.KICK, dexterity=3, ability=2, strength=2), HOUSE)
    assert (plan.roll.pool, plan.roll.difficulty, plan.roll.threshold) == (5, 7, 0)
    assert plan.damage_dice == 3
    assert plan.damage_type is B
    assert damage_pool(plan.damage_dice, 1) == 3
    assert damage_pool(plan.damage_dice, 3) == 5


def test_g_b03_full_auto() -> None:
    """G-B03: Ловкость 3 + Огн. Оружие 3, full auto → 16 dice at diff 8, magazine emptied."""
    plan = attack_plan(
        AttackSetup(code=Manoeuvre.FULL_AUTO, dexterity=3, ability=3, weapon_damage=5, ammo=17),
        HOUSE,
    )
    assert (plan.roll.pool, plan.roll.difficulty) == (16, 8)
    assert (plan.ammo_spent, plan.ammo_left) == (17, 0)


def test_g_b03_burst() -> None:
    """G-B03: burst → 8 dice at diff 7, ammo −3."""
    plan = attack_plan(
        AttackSetup(code=Manoeuvre.BURST, dexterity=3, ability=3, weapon_damage=5, ammo=10), HOUSE
    )
    assert (plan.roll.pool, plan.roll.difficulty) == (8, 7)
    assert (plan.ammo_spent, plan.ammo_left) == (3, 7)


@pytest.mark.parametrize(
    ("code", "ammo"), [(Manoeuvre.SPRAY, 0), (Manoeuvre.FULL_AUTO, 0), (Manoeuvre.BURST, 2)]
)
def test_g_b03_not_enough_ammo_is_e_range(code: Manoeuvre, ammo: int) -> None:
    """G-B03: spray with 0 ammo → E_RANGE (and full auto with 0, burst with 2)."""
    with pytest.raises(RulesInputError) as err:
        attack_plan(
            AttackSetup(code=code, dexterity=3, ability=3, weapon_damage=5, ammo=ammo), HOUSE
        )
    assert err.value.code is ErrorCode.RANGE
    assert err.value.field == "ammo"


def test_g_b04_cover_stacks() -> None:
    """G-B04: shooter in full cover, target in full cover, base 6 → 6 + 2 + 1 = 9."""
    sit = Situation(target_cover=Cover.FULL, own_cover=Cover.FULL)
    plan = attack_plan(
        AttackSetup(code=Manoeuvre.SHOT, dexterity=3, ability=3, weapon_damage=4, situation=sit),
        HOUSE,
    )
    assert plan.roll.difficulty == 9
    assert plan.roll.threshold == 0
    assert cover_difficulty(Cover.PARTIAL, Cover.PARTIAL) == 1


def test_g_b05_blind_fire() -> None:
    """G-B05: pre-roll Восприятие + Осведомлённость at diff 8; the shot is at 6 + 3 = 9."""
    check = blind_fire_check(perception=2, awareness=3)
    assert (check.pool, check.difficulty) == (5, 8)
    passed = resolve([8, 2, 3, 4, 5], 8, HOUSE)
    plan = attack_plan(
        AttackSetup(
            code=Manoeuvre.BLIND_FIRE, dexterity=3, ability=2, weapon_damage=4, blind_check=passed
        ),
        HOUSE,
    )
    assert plan.roll.difficulty == 9
    assert plan.status is PlanStatus.ROLL
    failed = resolve([7, 2, 3, 4, 5], 8, HOUSE)
    gated = attack_plan(
        AttackSetup(
            code=Manoeuvre.BLIND_FIRE, dexterity=3, ability=2, weapon_damage=4, blind_check=failed
        ),
        HOUSE,
    )
    assert gated.status is PlanStatus.IMPOSSIBLE
    assert gated.roll.reason is PlanReason.BLIND_CHECK_FAILED
    ungated = attack_plan(
        AttackSetup(code=Manoeuvre.BLIND_FIRE, dexterity=3, ability=2, weapon_damage=4),
        with_options(blind_fire_gated=False),
    )
    assert ungated.status is PlanStatus.ROLL


def test_g_b06_full_attack_chain() -> None:
    """G-B06: attack 4, dodge 1 → net 3; weapon 4 → damage pool 6; faces 6,7,2,9,1,3 → 3
    (the 1 does not cancel); lethal vs Stamina 2 without armour → soak 0; 3 L; stunned."""
    plan = attack_plan(
        AttackSetup(code=Manoeuvre.SHOT, dexterity=3, ability=3, weapon_damage=4), HOUSE
    )
    attack = resolve([6, 7, 8, 9, 2, 3], plan.roll.difficulty, HOUSE)
    assert attack.successes == 4
    dodge = resolve([6, 2, 3], 6, HOUSE)
    assert dodge.successes == 1
    target = Target(stamina=2)
    out = resolve_attack(
        plan, target, HOUSE, Rolled(attack=attack, defence=dodge, damage_faces=[6, 7, 2, 9, 1, 3])
    )
    assert out.result is HitResult.HIT
    assert out.net == 3
    assert out.damage_pool == 6
    assert out.damage is not None
    assert out.damage.successes == 3
    assert out.soak_pool == 0
    assert out.soak is None
    assert out.levels == 3
    assert out.track.code == "LLL"
    assert out.stunned


def test_g_b10_stun_through_an_attack() -> None:
    """G-B10 through the chain: Stamina 3; 4 levels after soak stun, 3 do not."""
    plan = attack_plan(
        AttackSetup(code=Manoeuvre.SHOT, dexterity=3, ability=3, weapon_damage=4), HOUSE
    )
    hit = resolve([8, 8, 2, 2, 2, 2], 6, HOUSE)
    four = resolve_attack(
        plan, Target(stamina=3), HOUSE, Rolled(attack=hit, damage_faces=[6, 7, 8, 9, 2])
    )
    assert (four.levels, four.stunned) == (4, True)
    three = resolve_attack(
        plan, Target(stamina=3), HOUSE, Rolled(attack=hit, damage_faces=[6, 7, 8, 2, 2])
    )
    assert (three.levels, three.stunned) == (3, False)
    assert is_stunned(4, 3)
    assert not is_stunned(3, 3)


def test_g_b12_desperate_defence() -> None:
    """G-B12: desperate defence, full pool 6, 3 incoming attacks → 6, 5, 4."""
    assert desperate_defence_pools(6, 3) == (6, 5, 4)
    pools = [
        defence_plan(
            DefenceSetup(
                code=DefenceManoeuvre.DODGE,
                dexterity=3,
                ability=3,
                desperate=True,
                attacks_before=j,
            ),
            HOUSE,
        ).pool
        for j in range(3)
    ]
    assert pools == [6, 5, 4]
    assert desperate_defence_pools(6, 3, CombatOptions(desperate_defence_cumulative=False)) == (
        3,
        3,
        3,
    )
    assert desperate_defence_pools(2, 4) == (2, 1, 0, 0)


def test_g_b13_movement() -> None:
    """G-B13: Ловкость 2 → free move 10 + 3 = 13 m; moving 4 m while shooting → pool −4."""
    assert free_move_metres(2) == 13
    assert movement(2, 4).dice_penalty == -4
    assert not movement(2, 13).separate_action
    assert movement(2, 14).separate_action
    still = attack_plan(
        AttackSetup(code=Manoeuvre.SHOT, dexterity=2, ability=4, weapon_damage=4), HOUSE
    )
    moving = attack_plan(
        AttackSetup(
            code=Manoeuvre.SHOT,
            dexterity=2,
            ability=4,
            weapon_damage=4,
            situation=Situation(metres_moved=4),
        ),
        HOUSE,
    )
    assert still.roll.pool - moving.roll.pool == 4


# ----- tables and modifiers -----


def test_manoeuvre_table_matches_s4() -> None:
    """S4 «Боевые манёвры» rows: difficulty modifiers, extra dice, damage bonus."""
    rows = {
        Manoeuvre.STRIKE: (0, 0, 0),
        Manoeuvre.KICK: (1, 0, 1),
        Manoeuvre.DISARM: (1, 0, 0),
        Manoeuvre.GRAPPLE: (0, 0, 0),
        Manoeuvre.HOLD: (1, 0, 0),
        Manoeuvre.SHOVE: (1, 0, 1),
        Manoeuvre.SWEEP: (1, 0, 0),
        Manoeuvre.GUN_BUTT: (0, 0, 2),
        Manoeuvre.SHOT: (0, 0, 0),
        Manoeuvre.FULL_AUTO: (2, 10, 0),
        Manoeuvre.SPRAY: (2, 10, 0),
        Manoeuvre.BURST: (1, 2, 0),
        Manoeuvre.BLIND_FIRE: (3, 0, 0),
        Manoeuvre.BITE: (0, 0, 1),  # not S4's: the vampire's bite of §B.13
    }
    assert set(MANOEUVRES) == set(rows)
    for code, (diff, dice, bonus) in rows.items():
        spec = manoeuvre(code)
        assert (spec.difficulty_mod, spec.attack_dice, spec.damage_bonus) == (diff, dice, bonus)
    assert Effect.KNOCKDOWN in manoeuvre("shove").effects
    assert Effect.KNOCKDOWN in manoeuvre("sweep").effects
    assert Effect.SPLIT_TARGETS in manoeuvre("spray").effects


def test_unknown_manoeuvre_is_unknown_key() -> None:
    with pytest.raises(RulesInputError) as err:
        manoeuvre("headbutt")
    assert err.value.code is ErrorCode.UNKNOWN_KEY
    with pytest.raises(RulesInputError) as err:
        attack_plan(
            AttackSetup(code=Manoeuvre.KICK, dexterity=3, ability=2, ability_used=Trait.MELEE),
            HOUSE,
        )
    assert err.value.code is ErrorCode.UNKNOWN_KEY


def test_weapon_and_strength_damage() -> None:
    """«Сила / урон оружия»; gun butt «Урон оружия + 2» on the melee rating or Strength (AMB-B7)."""
    fist = attack_plan(
        AttackSetup(code=Manoeuvre.STRIKE, dexterity=2, ability=2, strength=3), HOUSE
    )
    assert (fist.damage_dice, fist.damage_type) == (3, B)
    knife = attack_plan(
        AttackSetup(
            code=Manoeuvre.STRIKE,
            dexterity=2,
            ability=2,
            ability_used=Trait.MELEE,
            strength=3,
            weapon_damage=4,
        ),
        HOUSE,
    )
    assert (knife.damage_dice, knife.damage_type) == (4, L)
    butt = attack_plan(
        AttackSetup(code=Manoeuvre.GUN_BUTT, dexterity=2, ability=2, strength=3), HOUSE
    )
    assert (butt.damage_dice, butt.damage_type) == (5, B)
    claws = attack_plan(
        AttackSetup(code=Manoeuvre.STRIKE, dexterity=2, ability=2, strength=3, damage_type="A"),
        HOUSE,
    )
    assert claws.damage_type is A
    disarm = attack_plan(AttackSetup(code=Manoeuvre.DISARM, dexterity=2, ability=2), HOUSE)
    assert (disarm.damage_dice, disarm.damage_type) == (0, None)
    with pytest.raises(RulesInputError) as err:
        attack_plan(AttackSetup(code=Manoeuvre.SHOT, dexterity=2, ability=2), HOUSE)
    assert err.value.field == "weapon_damage"


def test_rear_and_flank_as_written_and_swapped() -> None:
    """S4 «с тыла даёт +1 кубик…, с фланга - +2 куба» (AMB-B3), and the swap switch."""
    assert approach_dice(Approach.REAR) == 1
    assert approach_dice(Approach.FLANK) == 2
    swapped = CombatOptions(swap_rear_flank=True)
    assert approach_dice(Approach.REAR, swapped) == 2
    assert approach_dice(Approach.FLANK, swapped) == 1
    plan = attack_plan(
        AttackSetup(
            code=Manoeuvre.STRIKE,
            dexterity=2,
            ability=2,
            strength=2,
            situation=Situation(approach=Approach.FLANK),
        ),
        HOUSE,
    )
    assert plan.roll.pool == 6


def test_conditions_modify_pool_and_difficulty() -> None:
    """§B.8: blinded +2 diff own / +2 dice against; prone +2 diff on Драка / +1 die against;
    partly immobilized +2 dice; fully immobilized → automatic hit."""
    sit = Situation(
        attacker_conditions=frozenset({Condition.BLINDED, Condition.PRONE}),
        target_conditions=frozenset({Condition.BLINDED, Condition.PRONE}),
    )
    plan = attack_plan(
        AttackSetup(code=Manoeuvre.STRIKE, dexterity=2, ability=2, strength=2, situation=sit), HOUSE
    )
    assert plan.roll.pool == 4 + 2 + 1
    assert (plan.roll.difficulty, plan.roll.threshold) == (9, 1)  # 6 + 2 + 2 = 10 → 9 + 1
    partial = Situation(target_conditions=frozenset({Condition.IMMOBILIZED_PARTIAL}))
    p2 = attack_plan(
        AttackSetup(code=Manoeuvre.KICK, dexterity=2, ability=2, strength=2, situation=partial),
        HOUSE,
    )
    assert p2.roll.pool == 6
    full = Situation(target_conditions=frozenset({Condition.IMMOBILIZED_FULL}))
    p3 = attack_plan(
        AttackSetup(code=Manoeuvre.KICK, dexterity=2, ability=2, strength=2, situation=full), HOUSE
    )
    assert p3.status is PlanStatus.AUTO_HIT
    out = resolve_attack(
        p3, Target(stamina=1), HOUSE, Rolled(damage_faces=[6, 6, 1], soak_faces=[2])
    )
    assert out.net == 1  # AMB-B13: an automatic hit counts one success
    assert out.damage_pool == 3
    assert out.levels == 2


def test_off_hand_body_part_and_threshold() -> None:
    """Off hand +1, body part +1..+3; beyond 9 the surplus is threshold (§A.8)."""
    sit = Situation(off_hand=True, body_part=3)
    plan = attack_plan(
        AttackSetup(code=Manoeuvre.KICK, dexterity=2, ability=2, strength=2, situation=sit), HOUSE
    )
    assert (plan.roll.difficulty, plan.roll.threshold) == (9, 2)  # 6 + 1 + 1 + 3 = 11


def test_cover_does_not_apply_to_melee() -> None:
    sit = Situation(target_cover=Cover.FULL, own_cover=Cover.FULL)
    plan = attack_plan(
        AttackSetup(code=Manoeuvre.STRIKE, dexterity=2, ability=2, strength=2, situation=sit), HOUSE
    )
    assert plan.roll.difficulty == 6


def test_aiming() -> None:
    """S4 «+1 кубик к последующей атаке за каждый ход Прицеливания», needs Firearms > 0."""
    aimed = attack_plan(
        AttackSetup(
            code=Manoeuvre.SHOT,
            dexterity=2,
            ability=2,
            weapon_damage=4,
            situation=Situation(aim_turns=3),
        ),
        HOUSE,
    )
    assert aimed.roll.pool == 7
    capped = attack_plan(
        AttackSetup(
            code=Manoeuvre.SHOT,
            dexterity=2,
            ability=2,
            weapon_damage=4,
            situation=Situation(aim_turns=3),
        ),
        with_options(aim_cap=2),
    )
    assert capped.roll.pool == 6
    with pytest.raises(RulesInputError) as err:
        attack_plan(
            AttackSetup(
                code=Manoeuvre.SHOT,
                dexterity=2,
                ability=0,
                weapon_damage=4,
                situation=Situation(aim_turns=1),
            ),
            HOUSE,
        )
    assert err.value.code is ErrorCode.NOT_ALLOWED


def test_zero_ability_wounds_and_stun_block_the_attack() -> None:
    """S4 «0 в Способности - автоматически [Неудача]»; Калека −5; Контузия loses the turn."""
    zero = attack_plan(
        AttackSetup(code=Manoeuvre.STRIKE, dexterity=3, ability=0, strength=2), HOUSE
    )
    assert zero.status is PlanStatus.AUTO_FAILURE
    missed = resolve_attack(zero, Target(stamina=2), HOUSE)
    assert missed.result is HitResult.MISS
    revised = profiles.get("mage-revised")
    assert (
        attack_plan(AttackSetup(code=Manoeuvre.STRIKE, dexterity=3, ability=0), revised).roll.pool
        == 3
    )
    crippled = HealthTrack.parse("BBBBBB")
    weak = attack_plan(
        AttackSetup(code=Manoeuvre.STRIKE, dexterity=3, ability=2, strength=2, track=crippled),
        HOUSE,
    )
    assert (weak.status, weak.roll.reason) == (PlanStatus.IMPOSSIBLE, PlanReason.POOL_EMPTY)
    hurt = attack_plan(
        AttackSetup(code=Manoeuvre.STRIKE, dexterity=3, ability=2, track=HealthTrack.parse("BB")),
        HOUSE,
    )
    assert hurt.roll.pool == 4
    stunned = Situation(attacker_conditions=frozenset({Condition.STUNNED}))
    dazed = attack_plan(
        AttackSetup(code=Manoeuvre.STRIKE, dexterity=3, ability=2, situation=stunned), HOUSE
    )
    assert dazed.roll.reason is PlanReason.STUNNED
    with pytest.raises(RulesInputError) as err:
        resolve_attack(weak, Target(stamina=2), HOUSE)
    assert err.value.code is ErrorCode.NOT_ALLOWED


# ----- the chain: defence, damage, soak -----


def test_defence_that_matches_the_attack_is_a_miss() -> None:
    plan = attack_plan(
        AttackSetup(code=Manoeuvre.STRIKE, dexterity=2, ability=2, strength=2), HOUSE
    )
    attack = resolve([6, 7, 2, 3], 6, HOUSE)
    block = resolve([8, 9, 2], 6, HOUSE)
    out = resolve_attack(plan, Target(stamina=2), HOUSE, Rolled(attack=attack, defence=block))
    assert out.result is HitResult.MISS
    assert out.track == HealthTrack()


def test_defence_as_contest_switch() -> None:
    """defence_subtracts=False: a weaker defence doesn't reduce the attacker's successes."""
    prof = with_options(defence_subtracts=False)
    plan = attack_plan(AttackSetup(code=Manoeuvre.STRIKE, dexterity=2, ability=2, strength=2), prof)
    attack = resolve([6, 7, 8, 3], 6, prof)
    block = resolve([8, 2, 2], 6, prof)
    out = resolve_attack(
        plan, Target(stamina=0), prof, Rolled(attack=attack, defence=block, damage_faces=[2] * 4)
    )
    assert out.net == 3
    assert out.damage_pool == 4


def test_botched_attack() -> None:
    plan = attack_plan(
        AttackSetup(code=Manoeuvre.SHOT, dexterity=2, ability=2, weapon_damage=4), HOUSE
    )
    out = resolve_attack(
        plan, Target(stamina=2), HOUSE, Rolled(attack=resolve([1, 2, 3, 4], 6, HOUSE))
    )
    assert out.result is HitResult.BOTCH


def test_bashing_soak_with_stamina_and_armour() -> None:
    """AMB-B2: soak Stamina + armour at diff 6; 1s don't cancel; levels = damage − soak."""
    plan = attack_plan(
        AttackSetup(code=Manoeuvre.STRIKE, dexterity=2, ability=2, strength=3), HOUSE
    )
    attack = resolve([6, 7, 2, 3], 6, HOUSE)  # 2 successes → damage pool 3 + 1
    target = Target(stamina=2, armour=1, track=HealthTrack.parse("B"))
    out = resolve_attack(
        plan, target, HOUSE, Rolled(attack=attack, damage_faces=[6, 7, 8, 10], soak_faces=[6, 1, 2])
    )
    assert out.damage_pool == 4
    assert out.soak_pool == 3
    assert out.soak is not None
    assert out.soak.successes == 1
    assert out.levels == 3
    assert out.track.code == "BBBB"
    assert out.stunned  # 3 levels after soak > Stamina 2 (§B.11)


def test_soak_pool_by_damage_type() -> None:
    """§B.10 [P]: bashing Stamina + armour; lethal armour only; aggravated only if flagged."""
    t = Target(stamina=3, armour=2)
    assert soak_pool(t, B) == 5
    assert soak_pool(t, L) == 2
    assert soak_pool(t, L, CombatOptions(stamina_soaks_lethal=True)) == 5
    assert soak_pool(t, A) == 0
    assert soak_pool(Target(stamina=3, armour=2, soaks_aggravated=True), A) == 5
    assert soak_pool(t, B, unsoakable=True) == 0


def test_damage_rolls_never_cancel_or_botch_by_default() -> None:
    """AMB-B2: «1s don't cancel»; the switch restores the rule of one."""
    assert tally([1, 1, 6, 7], 6).successes == 2
    assert tally([1, 1, 6, 7], 6, ones_cancel=True).successes == 0
    assert tally([1, 1, 1], 6).successes == 0
    rolled = roll_damage(5, rng=random.Random(3))
    assert len(rolled.faces) == 5
    with pytest.raises(RulesInputError) as err:
        roll_damage(3, faces=[6, 6])
    assert err.value.code is ErrorCode.FACES_LEN


def test_dead_target_and_ambush_defence_rejected() -> None:
    plan = attack_plan(
        AttackSetup(code=Manoeuvre.STRIKE, dexterity=2, ability=2, strength=2), HOUSE
    )
    attack = resolve([6, 7, 2, 3], 6, HOUSE)
    dead = HealthTrack((), dead=True)
    with pytest.raises(RulesInputError) as err:
        resolve_attack(plan, Target(stamina=2, track=dead), HOUSE, Rolled(attack=attack))
    assert err.value.code is ErrorCode.NOT_ALLOWED
    with pytest.raises(RulesInputError):
        resolve_attack(
            plan,
            Target(stamina=2),
            HOUSE,
            Rolled(attack=attack, defence=resolve([6], 6, HOUSE), ambush=True),
        )


def test_attack_roll_must_match_the_plan() -> None:
    plan = attack_plan(AttackSetup(code=Manoeuvre.KICK, dexterity=2, ability=2, strength=2), HOUSE)
    with pytest.raises(RulesInputError) as err:
        resolve_attack(plan, Target(stamina=2), HOUSE, Rolled(attack=resolve([7, 7], 6, HOUSE)))
    assert err.value.code is ErrorCode.STATE


def test_lethal_hit_kills_a_full_track() -> None:
    plan = attack_plan(
        AttackSetup(code=Manoeuvre.SHOT, dexterity=2, ability=2, weapon_damage=2), HOUSE
    )
    target = Target(stamina=2, track=HealthTrack.parse("LLLLLLL"))
    out = resolve_attack(
        plan, target, HOUSE, Rolled(attack=resolve([7, 2], 6, HOUSE), damage_faces=[7, 2])
    )
    assert out.track.dead
    assert not out.stunned


# ----- initiative and phases -----


def test_initiative_order_ties_and_declaration() -> None:
    """AMB-B1: ties → higher Dex+Wits; phase II declares in ascending order."""
    a = Combatant("a", initiative(2, 2, face=8))  # 12, dex+wits 4
    b = Combatant("b", initiative(4, 3, face=5))  # 12, dex+wits 7
    c = Combatant("c", initiative(1, 1, face=2))  # 4
    order = initiative_order([c, a, b], rng=random.Random(1))
    assert order == ("b", "a", "c")
    assert declaration_order(order) == ("c", "a", "b")
    with pytest.raises(RulesInputError):
        initiative_order([a, a])


def test_initiative_with_wounds_only_when_switched_on() -> None:
    hurt = HealthTrack.parse("LLLL")
    assert initiative(3, 2, face=5, track=hurt).score == 10
    opts = CombatOptions(wound_penalty_on_initiative=True)
    assert initiative(3, 2, face=5, track=hurt, options=opts).score == 8
    assert initiative(3, 2, face=0).face == 10  # a d10 printed 0 (§A.1)
    assert 6 <= initiative(3, 2, rng=random.Random(5)).score <= 15


def test_turn_schedule_phase_three_then_four() -> None:
    """Phase III in descending initiative, then phase IV passes for 2nd, 3rd actions."""
    schedule = build_turn_schedule(("b", "a", "c"), {"b": 2, "a": 1, "c": 3})
    assert schedule == (
        Slot("b", 1),
        Slot("a", 1),
        Slot("c", 1),
        Slot("b", 2),
        Slot("c", 2),
        Slot("c", 3),
    )
    assert build_turn_schedule(("a", "b"), {"b": 0}) == (Slot("a", 1),)
    with pytest.raises(RulesInputError) as err:
        build_turn_schedule(("a",), {"z": 1})
    assert err.value.code is ErrorCode.UNKNOWN_KEY


def test_delay_action() -> None:
    """S4 «можно отложить заявленное действие»: later in the same pass, never earlier."""
    schedule = build_turn_schedule(("a", "b", "c"), {"a": 2})
    delayed = delay_action(schedule, 0, 2)
    assert [s.actor for s in delayed[:3]] == ["b", "a", "c"]
    with pytest.raises(RulesInputError):
        delay_action(schedule, 1, 0)
    with pytest.raises(RulesInputError):
        delay_action(schedule, 0, 3)  # slot 3 is the 2nd pass


# ----- defence, interruption, ambush, holds, standing up, spray -----


def test_defence_plans() -> None:
    """§B.4: Блок/Парирование Ловкость + Драка/Фехтование, Уклонение Ловкость + Уклонение."""
    block = defence_plan(DefenceSetup(code="block", dexterity=3, ability=2), HOUSE)
    assert (block.pool, block.difficulty) == (5, 6)
    prone = frozenset({Condition.PRONE})
    parry = defence_plan(
        DefenceSetup(
            code=DefenceManoeuvre.BLOCK,
            dexterity=3,
            ability=2,
            ability_used=Trait.MELEE,
            conditions=prone,
        ),
        HOUSE,
    )
    assert parry.difficulty == 8
    dodge = defence_plan(
        DefenceSetup(code=DefenceManoeuvre.DODGE, dexterity=3, ability=2, conditions=prone), HOUSE
    )
    assert dodge.difficulty == 6
    with pytest.raises(RulesInputError):
        defence_plan(
            DefenceSetup(code="dodge", dexterity=3, ability=2, ability_used="brawl"), HOUSE
        )
    with pytest.raises(RulesInputError) as err:
        defence_plan(DefenceSetup(code="parry-ish", dexterity=3, ability=2), HOUSE)
    assert err.value.code is ErrorCode.UNKNOWN_KEY


def test_interruption() -> None:
    """S4 «Прерывание… (бросок Силы Воли или трата 1 Силы Воли)», AMB-B4."""
    assert interruption_allowed(HOUSE, spend_willpower=True)
    assert interruption_allowed(HOUSE, willpower_roll=resolve([6, 2], 6, HOUSE))
    assert not interruption_allowed(HOUSE, willpower_roll=resolve([5, 2], 6, HOUSE))
    with pytest.raises(RulesInputError) as err:
        interruption_allowed(HOUSE)
    assert err.value.code is ErrorCode.NOT_ALLOWED


def test_ambush() -> None:
    """S4 «Засада… позволяет нанести атаку до начала боя»; no defence (AMB-B14)."""
    won = ambush(resolve([7, 8], 6, HOUSE), resolve([7, 2], 6, HOUSE), HOUSE)
    assert (won.strikes_first, won.victim_defends) == (True, False)
    tie = ambush(resolve([7], 6, HOUSE), resolve([7], 6, HOUSE), HOUSE)
    assert (tie.strikes_first, tie.victim_defends) == (False, True)


def test_hold_and_stand_up() -> None:
    assert hold_broken(resolve([6], 6, HOUSE), resolve([6, 7], 6, HOUSE))
    assert not hold_broken(resolve([6], 6, HOUSE), resolve([6], 6, HOUSE))
    up = stand_up(resolve([6, 2], 6, HOUSE), HOUSE)
    assert (up.stood, up.initiative_modifier, up.action_spent, up.bashing) == (True, -2, False, 0)
    down = stand_up(resolve([2, 3], 6, HOUSE), HOUSE)
    assert (down.stood, down.action_spent, down.bashing) == (False, True, 0)
    botch = stand_up(resolve([1, 3], 6, HOUSE), HOUSE)
    assert (botch.action_spent, botch.bashing) == (True, 1)


def test_stand_up_plan_and_botch_soak_switch() -> None:
    """«Ловкость + Атлетизм» at diff 6 (AMB-B16); the botch's bashing level is direct."""
    plan = stand_up_plan(2, 1, HOUSE)
    assert (plan.pool, plan.difficulty) == (3, 6)
    assert not stand_up(resolve([1, 3], 6, HOUSE), HOUSE).soakable
    soaky = with_options(stand_up_botch_soakable=True)
    assert stand_up(resolve([1, 3], 6, soaky), soaky).soakable
    with pytest.raises(RulesInputError):
        stand_up(resolve([6], 5, HOUSE), HOUSE)


def test_ready_weapon() -> None:
    """«Подготовка оружия - без броска, но если это входит в множественное действие…»."""
    assert ready_weapon(3, 2, HOUSE) is None
    plan = ready_weapon(3, 2, HOUSE, in_multiple_action=True)
    assert plan is not None
    assert (plan.pool, plan.difficulty) == (5, 6)


def test_split_spray() -> None:
    assert split_spray(4, [1, 3]) == (1, 3)
    with pytest.raises(RulesInputError) as err:
        split_spray(4, [2, 3])
    assert err.value.code is ErrorCode.RANGE


# ----- invalid input and properties -----


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"dexterity": -1, "ability": 2}, ErrorCode.RANGE),
        ({"dexterity": True, "ability": 2}, ErrorCode.TYPE),
        ({"dexterity": 3.0, "ability": 2}, ErrorCode.TYPE),
        ({"dexterity": 3, "ability": 11}, ErrorCode.RANGE),
        ({"dexterity": 3, "ability": 2, "base_difficulty": 3}, ErrorCode.RANGE),
        ({"dexterity": 3, "ability": 2, "damage_type": "Q"}, ErrorCode.UNKNOWN_KEY),
    ],
)
def test_invalid_attack_input(kwargs: dict[str, object], code: ErrorCode) -> None:
    with pytest.raises(RulesInputError) as err:
        attack_plan(AttackSetup(code=Manoeuvre.STRIKE, **kwargs), HOUSE)  # type: ignore[arg-type]
    assert err.value.code is code


def test_invalid_situation_and_initiative() -> None:
    with pytest.raises(RulesInputError) as err:
        Situation(body_part=4)
    assert err.value.code is ErrorCode.RANGE
    with pytest.raises(RulesInputError) as err:
        Situation(target_cover="bunker")  # type: ignore[arg-type]
    assert err.value.code is ErrorCode.UNKNOWN_KEY
    with pytest.raises(RulesInputError) as err:
        initiative(3, 2, face=11)
    assert err.value.code is ErrorCode.FACE_VALUE
    with pytest.raises(RulesInputError):
        initiative(-1, 2, face=3)


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(list(Manoeuvre)),
    st.integers(0, 5),
    st.integers(0, 5),
    st.integers(0, 5),
    st.integers(0, 3),
    st.sampled_from(list(Cover)),
    st.sampled_from(list(Cover)),
    st.integers(0, 20),
)
def test_property_plans_are_well_formed(
    code: Manoeuvre,
    dex: int,
    skill: int,
    strength: int,
    body: int,
    cover: Cover,
    own: Cover,
    moved: int,
) -> None:
    """Any legal attack gives difficulty 2..10, threshold ≥ 0, pool ≥ 0; only RulesInputError."""
    sit = Situation(body_part=body, target_cover=cover, own_cover=own, metres_moved=moved)
    check = resolve([8], 8, HOUSE)
    try:
        plan = attack_plan(
            AttackSetup(
                code=code,
                dexterity=dex,
                ability=skill,
                strength=strength,
                weapon_damage=3,
                ammo=30,
                situation=sit,
                blind_check=check,
            ),
            HOUSE,
        )
    except RulesInputError:
        return
    assert 2 <= plan.roll.difficulty <= 10
    assert plan.roll.threshold >= 0
    assert plan.roll.pool >= 0
    if plan.status is PlanStatus.ROLL:
        assert plan.roll.pool >= 1


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 8),
    st.integers(0, 4),
    st.integers(0, 5),
    st.integers(0, 3),
    st.sampled_from([B, L, A]),
    st.integers(0, 2**31),
)
def test_property_attack_chain(
    hits: int, blocked: int, stamina: int, armour: int, kind: DamageType, seed: int
) -> None:
    """Levels never exceed the damage successes; the track only grows; stun iff > Stamina."""
    plan = attack_plan(
        AttackSetup(code=Manoeuvre.STRIKE, dexterity=5, ability=5, strength=3, damage_type=kind),
        HOUSE,
    )
    attack = resolve([7] * hits + [2] * (10 - hits), 6, HOUSE)
    defence = resolve([7] * blocked + [2], 6, HOUSE)
    target = Target(stamina=stamina, armour=armour, track=HealthTrack.parse("B"))
    out = resolve_attack(
        plan, target, HOUSE, Rolled(attack=attack, defence=defence), rng=random.Random(seed)
    )
    if hits <= blocked:
        assert out.result is HitResult.MISS
        assert out.track == target.track
        return
    assert out.damage is not None
    assert out.levels <= out.damage.successes
    assert out.damage_pool == 3 + (hits - blocked - 1)
    assert len(out.track.boxes) >= 1
    assert out.stunned == (not out.track.dead and out.levels > stamina)
