"""Rules the audit of docs/rules.md §A–§D against the seed texts found missing or wrong.

Each test quotes the section and the seed sentence it enforces.
"""

from __future__ import annotations

from rules import combat, profiles
from rules.combat import DefenceManoeuvre, PlanReason, PlanStatus
from rules.health import DamageType, HealthTrack

HOUSE = profiles.get("mage")
REVISED = profiles.get("mage-revised")


# §A.2 / §A.0 zero_ability = AUTO_FAILURE, S4 «Атрибут + Способность со сложностью [4-10].
# 0 в Способности - автоматически [Неудача], если ГМ не решит иначе.» The house sheet says it of
# every check; attack_plan applied it but the other Attribute + Ability rolls of §B did not.


def test_defence_with_zero_ability_is_an_automatic_failure_in_the_house_profile() -> None:
    # S4 «Уклонение: Ловкость + Уклонение».
    plan = combat.defence_plan(
        combat.DefenceSetup(code=DefenceManoeuvre.DODGE, dexterity=3, ability=0), HOUSE
    )
    assert plan.status is PlanStatus.AUTO_FAILURE
    assert plan.reason is PlanReason.ZERO_ABILITY
    assert plan.pool == 0


def test_defence_with_zero_ability_rolls_the_attribute_elsewhere_or_on_gm_override() -> None:
    revised = combat.defence_plan(
        combat.DefenceSetup(code=DefenceManoeuvre.DODGE, dexterity=3, ability=0), REVISED
    )
    assert (revised.status, revised.pool) == (PlanStatus.ROLL, 3)
    overridden = combat.defence_plan(
        combat.DefenceSetup(code=DefenceManoeuvre.DODGE, dexterity=3, ability=0, gm_override=True),
        HOUSE,
    )
    assert (overridden.status, overridden.pool) == (PlanStatus.ROLL, 3)


def test_standing_up_with_zero_athletics_is_an_automatic_failure_in_the_house_profile() -> None:
    # S4 «Чтобы сразу подняться - Ловкость + Атлетизм».
    plan = combat.stand_up_plan(3, 0, HOUSE)
    assert plan.status is PlanStatus.AUTO_FAILURE
    assert plan.reason is PlanReason.ZERO_ABILITY
    assert combat.stand_up_plan(3, 0, HOUSE, gm_override=True).pool == 3
    assert combat.stand_up_plan(3, 0, REVISED).pool == 3


def test_readying_a_weapon_in_a_multiple_action_with_zero_ability_fails_in_the_house() -> None:
    # S4 «Подготовка оружия - без броска, но если это входит в множественное действие -
    # Ловкость + Фехтование/Огн. Оружие».
    plan = combat.ready_weapon(3, 0, HOUSE, in_multiple_action=True)
    assert plan is not None
    assert plan.status is PlanStatus.AUTO_FAILURE
    assert combat.ready_weapon(3, 0, HOUSE, in_multiple_action=False) is None
    revised = combat.ready_weapon(3, 0, REVISED, in_multiple_action=True)
    assert revised is not None
    assert revised.pool == 3


def test_blind_fire_check_with_zero_awareness_fails_in_the_house_profile() -> None:
    # S4 «Стрельба вслепую: Восприятие+Осведомлённость (сложность 8)».
    plan = combat.blind_fire_check(3, 0)
    assert plan.status is PlanStatus.AUTO_FAILURE
    assert plan.reason is PlanReason.ZERO_ABILITY
    assert combat.blind_fire_check(3, 0, REVISED).pool == 3
    assert combat.blind_fire_check(3, 0, HOUSE, gm_override=True).pool == 3
    assert combat.blind_fire_check(3, 2).pool == 5


def test_blind_fire_check_loses_dice_to_wounds() -> None:
    """AMB-B17: the check is an action pool, so the wound penalty applies (§B.9)."""
    hurt = HealthTrack((DamageType.LETHAL,) * 2)  # «Ранен»: −1
    assert combat.blind_fire_check(3, 2, track=hurt).pool == 4
    crippled = HealthTrack((DamageType.LETHAL,) * 7)  # «Без сознания»: no action at all
    assert combat.blind_fire_check(3, 2, track=crippled).status is PlanStatus.IMPOSSIBLE
