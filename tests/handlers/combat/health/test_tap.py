"""«Поглотить»'s step, pure (bot/runner.py): a wound and a press in, an Outcome out."""

from __future__ import annotations

import pytest

from bot.runner import Known
from handlers.combat.health import view
from handlers.combat.health.callbacks import HealthAction, HealthCallback
from handlers.combat.health.flow import WoundFlow
from handlers.combat.health.tap import TAP, draw, fighter_key, step
from rules.errors import RulesInputError
from rules.health import DamageType, HealthTrack, apply_damage
from rules.profiles import HOUSE_MAGE
from rules.sheet import SheetSystem, new_sheet, set_health
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


def knowing(state: WoundFlow, *, storyteller: bool = False) -> Known[bool]:
    return Known(flow=flow_of(state), profile=HOUSE_MAGE, read=storyteller)


def test_the_wounded_player_soaks_and_the_track_keeps_what_was_not_soaked() -> None:
    outcome = step(WOUND, PRESS, ANNA, knowing(WOUND), Faces([6, 9]))
    assert outcome.state is not None
    assert outcome.state.kept == 1
    assert outcome.close
    assert outcome.spend is not None
    wounded = set_health(new_sheet(SheetSystem.MAGE), WOUND.after)
    soaked = outcome.spend.change(wounded)
    assert soaked is not None
    assert soaked.health == apply_damage(BEFORE, DamageType.LETHAL, 1, HOUSE_MAGE.combat).track
    assert outcome.then is not None  # the tracker takes the stun the soak left or took back


def test_a_sheet_that_no_longer_shows_the_wound_soaks_nothing() -> None:
    outcome = step(WOUND, PRESS, ANNA, knowing(WOUND), Faces([6, 9]))
    assert outcome.spend is not None
    with pytest.raises(RulesInputError):
        outcome.spend.change(new_sheet(SheetSystem.MAGE))
    with speaking():
        assert outcome.unpaid() == view.track_moved_text()


def test_someone_else_soaks_only_as_the_storyteller() -> None:
    refused = step(WOUND, PRESS, BORIS, knowing(WOUND), Faces([6, 9]))
    assert refused.state is None
    assert refused.alert
    allowed = step(WOUND, PRESS, BORIS, knowing(WOUND, storyteller=True), Faces([6, 9]))
    assert allowed.state is not None


def test_a_soaked_wound_is_drawn_without_a_button() -> None:
    outcome = step(WOUND, PRESS, ANNA, knowing(WOUND), Faces([1, 2]))
    assert outcome.state is not None
    with speaking():
        text, markup = draw(flow_of(outcome.state), outcome.state, knowing(outcome.state))
    assert markup is None
    assert "Аня" in text


def test_a_soak_is_rolled_on_the_current_drawing_only() -> None:
    assert TAP.current_only
    assert fighter_key(None, "Гуль") == "n:гуль"
    assert fighter_key(ANNA.id, None) == "u1"
