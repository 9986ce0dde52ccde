"""The /r buttons' steps, pure: the wizard's choices, «Бросить», «Автоуспех», «Ещё раз» and
«Продлить» — state and press in, outcome out, no Redis and no bot."""

from __future__ import annotations

import pytest

from bot.combat import WillpowerTurn
from bot.runner import Advance, HandOver, Into, Known, Open, Refuse, Who
from handlers.roll.callbacks import MODIFIER_SHIFT, RollAction, RollCallback
from handlers.roll.flow import RollRecord, WizardState
from handlers.roll.tap import (
    RESULT_TAP,
    WIZARD_TAP,
    ResultRead,
    WizardRead,
    draw_result,
    draw_wizard,
    result_step,
    wizard_step,
)
from rules import d10
from rules.errors import RulesInputError
from rules.profiles import HOUSE_MAGE, Profile
from rules.sheet import Ability, Attribute, Sheet, SheetSystem, new_sheet, set_trait
from tests.handlers.stepping import ANNA, Faces, flow_of, speaking

WIZARD = WizardState(difficulty=6)


def press(action: RollAction, x: int = 0) -> RollCallback:
    return RollCallback(f="f1", v=3, a=action, x=x)


def wizard_known(
    state: WizardState, sheet: Sheet | None = None, profile: Profile = HOUSE_MAGE
) -> Known[WizardRead]:
    return Known(flow=flow_of(state), profile=profile, read=WizardRead(sheet, "Аня"))


def result_known(record: RollRecord, willpower: tuple[int, int] | None = None) -> Known[ResultRead]:
    read = ResultRead("🎲 Аня: 3к10", willpower)
    return Known(flow=flow_of(record), profile=HOUSE_MAGE, read=read)


def failed_record(**more: object) -> RollRecord:
    result = d10.roll(1, 10, HOUSE_MAGE, rng=Faces([1]))
    return RollRecord(pool=1, base=10, result=result, **more)  # type: ignore[arg-type]


def test_both_flows_are_their_openers_alone() -> None:
    assert WIZARD_TAP.who is Who.OWNER
    assert RESULT_TAP.who is Who.OWNER
    assert WIZARD_TAP.current_only
    assert RESULT_TAP.current_only


def test_a_pool_button_sets_the_pool_and_clears_the_traits() -> None:
    state = WIZARD.model_copy(update={"traits": ("dexterity",)})
    outcome = wizard_step(state, press(RollAction.POOL, 5), ANNA, wizard_known(state), None)
    assert outcome.state == WIZARD.model_copy(update={"pool": 5})
    assert not outcome.close


@pytest.mark.parametrize(
    ("action", "x"),
    [
        (RollAction.POOL, 99),
        (RollAction.POOL, 0),
        (RollAction.DIFFICULTY, 3),
        (RollAction.MODIFIER, MODIFIER_SHIFT + 9),
        (RollAction.RECENT, 0),
        (RollAction.TRAIT, 10_000),
        (RollAction.ROLL, 0),  # no pool chosen yet
        (RollAction.AUTO, 0),
    ],
)
def test_a_number_no_button_offers_is_refused(action: RollAction, x: int) -> None:
    with speaking("ru"), pytest.raises(RulesInputError):
        wizard_step(WIZARD, press(action, x), ANNA, wizard_known(WIZARD), None)


def test_willpower_toggles_and_difficulty_is_chosen() -> None:
    on = wizard_step(WIZARD, press(RollAction.WILLPOWER), ANNA, wizard_known(WIZARD), None)
    assert isinstance(on, Advance | Open)
    assert on.state.willpower
    harder = wizard_step(WIZARD, press(RollAction.DIFFICULTY, 8), ANNA, wizard_known(WIZARD), None)
    assert isinstance(harder, Advance | Open)
    assert harder.state.difficulty == 8


def test_roll_casts_the_dice_before_the_wizard_closes_into_a_result() -> None:
    state = WIZARD.model_copy(update={"pool": 3})
    with speaking("ru"):
        outcome = wizard_step(
            state, press(RollAction.ROLL), ANNA, wizard_known(state), Faces([8, 9, 2])
        )
    assert isinstance(outcome, HandOver)
    into = outcome.open
    assert isinstance(into, Into)
    assert not into.below  # the wizard's message becomes the result
    assert isinstance(into.state, RollRecord)
    assert into.state.result is not None
    assert tuple(into.state.result.faces) == (8, 9, 2)
    assert into.state.pool == 3
    # the roll's log line is stored with its result flow, which only the closing press opens
    (entry,) = into.entries
    assert entry.name == "Аня"
    assert entry.faces == (8, 9, 2)
    assert not into.spends  # no Willpower, nothing off the sheet


def test_auto_success_closes_the_wizard_with_its_line_and_no_dice() -> None:
    state = WIZARD.model_copy(update={"pool": 6})
    with speaking("ru"):
        outcome = wizard_step(state, press(RollAction.AUTO), ANNA, wizard_known(state), Faces([]))
        assert isinstance(outcome, Advance | Open)
        assert outcome.state.done is not None
        assert outcome.close
        assert not outcome.spends
        (entry,) = outcome.entries
        assert entry.outcome == "auto_success"
        assert entry.faces == ()
        closed = flow_of(state).next(outcome.state, close=True)
        text, markup = draw_wizard(closed, outcome.state, wizard_known(state))
    assert "Автоуспех" in text
    assert markup is None


def test_the_wizard_draws_its_odds_once_a_pool_is_chosen() -> None:
    state = WIZARD.model_copy(update={"pool": 4})
    with speaking("en"):
        text, markup = draw_wizard(flow_of(state), state, wizard_known(state))
        _bare, bare_markup = draw_wizard(flow_of(WIZARD), WIZARD, wizard_known(WIZARD))
    rolls = [b for row in markup.inline_keyboard for b in row if "Roll!" in b.text]
    assert rolls
    assert "%" in text
    assert not [b for row in bare_markup.inline_keyboard for b in row if "Roll!" in b.text]


def test_the_hint_points_at_the_sheets_trait_buttons_it_draws() -> None:
    """The hint before a pool names no button of its own: it points at the trait buttons
    drawn under it from the player's sheet."""
    sheet = set_trait(new_sheet(SheetSystem.MAGE), Attribute.DEXTERITY, 3)
    sheet = set_trait(sheet, Ability.BRAWL, 2)
    for lang, hint, trait in (
        ("ru", "Выберите ниже черты, из которых сложится запас кубиков.", "Ловкость 3"),
        ("en", "Tap the traits below that make up your pool.", "Dexterity 3"),
    ):
        with speaking(lang):
            text, markup = draw_wizard(flow_of(WIZARD), WIZARD, wizard_known(WIZARD, sheet))
        assert text.splitlines()[1] == hint
        assert markup is not None
        assert trait in [b.text for row in markup.inline_keyboard for b in row]


def test_retry_rolls_one_harder_and_posts_a_new_result() -> None:
    record = failed_record()
    with speaking("ru"):
        outcome = result_step(
            record, press(RollAction.RETRY), ANNA, result_known(record), Faces([10])
        )
    assert isinstance(outcome, HandOver)
    into = outcome.open
    assert isinstance(into, Into)
    assert into.below  # the result keeps its text, loses its button, the next goes below
    assert isinstance(into.state, RollRecord)
    assert into.state.attempt == 2
    assert into.state.result is not None
    assert into.state.result.threshold == 1  # §A.10: past 10 the difficulty becomes a threshold


def test_a_success_is_not_retried() -> None:
    result = d10.roll(1, 6, HOUSE_MAGE, rng=Faces([9]))
    record = RollRecord(pool=1, base=6, result=result)
    with pytest.raises(RulesInputError):
        result_step(record, press(RollAction.RETRY), ANNA, result_known(record), Faces([9]))


def test_retry_with_willpower_and_none_left_is_refused_and_rolls_nothing() -> None:
    record = failed_record(willpower=True)
    known = result_known(record, willpower=(0, 5))
    outcome = result_step(record, press(RollAction.RETRY), ANNA, known, Faces([10]))
    assert isinstance(outcome, Refuse)
    assert outcome.alert
    assert outcome.answer is not None


def test_extend_first_shows_the_targets_under_the_same_result() -> None:
    record = failed_record()
    outcome = result_step(record, press(RollAction.EXTEND), ANNA, result_known(record), None)
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.asking
    assert outcome.keyboard_only
    assert not outcome.close
    with speaking("ru"):
        text, markup = draw_result(flow_of(outcome.state), outcome.state, result_known(record))
    assert text == "🎲 Аня: 3к10"
    assert markup is not None
    targets = [
        RollCallback.unpack(b.callback_data or "") for row in markup.inline_keyboard for b in row
    ]
    assert all(t.a is RollAction.EXTEND and t.x > 0 for t in targets)


def test_a_closed_result_keeps_its_text_without_buttons() -> None:
    record = failed_record()
    closed = flow_of(record).next(record, close=True)
    assert draw_result(closed, record, result_known(record)) == ("🎲 Аня: 3к10", None)


def test_a_wizard_button_means_nothing_under_a_result() -> None:
    record = failed_record()
    with pytest.raises(RulesInputError):
        result_step(record, press(RollAction.POOL, 3), ANNA, result_known(record), None)


def test_an_npcs_next_attempt_stays_the_npcs() -> None:
    record = failed_record(npc="Страж")
    with speaking("ru"):
        outcome = result_step(
            record, press(RollAction.RETRY), ANNA, result_known(record), Faces([10])
        )
    assert isinstance(outcome, HandOver)
    into = outcome.open
    assert isinstance(into, Into)
    assert into.below
    assert isinstance(into.state, RollRecord)
    assert into.state.npc == "Страж"


def test_a_next_attempt_on_willpower_takes_the_point_off_the_sheet_it_read() -> None:
    """The point leaves the NPC's sheet (the roll's), in the write that posts the attempt,
    and the new result says what is left: one less than the step read."""
    record = failed_record(npc="Страж", willpower=True)
    known = result_known(record, willpower=(3, 5))
    with speaking("ru"):
        outcome = result_step(record, press(RollAction.RETRY), ANNA, known, Faces([10]))
        assert isinstance(outcome, HandOver)
        into = outcome.open
        assert isinstance(into, Into)
        (spend,) = into.spends
        assert spend.npc == "Страж"
        text, _markup = into.draw(flow_of(into.state))
    assert "осталось 2 из 5" in text


def test_roll_with_willpower_in_a_turn_that_spent_one_is_refused() -> None:
    """§A.7 once a turn: the fight's round already holds this character's point."""
    state = WIZARD.model_copy(update={"pool": 3, "willpower": True})
    turn = WillpowerTurn(round_no=2, spent=True, mark=None)
    read = WizardRead(None, "Аня", fighting=True, turn=turn)
    known_ = Known(flow=flow_of(state), profile=HOUSE_MAGE, read=read)
    outcome = wizard_step(state, press(RollAction.ROLL), ANNA, known_, Faces([7, 7, 7]))
    assert isinstance(outcome, Refuse)
    with speaking("ru"):
        assert "Сила Воли уже потрачена в ходу 2" in outcome.answer()
    free = WizardRead(None, "Аня", fighting=True, turn=WillpowerTurn(2, False, None))
    again = wizard_step(
        state, press(RollAction.ROLL), ANNA, Known(flow_of(state), HOUSE_MAGE, free), Faces([7])
    )
    assert isinstance(again, HandOver)
