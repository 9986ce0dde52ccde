"""/set, /sheet, a pasted block and /blood in reply to the bot's message about a player reach
that player, when the Storyteller sends them (docs/product.md "Shared messages and replies")."""

from __future__ import annotations

from aiogram.types import User

from rules.sheet import Ability, Attribute
from tests.handlers.conftest import Table, player
from tests.handlers.sheet.test_sheet import stored

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
STORYTELLER = player(9, "Master")
DICE = User(id=123456, is_bot=True, first_name="Dice")


async def answer_to(table: Table, user: User, text: str) -> int:
    """``user`` types ``text``; the id of the bot's message that answers it."""
    await table.say(user, text)
    return table.session.messages[-1].message_id


async def to_bot(
    table: Table, user: User, text: str, message_id: int, replied_text: str = ""
) -> None:
    await table.say(
        user, text, reply_to=DICE, replied_id=message_id, replied_text=replied_text or "…"
    )


async def test_set_in_reply_to_a_rolls_result_writes_the_rollers_sheet(table: Table) -> None:
    table.session.admins.add(STORYTELLER.id)
    await table.say(STORYTELLER, "/st")
    rolled = await answer_to(table, ANNA, "/r 5 6")
    await to_bot(table, STORYTELLER, "/set сила 4", rolled)
    anna = await stored(table, ANNA)
    assert anna is not None
    assert anna.rating(Attribute.STRENGTH) == 4
    assert await stored(table, STORYTELLER) is None


async def test_sheet_and_a_paste_under_the_bots_answer_reach_the_player(table: Table) -> None:
    table.session.admins.add(STORYTELLER.id)
    await table.say(STORYTELLER, "/st")
    await table.say(ANNA, "/set ловкость 3")
    rolled = await answer_to(table, ANNA, "/r ловк 6")
    await to_bot(table, STORYTELLER, "/sheet", rolled)
    shown = table.session.messages[-1]
    assert "Anna" in (shown.text or "")
    assert "Ловкость" in (shown.text or "")
    block = "Таланты: Бдительность 2, Драка 3"
    await to_bot(table, STORYTELLER, block, shown.message_id, shown.text or "")
    anna = await stored(table, ANNA)
    assert anna is not None
    assert (anna.rating(Ability.ALERTNESS), anna.rating(Ability.BRAWL)) == (2, 3)
    assert await stored(table, STORYTELLER) is None


async def test_a_player_replying_to_the_bot_writes_only_their_own_sheet(table: Table) -> None:
    rolled = await answer_to(table, ANNA, "/r 5 6")
    await to_bot(table, BORIS, "/set сила 4", rolled)
    assert await stored(table, ANNA) is None
    boris = await stored(table, BORIS)
    assert boris is not None
    assert boris.rating(Attribute.STRENGTH) == 4
