"""«Поглотить»'s step, pure (bot/runner.py): a wound and a press in, an Outcome out."""

from __future__ import annotations

import pytest

from bot.runner import Advance, Known, Open, Refuse
from handlers.combat.health import view
from handlers.combat.health.callbacks import HealthAction, HealthCallback
from handlers.combat.health.flow import WoundFlow
from handlers.combat.health.tap import TAP, Soaking, draw, fighter_key, step
from handlers.combat.tracker.flow import InitFlow
from handlers.combat.tracker.steps import Open as Tracker
from rules.combat import tracker
from rules.combat.tracker import player_key
from rules.errors import RulesInputError
from rules.health import DamageType, HealthTrack, apply_damage
from rules.profiles import HOUSE_MAGE
from rules.sheet import SheetSystem, new_sheet, set_health
from table.store import Live
from tests.handlers.stepping import ANNA, BORIS, Faces, flow_of, speaking

BEFORE = HealthTrack()
WOUND = WoundFlow(
    name="Аня",
    user_id=ANNA.id,
    damage=DamageType.LETHAL,
    levels=3,
    dice=2,
    stamina=2,
    before=BEFORE,
    after=apply_damage(BEFORE, DamageType.LETHAL, 3, HOUSE_MAGE.combat).track,
)
PRESS = HealthCallback(f="f1", v=3, a=HealthAction.SOAK)


def knowing(
    state: WoundFlow, *, storyteller: bool = False, fight: Tracker | None = None
) -> Known[Soaking]:
    return Known(flow=flow_of(state), profile=HOUSE_MAGE, read=Soaking(storyteller, fight))


def fight() -> Tracker:
    """Аня on the round tracker, on the message 10."""
    current = tracker.join(
        tracker.Round(),
        key=player_key(ANNA.id),
        name="Аня",
        user_id=ANNA.id,
        dex_wits=5,
        rng=Faces([5]),
    )
    state = InitFlow(round=current)
    flow = flow_of(state, flow_id="t1")
    return Tracker(flow=flow, live=Live(flow="t1", message=10), state=state, tracks={})


def test_the_wounded_player_soaks_and_the_track_keeps_what_was_not_soaked() -> None:
    outcome = step(WOUND, PRESS, ANNA, knowing(WOUND), Faces([6, 9]))
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.kept == 1
    assert outcome.close
    assert outcome.spends
    wounded = set_health(new_sheet(SheetSystem.MAGE), WOUND.after)
    soaked = outcome.spends[0].change(wounded)
    assert soaked is not None
    assert soaked.health == apply_damage(BEFORE, DamageType.LETHAL, 1, HOUSE_MAGE.combat).track
    assert outcome.also is None  # no fight: no tracker to tell


def test_the_tracker_takes_the_soaks_health_and_stun_in_the_same_step() -> None:
    opened = fight()
    stunning = WOUND.model_copy(update={"stamina": 0})
    with speaking():
        outcome = step(stunning, PRESS, ANNA, knowing(stunning, fight=opened), Faces([1, 2]))
    assert isinstance(outcome, Advance)
    assert outcome.spends  # the wound and the tracker's step ride in one compare-and-set
    assert outcome.also is not None
    assert outcome.also.step.flow.id == "t1"
    assert outcome.also.step.version == opened.flow.version
    assert outcome.also.live.message == 10  # redrawn where the tracker is
    moved = outcome.also.step.state
    assert isinstance(moved, InitFlow)
    assert moved.health[player_key(ANNA.id)] == stunning.after  # nothing soaked
    fighter = moved.round.fighter(player_key(ANNA.id))
    assert fighter is not None
    assert fighter.stunned_through == opened.state.round.number + 1


def test_a_sheet_that_no_longer_shows_the_wound_soaks_nothing() -> None:
    outcome = step(WOUND, PRESS, ANNA, knowing(WOUND), Faces([6, 9]))
    assert outcome.spends
    with pytest.raises(RulesInputError):
        outcome.spends[0].change(new_sheet(SheetSystem.MAGE))
    with speaking():
        assert outcome.unpaid() == view.track_moved_text()


def test_someone_else_soaks_only_as_the_storyteller() -> None:
    refused = step(WOUND, PRESS, BORIS, knowing(WOUND), Faces([6, 9]))
    assert isinstance(refused, Refuse)
    assert refused.alert
    allowed = step(WOUND, PRESS, BORIS, knowing(WOUND, storyteller=True), Faces([6, 9]))
    assert isinstance(allowed, Advance | Open)


def test_a_soaked_wound_is_drawn_without_a_button() -> None:
    outcome = step(WOUND, PRESS, ANNA, knowing(WOUND), Faces([1, 2]))
    assert isinstance(outcome, Advance | Open)
    with speaking():
        text, markup = draw(flow_of(outcome.state), outcome.state, knowing(outcome.state))
    assert markup is None
    assert "Аня" in text


def test_a_soak_is_rolled_on_the_current_drawing_only() -> None:
    assert TAP.current_only
    assert fighter_key(None, "Гуль") == "n:гуль"
    assert fighter_key(ANNA.id, None) == "u1"
