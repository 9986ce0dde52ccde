"""End to end: inline mode through the real ``python -m bot``, the fake Bot API and Redis.

The outside contract (kept stable for checks outside the repository): an inline query «7 6»
is answered by answerInlineQuery whose first result's message carries no dice yet and has an
inline button; pressing it as the query's sender edits that inline message (by
inline_message_id) with a text showing 7 faces. Only the process shows this whole: the
allowed updates asked for, an update with no chat going through the inbox and its journal,
and the edit by inline_message_id accepted by the schema.
"""

from __future__ import annotations

import re

import pytest

from localapi.server import FakeBotApi
from rules import d10, profiles
from tests.e2e.conftest import BotLauncher, InChat, add_forum
from tests.e2e.test_sheet_e2e import bot_process as bot_process  # the shared world's bot
from tests.e2e.test_sheet_e2e import fake_api as fake_api  # the shared world's fake API

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

FACES_LINE = re.compile(r"^(?:10|[1-9])(?: (?:10|[1-9]))*$", re.MULTILINE)


async def test_an_inline_roll_is_offered_without_dice_and_rolled_once_by_its_sender(
    fake_api: FakeBotApi, bot_process: BotLauncher
) -> None:
    anya = fake_api.add_user("Аня", language_code="ru")
    boris = fake_api.add_user("Борис", language_code="ru")
    side = fake_api.add_group("Болтовня", owner=anya, members=[boris])  # no campaign there
    await bot_process.start()
    first_call = len(fake_api.calls)
    query = fake_api.inline_query(anya, "7 6", chat=side)
    answer = await fake_api.wait_for_inline_answer(query, timeout=10)
    assert answer.is_personal
    assert answer.cache_time is not None
    assert answer.cache_time <= 10
    first = answer.results[0]
    assert first["reply_markup"]["inline_keyboard"][0][0]["text"] == "🎲 Бросить"
    assert "%" in first["description"]

    posted = fake_api.choose_inline_result(side, anya, query, first["id"])
    assert not FACES_LINE.findall(posted.text)  # no dice yet
    assert "7к10" in posted.text

    foreign = fake_api.press(side, boris, posted, "🎲 Бросить")
    toast = await fake_api.wait_for_callback_answer(foreign, timeout=10)
    assert toast.text is not None
    assert "Аня" in toast.text
    assert posted.edits == 0

    pressed = fake_api.press(side, anya, posted, "🎲 Бросить")
    double = fake_api.press(side, anya, posted, "🎲 Бросить")  # before the first is handled
    await fake_api.wait_for_callback_answer(pressed, timeout=10)
    second = await fake_api.wait_for_callback_answer(double, timeout=10)
    assert second.text == "Эти кубики уже брошены."
    await fake_api.wait_for(lambda: posted.edits == 1, timeout=10)
    (edit,) = [c for c in fake_api.calls[first_call:] if c.method == "editMessageText" and c.ok]
    assert edit.params["inline_message_id"] == fake_api.inline_message_id(side, posted.message_id)
    faces = [int(face) for face in FACES_LINE.findall(posted.text)[0].split()]
    assert len(faces) == 7
    assert posted.buttons == []
    result = d10.resolve(faces, 6, profiles.get(profiles.DEFAULT))
    stated = re.search(r"(\d+) успех", posted.text)
    assert (stated is not None and int(stated.group(1)) == result.successes) or (
        result.successes <= 0
    )
    assert not fake_api.unanswered_callback_queries()
    assert not fake_api.internal_errors


async def test_an_inline_roll_goes_to_the_forum_topic_its_sender_last_rolled_in(
    fake_api: FakeBotApi, bot_process: BotLauncher
) -> None:
    """A forum's topic is a campaign of its own: the sender's last roll was in «Маг», so the
    inline roll is offered for «Хроника › Маг» and goes to that topic's /log, not General's."""
    anya = fake_api.add_user("Аня", language_code="ru")
    side = fake_api.add_group("Флуд", owner=anya)
    forum = add_forum(fake_api, "Хроника", owner=anya)
    await bot_process.start()
    mage = InChat(fake_api, forum, "Маг")
    general = mage.in_topic(None)
    await general.say(anya, "/r 4")
    await mage.say(anya, "/r 3")
    await bot_process.settled()  # the roll's finish records «Маг» as her last campaign

    query = fake_api.inline_query(anya, "7 6", chat=side)
    answer = await fake_api.wait_for_inline_answer(query, timeout=10)
    first = answer.results[0]
    assert "«Хроника › Маг»" in first["description"]
    posted = fake_api.choose_inline_result(side, anya, query, first["id"])
    pressed = fake_api.press(side, anya, posted, "🎲 Бросить")
    await fake_api.wait_for_callback_answer(pressed, timeout=10)
    await fake_api.wait_for(lambda: posted.edits == 1, timeout=10)
    assert len(FACES_LINE.findall(posted.text)[0].split()) == 7
    assert "Кампания «Хроника › Маг»" in posted.text

    mage_log = await mage.say(anya, "/log")
    general_log = await general.say(anya, "/log")
    assert "7к10" in mage_log.text
    assert "3к10" in mage_log.text
    assert "7к10" not in general_log.text
    assert "4к10" in general_log.text
    assert not fake_api.internal_errors
