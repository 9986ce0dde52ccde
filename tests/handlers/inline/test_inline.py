"""Inline mode through the Dispatcher: the offer holds no dice, the sender's press rolls once."""

from __future__ import annotations

import re

from aiogram.methods import AnswerCallbackQuery, AnswerInlineQuery, EditMessageText
from aiogram.types import CallbackQuery, Chat, InlineKeyboardMarkup, InlineQuery, User
from redis.exceptions import ConnectionError as RedisConnectionError

from handlers.inline.callbacks import CampaignCallback
from handlers.inline.router import CACHE_SECONDS
from rules.sheet import SheetSystem
from tests.handlers.conftest import Table, player
from tests.handlers.dealt import Dealt, Strict

ANNA = player(501, "Аня")
BORIS = player(502, "Борис")
FACES = re.compile(r"^(?:(?:<b>|<s>)?\d{1,2}(?:</b>|</s>)? ?)+$", re.MULTILINE)


async def ask(table: Table, user: User, text: str) -> AnswerInlineQuery:
    before = len(table.session.of(AnswerInlineQuery))
    await table.feed(
        inline_query=InlineQuery(id=f"iq{table.update_id}", from_user=user, query=text, offset="")
    )
    answers = table.session.of(AnswerInlineQuery)
    assert len(answers) == before + 1
    answer: AnswerInlineQuery = answers[-1]
    return answer


async def press(table: Table, user: User, data: str, inline_id: str = "im-1") -> None:
    await table.feed(
        callback_query=CallbackQuery(
            id=f"cb{table.update_id}",
            from_user=user,
            chat_instance="ci",
            inline_message_id=inline_id,
            data=data,
        )
    )


def roll_data(answer: AnswerInlineQuery, index: int = 0) -> str:
    markup = answer.results[index].reply_markup
    assert isinstance(markup, InlineKeyboardMarkup)
    button = markup.inline_keyboard[0][0]
    assert button.text == "🎲 Бросить"
    assert button.callback_data is not None
    return button.callback_data


def last_answer(table: Table) -> AnswerCallbackQuery:
    answer: AnswerCallbackQuery = table.session.answers[-1]
    return answer


def inline_edits(table: Table) -> list[EditMessageText]:
    return [e for e in table.session.of(EditMessageText) if e.inline_message_id]


def faces_line(text: str) -> list[str]:
    found = FACES.findall(text)
    assert found, text
    return re.sub(r"</?[bs]>", "", found[0]).split()


async def log(table: Table, chat_id: int) -> list[dict[str, object]]:
    return await table.store.recent_rolls(chat_id, 50)


async def test_the_query_offers_the_roll_with_its_odds_and_no_dice(table: Table) -> None:
    table.rng = Strict([])  # type: ignore[assignment]  # a die drawn here fails the test
    answer = await ask(table, ANNA, "7 6")
    assert answer.is_personal is True
    assert answer.cache_time == CACHE_SECONDS <= 10
    first = answer.results[0]
    content = first.input_message_content
    assert "7к10, сложность 6" in content.message_text  # type: ignore[union-attr]
    assert not FACES.findall(content.message_text)  # type: ignore[union-attr]
    assert "Успех" in (first.description or "")
    assert "%" in (first.description or "")
    roll_data(answer)
    assert "Сила Воли" in answer.results[1].title  # the same roll with Willpower
    assert await log(table, ANNA.id) == []


async def test_the_senders_press_rolls_once_and_edits_the_inline_message(table: Table) -> None:
    answer = await ask(table, ANNA, "7 6")
    table.rng = Dealt(10, 8, 7, 6, 5, 3, 1)
    await press(table, ANNA, roll_data(answer))
    edits = inline_edits(table)
    assert len(edits) == 1
    assert edits[0].inline_message_id == "im-1"
    assert faces_line(edits[0].text or "") == ["10", "8", "7", "6", "5", "3", "1"]
    assert edits[0].reply_markup is None
    assert len(await log(table, ANNA.id)) == 1

    table.rng = Strict([])  # type: ignore[assignment]
    await press(table, ANNA, roll_data(answer))  # a double press: the same result, no dice
    assert len(await log(table, ANNA.id)) == 1
    assert last_answer(table).text == "Эти кубики уже брошены."
    assert all(e.text == edits[0].text for e in inline_edits(table))


async def test_a_foreign_press_is_refused_with_a_toast(table: Table) -> None:
    answer = await ask(table, ANNA, "7 6")
    table.rng = Strict([])  # type: ignore[assignment]
    await press(table, BORIS, roll_data(answer))
    assert inline_edits(table) == []
    assert last_answer(table).text == "Бросить эти кубики может только Аня."
    assert not last_answer(table).show_alert
    assert await log(table, ANNA.id) == []


async def test_a_stale_or_forged_button_rolls_nothing(table: Table) -> None:
    table.rng = Strict([])  # type: ignore[assignment]
    await press(table, ANNA, f"inl:AAAAAAAAAAAA:{ANNA.id}")
    await press(table, ANNA, "inl:garbage")
    assert inline_edits(table) == []
    assert len(table.session.answers) == 2


async def test_a_bad_query_answers_a_hint_and_an_empty_one_the_help(table: Table) -> None:
    answer = await ask(table, ANNA, "семь шесть")
    assert len(answer.results) == 1
    assert answer.results[0].reply_markup is None
    assert answer.results[0].title == "Это ещё не бросок"
    answer = await ask(table, ANNA, "")
    assert answer.results[0].id == "help"
    assert "@dice_bot 7 6" in answer.results[0].input_message_content.message_text  # type: ignore[union-attr]


async def test_a_sheet_pool_spends_willpower_once_in_the_last_campaign(table: Table) -> None:
    await table.say(ANNA, "/set ловк 3 драка 2 сила воли 5/5")
    await table.say(ANNA, "/r 999")  # refused: no roll, so no campaign yet
    answer = await ask(table, ANNA, "ловк+драка 6 св")
    assert answer.results[0].reply_markup is None  # no sheet outside a campaign
    await table.say(ANNA, "/r 3")  # a roll in the group links it
    answer = await ask(table, ANNA, "ловк+драка 6 св")
    assert "Chronicle" in (answer.results[0].description or "")
    table.rng = Dealt(9, 9, 2, 2, 2)
    await press(table, ANNA, roll_data(answer))
    text = inline_edits(table)[0].text or ""
    assert "Ловкость 3 + Драка 2" in text
    assert "Сила Воли: осталось 4 из 5" in text
    sheet = await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.willpower_current == 4
    entries = await log(table, table.chat.id)
    assert entries[0]["willpower"] is True
    assert entries[0]["traits"] == "dexterity+brawl"
    assert len(entries) == 2

    await press(table, ANNA, roll_data(answer), inline_id="im-2")  # a copy of the same offer
    sheet = await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.willpower_current == 4
    assert len(await log(table, table.chat.id)) == 2

    answer = await ask(table, ANNA, "")  # the recent pool comes back as one tap
    assert any("Ловкость 3 + Драка 2" in (r.description or "") for r in answer.results)


async def test_a_d6_campaign_offers_the_chance(table: Table) -> None:
    await table.store.update_chat(table.chat.id, profile="d6")
    await table.say(ANNA, "/r 3")
    answer = await ask(table, ANNA, "4 2")
    assert "4к6" in answer.results[0].title
    assert "2" in answer.results[0].title
    table.rng = Dealt(6, 5, 2, 1)
    await press(table, ANNA, roll_data(answer))
    assert faces_line(inline_edits(table)[0].text or "") == ["6", "5", "2", "1"]
    assert len(await log(table, table.chat.id)) == 2
    hint = (await ask(table, ANNA, "12345")).results[0]
    assert hint.reply_markup is None
    assert "шанс" in (hint.description or "")  # the d6 game's words
    hint = (await ask(table, ANNA, "4 разгон")).results[0]
    assert hint.reply_markup is None  # a trick waits for the game's chat


async def test_the_private_chat_chooses_the_campaign_of_inline_rolls(table: Table) -> None:
    await table.say(ANNA, "/r 3")  # in «Chronicle»
    chronicle = table.chat
    table.chat = Chat(id=-1002, type="supergroup", title="Side game")
    await table.say(ANNA, "/r 3")
    answer = await ask(table, ANNA, "7 6")
    assert "Side game" in (answer.results[0].description or "")

    table.chat = Chat(id=ANNA.id, type="private")
    await table.say(ANNA, "/inline")
    shown = table.session.sent[-1]
    assert "«Side game»" in shown.text
    assert isinstance(shown.reply_markup, InlineKeyboardMarkup)
    labels = [b.text for row in shown.reply_markup.inline_keyboard for b in row]
    assert labels == ["Chronicle", "[Side game]"]

    await table.tap(ANNA, CampaignCallback(campaign="-999").pack(), 1)  # not one of hers
    assert last_answer(table).show_alert
    await table.tap(ANNA, CampaignCallback(campaign=str(chronicle.id)).pack(), 1)
    assert "«Chronicle»" in (last_answer(table).text or "")
    answer = await ask(table, ANNA, "7 6")
    assert "Chronicle" in (answer.results[0].description or "")

    table.chat = chronicle  # in a group, /inline says how, and chooses nothing
    await table.say(ANNA, "/inline")
    assert "@dice_bot 7 6" in table.session.sent[-1].text


async def test_a_query_the_bot_cannot_serve_is_answered_with_a_hint(table: Table) -> None:
    async def away(_user_id: int) -> None:
        raise RedisConnectionError("down")

    table.store.plays = away  # type: ignore[assignment, method-assign]
    answer = await ask(table, ANNA, "7 6")
    (hint,) = answer.results
    assert hint.id == "error"
    assert hint.reply_markup is None
    assert "недоступно" in hint.title
