"""«Раскрыть» and the campaign buttons' steps, pure (bot/runner.py ``RecordTap``)."""

from __future__ import annotations

from bot.runner import Actor, Change, Refuse, Seen
from handlers.hidden.callbacks import CampaignCallback, RevealCallback
from handlers.hidden.router import campaign_step, reveal_step
from rules.profiles import HOUSE_MAGE
from table.store import ChatSettings
from tests.handlers.hidden.test_view import RECORD

ROLLER = Actor(id=RECORD.owner_id, name="Рита")
STORYTELLER = Actor(id=7, name="Вера")
STRANGER = Actor(id=8, name="Гость")
GROUP = ChatSettings(storyteller_id=STORYTELLER.id)
PRESS = RevealCallback(c=str(RECORD.chat_id), s=RECORD.seq)


def seen(settings: ChatSettings) -> Seen[ChatSettings]:
    return Seen(profile=HOUSE_MAGE, read=settings)


def test_the_roller_or_the_storyteller_reveals_once() -> None:
    for who in (ROLLER, STORYTELLER):
        revealed = reveal_step(RECORD, PRESS, who, seen(GROUP))
        assert isinstance(revealed, Change)
        assert revealed.after.revealed
    assert isinstance(reveal_step(RECORD, PRESS, STRANGER, seen(GROUP)), Refuse)


def test_a_second_reveal_takes_the_button_off_and_says_so() -> None:
    again = reveal_step(RECORD.model_copy(update={"revealed": True}), PRESS, ROLLER, seen(GROUP))
    assert isinstance(again, Refuse)
    assert again.heal  # the message loses its button, nothing is posted twice


def test_a_campaign_is_chosen_only_by_its_storyteller() -> None:
    press = CampaignCallback(c=str(-100))
    titles: Seen[dict[int, str]] = Seen(profile=HOUSE_MAGE, read={-100: "Хроника"})
    assert isinstance(campaign_step(GROUP, press, STORYTELLER, titles), Change)
    assert isinstance(campaign_step(GROUP, press, STRANGER, titles), Refuse)
