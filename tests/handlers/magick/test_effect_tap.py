"""An Effect's step, pure: the caster's choices, the cast paid on the sheet it was rolled for,
and the Storyteller's own buttons (docs/rules.md §C)."""

from __future__ import annotations

from bot.runner import Advance, Known, Outcome, Refuse
from handlers.magick import view
from handlers.magick.callbacks import MagickAction, MagickCallback
from handlers.magick.flow import EffectFlow, Stage
from handlers.magick.router import Presser, effect_step
from rules.profiles import HOUSE_MAGE
from rules.sheet import SheetSystem, new_sheet, set_trait
from tests.handlers.stepping import ANNA, BORIS, Faces, flow_of, speaking

EFFECT = EffectFlow(caster="Аня", user_id=ANNA.id, arete=3, held=0)
MAGE = set_trait(new_sheet(SheetSystem.MAGE), "arete", 3)


def press(action: MagickAction, x: int = 0) -> MagickCallback:
    return MagickCallback(f="f1", v=3, a=action, x=x)


def known(presser: Presser) -> Known[Presser]:
    return Known(flow=flow_of(EFFECT), profile=HOUSE_MAGE, read=presser)


def test_the_caster_chooses_and_cancelling_closes() -> None:
    vulgar = step_of(press(MagickAction.VULGAR))
    assert isinstance(vulgar, Advance)
    assert vulgar.state.vulgar
    assert not vulgar.close
    cancelled = step_of(press(MagickAction.CANCEL))
    assert isinstance(cancelled, Advance)
    assert cancelled.state.stage is Stage.CANCELLED
    assert cancelled.close


def step_of(data: MagickCallback) -> Outcome[EffectFlow]:
    return effect_step(EFFECT, data, ANNA, known(Presser()), Faces([]))


def test_someone_else_is_refused_unless_they_run_the_game_for_its_buttons() -> None:
    other = effect_step(EFFECT, press(MagickAction.VULGAR), BORIS, known(Presser()), Faces([]))
    assert isinstance(other, Refuse)
    assert other.answer is view.not_yours_text
    storyteller = effect_step(
        EFFECT, press(MagickAction.VULGAR), BORIS, known(Presser(runs_game=True)), Faces([])
    )
    assert storyteller.answer is view.not_yours_text  # only Backlash and the successes needed


def test_the_cast_rolls_arete_and_pays_on_the_sheet_in_one_step() -> None:
    outcome = effect_step(
        EFFECT, press(MagickAction.CAST), ANNA, known(Presser(sheet=MAGE)), Faces([8, 8, 8])
    )
    after = outcome.state
    assert after is not None
    assert after.result is not None
    assert after.result.faces == (8, 8, 8)
    assert outcome.spends
    assert [e.kind for e in outcome.entries] == ["effect"]


def test_a_cast_without_a_sheet_is_refused() -> None:
    with speaking("en"):  # the step words its refusals in the message's language
        outcome = effect_step(EFFECT, press(MagickAction.CAST), ANNA, known(Presser()), Faces([]))
    assert isinstance(outcome, Refuse)
    assert outcome.alert


RICH = set_trait(set_trait(MAGE, "quintessence", 3), "forces", 2)


def test_a_cast_by_the_buttons_logs_the_quintessence_spent_and_the_paradox_gained() -> None:
    """The chronicle tells an Effect's cost from its log line, as it does a typed /m's."""
    vulgar = EFFECT.model_copy(update={"vulgar": True, "quintessence": 1, "held": 3})
    outcome = effect_step(
        vulgar, press(MagickAction.CAST), ANNA, known(Presser(sheet=RICH)), Faces([8, 8, 8])
    )
    assert isinstance(outcome, Advance)
    [entry] = outcome.entries
    assert entry.kind == "effect"
    assert entry.quintessence == 1
    assert outcome.state.paradox > 0
    assert entry.paradox == outcome.state.paradox
    assert entry.faces == (8, 8, 8)


def test_a_rituals_later_roll_does_not_log_its_quintessence_again() -> None:
    """The Quintessence is paid on the ritual's first roll: its later lines add none, so the
    chronicle's lines add up to what the caster spent; the Paradox waits for its end."""
    ritual = EFFECT.model_copy(
        update={"quintessence": 1, "held": 3, "target": 20, "stage": Stage.RITUAL, "rolls": 1}
    )
    outcome = effect_step(
        ritual, press(MagickAction.NEXT_ROLL), ANNA, known(Presser(sheet=RICH)), Faces([8, 8, 8])
    )
    assert isinstance(outcome, Advance)
    assert outcome.state.stage is Stage.RITUAL
    [entry] = outcome.entries
    assert entry.quintessence is None
    assert entry.paradox is None
    first = effect_step(
        ritual.model_copy(update={"stage": Stage.SETUP, "rolls": 0}),
        press(MagickAction.CAST),
        ANNA,
        known(Presser(sheet=RICH)),
        Faces([8, 8, 8]),
    )
    assert [e.quintessence for e in first.entries] == [1]


def test_a_ritual_given_up_logs_the_paradox_its_end_earns() -> None:
    """No dice, but the failure row of §C.10 lands on the wheel: its log line tells it, as a
    finished ritual's last roll tells its Paradox (``/log``, the chronicle)."""
    ritual = EFFECT.model_copy(
        update={"vulgar": True, "held": 3, "target": 20, "stage": Stage.RITUAL, "rolls": 2}
    )
    outcome = effect_step(
        ritual, press(MagickAction.ABANDON), ANNA, known(Presser(sheet=RICH)), Faces([])
    )
    assert isinstance(outcome, Advance)
    assert outcome.state.abandoned
    [entry] = outcome.entries
    assert entry.kind == "abandoned"
    assert entry.faces is None
    assert entry.paradox == outcome.state.paradox
    assert entry.paradox
    assert entry.user_id == ANNA.id
