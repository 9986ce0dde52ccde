"""The attack panel's step, pure (bot/runner.py): a panel and a press in, an Outcome out."""

from __future__ import annotations

import pytest

from bot.runner import Advance, Known, Refuse, SheetMoved
from handlers.combat.attack.callbacks import AtkAction, AtkCallback
from handlers.combat.attack.flow import DEFENCES, AttackFlow, Defence, Guard, Side, Stage
from handlers.combat.attack.tap import TAP, Scene, _land, step
from handlers.combat.tracker.flow import InitFlow
from handlers.combat.tracker.steps import Aftermath, Open, after_attack, round_after_attack
from rules.combat import tracker
from rules.combat.manoeuvres import Trait
from rules.health import DamageType, apply_damage
from rules.profiles import HOUSE_MAGE
from rules.sheet import SheetSystem, new_sheet, set_health
from table.store import Live
from tests.handlers.stepping import ANNA, BORIS, Faces, flow_of, speaking

ANNA_SIDE = Side(
    key=tracker.player_key(ANNA.id),
    name=ANNA.name,
    user_id=ANNA.id,
    ratings={Trait.DEXTERITY.value: 3, Trait.BRAWL.value: 2, Trait.STRENGTH.value: 2},
    sheet=True,
)
BORIS_SIDE = Side(key=tracker.player_key(BORIS.id), name=BORIS.name, user_id=BORIS.id)
PANEL = AttackFlow(attacker=ANNA_SIDE, targets=(BORIS_SIDE,), round_no=1)


def knowing(
    state: AttackFlow, *, storyteller: bool = False, fight: Open | None = None
) -> Known[Scene]:
    scene = Scene(storyteller=storyteller, tracker=fight, sheet=new_sheet(SheetSystem.MAGE))
    return Known(flow=flow_of(state), profile=HOUSE_MAGE, read=scene)


def press(action: AtkAction, x: int = 0) -> AtkCallback:
    return AtkCallback(f="f1", v=3, a=action, x=x)


def fight() -> Open:
    """Аня and Борис on the tracker, declared, Аня acting first."""
    current = tracker.Round()
    for side, base in ((ANNA_SIDE, 9), (BORIS_SIDE, 1)):
        current = tracker.join(
            current,
            key=side.key,
            name=side.name,
            user_id=side.user_id,
            dex_wits=base,
            rng=Faces([5]),
        )
    current = tracker.start_declarations(current, rng=Faces([]))
    current = tracker.declare(current, BORIS_SIDE.key)
    current = tracker.declare(current, ANNA_SIDE.key)
    acting = current.actor()
    assert acting is not None
    assert acting[0] == ANNA_SIDE.key
    state = InitFlow(round=current)
    flow = flow_of(state, flow_id="t1")
    return Open(flow=flow, live=Live(flow="t1", message=10), state=state, tracks={})


def test_the_attacker_sets_up_and_the_target_rolls_nothing_yet() -> None:
    outcome = step(PANEL, press(AtkAction.WEAPON, 2), ANNA, knowing(PANEL), Faces([]))
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.weapon == 2
    assert not outcome.spends
    assert outcome.also is None


def test_only_the_attacker_or_the_storyteller_sets_up() -> None:
    refused = step(PANEL, press(AtkAction.WEAPON, 2), BORIS, knowing(PANEL), Faces([]))
    assert isinstance(refused, Refuse)
    assert refused.alert
    allowed = step(
        PANEL, press(AtkAction.WEAPON, 2), BORIS, knowing(PANEL, storyteller=True), Faces([])
    )
    assert isinstance(allowed, Advance | Open)


def test_a_miss_ends_the_attack_and_moves_the_round_on_in_the_same_step() -> None:
    opened = fight()
    known = knowing(PANEL, fight=opened)
    with speaking():  # the tracker's step is drawn in the chat's language
        outcome = step(PANEL, press(AtkAction.TARGET, 0), ANNA, known, Faces([1, 2, 3, 4, 5]))
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.stage is Stage.DONE
    assert outcome.spends  # the target's sheet, unchanged by a miss
    assert outcome.spends[0].change(new_sheet(SheetSystem.MAGE)) is None
    assert outcome.also is not None  # the tracker's step goes with the attack's
    assert outcome.also.step.flow.id == "t1"
    assert outcome.also.live.message == 10  # redrawn where the tracker is


def test_a_hit_without_a_tracker_takes_no_tracker_step() -> None:
    outcome = step(PANEL, press(AtkAction.TARGET, 0), ANNA, knowing(PANEL), Faces([9] * 20))
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.stage is not Stage.SETUP
    assert outcome.also is None


def test_a_button_of_another_stage_is_an_invalid_button() -> None:
    outcome = step(PANEL, press(AtkAction.SOAK), ANNA, knowing(PANEL), Faces([]))
    assert isinstance(outcome, Refuse)
    assert outcome.alert


def test_the_panel_runs_on_its_current_drawing_only() -> None:
    assert TAP.current_only
    assert TAP.read is not None


# ----- an attack nobody answers never holds the fight -----


def _waiting() -> AttackFlow:
    """Аня's attack on Борис, rolled in round 1 of the fight "t1", waiting on his defence."""
    panel = PANEL.model_copy(update={"fight": "t1"})
    with speaking():
        rolled = step(
            panel, press(AtkAction.TARGET, 0), ANNA, knowing(panel, fight=fight()), Faces([9] * 5)
        )
    assert rolled.state is not None
    assert rolled.state.stage is Stage.DEFENCE
    return rolled.state


WAITING = _waiting()


def test_the_attacker_or_the_storyteller_calls_off_an_unanswered_attack() -> None:
    known = knowing(WAITING, fight=fight())
    by_attacker = step(WAITING, press(AtkAction.CANCEL), ANNA, known, Faces([]))
    assert by_attacker.state is not None
    assert by_attacker.state.stage is Stage.CANCELLED
    assert isinstance(by_attacker, Advance)
    assert not by_attacker.spends
    refused = step(WAITING, press(AtkAction.CANCEL), BORIS, known, Faces([]))
    assert isinstance(refused, Refuse)  # the target answers, it does not call the attack off
    storyteller = knowing(WAITING, storyteller=True, fight=fight())
    by_storyteller = step(WAITING, press(AtkAction.CANCEL), BORIS, storyteller, Faces([]))
    assert by_storyteller.state is not None
    assert by_storyteller.state.stage is Stage.CANCELLED


def test_a_late_answer_after_the_round_or_the_fight_changes_nothing() -> None:
    opened = fight()
    later = opened.state.model_copy(
        update={"round": opened.state.round.model_copy(update={"number": 2})}
    )
    next_round = Open(flow=opened.flow, live=opened.live, state=later, tracks={})
    over = Open(
        flow=opened.flow,
        live=opened.live,
        state=opened.state.model_copy(update={"ended": True}),
        tracks={},
    )
    for tracker_now in (next_round, over, None):
        known = knowing(WAITING, fight=tracker_now)
        late = step(WAITING, press(AtkAction.DEFEND, 0), BORIS, known, Faces([9] * 20))
        assert late.state is not None
        assert late.state.stage is Stage.CANCELLED
        assert late.state.lapsed
        assert isinstance(late, Advance)
        assert not late.spends  # no wound lands
        assert late.also is None  # and the tracker does not move
    # in its own round the answer lands as ever
    known = knowing(WAITING, fight=opened)
    with speaking():
        answered = step(WAITING, press(AtkAction.DEFEND, 0), BORIS, known, Faces([9] * 20))
    assert answered.state is not None
    assert answered.state.stage is Stage.DONE


def test_a_lapsed_attack_says_so() -> None:
    from handlers.combat.attack import view

    lapsed = WAITING.model_copy(update={"stage": Stage.CANCELLED, "lapsed": True})
    with speaking("ru"):
        text = view.panel_text(lapsed, HOUSE_MAGE)
    assert "закончилась вместе с раундом" in text


def test_a_fully_immobilized_target_is_hit_without_a_defence() -> None:
    """S4 «автоматическое попадание против полностью обездвиженного»: no dodge is offered;
    the hit rolls its damage and soak in the attacker's one tap."""
    from rules.combat.situation import Condition

    held = BORIS_SIDE.model_copy(update={"conditions": (Condition.IMMOBILIZED_FULL,)})
    panel = PANEL.model_copy(update={"targets": (held,)})
    with speaking():
        outcome = step(panel, press(AtkAction.TARGET, 0), ANNA, knowing(panel), Faces([2] * 30))
    assert outcome.state is not None
    assert outcome.state.stage is Stage.DONE
    assert outcome.state.defence is None
    assert outcome.state.net >= 1
    from handlers.combat.attack import view

    with speaking("ru"):
        text = view.panel_text(outcome.state, HOUSE_MAGE)
    assert "без защиты" in text.lower()


def test_a_wound_on_a_sheet_that_moved_since_the_read_runs_the_attack_again() -> None:
    """The panel shows the track the sheet will have: a wound that landed between the read
    and the write makes the step's change refuse, and the press runs on the fresh sheet."""
    landed = PANEL.model_copy(
        update={"target": 0, "stage": Stage.DONE, "levels": 2, "damage_kind": DamageType.LETHAL}
    )
    outcome = _land(landed, knowing(landed))
    assert isinstance(outcome, Advance)
    assert outcome.state.track_after is not None
    (spend,) = outcome.spends
    fresh = new_sheet(SheetSystem.MAGE)
    hurt = spend.change(fresh)
    assert hurt is not None
    assert hurt.health == outcome.state.track_after  # what the panel shows is what lands
    wounded = set_health(fresh, apply_damage(fresh.health, DamageType.BASHING, 1).track)
    with pytest.raises(SheetMoved):
        spend.change(wounded)


def test_the_shooter_steps_their_own_cover_and_a_called_shot_round() -> None:
    """§B.7 S4 «Стрельба из укрытия»: the shooter's own cover, none → partial → full → none;
    «Целенаправленная атака по частям тела»: +0 → +1 → +2 → +3 → +0."""
    state = step(PANEL, press(AtkAction.REACH, 1), ANNA, knowing(PANEL), Faces([]))
    assert isinstance(state, Advance | Open)
    ranged = state.state
    covers = []
    for _ in range(3):
        moved = step(ranged, press(AtkAction.OWN_COVER), ANNA, knowing(ranged), Faces([]))
        assert isinstance(moved, Advance | Open)
        ranged = moved.state
        covers.append(ranged.own_cover.value)
        assert not moved.spends
    assert covers == ["partial", "full", "none"]
    called = []
    for _ in range(4):
        moved = step(ranged, press(AtkAction.CALLED), ANNA, knowing(ranged), Faces([]))
        assert isinstance(moved, Advance | Open)
        ranged = moved.state
        called.append(ranged.called)
    assert called == [1, 2, 3, 0]
    refused = step(ranged, press(AtkAction.CALLED), BORIS, knowing(ranged), Faces([]))
    assert isinstance(refused, Refuse)


def test_a_point_spent_this_round_refuses_a_second_on_the_interruption() -> None:
    """§A.7 S0 «только один раз за ход»: Борис spent Willpower this round, so the panel's
    Interruption for a point is refused, the one by a roll is not; the landing marks the
    round for one who spends here."""
    dodge_for_a_point = 2 * DEFENCES.index(Defence.DODGE) + 1
    assert WAITING.guard is Guard.INTERRUPT
    opened = fight()
    marked = opened.state.model_copy(
        update={"round": tracker.spend_willpower(opened.state.round, BORIS_SIDE.key)}
    )
    spent = Open(flow=opened.flow, live=opened.live, state=marked, tracks={})
    refused = step(
        WAITING,
        press(AtkAction.INTERRUPT, dodge_for_a_point),
        BORIS,
        knowing(WAITING, fight=spent),
        Faces([9] * 10),
    )
    assert isinstance(refused, Refuse)
    with speaking("ru"):
        assert "Сила Воли в этом ходу уже потрачена" in refused.answer()
    with speaking():
        allowed = step(
            WAITING,
            press(AtkAction.INTERRUPT, dodge_for_a_point),
            BORIS,
            knowing(WAITING, fight=fight()),
            Faces([9] * 10),
        )
    assert not isinstance(allowed, Refuse)
    aftermath = Aftermath(changed={}, willpower=BORIS_SIDE.key)
    assert round_after_attack(opened.state.round, aftermath).spent_willpower(BORIS_SIDE.key)
    # a second mark on a round already marked is no error: the check came before
    assert round_after_attack(marked.round, aftermath).spent_willpower(BORIS_SIDE.key)


def test_the_round_s_mark_of_a_point_rides_strictly_with_the_attack() -> None:
    """A point spent on the panel's Interruption and its mark on the round are one write: the
    tracker's step is strict then (a tracker moved since stores neither), and only then."""
    opened = fight()
    with speaking():  # the tracker's step comes drawn
        marked = after_attack(opened, HOUSE_MAGE, Aftermath(changed={}, willpower=BORIS_SIDE.key))
        plain = after_attack(opened, HOUSE_MAGE, Aftermath(changed={}, resolved=ANNA_SIDE.key))
    assert marked is not None
    assert marked.step.strict
    assert plain is not None
    assert not plain.step.strict
