"""The attack panel's rolls in the chat's log, pure: each press logs the dice it rolled, in
the order rolled, with the fight's round (so /log, /stats and the chronicle see a fight)."""

from __future__ import annotations

from bot.runner import Advance, Known
from handlers.combat.attack.callbacks import AtkAction, AtkCallback
from handlers.combat.attack.flow import DEFENCES, AttackFlow, Defence, Guard, Side, Stage
from handlers.combat.attack.tap import Scene, log_entries, step
from rules.combat import tracker
from rules.combat.manoeuvres import Trait
from rules.profiles import HOUSE_MAGE
from rules.sheet import SheetSystem, new_sheet
from tests.handlers.combat.attack.test_tap import fight
from tests.handlers.stepping import ANNA, BORIS, Faces, flow_of, speaking

ANNA_SIDE = Side(
    key=tracker.player_key(ANNA.id),
    name=ANNA.name,
    user_id=ANNA.id,
    ratings={Trait.DEXTERITY.value: 3, Trait.BRAWL.value: 2, Trait.STRENGTH.value: 2},
    sheet=True,
)
BORIS_SIDE = Side(
    key=tracker.player_key(BORIS.id),
    name=BORIS.name,
    user_id=BORIS.id,
    ratings={Trait.DEXTERITY.value: 2, Trait.DODGE.value: 1, Trait.STAMINA.value: 2},
)
GOON = Side(
    key="npc:goon", name="Громила", ratings={Trait.DEXTERITY.value: 3, Trait.BRAWL.value: 2}
)
PANEL = AttackFlow(attacker=ANNA_SIDE, targets=(BORIS_SIDE, GOON), round_no=1, fight="t1")


def knowing(state: AttackFlow, storyteller: bool = False) -> Known[Scene]:
    opened = fight()
    assert opened.state.round.number == 1
    scene = Scene(storyteller=storyteller, tracker=opened, sheet=new_sheet(SheetSystem.MAGE))
    return Known(flow=flow_of(state), profile=HOUSE_MAGE, read=scene)


def press(action: AtkAction, x: int = 0) -> AtkCallback:
    return AtkCallback(f="f1", v=3, a=action, x=x)


def test_setting_up_logs_nothing() -> None:
    outcome = step(PANEL, press(AtkAction.WEAPON, 2), ANNA, knowing(PANEL), Faces([]))
    assert isinstance(outcome, Advance)
    assert outcome.entries == ()


def test_the_attack_is_logged_under_the_attacker_with_its_round() -> None:
    with speaking():
        outcome = step(
            PANEL, press(AtkAction.TARGET, 0), ANNA, knowing(PANEL), Faces([9, 8, 7, 9, 8])
        )
    assert isinstance(outcome, Advance)
    assert outcome.state.stage is Stage.DEFENCE
    [attack] = outcome.entries
    assert (attack.kind, attack.user_id, attack.name) == ("atk", ANNA.id, ANNA.name)
    assert attack.faces == (9, 8, 7, 9, 8)
    assert (attack.pool, attack.difficulty, attack.successes) == (5, 6, 5)
    assert attack.round_no == 1


def test_a_miss_logs_the_attack_alone() -> None:
    with speaking():
        outcome = step(PANEL, press(AtkAction.TARGET, 0), ANNA, knowing(PANEL), Faces([2] * 5))
    assert outcome.state is not None
    assert outcome.state.stage is Stage.DONE
    assert [e.kind for e in outcome.entries] == ["atk"]


def test_the_defenders_tap_logs_its_defence_damage_and_soak_in_the_order_rolled() -> None:
    with speaking():
        rolled = step(PANEL, press(AtkAction.TARGET, 0), ANNA, knowing(PANEL), Faces([9] * 5))
    assert isinstance(rolled, Advance)
    panel = rolled.state.model_copy(update={"guard": Guard.FREE})  # a defence is free
    dodge = DEFENCES.index(Defence.DODGE)
    fed = [3, 2, 7, 8, 9, 10, 4, 6, 1, 5, 9, 7, 3]  # dodge 3, then damage, then soak
    with speaking():
        outcome = step(panel, press(AtkAction.DEFEND, dodge), BORIS, knowing(panel), Faces(fed))
    assert isinstance(outcome, Advance)
    done = outcome.state
    assert done.stage is Stage.DONE
    assert done.damage is not None
    assert done.soak is not None
    kinds = [(e.kind, e.user_id) for e in outcome.entries]
    assert kinds == [("def", BORIS.id), ("dmg", ANNA.id), ("soak", BORIS.id)]
    defence, damage, soak = outcome.entries
    assert defence.faces == (3, 2, 7)
    assert damage.faces == done.damage.faces
    assert soak.faces == done.soak.faces
    rolled_in_order = (defence.faces or ()) + (damage.faces or ()) + (soak.faces or ())
    assert rolled_in_order == tuple(fed[: len(rolled_in_order)])
    assert (damage.successes, soak.successes) == (done.damage.successes, done.soak.successes)
    assert damage.difficulty == done.damage.difficulty
    assert {e.round_no for e in outcome.entries} == {1}


def test_an_npcs_rolls_are_logged_under_the_storyteller_who_pressed_with_its_name() -> None:
    panel = PANEL.model_copy(update={"attacker": GOON, "targets": (ANNA_SIDE,)})
    with speaking():
        outcome = step(
            panel,
            press(AtkAction.TARGET, 0),
            BORIS,
            knowing(panel, storyteller=True),
            Faces([9] * 9),
        )
    assert isinstance(outcome, Advance)
    assert outcome.entries
    assert (outcome.entries[0].user_id, outcome.entries[0].name) == (BORIS.id, "Громила")


def test_a_roll_already_made_is_not_logged_again() -> None:
    with speaking():
        rolled = step(PANEL, press(AtkAction.TARGET, 0), ANNA, knowing(PANEL), Faces([9] * 5))
    assert rolled.state is not None
    assert log_entries(rolled.state, rolled.state, ANNA.id) == ()


def test_an_attack_outside_a_fight_has_no_round() -> None:
    panel = PANEL.model_copy(update={"round_no": 0})
    with speaking():
        outcome = step(panel, press(AtkAction.TARGET, 0), ANNA, knowing(panel), Faces([9] * 5))
    assert isinstance(outcome, Advance)
    assert [e.round_no for e in outcome.entries] == [None]
