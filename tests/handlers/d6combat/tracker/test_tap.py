"""The d6 round tracker's step, pure (bot/runner.py): a round and a press in, an Outcome out;
no Redis, no bot."""

from __future__ import annotations

import random

from bot.runner import Actor, Advance, Known, Open, Refuse
from handlers.d6combat.tracker.callbacks import D6InitAction, D6InitCallback
from handlers.d6combat.tracker.flow import D6InitFlow, Member, Panel, player_key
from handlers.d6combat.tracker.tap import TAP, Table, combatant, join, needs_storyteller, step
from rules.profiles import D6, GameSystem
from tests.handlers.stepping import ANNA, BORIS, flow_of, speaking

VERA = Actor(id=3, name="Вера", full_name="Вера Павловна")
VERSION = 3


def dice() -> random.Random:
    """d6s that fall the same way in every test."""
    return random.Random(7)


def fight() -> D6InitFlow:
    """Аня and Борис in the fight, three dice each."""
    state = D6InitFlow()
    with speaking():
        for actor in (ANNA, BORIS):
            fighter = combatant(player_key(actor.id), None, None, hero=True)
            member = Member(name=actor.name, user_id=actor.id)
            state = join(state, fighter, member, dice())
    return state


def knowing(state: D6InitFlow, *, storyteller: bool = False) -> Known[Table]:
    return Known(
        flow=flow_of(state, version=VERSION), profile=D6, read=Table(storyteller=storyteller)
    )


def press(action: D6InitAction, *, x: int = 0, y: int = -1, v: int = VERSION) -> D6InitCallback:
    return D6InitCallback(f="f1", v=v, a=action, x=x, y=y)


def test_a_player_joins_under_their_full_name() -> None:
    state = fight()
    with speaking():
        outcome = step(state, press(D6InitAction.JOIN), VERA, knowing(state), dice())
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.members[player_key(VERA.id)].name == "Вера Павловна"
    assert not needs_storyteller(state, press(D6InitAction.JOIN), VERA.id)


def test_joining_twice_is_refused() -> None:
    state = fight()
    outcome = step(state, press(D6InitAction.JOIN), ANNA, knowing(state), dice())
    assert isinstance(outcome, Refuse)
    assert outcome.alert


def test_the_one_who_is_up_acts_and_a_second_press_is_a_repeat() -> None:
    state = fight()
    assert state.round is not None
    assert state.round.up is not None
    up = ANNA if state.round.up.actor == player_key(ANNA.id) else BORIS
    other = BORIS if up is ANNA else ANNA
    steps = len(state.round.log)
    with speaking():
        outcome = step(state, press(D6InitAction.ACT, x=steps), up, knowing(state), dice())
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.round is not None
    assert len(outcome.state.round.log) == steps + 1
    again = step(state, press(D6InitAction.ACT, x=steps - 1), up, knowing(state), dice())
    assert isinstance(again, Refuse)
    assert again.heal
    refused = step(state, press(D6InitAction.ACT, x=steps), other, knowing(state), dice())
    assert isinstance(refused, Refuse)
    assert refused.alert


def test_the_storyteller_alone_ends_the_fight_and_the_end_unpins_it() -> None:
    state = fight()
    refused = step(state, press(D6InitAction.END), ANNA, knowing(state), None)
    assert isinstance(refused, Refuse)
    ended = step(state, press(D6InitAction.END), ANNA, knowing(state, storyteller=True), None)
    assert isinstance(ended, Advance | Open)
    assert ended.close
    assert isinstance(ended, Advance)
    assert ended.ends_live == "d6init"  # the chat points at no tracker, the message is unpinned


def test_a_name_pressed_on_an_older_list_is_refused() -> None:
    state = fight()
    outcome = step(
        state, press(D6InitAction.REMOVE, y=0, v=VERSION - 1), ANNA, knowing(state), None
    )
    assert isinstance(outcome, Refuse)
    assert outcome.alert


def test_anyone_in_the_fight_opens_the_list_to_leave_it() -> None:
    state = fight()
    outcome = step(state, press(D6InitAction.REMOVE), BORIS, knowing(state), None)
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.panel is Panel.REMOVE
    assert not needs_storyteller(state, press(D6InitAction.REMOVE), BORIS.id)
    assert needs_storyteller(state, press(D6InitAction.REMOVE), VERA.id)


def test_an_attack_on_a_target_opens_the_attack_with_the_trackers_step() -> None:
    state = fight()
    assert state.round is not None
    assert state.round.up is not None
    actor = state.round.up.actor
    up = ANNA if actor == player_key(ANNA.id) else BORIS
    target = next(i for i, f in enumerate(state.round.fighters) if f.sheet.id != actor)
    steps = len(state.round.log)
    with speaking():
        outcome = step(
            state,
            press(D6InitAction.ATTACK, x=steps, y=target),
            up,
            knowing(state),
            dice(),
        )
    assert isinstance(outcome, Open)  # the attack, stored with the tracker's step
    assert outcome.opens.entries


def test_a_fight_that_never_started_takes_no_step() -> None:
    state = D6InitFlow()
    outcome = step(state, press(D6InitAction.ACT), ANNA, knowing(state), None)
    assert isinstance(outcome, Refuse)
    assert outcome.alert


def test_the_d6_tracker_answers_only_in_a_d6_chat() -> None:
    assert TAP.system is GameSystem.D6


def test_on_edge_goes_onto_the_sheets_as_a_wound_that_lowers_the_chance() -> None:
    from handlers.d6combat.tracker.tap import on_edge_spends
    from rules.d6.chance import DifficultyKind, difficulty_total
    from rules.sheet import SheetSystem, new_sheet

    state = fight().model_copy(
        update={
            "on_edge": {player_key(ANNA.id): 2, "n:гуль": 3},
            "members": {
                **fight().members,
                "n:гуль": Member(name="Гуль", user_id=None),
            },
        }
    )
    spends = on_edge_spends(state)
    assert [(s.user_id, s.npc, s.create) for s in spends] == [
        (ANNA.id, None, True),
        (0, "Гуль", True),
    ]
    sheet = spends[0].change(new_sheet(SheetSystem.D6))
    assert sheet is not None
    assert [(w.kind, w.magnitude) for w in sheet.wounds] == [(DifficultyKind.ON_EDGE, 2)]
    assert difficulty_total(sheet.wounds, D6) == 2
