"""``/dmg``, ``/heal``, ``/hp`` through the Dispatcher (RULES.md §B.9–§B.12).

The outside contract: after ``/dmg 3 л`` the same player's ``/r 6 6`` rolls 5 dice, after a
further ``/dmg 2 л`` it rolls 4; only the Storyteller touches another character or an NPC.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime

from aiogram.types import Message, MessageEntity

from rules.health import DamageType
from rules.sheet import SheetSystem
from tests.handlers.conftest import Table, player

ANNA = player(1, "Anna")  # a chat administrator
BORIS = player(2, "Boris")  # a player


def dice_shown(text: str) -> int:
    return len(re.findall(r"\d+", text.splitlines()[1]))


async def reply(table: Table, user: object, text: str, to: object) -> None:
    """``user`` says ``text`` in reply to a message of ``to``."""
    table.message_id += 1
    replied = Message(
        message_id=table.message_id, date=datetime.now(UTC), chat=table.chat, from_user=to, text="…"
    )
    table.message_id += 1
    message = Message(
        message_id=table.message_id,
        date=datetime.now(UTC),
        chat=table.chat,
        from_user=user,
        text=text,
        entities=[MessageEntity(type="bot_command", offset=0, length=len(text.split()[0]))],
        reply_to_message=replied,
    )
    await table.feed(message=message)


async def test_damage_takes_dice_from_the_next_rolls(table: Table) -> None:
    await table.say(ANNA, "/dmg 3 л")
    said = table.session.sent[-1].text
    assert "Anna получает 3 уровня летального урона." in said
    assert "(−1)" in said
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
