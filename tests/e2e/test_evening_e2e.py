"""An evening at a Russian table with an English-speaking guest, end to end: the real
``python -m bot``, the fake Bot API and a real redis-server.

Outside contract: in a Russian group, an English-speaking player's tap on the round tracker
leaves its text in Russian; the Storyteller's ``/dmg 1 у`` in reply to the bot's result of a
player's roll wounds that player.
"""

from __future__ import annotations

import re

import pytest

from localapi.server import ChatMessage, FakeBotApi, FakeChat, FakeUser
from tests.e2e.conftest import BotLauncher

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

CYRILLIC = re.compile("[А-Яа-яЁё]")


@pytest.fixture(scope="module")
def world(shared_world: BotLauncher) -> BotLauncher:
    return shared_world


async def say(
    api: FakeBotApi, chat: FakeChat, user: FakeUser, text: str, **kw: object
) -> ChatMessage:
    typed = api.send_text(chat, user, text, **kw)  # type: ignore[arg-type]
    return await api.wait_for_message(chat, after=typed)


async def press(
    api: FakeBotApi, chat: FakeChat, user: FakeUser, message: ChatMessage, label: str
) -> str:
    data = next(b["callback_data"] for b in message.buttons if label in b["text"])
    edits = message.edits
    query = api.press(chat, user, message, data)
    answer = await api.wait_for_callback_answer(query)
    await api.wait_for(lambda: message.edits > edits)
    return answer.text or ""


async def test_an_english_guest_taps_a_russian_tracker(world: BotLauncher) -> None:
    api = world.api
    master = api.add_user("Мастер", language_code="ru")
    anna = api.add_user("Аня", language_code="ru")
    john = api.add_user("John", language_code="en")
    chat = api.add_group("Вечер", owner=master, members=[anna, john], bot_is_admin=True)
    tracker = await say(api, chat, anna, "/init 6")
    assert tracker.text.startswith("⚔️ Бой · раунд 1")
    await press(api, chat, john, tracker, "Бросить инициативу")
    await press(api, chat, john, tracker, "5")
    assert "John" in tracker.text
    assert tracker.text.startswith("⚔️ Бой · раунд 1")
    assert "Combat" not in tracker.text
    assert "round" not in tracker.text
    labels = [b["text"] for b in tracker.buttons]
    assert "🎲 Бросить инициативу" in labels
    assert not any("Roll initiative" in label for label in labels)


async def test_the_storytellers_wound_in_reply_to_a_rolls_result_lands_on_its_roller(
    world: BotLauncher,
) -> None:
    api = world.api
    master = api.add_user("Мастер", language_code="ru")
    anna = api.add_user("Аня", language_code="ru")
    chat = api.add_group("Вечер 2", owner=master, members=[anna], bot_is_admin=True)
    claimed = await say(api, chat, master, "/st")
    assert "Мастер" in claimed.text
    rolled = await say(api, chat, anna, "/r 5 6")
    assert rolled.text.startswith("🎲 Аня")
    # Аня never opened a private chat with the bot: the group is told so once, before the
    # wound itself, which stays the newest message (bot/notices.py).
    notice = await say(api, chat, master, "/dmg 1 у", reply_to=rolled)
    assert "написать вам в личку я не могу" in notice.text
    wound = await api.wait_for_message(chat, after=notice, timeout=10)
    assert "Аня получает 1 уровень ударного урона" in wound.text
    health = await say(api, chat, anna, "/hp")
    assert "Здоровье: Синяки [/ ·" in health.text
    own = await say(api, chat, master, "/hp")
    assert "Здоровье: Здоров [· ·" in own.text  # not the Storyteller's own
