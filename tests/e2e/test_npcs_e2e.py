"""The Storyteller fights as NPCs in both games, end to end (docs/product.md "NPCs"): the real
``python -m bot``, the fake Bot API, a real redis-server. What only the real process shows: the
tracker edited in place as the Storyteller opens the fight without joining it, a group of
copies seated from one sheet, a copy wounded by name, and in the d6 game a player's attack on
an NPC answered by the Storyteller for the NPC.
"""

from __future__ import annotations

import pytest

from tests.e2e.conftest import BotLauncher, InChat
from tests.e2e.test_table_e2e import unexpected_errors

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


@pytest.fixture(scope="module")
def world(shared_world: BotLauncher) -> BotLauncher:
    return shared_world


async def test_the_storyteller_fights_as_npcs_in_both_games(world: BotLauncher) -> None:
    api = world.api
    master = api.add_user("Мастер", language_code="ru")
    anya = api.add_user("Аня", language_code="ru")
    mage = InChat(api, api.add_group("Хроника", owner=master, members=[anya], bot_is_admin=True))
    first = len(api.calls)

    # Mage: the Storyteller opens the fight and is no fighter in it
    await mage.say(master, "/npc Охранник: ловкость 3 смекалка 2 выносливость 3")
    tracker = await mage.say(master, "/init")
    assert "Мастер" not in tracker.text
    await mage.edit(tracker, anya, "/init 6")
    await mage.edit(tracker, master, "/init npc Охранник x2")
    assert "Охранник 1 — <b>" in tracker.text or "Охранник 1 — " in tracker.text
    assert "Охранник 2" in tracker.text
    assert "Мастер" not in tracker.text
    wound = await mage.say(master, "/dmg Охранник 2 л")
    assert "Охранник 2" in wound.text
    health = await mage.say(anya, "/hp Охранник")
    assert health.text.count("Охранник") == 2
    assert "Здоров [" in health.text  # copy 1 untouched
    panel = await mage.say(master, "/atk Охранник 1")
    assert "Охранник 1" in panel.text.splitlines()[0]

    # d6: a player attacks a bandit; the Storyteller defends as the bandit
    d6 = InChat(api, api.add_group("Д6", owner=master, members=[anya], bot_is_admin=True))
    await d6.say(master, "/rules d6")
    await d6.say(master, "/npc Бандит\nСила 2")
    opened = await d6.say(master, "/init")
    assert "Бой открыт" in opened.text
    assert "Мастер" not in opened.text
    attack = await d6.say(anya, "/atk Бандит 3")
    assert "Аня атакует → Бандит" in attack.text
    await d6.press(master, attack, "🛡1")
    assert "Бандит защищается" in attack.text
    assert "Мастер" not in attack.text
    api.assert_no_duplicate_sends()
    assert unexpected_errors(api.calls[first:]) == []
