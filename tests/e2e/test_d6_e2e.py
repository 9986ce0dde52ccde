"""A d6 scene end to end: the real ``python -m bot``, the fake Bot API, a real redis-server.

The outside contract of the d6 issue: in a chat switched to ``/rules d6``, ``/r 4`` shows 4
faces and a button «Особое усилие»; ``/init 3`` and ``/init 2`` from two players put both on
one tracker message with their 3 and 2 dice. Around it: a sheet with powers and luck, a roll
that spends luck and then a special effort whose wound lands on the sheet once, a contest,
and a round of initiative with a hold and a defence.
"""

from __future__ import annotations

import re

import pytest

from localapi.server import ChatMessage, FakeBotApi, FakeChat, FakeUser
from tests.e2e.conftest import BotLauncher
from tests.e2e.test_table_e2e import unexpected_errors

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


@pytest.fixture(scope="module")
def world(shared_world: BotLauncher) -> BotLauncher:
    return shared_world


def dice_on_line(text: str, name: str) -> list[int]:
    for line in text.splitlines():
        if line.lstrip("▶ ").startswith(name + ":"):
            left = line.split("🎲", 1)[1].split("·", 1)[0]
            return [int(d) for d in re.findall(r"\d", left)]
    raise AssertionError(f"{name} not on the tracker:\n{text}")


async def press(
    api: FakeBotApi, chat: FakeChat, user: FakeUser, msg: ChatMessage, label: str
) -> None:
    data = next(b["callback_data"] for b in msg.buttons if label in b["text"])
    edits = msg.edits
    query = api.press(chat, user, msg, data)
    await api.wait_for_callback_answer(query)
    await api.wait_for(lambda: msg.edits > edits)


async def test_a_d6_scene(world: BotLauncher) -> None:
    api = world.api
    master = api.add_user("Сценарист", language_code="ru")
    anya = api.add_user("Аня", language_code="ru")
    boris = api.add_user("Борис", language_code="ru")
    chat = api.add_group("Д6", owner=master, members=[anya, boris], bot_is_admin=True)
    first = len(api.calls)

    async def say(user: FakeUser, text: str) -> ChatMessage:
        typed = api.send_text(chat, user, text)
        return await api.wait_for_message(chat, after=typed)

    await say(master, "/rules d6")
    roll = await say(anya, "/r 4")
    faces = re.findall(r"\d", roll.text.split("\n")[1])
    assert len(faces) == 4
    if any(int(f) < 5 for f in faces):
        assert any("Особое усилие" in b["text"] for b in roll.buttons)

    await say(anya, "/set\nСила 2\nЛовкость 1\nКубики удачи 2\nСлабость 2")
    roll = await say(anya, "/r сила+ловкость удача 1")
    assert "шанс 4к6 (Сила 2 + Ловкость 1 + удача 1)" in roll.text
    for _ in range(10):  # a roll with a die below 5 to spend the effort on
        if any("Особое усилие" in b["text"] for b in roll.buttons):
            break
        roll = await say(anya, "/r сила")
    await press(api, chat, anya, roll, "Особое усилие")
    await press(api, chat, anya, roll, "Телесная рана 1")
    assert "Особое усилие за телесную рану 1" in roll.text
    sheet = await say(anya, "/sheet")
    assert "Раны: телесная рана −1" in sheet.text
    assert "Кубики удачи: 1" in sheet.text

    contest = await say(anya, "/vs 3")
    await press(api, chat, boris, contest, "🎲2")
    await press(api, chat, anya, contest, "Итог")
    assert "Побеждает" in contest.text or "Ничья" in contest.text

    tracker = await say(anya, "/init 3")
    edits = tracker.edits
    api.send_text(chat, boris, "/init 2")
    await api.wait_for(lambda: tracker.edits > edits)
    assert len(dice_on_line(tracker.text, "Аня")) == 3
    assert len(dice_on_line(tracker.text, "Борис")) == 2
    up = "Аня" if "▶ Аня" in tracker.text else "Борис"
    other = boris if up == "Аня" else anya
    actor = anya if up == "Аня" else boris
    await press(api, chat, actor, tracker, "Выжидать")
    assert "выжидает" in tracker.text
    # the other acts (now up), and the holder defends against it
    await press(api, chat, other, tracker, "Действовать")
    await press(api, chat, actor, tracker, "Защита")
    assert "защищается" in tracker.text
    api.assert_no_duplicate_sends()
    assert unexpected_errors(api.calls[first:]) == []


async def test_house_rules_survive_a_restart(world: BotLauncher) -> None:
    """docs/product.md "/rules": a Storyteller's switch lives in Redis, not in the process."""
    api = world.api
    master = api.add_user("Рассказчица", language_code="ru")
    player = api.add_user("Игорь", language_code="ru")
    chat = api.add_group("Дом", owner=master, members=[player])

    async def say(user: FakeUser, text: str) -> ChatMessage:
        typed = api.send_text(chat, user, text)
        return await api.wait_for_message(chat, after=typed)

    changed = await say(master, "/rules set wp_auto_success=off botch=net_negative")
    assert "Домашние правила изменены" in changed.text
    await world.restart()
    shown = await say(player, "/rules house")
    assert "Сила Воли даёт успех: нет (по книге: да)" in shown.text
    assert "Провал: единица осталась после отмены" in shown.text
    refused = await say(player, "/r 5 6 св")
    assert "не даёт автоматический успех" in refused.text
