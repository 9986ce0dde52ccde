"""Crossing the Barrier's step, pure: the choices before the first roll, a roll that hurts,
and the change that holds only on the sheet it was made for."""

from __future__ import annotations

import pytest

from bot import render
from bot.runner import Advance, Known, Refuse, SheetMoved
from handlers.magick import view
from handlers.magick.callbacks import BarrierAction, BarrierCallback
from handlers.magick.flow import BarrierFlow
from handlers.magick.tap import step
from rules.health import DamageType, HealthTrack
from rules.profiles import HOUSE_MAGE
from rules.sheet import Sheet, SheetSystem, new_sheet, set_health, set_trait
from tests.handlers.stepping import ANNA, Faces, flow_of, speaking

BARRIER = BarrierFlow(caster="Аня", user_id=ANNA.id, arete=2)
MAGE = set_trait(new_sheet(SheetSystem.MAGE), "arete", 2)


def press(action: BarrierAction, x: int = 0) -> BarrierCallback:
    return BarrierCallback(f="f1", v=3, a=action, x=x)


def known(sheet: Sheet | None = MAGE) -> Known[Sheet | None]:
    return Known(flow=flow_of(BARRIER), profile=HOUSE_MAGE, read=sheet)


def test_the_place_and_shift_are_chosen_before_the_first_roll() -> None:
    placed = step(BARRIER, press(BarrierAction.PLACE, 1), ANNA, known(), Faces([]))
    assert isinstance(placed, Advance)
    assert placed.state.place is view.PLACES[1]
    shifted = step(BARRIER, press(BarrierAction.SHIFT, 4), ANNA, known(), Faces([]))
    assert isinstance(shifted, Advance)
    assert shifted.state.shift == 2
    forged = step(BARRIER, press(BarrierAction.SHIFT, 7), ANNA, known(), Faces([]))
    assert forged.answer is render.invalid_button_text


def test_a_failed_roll_hurts_and_the_wound_goes_with_the_step() -> None:
    outcome = step(BARRIER, press(BarrierAction.ROLL), ANNA, known(), Faces([2, 3]))
    after = outcome.state
    assert after is not None
    assert len(after.rolls) == 1
    assert after.harm >= 1
    assert outcome.spends
    hurt = outcome.spends[0].change(MAGE)
    assert hurt.health != MAGE.health
    assert [e.kind for e in outcome.entries] == ["effect"]


def test_the_change_holds_only_on_the_sheet_it_was_made_for() -> None:
    outcome = step(BARRIER, press(BarrierAction.ROLL), ANNA, known(), Faces([2, 3]))
    assert outcome.spends
    moved = set_trait(MAGE, "arete", 3)
    with pytest.raises(SheetMoved):
        outcome.spends[0].change(moved)


def test_no_arete_no_crossing() -> None:
    outcome = step(BARRIER, press(BarrierAction.ROLL), ANNA, known(None), Faces([]))
    assert isinstance(outcome, Refuse)
    assert outcome.answer is view.no_arete_text


def test_staying_closes_the_crossing() -> None:
    outcome = step(BARRIER, press(BarrierAction.STOP), ANNA, known(), Faces([]))
    assert outcome.close


def test_wounds_that_take_every_arete_die_refuse_the_roll_and_say_why() -> None:
    """§C.15: the crossing rolls Arete less wounds; none left, a clear answer, nothing
    rolled or written."""
    hurt = set_health(MAGE, HealthTrack((DamageType.LETHAL,) * 4))  # Раны: −2
    outcome = step(BARRIER, press(BarrierAction.ROLL), ANNA, known(hurt), Faces([]))
    assert isinstance(outcome, Refuse)
    assert outcome.answer is not None
    with speaking("ru"):
        said = outcome.answer()
    assert "Арете 2 − 2 за раны не оставляет кубиков" in said
    out = set_health(MAGE, HealthTrack((DamageType.LETHAL,) * 7))
    refused = step(BARRIER, press(BarrierAction.ROLL), ANNA, known(out), Faces([]))
    assert isinstance(refused, Refuse)
    assert refused.answer is not None
    with speaking("ru"):
        assert "без сознания" in refused.answer().casefold()
