"""The d6 attack's step, pure (bot/runner.py): an attack and a press in, an Outcome out."""

from __future__ import annotations

import random

from bot import rolling
from bot.runner import Advance, Known, Open, Refuse
from handlers.d6combat.attack.callbacks import AttackAction, D6AttackCallback, GainChoice
from handlers.d6combat.attack.flow import D6AttackFlow, Roll
from handlers.d6combat.attack.tap import TAP, Scene, step
from rules.d6.chance import DifficultyKind
from rules.profiles import D6, GameSystem
from rules.sheet import SheetSystem, new_sheet
from tests.handlers.stepping import ANNA, BORIS, GROUP, flow_of, speaking

ATTACK = D6AttackFlow(
    attack=Roll(key=f"u{ANNA.id}", name=ANNA.name, user_id=ANNA.id, faces=(6, 6, 5), measures=3),
    label="",
    target_name=BORIS.name,
    target_user=BORIS.id,
)
BORIS_ROLLS = rolling.Roller(GROUP, BORIS.id, BORIS.name)


def knowing(state: D6AttackFlow, scene: Scene) -> Known[Scene]:
    return Known(flow=flow_of(state), profile=D6, read=scene)


def press(action: AttackAction, x: int = 0, c: str = "") -> D6AttackCallback:
    return D6AttackCallback(f="f1", v=3, a=action, x=x, c=c)


def test_a_defence_by_chance_is_rolled_once_and_logged() -> None:
    known = knowing(ATTACK, Scene(who=BORIS_ROLLS))
    outcome = step(ATTACK, press(AttackAction.DEFEND, 2), BORIS, known, random.Random(3))
    assert isinstance(outcome, Advance | Open)
    (defence,) = outcome.state.defences
    assert defence.key == f"u{BORIS.id}"
    assert len(defence.faces) == 2
    (entry,) = outcome.entries
    assert entry.kind == "defence"
    again = step(outcome.state, press(AttackAction.DEFEND, 2), BORIS, known, random.Random(3))
    assert isinstance(again, Refuse)
    assert again.alert


def test_the_storyteller_without_a_character_is_asked_to_name_the_npc() -> None:
    known = knowing(ATTACK, Scene(who=None))
    outcome = step(ATTACK, press(AttackAction.DEFEND, 2), BORIS, known, random.Random(3))
    assert isinstance(outcome, Refuse)
    assert outcome.alert


def test_only_the_attacker_or_the_storyteller_calls_the_result() -> None:
    refused = step(ATTACK, press(AttackAction.RESOLVE), BORIS, knowing(ATTACK, Scene()), None)
    assert isinstance(refused, Refuse)
    called = step(
        ATTACK, press(AttackAction.RESOLVE), ANNA, knowing(ATTACK, Scene(calls=True)), None
    )
    assert isinstance(called, Advance | Open)
    assert called.state.outcome is not None
    assert called.state.outcome.hit
    assert not called.close  # the gain is still to spend


def test_a_hits_gain_into_a_wound_lands_on_the_targets_sheet_in_the_same_step() -> None:
    known = knowing(ATTACK, Scene(calls=True))
    called = step(ATTACK, press(AttackAction.RESOLVE), ANNA, known, None)
    assert isinstance(called, Advance | Open)
    spent = step(called.state, press(AttackAction.SPEND, c=GainChoice.PHYSICAL), ANNA, known, None)
    assert isinstance(spent, Advance | Open)
    assert spent.close
    assert spent.spends
    assert spent.spends[0].user_id == BORIS.id
    assert spent.spends[0].create  # a player with no sheet yet gets one in the same step
    wounded = spent.spends[0].change(new_sheet(SheetSystem.D6))
    assert wounded is not None
    assert [w.kind for w in wounded.wounds] == [DifficultyKind.PHYSICAL_WOUND]


def test_a_forged_gain_is_an_invalid_button() -> None:
    known = knowing(ATTACK, Scene(calls=True))
    called = step(ATTACK, press(AttackAction.RESOLVE), ANNA, known, None)
    assert isinstance(called, Advance | Open)
    with speaking():
        forged = step(called.state, press(AttackAction.SPEND, c="zz"), ANNA, known, None)
    assert isinstance(forged, Refuse)
    assert forged.alert


def test_the_d6_attack_answers_only_in_a_d6_chat() -> None:
    assert TAP.system is GameSystem.D6
