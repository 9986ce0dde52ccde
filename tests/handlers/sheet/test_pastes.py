"""Sheets as players paste them at a real table, through the Dispatcher: section headings,
several traits on a line, the names players bring, a paste under «no sheet yet» or under a
player's own /sheet, suggestions only when close, the player's own word said back; and the
Dark Ages blood pool."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from aiogram.types import Message, User

from rules.sheet import Ability, Attribute, Discipline, SheetSystem, Sphere, Stat
from table.store import Store
from tests.handlers.conftest import Table, player
from tests.handlers.sheet.test_sheet import (
    bot_message,
    player_message,
    say_reply,
    stored,
)
from tests.handlers.sheet.test_sheet import (
    table as table,  # the fixture: a table of the sheet feature and its neighbours
)

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
DA = SheetSystem.DARK_AGES


def sheet_command(table: Table, user: User) -> Message:
    """The player's own /sheet, as a reply carries it."""
    return Message(
        message_id=1, date=datetime.now(UTC), chat=table.chat, from_user=user, text="/sheet"
    )


PASTED = """Атрибуты
Физические: Сила 2, Ловкость 3, Выносливость 2
Социальные: Обаяние 3 · Манипулирование 2 · Внешность 2
Таланты: Бдительность 2, Драка 3
Навыки: Фехтование 1
Сферы: Первоосновы 2, Силы 1
Сила Воли 5/7"""


async def test_a_pasted_sheet_with_headings_writes_every_trait(table: Table) -> None:
    """The first trait after a heading («Таланты: Бдительность 2») is written like the rest,
    and a heading alone on its line is no error."""
    await table.say(ANNA, "/set\n" + PASTED)
    sheet = await stored(table, ANNA)
    assert sheet is not None
    assert sheet.rating(Attribute.STRENGTH) == 2
    assert sheet.rating(Attribute.CHARISMA) == 3
    assert sheet.rating(Ability.ALERTNESS) == 2
    assert sheet.rating(Ability.BRAWL) == 3
    assert sheet.rating(Ability.MELEE) == 1
    assert sheet.rating(Sphere.PRIME) == 2
    assert sheet.rating(Sphere.FORCES) == 1
    assert (sheet.willpower_current, sheet.willpower) == (5, 7)
    answer = table.session.sent[-1].text
    assert "Пропущено" not in answer
    assert "Первоосновы 2" in answer


async def test_a_labelled_block_in_reply_to_a_players_own_sheet_command(table: Table) -> None:
    """A player sends /sheet, then the block in reply to it: both traits are written."""
    await table.say(ANNA, "/sheet")
    await say_reply(table, ANNA, "Таланты: Бдительность 2, Драка 3", sheet_command(table, ANNA))
    sheet = await stored(table, ANNA)
    assert sheet is not None
    assert (sheet.rating(Ability.ALERTNESS), sheet.rating(Ability.BRAWL)) == (2, 3)
    assert table.session.sent[-1].text == "✅ Anna — лист: Бдительность 2 · Драка 3"


async def test_a_labelled_block_in_reply_to_the_bots_sheet(table: Table) -> None:
    await table.say(ANNA, "/set ловкость 3")
    await table.say(ANNA, "/sheet")
    shown = table.session.sent[-1].text
    await say_reply(table, ANNA, "Таланты: Бдительность 2, Драка 3", bot_message(table, shown))
    sheet = await stored(table, ANNA)
    assert sheet is not None
    assert (sheet.rating(Ability.ALERTNESS), sheet.rating(Ability.BRAWL)) == (2, 3)


async def test_the_storyteller_writes_a_players_sheet_under_their_sheet_command(
    table: Table,
) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/st")
    await say_reply(table, ANNA, "Таланты: Бдительность 2, Драка 3", sheet_command(table, BORIS))
    assert await stored(table, ANNA) is None
    sheet = await stored(table, BORIS)
    assert sheet is not None
    assert sheet.rating(Ability.BRAWL) == 3
    # A player's paste under someone else's /sheet writes the player's own sheet, and table
    # talk under a /sheet gets no answer.
    sent = len(table.session.sent)
    await say_reply(table, BORIS, "ну ты силён", sheet_command(table, ANNA))
    assert len(table.session.sent) == sent
    await say_reply(table, BORIS, "Драка 1", sheet_command(table, ANNA))
    boris = await stored(table, BORIS)
    assert boris is not None
    assert boris.rating(Ability.BRAWL) == 1


async def test_a_paste_in_reply_to_no_sheet_yet_writes_the_sheet(table: Table) -> None:
    await table.say(ANNA, "/r ловк+драка 6")
    refusal = table.session.sent[-1].text
    assert refusal.startswith("📜 Anna: в этом чате пока нет листа персонажа.")
    assert "ответьте на это сообщение" in refusal
    await say_reply(table, ANNA, "Ловкость 3\nДрака 2", bot_message(table, refusal))
    assert table.session.sent[-1].text == "✅ Anna — лист: Ловкость 3 · Драка 2"
    await table.say(ANNA, "/sheet")
    empty = table.session.sent[-1].text
    assert empty.startswith("📜")


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        # Four letters from «Скрытность»: no suggestion at all.
        ("Сущность 2", "«Сущность 2»: нет такой черты."),
        # Two letters off: the suggestion is the trait meant (one letter off is written,
        # tests/handlers/sheet/test_sheet.py).
        ("Бдтельнсоть 2", "«Бдтельнсоть 2»: нет такой черты; может быть, Бдительность?"),
    ],
)
async def test_suggestions_only_when_close(table: Table, typed: str, says: str) -> None:
    await table.say(ANNA, f"/set ловкость 3\n{typed}")
    assert says in table.session.sent[-1].text


async def test_the_players_word_is_said_back(table: Table) -> None:
    await table.store.update_chat(table.chat.id, profile="dark-ages")
    await table.say(ANNA, "/set могущество 2 ловк 3")
    # Their word for Potence, and the full name for a prefix.
    assert table.session.sent[-1].text == "✅ Anna — лист: Могущество 2 · Ловкость 3"
    sheet = await stored(table, ANNA, DA)
    assert sheet is not None
    assert sheet.rating(Discipline.POTENCE) == 2
    # A roll by their word says it back too; the sheet keeps the book's.
    await table.say(ANNA, "/r ловк+могущество 6")
    assert "Ловкость 3 + Могущество 2 → 5к10" in table.session.sent[-1].text
    await table.say(ANNA, "/sheet")
    assert "Мощь 2" in table.session.sent[-1].text


async def test_the_d6_weakness_line_with_its_name(table: Table) -> None:
    await table.store.update_chat(table.chat.id, profile="d6")
    await table.say(ANNA, "/set\nСилы:\nОгонь 2, Полёт 1\nСлабость: Жадность 2\nУдача 1")
    sheet = await stored(table, ANNA, SheetSystem.D6)
    assert sheet is not None
    assert (sheet.weakness, sheet.weakness_name, sheet.luck) == (2, "Жадность", 1)
    assert [(p.name, p.level) for p in sheet.powers] == [("Огонь", 2), ("Полёт", 1)]
    assert "Слабость: Жадность 2" in table.session.sent[-1].text
    await table.say(ANNA, "/sheet")
    assert "<b>Слабость</b>: Жадность 2" in table.session.sent[-1].text
    await table.say(ANNA, "/sheet export")
    assert "Слабость: Жадность 2" in table.session.sent[-1].text


# ---------------------------------------------------------------------------------------------
# The blood pool


async def _vampire(table: Table, user: User, blood: int) -> None:
    await table.store.update_chat(table.chat.id, profile="dark-ages")
    await table.say(user, f"/set кровь {blood}")


async def test_blood_is_spent_and_never_more_than_held(table: Table) -> None:
    await _vampire(table, ANNA, 5)
    await table.say(ANNA, "/blood 2")
    assert table.session.sent[-1].text == "🩸 Anna тратит 2 пункта крови · в запасе осталось 3"
    await table.say(ANNA, "/blood 4")
    assert table.session.sent[-1].text == (
        "Anna: в запасе крови только 3 — на трату 4 не хватает. Ничего не потрачено."
    )
    sheet = await stored(table, ANNA, DA)
    assert sheet is not None
    assert sheet.blood == 3
    await table.say(ANNA, "/blood +2")
    assert table.session.sent[-1].text == "🩸 Anna выпивает 2 пункта крови · теперь в запасе 5"
    await table.say(ANNA, "/blood")
    assert table.session.sent[-1].text == "🩸 Anna: запас крови 5"


@pytest.mark.parametrize("args", ["0", "-1", "много", "2 3", "999"])
async def test_bad_blood_changes_nothing(table: Table, args: str) -> None:
    await _vampire(table, ANNA, 5)
    await table.say(ANNA, f"/blood {args}")
    assert table.session.sent[-1].text.startswith("/blood 2 — потратить")
    sheet = await stored(table, ANNA, DA)
    assert sheet is not None
    assert sheet.blood == 5


async def test_blood_without_a_pool_or_in_another_game(table: Table, fake_store: Store) -> None:
    await table.say(ANNA, "/blood 1")
    assert table.session.sent[-1].text == "Запас крови есть только у вампира Тёмных веков."
    await table.store.update_chat(table.chat.id, profile="dark-ages")
    await table.say(BORIS, "/blood 1")
    assert table.session.sent[-1].text.startswith("Boris: в листе пока нет запаса крови")
    assert await stored(table, BORIS, DA) is None


async def test_the_storyteller_spends_a_players_blood_by_reply(table: Table) -> None:
    await _vampire(table, BORIS, 6)
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/st")
    await say_reply(table, ANNA, "/blood 1", player_message(table, BORIS))
    sheet = await stored(table, BORIS, DA)
    assert sheet is not None
    assert sheet.blood == 5
    assert sheet.rating(Stat.BLOOD) == 5


async def test_a_paste_as_people_write_it_names_every_line_skipped(table: Table) -> None:
    """Dashes after the headings, «Сила-2», dots, a Latin «c»; and past the first ten lines
    skipped with their reason, every other one is named as it was typed."""
    wrong = ", ".join(f"Чтотоеще{n} 1" for n in range(12))
    pasted = f"Физические — Сила-2; Ловкость ●●●○○\nТаланты... Драка 3, Убеждение 2\n{wrong}"
    await say_reply(table, ANNA, pasted, sheet_command(table, ANNA))
    sheet = await stored(table, ANNA)
    assert sheet is not None
    assert (sheet.rating(Attribute.STRENGTH), sheet.rating(Attribute.DEXTERITY)) == (2, 3)
    assert sheet.rating(Ability.BRAWL) == 3
    answer = table.session.sent[-1].text
    assert "Убеждение 2" in answer  # a Talent's line: not the Virtue «Убеждённость»
    assert "(+" not in answer
    assert all(f"Чтотоеще{n} 1" in answer for n in range(12))
