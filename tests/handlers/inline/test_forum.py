"""Inline mode in a forum: each topic is a campaign of its own, so a player's inline rolls go
to the topic they last rolled in (its sheet, its log, its statistics), and the private
chat's ``/inline`` lists each topic apart, named after its forum."""

from __future__ import annotations

from datetime import UTC, datetime

from aiogram.types import (
    Chat,
    ForumTopicCreated,
    InlineKeyboardMarkup,
    Message,
    MessageEntity,
    User,
)

from handlers.inline.callbacks import CampaignCallback, InlineRollCallback
from rules.sheet import SheetSystem
from table.scope import Campaign
from table.store import plays_key
from tests.handlers.conftest import Table, player
from tests.handlers.dealt import Dealt
from tests.handlers.inline.test_inline import ask, inline_edits, last_answer, press, roll_data

ANNA = player(501, "Аня")
FORUM = Chat(id=-1003, type="supergroup", title="Хроника", is_forum=True)
GENERAL = Campaign(FORUM.id)
MAGIC = Campaign(FORUM.id, 45)
DARK = Campaign(FORUM.id, 46)
NAMES = {MAGIC: "Маг", DARK: "Тёмные века"}


async def say_in(table: Table, where: Campaign, user: User, text: str) -> None:
    """``user`` types ``text`` in the forum: in General, or in a topic, as Telegram sends a
    topic's message (its thread, and the topic's creation as the message it replies to)."""
    table.message_id += 1
    command = text.split()[0] if text.startswith("/") else ""
    entities = [MessageEntity(type="bot_command", offset=0, length=len(command))]
    topic: dict[str, object] = {}
    if where.thread_id is not None:
        created = Message(
            message_id=where.thread_id,
            date=datetime.now(UTC),
            chat=FORUM,
            message_thread_id=where.thread_id,
            forum_topic_created=ForumTopicCreated(name=NAMES[where], icon_color=0x6FB9F0),
        )
        topic = {
            "message_thread_id": where.thread_id,
            "is_topic_message": True,
            "reply_to_message": created,
        }
    message = Message(
        message_id=table.message_id,
        date=datetime.now(UTC),
        chat=FORUM,
        from_user=user,
        text=text,
        entities=entities if command else None,
        **topic,  # type: ignore[arg-type]
    )
    await table.feed(message=message)


async def willpower(table: Table, where: Campaign) -> int | None:
    sheet = await table.store.load_sheet(where, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    return sheet.willpower_current


async def logged(table: Table, where: Campaign) -> list[dict[str, object]]:
    return await table.store.recent_rolls(where, 50)


async def a_forum_with_sheets_in_each_campaign(table: Table) -> None:
    """Anna's sheets in General (7 Willpower), «Маг» (5) and «Тёмные века» (6)."""
    table.chat = FORUM
    for where, points in ((GENERAL, 7), (MAGIC, 5), (DARK, 6)):
        await say_in(table, where, ANNA, f"/set ловк 3 драка 2 сила воли {points}/{points}")


async def test_an_inline_roll_goes_to_the_topic_last_rolled_in(table: Table) -> None:
    await a_forum_with_sheets_in_each_campaign(table)
    await say_in(table, GENERAL, ANNA, "/r 3")
    await say_in(table, DARK, ANNA, "/r 3")
    await say_in(table, MAGIC, ANNA, "/r 3")  # the last: «Маг»

    answer = await ask(table, ANNA, "ловк+драка 6 св")
    assert "кампания «Хроника › Маг»" in (answer.results[0].description or "")
    data = roll_data(answer)
    assert InlineRollCallback.unpack(data).home == "-1003t45"  # the offer is in «Маг»'s slot
    table.rng = Dealt(9, 9, 2, 2, 2)
    await press(table, ANNA, data)
    text = inline_edits(table)[0].text or ""
    assert "Сила Воли: осталось 4 из 5" in text  # «Маг»'s sheet
    assert "Кампания «Хроника › Маг»" in text
    assert [await willpower(table, where) for where in (GENERAL, MAGIC, DARK)] == [7, 4, 6]
    magic_log = await logged(table, MAGIC)
    assert len(magic_log) == 2
    assert magic_log[0]["willpower"] is True
    assert magic_log[0]["traits"] == "dexterity+brawl"
    assert len(await logged(table, GENERAL)) == 1  # the /r 3 each, and no more
    assert len(await logged(table, DARK)) == 1

    # «Маг»'s /stats counts the inline roll; General's does not.
    await say_in(table, MAGIC, ANNA, "/stats")
    assert "Статистика за всю игру: 2 броска" in table.session.sent[-1].text
    await say_in(table, GENERAL, ANNA, "/stats")
    assert "Статистика за всю игру: 1 бросок" in table.session.sent[-1].text


async def test_the_private_chat_lists_each_topic_and_switches_between_them(
    table: Table,
) -> None:
    await a_forum_with_sheets_in_each_campaign(table)
    await say_in(table, GENERAL, ANNA, "/r 3")
    await say_in(table, DARK, ANNA, "/r 3")
    await say_in(table, MAGIC, ANNA, "/r 3")

    table.chat = Chat(id=ANNA.id, type="private")
    await table.say(ANNA, "/inline")
    shown = table.session.sent[-1]
    assert "«Хроника › Маг»" in shown.text
    assert isinstance(shown.reply_markup, InlineKeyboardMarkup)
    buttons = [b for row in shown.reply_markup.inline_keyboard for b in row]
    assert [b.text for b in buttons] == ["Хроника", "[Хроника › Маг]", "Хроника › Тёмные века"]
    assert [b.callback_data for b in buttons] == ["inlc:-1003", "inlc:-1003t45", "inlc:-1003t46"]

    await table.tap(ANNA, CampaignCallback(campaign=DARK.button).pack(), 1)
    assert "«Хроника › Тёмные века»" in (last_answer(table).text or "")
    answer = await ask(table, ANNA, "ловк+драка 6 св")
    assert "кампания «Хроника › Тёмные века»" in (answer.results[0].description or "")
    table.rng = Dealt(9, 9, 2, 2, 2)
    await press(table, ANNA, roll_data(answer))
    assert [await willpower(table, where) for where in (GENERAL, MAGIC, DARK)] == [7, 5, 5]
    assert len(await logged(table, DARK)) == 2
    assert len(await logged(table, MAGIC)) == 1

    # An older picker's button carries the chat's id alone: the forum's own game.
    await table.tap(ANNA, CampaignCallback(campaign=str(FORUM.id)).pack(), 1)
    assert "«Хроника»" in (last_answer(table).text or "")
    answer = await ask(table, ANNA, "7 6")
    assert "кампания «Хроника»" in (answer.results[0].description or "")
    assert InlineRollCallback.unpack(roll_data(answer)).home == "-1003"


async def test_a_forged_or_foreign_campaign_button_changes_nothing(table: Table) -> None:
    await a_forum_with_sheets_in_each_campaign(table)
    await say_in(table, DARK, ANNA, "/r 3")
    await say_in(table, MAGIC, ANNA, "/r 3")
    table.chat = Chat(id=ANNA.id, type="private")
    before = await table.store.redis.hgetall(plays_key(ANNA.id))
    refusal = None
    for forged in ("-1003t47", "-1003t1", "-1003", "-999t45", "garbage", "-1003t", "t45"):
        await table.tap(ANNA, CampaignCallback(campaign=forged).pack(), 1)
        answer = last_answer(table)
        assert answer.show_alert, forged
        refusal = refusal or answer.text
        assert answer.text == refusal, forged  # the one localised answer
    assert await table.store.redis.hgetall(plays_key(ANNA.id)) == before
    answer = await ask(table, ANNA, "7 6")
    assert "кампания «Хроника › Маг»" in (answer.results[0].description or "")


async def test_a_press_naming_another_campaign_than_its_offer_rolls_nothing(
    table: Table,
) -> None:
    await a_forum_with_sheets_in_each_campaign(table)
    await say_in(table, MAGIC, ANNA, "/r 3")
    answer = await ask(table, ANNA, "7 6")
    offer = InlineRollCallback.unpack(roll_data(answer)).offer
    # Looked up in another campaign's slot, the offer is not there; a forged one is invalid.
    expired, invalid = "Этот бросок устарел: наберите его заново.", "Эта кнопка недействительна."
    for home, said in ((GENERAL.button, expired), (DARK.button, expired), ("-1003t1", invalid)):
        await press(table, ANNA, InlineRollCallback(offer=offer, home=home).pack())
        assert last_answer(table).text == said, home
    assert inline_edits(table) == []
    assert len(await logged(table, MAGIC)) == 1
    assert await logged(table, GENERAL) == []


async def test_what_the_release_before_topics_left_rolls_in_the_chats_own_game(
    table: Table,
) -> None:
    """That release's plays record (``c:CHAT``, ``last`` = CHAT), an offer it kept (no
    thread) and its button (the chat's id alone) all mean the forum's own game, General."""
    await a_forum_with_sheets_in_each_campaign(table)
    await table.store.redis.hset(
        plays_key(ANNA.id), mapping={f"c:{FORUM.id}": "Хроника", "last": str(FORUM.id)}
    )
    answer = await ask(table, ANNA, "ловк+драка 6 св")
    assert "кампания «Хроника»" in (answer.results[0].description or "")
    assert InlineRollCallback.unpack(roll_data(answer)).home == str(FORUM.id)

    old = '{"user_id": 501, "name": "Аня", "home": -1003, "campaign": "Хроника", "dice": 3}'
    await table.store.put_offers(FORUM.id, {"oldoffer0001": old})
    table.rng = Dealt(9, 5, 1)
    await press(table, ANNA, f"inl:oldoffer0001:{FORUM.id}")
    assert "Кампания «Хроника»" in (inline_edits(table)[0].text or "")
    assert len(await logged(table, GENERAL)) == 1
    assert await logged(table, MAGIC) == []

    table.chat = Chat(id=ANNA.id, type="private")
    await table.say(ANNA, "/inline")
    assert "«Хроника»" in table.session.sent[-1].text


async def test_a_topic_plays_its_own_game_inline(table: Table) -> None:
    """«Тёмные века» plays the d6 game while the forum's General plays Mage: an inline roll
    of a player who last rolled there is a chance of d6, in that topic's log."""
    table.chat = FORUM
    await table.store.update_chat(DARK, profile="d6")
    await say_in(table, DARK, ANNA, "/r 3")
    answer = await ask(table, ANNA, "4 2")
    assert "4к6" in answer.results[0].title
    table.rng = Dealt(6, 5, 2, 1)
    await press(table, ANNA, roll_data(answer))
    assert len(await logged(table, DARK)) == 2
    assert await logged(table, GENERAL) == []
