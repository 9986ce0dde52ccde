"""The d6 /atk and /dmg find an NPC by a part of its name that is its alone, as the d10
commands do (table/npcs.py): «одноглаз» for «Одноглазый Бандит». A part several NPCs share
is answered with a button per name, and changes nothing."""

from __future__ import annotations

import pytest

from handlers.d6combat.attack.callbacks import D6AttackCallback
from rules.sheet import SheetSystem
from tests.handlers.conftest import Table, buttons, player

ANNA = player(1, "Anna")
VERA = player(3, "Vera")
NAMES = ("Одноглазый Бандит", "Старый Страж", "Страж Ворот")


@pytest.fixture
async def d6(table: Table) -> Table:
    await table.store.update_chat(table.chat.id, profile="d6")
    table.session.admins.add(VERA.id)
    for name in NAMES:
        await table.store.update_npc(table.chat.id, SheetSystem.D6, name, lambda sheet: sheet)
    return table


async def wounds_of(table: Table, name: str) -> int:
    sheet = await table.store.load_npc(table.chat.id, SheetSystem.D6, name)
    assert sheet is not None
    return len(sheet.wounds)


async def test_dmg_finds_the_npc_by_a_part_of_its_name(d6: Table) -> None:
    await d6.say(VERA, "/dmg одноглаз тел 2")
    assert await wounds_of(d6, "Одноглазый Бандит") == 1
    await d6.say(VERA, "/dmg ворот душ")  # only the kind: one level
    assert await wounds_of(d6, "Страж Ворот") == 1


async def test_a_shared_part_offers_each_name_and_changes_nothing(d6: Table) -> None:
    await d6.say(VERA, "/dmg страж тел 1")
    answer = d6.session.sent[-1]
    assert "«страж»" in answer.text
    assert [b.text for b in buttons(answer.reply_markup)] == ["Старый Страж", "Страж Ворот"]
    assert await wounds_of(d6, "Старый Страж") == 0
    assert await wounds_of(d6, "Страж Ворот") == 0
    await d6.say(VERA, "/heal страж 1")
    assert [b.text for b in buttons(d6.session.sent[-1].reply_markup)] == [
        "Старый Страж",
        "Страж Ворот",
    ]


async def test_atk_names_its_target_by_a_part_of_the_name(d6: Table) -> None:
    await d6.say(ANNA, "/atk одноглаз 3")
    sent = d6.session.sent[-1]
    data = next(b.callback_data for b in buttons(sent.reply_markup) if b.callback_data)
    flow = await d6.store.load_flow(d6.chat.id, D6AttackCallback.unpack(data or "").f)
    assert flow is not None
    assert flow.data["target_npc"] == "Одноглазый Бандит"
    await d6.say(ANNA, "/atk страж 3")
    assert [b.text for b in buttons(d6.session.sent[-1].reply_markup)] == [
        "Старый Страж",
        "Страж Ворот",
    ]
