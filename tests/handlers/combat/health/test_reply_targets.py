"""A command in reply to the bot's message about a player targets that player (bot/replies.py).

Outside contract: the Storyteller's ``/dmg 1 у`` in reply to the bot's result of a player's
roll wounds that player.
"""

from __future__ import annotations

from aiogram.types import User

from rules.health import DamageType
from rules.sheet import SheetSystem
from tests.handlers.conftest import Table, player

ANNA = player(1, "Аня")
BORIS = player(2, "Борис")
STORYTELLER = player(9, "Мастер")
DICE = User(id=123456, is_bot=True, first_name="Dice")


async def result_of(table: Table, user: User, text: str) -> int:
    """``user`` types ``text``; the id of the bot's message that answers it."""
    await table.say(user, text)
    return table.session.messages[-1].message_id


async def to_bot(table: Table, user: User, text: str, message_id: int) -> None:
    await table.say(user, text, reply_to=DICE, replied_id=message_id)


async def health(
    table: Table, user: User, system: SheetSystem = SheetSystem.MAGE
) -> tuple[DamageType, ...]:
    sheet = await table.store.load_sheet(table.chat.id, user.id, system)
    return sheet.health.boxes if sheet is not None else ()


async def test_dmg_heal_and_hp_in_reply_to_a_rolls_result_target_its_roller(table: Table) -> None:
    table.session.admins.add(STORYTELLER.id)
    rolled = await result_of(table, ANNA, "/r 5 6")
    await to_bot(table, STORYTELLER, "/dmg 1 у", rolled)
    assert "Аня получает 1 уровень ударного урона" in table.session.sent[-1].text
    assert await health(table, ANNA) == (DamageType.BASHING,)
    assert await health(table, STORYTELLER) == ()
    await to_bot(table, STORYTELLER, "/dmg 2 л", rolled)
    await to_bot(table, STORYTELLER, "/heal", rolled)
    assert "Аня восстанавливает 1 уровень" in table.session.sent[-1].text
    assert await health(table, ANNA) == (DamageType.LETHAL, DamageType.LETHAL)
    await to_bot(table, BORIS, "/hp", rolled)  # anyone may look
    assert table.session.sent[-1].text.startswith("<b>Аня</b>\n<b>Здоровье</b>: Ушибы")
    assert await health(table, STORYTELLER) == ()


async def test_a_reply_to_the_bots_answer_to_a_wound_targets_the_wounded(table: Table) -> None:
    table.session.admins.add(STORYTELLER.id)
    rolled = await result_of(table, ANNA, "/r 5 6")
    await to_bot(table, STORYTELLER, "/dmg 1 л", rolled)
    answered = table.session.messages[-1].message_id  # the Storyteller's command, about Аня
    await to_bot(table, STORYTELLER, "/dmg 1 л", answered)
    assert await health(table, STORYTELLER) == ()
    assert await health(table, ANNA) == (DamageType.LETHAL, DamageType.LETHAL)


async def test_a_player_may_not_wound_another_through_the_bots_message(table: Table) -> None:
    table.session.admins.add(STORYTELLER.id)
    rolled = await result_of(table, ANNA, "/r 5 6")
    await to_bot(table, BORIS, "/dmg 2 л", rolled)
    assert "только Рассказчик" in table.session.sent[-1].text
    assert await health(table, ANNA) == ()
    assert await health(table, BORIS) == ()


async def test_a_reply_to_ones_own_result_or_to_the_tracker_is_ones_own(table: Table) -> None:
    rolled = await result_of(table, BORIS, "/r 5 6")
    await to_bot(table, BORIS, "/dmg 1 л", rolled)
    assert await health(table, BORIS) == (DamageType.LETHAL,)
    table.session.admins.add(STORYTELLER.id)
    await table.say(ANNA, "/init 6")
    tracker = next(m.message_id for m in table.session.messages if "⚔️" in (m.text or ""))
    await to_bot(table, STORYTELLER, "/dmg 1 л", tracker)  # the table's, nobody's
    assert await health(table, ANNA) == ()
    assert await health(table, STORYTELLER) == (DamageType.LETHAL,)


async def test_d6_wounds_in_reply_to_a_rolls_result_land_on_its_roller(table: Table) -> None:
    await table.store.update_chat(table.chat.id, profile="d6")
    table.session.admins.add(STORYTELLER.id)
    rolled = await result_of(table, ANNA, "/r 3")
    await to_bot(table, STORYTELLER, "/dmg 1 тел", rolled)
    anna = await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.D6)
    assert anna is not None
    assert len(anna.wounds) == 1
    assert await table.store.load_sheet(table.chat.id, STORYTELLER.id, SheetSystem.D6) is None


async def test_a_challenge_in_reply_to_a_rolls_result_challenges_its_roller(table: Table) -> None:
    rolled = await result_of(table, ANNA, "/r 5 6")
    await to_bot(table, BORIS, "/vs 4 6", rolled)
    assert table.session.sent[-1].text.startswith("⚔️ <b>Противостояние</b>: Борис — Аня")


async def test_a_d6_attack_in_reply_to_a_rolls_result_targets_its_roller(table: Table) -> None:
    await table.store.update_chat(table.chat.id, profile="d6")
    rolled = await result_of(table, ANNA, "/r 3")
    await to_bot(table, BORIS, "/atk 3", rolled)
    assert table.session.sent[-1].text.startswith("🗡 Борис атакует → Аня")
