"""A roll request's step, pure: each asked player rolls their own sheet's pool once."""

from __future__ import annotations

from bot.runner import Advance, Known, Refuse
from handlers.requests import view
from handlers.requests.callbacks import RequestAction, RequestCallback
from handlers.requests.flow import RequestState
from handlers.requests.tap import Presser, step
from rules.profiles import HOUSE_MAGE
from rules.sheet import Sheet, SheetSystem, new_sheet, set_trait
from tests.handlers.stepping import ANNA, BORIS, Faces, flow_of

ASKED = RequestState(
    system=SheetSystem.MAGE, codes=("dexterity", "brawl"), difficulty=6, asker="Рассказчик"
)
SHEET = set_trait(set_trait(new_sheet(SheetSystem.MAGE), "dexterity", 3), "brawl", 2)


def press(action: RequestAction) -> RequestCallback:
    return RequestCallback(f="f1", a=action)


def known(presser: Presser, *, owner: int = BORIS.id) -> Known[Presser]:
    return Known(flow=flow_of(ASKED, owner=owner), profile=HOUSE_MAGE, read=presser)


def test_a_player_rolls_their_sheets_pool_once() -> None:
    outcome = step(
        ASKED, press(RequestAction.ROLL), ANNA, known(Presser(sheet=SHEET)), Faces([8] * 5)
    )
    after = outcome.state
    assert after is not None
    (answer,) = after.answers
    assert (answer.user_id, answer.dice) == (ANNA.id, 5)
    assert answer.result is not None
    assert answer.result.successes == 5
    assert [e.kind for e in outcome.entries] == ["request"]
    again = step(after, press(RequestAction.ROLL), ANNA, known(Presser(sheet=SHEET)), Faces([]))
    assert isinstance(again, Refuse)
    assert again.answer is view.already_rolled_text


def test_no_sheet_or_a_missing_trait_is_explained_and_changes_nothing() -> None:
    bare = step(ASKED, press(RequestAction.ROLL), ANNA, known(Presser()), Faces([]))
    assert isinstance(bare, Refuse)
    assert bare.alert
    partial: Sheet = set_trait(new_sheet(SheetSystem.MAGE), "dexterity", 3)
    missing = step(ASKED, press(RequestAction.ROLL), ANNA, known(Presser(sheet=partial)), Faces([]))
    assert isinstance(missing, Refuse)
    assert missing.alert


def test_the_asker_or_whoever_runs_the_game_closes() -> None:
    refused = step(ASKED, press(RequestAction.CLOSE), ANNA, known(Presser()), Faces([]))
    assert refused.answer is view.only_asker_closes_text
    storyteller = step(
        ASKED, press(RequestAction.CLOSE), ANNA, known(Presser(runs_game=True)), Faces([])
    )
    assert storyteller.close
    asker = step(ASKED, press(RequestAction.CLOSE), BORIS, known(Presser()), Faces([]))
    assert asker.close
    assert asker.state == ASKED


def test_a_roll_asked_of_one_player_is_theirs_alone_and_closes_once_rolled() -> None:
    """The Storyteller's screen asks Anna (``bot.roll_requests``): Boris's press is refused,
    Anna's rolls and closes the request."""
    only = ASKED.model_copy(update={"only": ANNA.id, "only_name": "Аня"})
    other = step(only, press(RequestAction.ROLL), BORIS, known(Presser(sheet=SHEET)), Faces([]))
    assert isinstance(other, Refuse)
    assert other.alert
    rolled = step(
        only, press(RequestAction.ROLL), ANNA, known(Presser(sheet=SHEET)), Faces([8] * 5)
    )
    assert isinstance(rolled, Advance)
    assert rolled.close
    assert [a.user_id for a in rolled.state.answers] == [ANNA.id]
    table = step(
        ASKED, press(RequestAction.ROLL), ANNA, known(Presser(sheet=SHEET)), Faces([8] * 5)
    )
    assert isinstance(table, Advance)
    assert not table.close  # the table's request stays open for the others
