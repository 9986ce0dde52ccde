"""The claim's step, pure: only an administrator it was made for takes the role."""

from __future__ import annotations

from bot.runner import HandOver, Known, Refuse
from handlers.storyteller import view
from handlers.storyteller.callbacks import StCallback
from handlers.storyteller.flow import ClaimState
from handlers.storyteller.tap import Claimant, step
from rules.profiles import HOUSE_MAGE
from tests.handlers.stepping import ANNA, BORIS, Faces, flow_of

PRESS = StCallback(f="f1", v=3)
CLAIM = ClaimState(expected=BORIS.id)


def known(*, owner: int, admin: bool) -> Known[Claimant]:
    return Known(
        flow=flow_of(CLAIM, owner=owner), profile=HOUSE_MAGE, read=Claimant(admin, "Хроника")
    )


def test_an_admin_takes_the_role_by_handing_the_message_over() -> None:
    outcome = step(CLAIM, PRESS, ANNA, known(owner=0, admin=True), Faces([]))
    assert isinstance(outcome, HandOver)


def test_a_claim_made_for_someone_else_is_not_yours() -> None:
    outcome = step(CLAIM, PRESS, ANNA, known(owner=7, admin=True), Faces([]))
    assert isinstance(outcome, Refuse)
    assert outcome.answer is view.not_for_you_text


def test_the_storyteller_or_a_player_who_is_no_admin_is_refused() -> None:
    already = step(CLAIM, PRESS, BORIS, known(owner=0, admin=True), Faces([]))
    assert isinstance(already, Refuse)
    assert already.alert
    player = step(CLAIM, PRESS, ANNA, known(owner=ANNA.id, admin=False), Faces([]))
    assert isinstance(player, Refuse)
    assert not isinstance(player, HandOver)
