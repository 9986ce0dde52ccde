"""A vampire in a Dark Ages fight end to end (docs/rules.md §B.13): the real ``python -m bot``,
the fake Bot API, a real redis-server. Вера's sheet has a Generation, so a sword's lethal
damage meets her Stamina on the attack panel and the result says «Поглощение».
"""

from __future__ import annotations

import pytest

from localapi.server import ChatMessage
from tests.e2e.conftest import BotLauncher
from tests.e2e.test_combat_e2e import Fight

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


@pytest.fixture(scope="module")
def world(shared_world: BotLauncher) -> BotLauncher:
    return shared_world


async def test_a_vampire_soaks_a_swords_lethal_damage(world: BotLauncher) -> None:
    api = world.api
    master = api.add_user("Мастер", language_code="ru")
    anya, vera = api.add_user("Аня", language_code="ru"), api.add_user("Вера", language_code="ru")
    chat = api.add_group("Замок", owner=master, members=[anya, vera], bot_is_admin=True)
    fight = Fight(api, chat, master, {"Аня": anya, "Вера": vera}, first_call=len(api.calls))
    try:
        await fight.say(master, "/rules dark-ages")
        await fight.say(anya, "/set ловкость 4 сообразительность 2 фехтование 4 сила 2")
        vampire = "/set поколение 12 выносливость 3 ловкость 2 сообразительность 2"
        sheet = await fight.say(vera, vampire)
        assert "Поколение 12" in sheet.text
        tracker = await fight.say(anya, "/init")
        await fight.typed(vera, "/init", tracker)
        panel: ChatMessage = await fight.say(anya, "/atk")
        await fight.press(anya, panel, "🗡2")  # a sword: lethal damage
        for _attempt in range(15):
            await fight.press(anya, panel, "🎯 Вера")
            if "Без защиты" in " ".join(panel.button_texts):
                await fight.press(vera, panel, "Без защиты")
            if "Урон:" in panel.text:
                break
            await fight.typed(anya, "/atk", panel)
        else:
            raise AssertionError("fifteen attacks and not one hit")
        assert "летальный" in panel.text, panel.text
        assert "Поглощение" in panel.text, panel.text
    finally:
        print(world.logs())
