"""NPCs and players named as the Storyteller names them at the table: an NPC by any part of
its name that is its alone (an ambiguous part asks), a group's copy by its number, a player
by the name their sheet shows."""

from __future__ import annotations

from rules.sheet import Ability, Attribute, Sheet, SheetSystem, set_trait
from tests.handlers.conftest import Table, player

ANNA = player(1, "Anna")
BORIS = player(2, "Борис")
GM = player(3, "Мастер")
MAGE = SheetSystem.MAGE


def bishop(sheet: Sheet) -> Sheet:
    return set_trait(set_trait(sheet, Attribute.PERCEPTION, 3), Ability.EMPATHY, 2)


async def storyteller(table: Table) -> None:
    table.session.admins.add(GM.id)
    await table.say(GM, "/st")


async def test_an_npc_by_a_part_of_its_name(table: Table) -> None:
    await storyteller(table)
    await table.store.update_npc(table.chat.id, MAGE, "Епископ Гуго", bishop)
    await table.say(GM, "/r гуго восп+эмпатия 7")
    assert table.session.sent[-1].text.startswith("🎲 Епископ Гуго: Восприятие 3 + Эмпатия 2")
    await table.say(GM, "/vs гуго восп+эмпатия 7", reply_to=ANNA)
    assert "Епископ Гуго" in table.session.sent[-1].text


async def test_a_part_two_names_share_asks_which(table: Table) -> None:
    await storyteller(table)
    await table.store.update_npc(table.chat.id, MAGE, "Страж ворот", bishop)
    await table.store.update_npc(table.chat.id, MAGE, "Страж моста", bishop)
    await table.say(GM, "/r страж восп+эмпатия 7")
    answer = table.session.sent[-1].text
    assert "«Страж ворот», «Страж моста»" in answer
    assert "🎲" not in answer
    markup = table.session.sent[-1].reply_markup
    assert markup is not None
    assert [row[0].text for row in markup.inline_keyboard] == ["Страж ворот", "Страж моста"]
    offer = table.session.messages[-1].message_id
    await table.tap(GM, markup.inline_keyboard[1][0].callback_data or "", offer)
    assert table.session.sent[-1].text.startswith("🎲 Страж моста: Восприятие 3 + Эмпатия 2")
    await table.say(GM, "/r страж моста восп 7")  # the whole name still rolls at once
    assert table.session.sent[-1].text.startswith("🎲 Страж моста")


async def test_the_storyteller_wounds_a_player_by_name(table: Table) -> None:
    await storyteller(table)
    await table.say(BORIS, "/set ловкость 3")  # the sheet knows Борис by name
    await table.say(GM, "/dmg Борис 2 л")
    answer = table.session.sent[-1].text
    assert "Борис" in answer
    sheet = await table.store.load_sheet(table.chat.id, BORIS.id, MAGE)
    assert sheet is not None
    assert len(sheet.health.boxes) == 2
    await table.say(ANNA, "/dmg Борис 2 л")  # a player wounds nobody else
    sheet = await table.store.load_sheet(table.chat.id, BORIS.id, MAGE)
    assert sheet is not None
    assert len(sheet.health.boxes) == 2


async def test_init_with_a_copys_number_addresses_that_copy(table: Table) -> None:
    await storyteller(table)
    await table.say(GM, "/init npc Стражник 6 x2")
    await table.say(GM, "/init npc Стражник 2")
    drawn = table.session.sent[-1].text + "".join(e.text for e in table.session.edits[-3:])
    assert "Стражник 3" not in drawn
