"""The sheet editor's step, pure: category → trait → value, «Назад», «Готово», and the
refusals (another player, a repeat, a value no button offers)."""

from __future__ import annotations

import pytest

from bot.runner import Advance, Known, Open, Refuse, SheetMoved
from handlers.sheet.callbacks import Category, SheetAction, SheetCallback
from handlers.sheet.flow import EditorState
from handlers.sheet.tap import draw, step
from rules.errors import RulesInputError
from rules.profiles import HOUSE_MAGE
from rules.sheet import Attribute, Sheet, SheetSystem, new_sheet, set_trait
from tests.handlers.stepping import ANNA, BORIS, flow_of, speaking

BLANK = new_sheet(SheetSystem.MAGE)
OPEN = EditorState(system=SheetSystem.MAGE, name="Аня")
AT_DEXTERITY = OPEN.model_copy(update={"category": Category.ATTRIBUTES, "trait": "dexterity"})


def press(action: SheetAction, k: str = "", x: int = 0, v: int = 3) -> SheetCallback:
    return SheetCallback(f="f1", v=v, a=action, k=k, x=x)


def knowing(state: EditorState, sheet: Sheet = BLANK) -> Known[Sheet]:
    return Known(flow=flow_of(state), profile=HOUSE_MAGE, read=sheet, locale="ru")


def test_a_category_then_a_trait_move_the_editor() -> None:
    to_attributes = step(OPEN, press(SheetAction.CATEGORY, "at"), ANNA, knowing(OPEN), None)
    assert isinstance(to_attributes, Advance | Open)
    assert to_attributes.state.category is Category.ATTRIBUTES
    at = to_attributes.state
    chosen = step(at, press(SheetAction.TRAIT, "dexterity"), ANNA, knowing(at), None)
    assert chosen.state == AT_DEXTERITY


def test_a_value_is_set_on_the_sheet_in_the_same_step_and_shown_at_once() -> None:
    outcome = step(
        AT_DEXTERITY, press(SheetAction.VALUE, "dexterity", 4), ANNA, knowing(AT_DEXTERITY), None
    )
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.trait is None
    assert outcome.spends
    assert outcome.spends[0].create
    assert outcome.spends[0].change(BLANK).rating(Attribute.DEXTERITY) == 4
    moved = set_trait(BLANK, Attribute.STRENGTH, 3, HOUSE_MAGE)
    with pytest.raises(SheetMoved):  # a /set typed meanwhile: the press runs again
        outcome.spends[0].change(moved)
    with speaking("ru"):
        text, _markup = draw(flow_of(outcome.state), outcome.state, knowing(outcome.state))
    assert "Ловкость" in text
    assert "4" in text


@pytest.mark.parametrize(
    "data",
    [
        press(SheetAction.VALUE, "strength", 3),  # not the trait chosen
        press(SheetAction.VALUE, "dexterity", 9),  # no button offers 9
        press(SheetAction.CATEGORY, "zz"),
        press(SheetAction.TRAIT, "arete"),  # not among the attributes
    ],
)
def test_a_press_no_button_offers_is_refused(data: SheetCallback) -> None:
    with pytest.raises(RulesInputError):
        step(AT_DEXTERITY, data, ANNA, knowing(AT_DEXTERITY), None)


def test_another_player_is_told_the_sheet_is_not_theirs() -> None:
    outcome = step(OPEN, press(SheetAction.CATEGORY, "at"), BORIS, knowing(OPEN), None)
    assert isinstance(outcome, Refuse)
    assert outcome.alert
    with speaking("ru"):
        assert outcome.answer is not None
        assert "/set" in outcome.answer()


def test_an_older_drawing_is_a_repeat_that_changes_nothing() -> None:
    outcome = step(OPEN, press(SheetAction.CATEGORY, "at", v=2), ANNA, knowing(OPEN), None)
    assert isinstance(outcome, Refuse)
    assert outcome.heal


def test_back_and_done() -> None:
    back = step(AT_DEXTERITY, press(SheetAction.BACK), ANNA, knowing(AT_DEXTERITY), None)
    assert isinstance(back, Advance | Open)
    assert back.state.trait is None
    assert back.state.category is Category.ATTRIBUTES
    done = step(AT_DEXTERITY, press(SheetAction.DONE), ANNA, knowing(AT_DEXTERITY), None)
    assert done.close
    assert isinstance(done, Advance | Open)
    closed = flow_of(done.state).next(done.state, close=True)
    with speaking("ru"):
        _text, markup = draw(closed, done.state, knowing(done.state))
    assert markup is None
