"""Every message lands in the topic it belongs to (bot/threads.py), and an update plays in
the campaign of the message it is in or sits under (bot/middlewares.py ``campaign_of``)."""

from __future__ import annotations

from typing import Any

import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest
from aiogram.methods import SendMessage, TelegramMethod
from aiogram.types import Chat, Update, User

from bot.middlewares import campaign_of, played_in, update_scope
from bot.scope import scoped_bot
from bot.threads import InCampaignThread, redirected_text, thread_of
from table.scope import Campaign, Scope
from table.store.journal import Journal
from tests.bot.telegram_fakes import make_bot
from tests.handlers.stepping import speaking

FORUM = -1001234
TOPIC = Campaign(FORUM, 45, "Маг")


def _message(thread: int | None, topic: bool | None, **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "message_id": 9,
        "date": 0,
        "chat": {"id": FORUM, "type": "supergroup", "title": "Хроника", "is_forum": True},
        "from": {"id": 5, "is_bot": False, "first_name": "Аня"},
        "text": "/r 5",
        **extra,
    }
    if thread is not None:
        data["message_thread_id"] = thread
    if topic is not None:
        data["is_topic_message"] = topic
    return data


def test_a_message_and_a_press_play_in_the_topic_they_are_in() -> None:
    in_topic = Update.model_validate({"update_id": 1, "message": _message(45, True)})
    assert campaign_of(in_topic) == Campaign(FORUM, 45)
    assert update_scope(in_topic) == Campaign(FORUM, 45)
    general = Update.model_validate({"update_id": 2, "message": _message(None, None)})
    assert campaign_of(general) == Campaign(FORUM)
    assert update_scope(general) == FORUM  # serialised as before topics were campaigns
    press = Update.model_validate(
        {
            "update_id": 3,
            "callback_query": {
                "id": "q",
                "from": {"id": 6, "is_bot": False, "first_name": "Борис"},
                "chat_instance": "c",
                "data": "x",
                "message": {
                    **_message(45, True),
                    "from": {"id": 1, "is_bot": True, "first_name": "b"},
                },
            },
        }
    )
    assert campaign_of(press) == Campaign(FORUM, 45)
    private = {"id": 5, "type": "private", "first_name": "Аня"}
    alone = Update.model_validate(
        {"update_id": 4, "message": {**_message(None, None), "chat": private}}
    )
    assert campaign_of(alone) == Campaign(5)


def test_a_send_goes_to_its_campaigns_topic_unless_it_names_one() -> None:
    assert thread_of(TOPIC, FORUM) == 45
    assert thread_of(TOPIC, -5) is None  # another chat: the caller names its thread
    assert thread_of(Campaign(FORUM), FORUM) is None  # General has no thread id
    assert thread_of(None, FORUM) is None


class Recorder:
    def __init__(self, refuse: str | None = None) -> None:
        self.calls: list[SendMessage] = []
        self.refuse = refuse

    async def __call__(self, bot: Bot, method: TelegramMethod[Any]) -> Any:
        assert isinstance(method, SendMessage)
        self.calls.append(method.model_copy())
        if self.refuse is not None and method.message_thread_id is not None:
            raise TelegramBadRequest(method, f"Bad Request: {self.refuse}")
        return "sent"


@pytest.mark.asyncio
async def test_the_middleware_files_a_send_and_falls_back_to_general_once() -> None:
    bot = scoped_bot(make_bot()[0], Scope(campaign=TOPIC))
    sent = Recorder()
    await InCampaignThread()(sent, bot, SendMessage(chat_id=FORUM, text="итог"))
    assert [c.message_thread_id for c in sent.calls] == [45]
    await InCampaignThread()(sent, bot, SendMessage(chat_id=FORUM, text="x", message_thread_id=1))
    assert sent.calls[-1].message_thread_id is None  # never Telegram's 1 for General
    await InCampaignThread()(sent, bot, SendMessage(chat_id=77, text="лично"))
    assert sent.calls[-1].message_thread_id is None

    for refusal in ("TOPIC_CLOSED", "message thread not found"):
        closed = Recorder(refusal)
        with speaking("ru"):
            answer = await InCampaignThread()(closed, bot, SendMessage(chat_id=FORUM, text="итог"))
            said = redirected_text("итог", TOPIC)
        assert answer == "sent"
        assert [c.message_thread_id for c in closed.calls] == [45, None]  # once each
        assert closed.calls[1].text == said
        assert said.startswith("Тема «Маг» закрыта, поэтому ответ здесь:")

    other = Recorder("chat not found")
    with pytest.raises(TelegramBadRequest):
        await InCampaignThread()(other, bot, SendMessage(chat_id=FORUM, text="итог"))
    assert len(other.calls) == 1


def test_a_roll_in_a_topic_makes_that_topic_the_players_inline_campaign() -> None:
    """``played_in``: the campaign the finish records for the sender's inline rolls is the
    update's own, titled after its chat; a chat's own game keeps the chat's title."""
    forum = Chat(id=FORUM, type="supergroup", title="Хроника", is_forum=True)
    anya = User(id=5, is_bot=False, first_name="Аня")
    rolled = Journal(key="j", seed=b"s", rolled=True)
    assert played_in(forum, anya, rolled, TOPIC) == (5, TOPIC, "Хроника › Маг")
    assert played_in(forum, anya, rolled, Campaign(FORUM)) == (5, Campaign(FORUM), "Хроника")
    # a campaign of another chat than the update's is not this one's: the chat's own game
    assert played_in(forum, anya, rolled, Campaign(-5, 9)) == (5, Campaign(FORUM), "Хроника")
    assert played_in(forum, anya, Journal(key="j", seed=b"s"), TOPIC) is None  # no roll
    bot = User(id=6, is_bot=True, first_name="Группа")
    assert played_in(forum, bot, rolled, TOPIC) is None  # an anonymous admin plays nowhere
    private = Chat(id=5, type="private", first_name="Аня")
    assert played_in(private, anya, rolled, Campaign(5)) is None
