"""``/dmg``, ``/heal``, ``/hp`` through the Dispatcher (docs/rules.md §B.9–§B.12).

The outside contract: after ``/dmg 3 л`` the same player's ``/r 6 6`` rolls 5 dice, after a
further ``/dmg 2 л`` it rolls 4; only the Storyteller touches another character or an NPC.
"""

from __future__ import annotations

import asyncio
import re

from aiogram.types import User

from rules.health import DamageType
from rules.sheet import SheetSystem
from tests.handlers.conftest import Table, player
from tests.handlers.dealt import Dealt

ANNA = player(1, "Anna")  # a chat administrator
BORIS = player(2, "Boris")  # a player


def dice_shown(text: str) -> int:
    return len(re.findall(r"\d+", text.splitlines()[1]))


async def reply(table: Table, user: User, text: str, to: User) -> None:
    """``user`` says ``text`` in reply to a message of ``to``."""
    await table.say(user, text, reply_to=to)


async def test_damage_takes_dice_from_the_next_rolls(table: Table) -> None:
    await table.say(ANNA, "/dmg 3 л")
    said = table.session.sent[-1].text
    assert "Anna получает 3 уровня летального урона." in said
    assert "(−1 за раны)" in said
    await table.say(ANNA, "/r 6 6")
    assert dice_shown(table.session.sent[-1].text) == 5
    await table.say(ANNA, "/dmg 2 л")
    await table.say(ANNA, "/r 6 6")
    assert dice_shown(table.session.sent[-1].text) == 4
    sheet = await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.health.boxes == (DamageType.LETHAL,) * 5


async def test_heal_and_hp(table: Table) -> None:
    await table.say(BORIS, "/dmg 2b")
    await table.say(BORIS, "/heal")
    assert "Boris восстанавливает 1 уровень." in table.session.sent[-1].text
    await table.say(BORIS, "/hp")
    assert "Boris" in table.session.sent[-1].text
    await table.say(BORIS, "/heal 5")
    await table.say(BORIS, "/heal")
    assert "нечего лечить" in table.session.sent[-1].text


async def test_only_the_storyteller_hurts_another_character(table: Table) -> None:
    await reply(table, BORIS, "/dmg 2 л", ANNA)
    assert "только Рассказчик" in table.session.sent[-1].text
    assert await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE) is None
    table.session.admins.add(ANNA.id)
    await reply(table, ANNA, "/dmg 2 л", BORIS)
    sheet = await table.store.load_sheet(table.chat.id, BORIS.id, SheetSystem.MAGE)
    assert sheet is not None
    assert len(sheet.health.boxes) == 2


async def test_bad_input_gets_the_usage_and_changes_nothing(table: Table) -> None:
    for text in ("/dmg", "/dmg 3", "/dmg л", "/dmg 0 л", "/dmg 999 л", "/dmg 3 x", "/dmg npc"):
        await table.say(ANNA, text)
        assert "/dmg 3 л" in table.session.sent[-1].text, text
    assert await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE) is None


async def test_two_wounds_at_once_both_land(table: Table) -> None:
    await asyncio.gather(table.say(ANNA, "/dmg 1 л"), table.say(ANNA, "/dmg 1 у"))
    sheet = await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert len(sheet.health.boxes) == 2


def soak_button(table: Table) -> tuple[str, int]:
    sent = table.session.messages[-1]
    assert sent.reply_markup is not None
    [button] = [b for row in sent.reply_markup.inline_keyboard for b in row]
    assert button.text == "🛡 Поглотить (2к10)"
    return button.callback_data or "", sent.message_id


async def test_a_typed_wound_is_soaked_once_and_lands_less_what_was_soaked(table: Table) -> None:
    """docs/product.md "Health": a soak roll button after damage; §B.10 Stamina against bashing."""
    await table.say(BORIS, "/set выносливость 2")
    await table.say(BORIS, "/dmg 3 b")
    assert "Boris может поглотить урон: 2к10." in table.session.sent[-1].text
    data, mid = soak_button(table)
    await table.tap(ANNA, data, mid)  # not Anna's character, and she does not run the game
    assert table.session.answers[-1].show_alert
    table.rng = Dealt(7, 2)
    await table.tap(BORIS, data, mid)
    text = table.session.edits[-1].text
    assert "🛡 Поглощение: <b>7</b> 2 — 1 успех → 2 уровня ударного урона." in text
    assert "🏠" not in text
    await table.tap(BORIS, data, mid)  # a double tap soaks once
    sheet = await table.store.load_sheet(table.chat.id, BORIS.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.health.boxes == (DamageType.BASHING,) * 2
    await table.say(BORIS, "/dmg 1 a")  # aggravated: nothing soaks it
    assert table.session.sent[-1].reply_markup is None


async def test_a_soak_owns_up_to_the_tables_soak_rule(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/rules set combat.soak_difficulty=8")
    await table.say(BORIS, "/set выносливость 2")
    await table.say(BORIS, "/dmg 3 b")
    assert "🏠 Сложность поглощения: 8" in table.session.sent[-1].text
    data, mid = soak_button(table)
    table.rng = Dealt(7, 2)
    await table.tap(ANNA, data, mid)  # whoever runs the game may roll it
    text = table.session.edits[-1].text
    assert "Поглощение: 7 2 — 0 успехов → 3 уровня ударного урона." in text
    assert "🏠 Сложность поглощения: 8" in text


async def test_a_soak_refuses_a_track_that_changed_since(table: Table) -> None:
    await table.say(BORIS, "/set выносливость 2")
    await table.say(BORIS, "/dmg 3 b")
    data, mid = soak_button(table)
    await table.say(BORIS, "/heal")
    await table.tap(BORIS, data, mid)
    assert "изменилось" in (table.session.answers[-1].text or "")
    sheet = await table.store.load_sheet(table.chat.id, BORIS.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.health.boxes == (DamageType.BASHING,) * 2


async def test_lethal_wounds_from_the_third_row_need_stabilising(table: Table) -> None:
    """§B.11 S4 «Любое Летальное повреждение начиная с Травм требует медицинского
    вмешательства…»: the hint from Травмы on, at the table's difficulty."""
    await table.say(BORIS, "/dmg 2 l")
    assert "стабилизируют" not in table.session.sent[-1].text
    await table.say(BORIS, "/dmg 1 l")
    assert "Интеллект + Медицина, сложность 6." in table.session.sent[-1].text
    await table.say(BORIS, "/hp")
    assert "стабилизируют" in table.session.sent[-1].text
