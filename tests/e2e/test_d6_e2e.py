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

from tests.e2e.conftest import BotLauncher, InChat
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


async def test_a_d6_scene(world: BotLauncher) -> None:
    api = world.api
    master = api.add_user("Сценарист", language_code="ru")
    anya = api.add_user("Аня", language_code="ru")
    boris = api.add_user("Борис", language_code="ru")
    d6 = InChat(api, api.add_group("Д6", owner=master, members=[anya, boris], bot_is_admin=True))
    first = len(api.calls)

    await d6.say(master, "/rules d6")
    roll = await d6.say(anya, "/r 4")
    faces = re.findall(r"\d", roll.text.split("\n")[1])
    assert len(faces) == 4
    if any(int(f) < 5 for f in faces):
        assert any("Особое усилие" in b["text"] for b in roll.buttons)

    await d6.say(anya, "/set\nСила 2\nЛовкость 1\nКубики удачи 2\nСлабость 2")
    roll = await d6.say(anya, "/r сила+ловкость удача 1")
    assert "шанс 4к6 (Сила 2 + Ловкость 1 + удача 1)" in roll.text
    for _ in range(10):  # a roll with a die below 5 to spend the effort on
        if any("Особое усилие" in b["text"] for b in roll.buttons):
            break
        roll = await d6.say(anya, "/r сила")
    await d6.press(anya, roll, "Особое усилие")
    await d6.press(anya, roll, "Телесная рана 1")
    assert "Особое усилие за телесную рану 1" in roll.text
    sheet = await d6.say(anya, "/sheet")
    assert "Раны: телесная рана −1" in sheet.text
    assert "Кубики удачи: 1" in sheet.text

    contest = await d6.say(anya, "/vs 3")
    await d6.press(boris, contest, "🎲2")
    await d6.press(anya, contest, "Итог")
    assert "Побеждает" in contest.text or "Ничья" in contest.text

    tracker = await d6.say(anya, "/init 3")
    await d6.edit(tracker, boris, "/init 2")
    assert len(dice_on_line(tracker.text, "Аня")) == 3
    assert len(dice_on_line(tracker.text, "Борис")) == 2
    up = "Аня" if "▶ Аня" in tracker.text else "Борис"
    other = boris if up == "Аня" else anya
    actor = anya if up == "Аня" else boris
    await d6.press(actor, tracker, "Выжидать")
    assert "выжидает" in tracker.text
    # the other acts (now up), and the holder defends against it
    await d6.press(other, tracker, "Действовать")
    await d6.press(actor, tracker, "Защита")
    assert "защищается" in tracker.text
    api.assert_no_duplicate_sends()
    assert unexpected_errors(api.calls[first:]) == []


async def test_house_rules_survive_a_restart(world: BotLauncher) -> None:
    """docs/product.md "/rules": a Storyteller's switch lives in Redis, not in the process."""
    api = world.api
    master = api.add_user("Рассказчица", language_code="ru")
    player = api.add_user("Игорь", language_code="ru")
    home = InChat(api, api.add_group("Дом", owner=master, members=[player]))

    changed = await home.say(master, "/rules set wp_auto_success=off botch=net_negative")
    assert "Домашние правила изменены" in changed.text
    await world.restart()
    shown = await home.say(player, "/rules house")
    assert "Сила Воли даёт успех: нет (по книге: да)" in shown.text
    assert "Провал: единица осталась после отмены" in shown.text
    refused = await home.say(player, "/r 5 6 св")
    assert "не даёт автоматический успех" in refused.text


async def test_a_d6_chat_gets_the_d6_menu_and_gives_it_back(world: BotLauncher) -> None:
    """Telegram's command menu is one for every chat, in the World of Darkness words; a chat
    switched to d6 gets its own (BotCommandScopeChat, both languages), every call validated
    by the fake against the Bot API schema, and loses it back on the default game."""
    api = world.api
    master = api.add_user("Сценаристка", language_code="ru")
    chat = api.add_group("Меню", owner=master, members=[])
    menu = InChat(api, chat)
    first = len(api.calls)
    scope = {"type": "chat", "chat_id": chat.id}

    await menu.say(master, "/rules d6")
    await api.wait_for(lambda: bool(api.commands_for(scope, "ru") and api.commands_for(scope)))
    russian = api.commands_for(scope, "ru")
    assert russian == api.commands_for(scope)
    assert {"r", "project", "atk", "st", "h"} <= set(russian)
    assert not {"ext", "team", "multi", "blood", "m", "sphere", "barrier"} & set(russian)
    said = {
        (call.params.get("language_code"), c["command"]): c["description"]
        for call in api.calls_to("setMyCommands")[-2:]
        for c in call.params["commands"]
    }
    assert said[("ru", "h")] == "Тайный бросок (сценарист): /h 4"
    assert said[(None, "st")] == "The GM's role"
    assert {"ext", "m", "project"} <= set(api.commands_for())  # the menu for every chat stays

    await menu.say(master, "/rules mage")
    await api.wait_for(lambda: not api.commands_for(scope, "ru") and not api.commands_for(scope))
    calls = [c for c in api.calls[first:] if c.method.endswith("MyCommands")]
    assert [(c.method, c.ok) for c in calls] == [
        ("setMyCommands", True),
        ("setMyCommands", True),
        ("deleteMyCommands", True),
        ("deleteMyCommands", True),
    ]
    assert unexpected_errors(api.calls[first:]) == []
