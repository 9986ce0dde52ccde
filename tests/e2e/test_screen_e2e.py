"""The Storyteller's screen with the real ``python -m bot`` against the fake Bot API and a
real redis-server: a ``/dmg`` typed in the group edits the open screen once, by itself, and a
roll asked of a player from the screen is rolled by their press in the group and shown on
the screen."""

from __future__ import annotations

import pytest

from localapi.server import FakeBotApi
from tests.e2e.conftest import BotLauncher, SharedLauncher
from tests.e2e.test_session_e2e import WAIT, press, say

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


@pytest.fixture
def fake_api(shared_world: BotLauncher) -> FakeBotApi:
    return shared_world.api


@pytest.fixture
def bot_process(shared_world: BotLauncher) -> SharedLauncher:
    return SharedLauncher(shared_world)


async def test_the_groups_dmg_redraws_the_open_screen_once(
    fake_api: FakeBotApi, bot_process: BotLauncher
) -> None:
    api = fake_api
    mira = api.add_user("Мира")
    anya = api.add_user("Аня")
    group = api.add_group("Ширма", owner=mira, members=[anya])
    await bot_process.start()
    mira_private = api.open_private_chat(mira)
    await say(api, group, mira, "/st", containing="Рассказчик")
    await say(api, group, anya, "/set выносливость 2 сила воли 5")
    screen = await say(api, mira_private, mira, "/screen", containing="Аня")
    # The private chat's updates run in order: once /help is answered, /screen is done and
    # the campaign names its screen (written after the screen is sent).
    await say(api, mira_private, mira, "/help")
    assert screen.edits == 0
    await say(api, group, mira, "/dmg Аня 1 л", containing="Аня")
    await api.wait_for(lambda: screen.edits == 1, WAIT)
    assert "[X]" in screen.text or "−1" in screen.text
    # The chat's updates run in order: once this reply is out, the /dmg's redraw is done,
    # and a roll that changes nothing the screen shows edits nothing.
    await say(api, group, anya, "/r 3 6", containing="Аня")
    await say(api, group, anya, "/r 2 6", containing="Аня")
    assert screen.edits == 1


async def test_a_roll_asked_from_the_screen_lands_in_the_group_and_on_the_screen(
    fake_api: FakeBotApi, bot_process: BotLauncher
) -> None:
    api = fake_api
    mira = api.add_user("Мира")
    anya = api.add_user("Аня")
    boris = api.add_user("Борис")
    group = api.add_group("Запрос", owner=mira, members=[anya, boris])
    await bot_process.start()
    mira_private = api.open_private_chat(mira)
    await say(api, group, mira, "/st", containing="Рассказчик")
    await say(api, group, anya, "/set восприятие 3 бдительность 2 сила воли 4")
    screen = await say(api, mira_private, mira, "/screen", containing="Аня")
    await press(api, mira_private, mira, screen, "Аня")
    await press(api, mira_private, mira, screen, "Запросить бросок")
    await press(api, mira_private, mira, screen, "Восприятие+Бдительность")
    await press(api, mira_private, mira, screen, "7")
    asked = await api.wait_for_message(group, containing="просит бросить", timeout=WAIT)
    assert "Аня" in asked.text
    assert "сложность 7" in asked.text
    await api.wait_for(lambda: "ждём броска" in screen.text, WAIT)
    query = api.press(
        group, anya, asked, next(b["text"] for b in asked.buttons if "Бросить" in b["text"])
    )
    await api.wait_for_callback_answer(query, timeout=WAIT)
    await api.wait_for(lambda: "• Аня: 5к10" in asked.text, WAIT)
    assert not asked.buttons  # the one player asked has rolled
    await api.wait_for(lambda: "📣 Аня: Восприятие+Бдительность, сложность 7:" in screen.text, WAIT)
    assert "ждём" not in screen.text
