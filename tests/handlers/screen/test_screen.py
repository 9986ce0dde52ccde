"""``/screen``: the Storyteller's screen in the private chat, its buttons on the runner's road,
and the players told privately of what it changed."""

from __future__ import annotations

import random

import pytest
from aiogram.methods import SendMessage
from aiogram.types import Chat, InlineKeyboardMarkup
from aiogram.utils.i18n import I18n

from bot.app import create_dispatcher, make_bot
from bot.settings import Settings
from rules.health import DamageType
from rules.sheet import SheetSystem
from table.store import Store
from table.store.base import flow_key
from table.store.sessions import load_events
from tests.handlers.conftest import GROUP, TOKEN, Table, buttons, player
from tests.handlers.hidden.test_hidden import PrivacySession

ST = player(9, "Mira")
ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
PRIVATE = Chat(id=ST.id, type="private", first_name="Mira")


@pytest.fixture
def table(fake_store: Store, i18n: I18n) -> Table:
    session = PrivacySession()
    bot = make_bot(TOKEN, session)
    dispatcher = create_dispatcher(Settings(_env_file=None), fake_store, i18n)
    return Table(dispatcher, bot, session, fake_store, i18n, rng=random.Random(5))


def privacy(table: Table) -> PrivacySession:
    assert isinstance(table.session, PrivacySession)
    return table.session


async def campaign(table: Table) -> None:
    table.session.admins.add(ST.id)
    await table.say(ST, "/st")
    privacy(table).open_private.update({ST.id, ANNA.id})
    await table.say(ANNA, "/set выносливость 2 сила воли 5 восприятие 3 бдительность 2")
    await table.say(BORIS, "/set сила воли 3")
    table.chat = PRIVATE


def last_markup(table: Table) -> InlineKeyboardMarkup:
    for call in reversed(table.session.calls):
        markup = getattr(call, "reply_markup", None)
        if isinstance(markup, InlineKeyboardMarkup) and any(
            b.callback_data and b.callback_data.startswith("scr:") for b in buttons(markup)
        ):
            return markup
    raise AssertionError("no screen drawn")


async def press(table: Table, screen_id: int, label: str) -> None:
    found = [b for b in buttons(last_markup(table)) if label in b.text]
    assert found, [b.text for b in buttons(last_markup(table))]
    assert found[0].callback_data is not None
    await table.tap(ST, found[0].callback_data, screen_id)


async def open_screen(table: Table) -> tuple[int, str]:
    await table.say(ST, "/screen")
    sent = table.session.sent[-1]
    assert sent.chat_id == ST.id
    return table.session.messages[-1].message_id, sent.text


async def test_the_screen_lists_every_player_character(table: Table) -> None:
    await campaign(table)
    _screen, text = await open_screen(table)
    assert "Chronicle" in text
    assert "Anna" in text
    assert "Boris" in text
    assert "5/5" in text  # Anna's Willpower


async def test_damage_lands_on_the_sheet_and_the_player_is_told(table: Table) -> None:
    await campaign(table)
    screen, _text = await open_screen(table)
    await press(table, screen, "Anna")
    await press(table, screen, "+летальн")
    sheet = await table.store.load_sheet(GROUP.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.health.boxes == (DamageType.LETHAL,)
    told = [c for c in table.session.sent if c.chat_id == ANNA.id]
    assert len(told) == 1
    assert "Chronicle" in told[0].text
    # the screen is redrawn with the wound
    assert "−1" in table.session.edits[-1].text or "[X]" in table.session.edits[-1].text
    await press(table, screen, "−1")  # a Willpower point spent on Anna's behalf
    sheet = await table.store.load_sheet(GROUP.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.willpower_current == 4
    assert len([c for c in table.session.sent if c.chat_id == ANNA.id]) == 2


async def test_a_player_the_bot_cannot_write_to_is_told_once_in_the_group(table: Table) -> None:
    await campaign(table)
    screen, _text = await open_screen(table)
    await press(table, screen, "Boris")
    await press(table, screen, "+ударн")
    await press(table, screen, "+ударн")
    in_group = [c for c in table.session.sent if c.chat_id == GROUP.id and "t.me/" in c.text]
    assert len(in_group) == 1
    assert "t.me/" in in_group[0].text
    sheet = await table.store.load_sheet(GROUP.id, BORIS.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.health.boxes == (DamageType.BASHING, DamageType.BASHING)


async def test_notify_off_stops_the_notices(table: Table) -> None:
    await campaign(table)
    table.chat = GROUP
    await table.say(ANNA, "/notify off")
    table.chat = PRIVATE
    screen, _text = await open_screen(table)
    await press(table, screen, "Anna")
    await press(table, screen, "Лечить")  # nothing to heal is still a heal of nothing
    await press(table, screen, "+ударн")
    assert not [c for c in table.session.sent if c.chat_id == ANNA.id]


async def test_a_secret_roll_from_the_screen_posts_its_commitment(table: Table) -> None:
    await campaign(table)
    screen, _text = await open_screen(table)
    await press(table, screen, "Anna")
    await press(table, screen, "Тайный")
    await press(table, screen, "Восприятие+Бдительность")
    before = len(table.session.sent)
    await press(table, screen, "7")
    new = table.session.sent[before:]
    private = [c for c in new if c.chat_id == ST.id]
    group = [c for c in new if c.chat_id == GROUP.id]
    assert len(private) == 1
    assert len(group) == 1
    assert "SHA-256" in group[0].text or len(group[0].text) > 0
    assert "Anna" in private[0].text


async def test_someone_else_cannot_press_the_screen(table: Table) -> None:
    await campaign(table)
    screen, _text = await open_screen(table)
    data = next(b.callback_data for b in buttons(last_markup(table)) if "Anna" in b.text)
    assert data is not None
    edits = len(table.session.edits)
    await table.tap(BORIS, data, screen)
    assert len(table.session.edits) == edits
    assert table.session.answers[-1].show_alert


async def test_the_screen_only_in_private(table: Table) -> None:
    await campaign(table)
    table.chat = GROUP
    await table.say(ST, "/screen")
    assert isinstance(table.session.sent[-1], SendMessage)
    assert table.session.sent[-1].chat_id == GROUP.id


async def test_the_storytellers_dmg_heal_and_set_in_the_group_are_told(table: Table) -> None:
    await campaign(table)
    table.chat = GROUP
    await table.say(ST, "/dmg 2 л", reply_to=ANNA)
    await table.say(ST, "/heal", reply_to=ANNA)
    await table.say(ST, "/set сила воли 6", reply_to=ANNA)
    told = [c.text for c in table.session.sent if c.chat_id == ANNA.id]
    assert len(told) == 3
    assert all("Chronicle" in text for text in told)
    sheet = await table.store.load_sheet(GROUP.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.willpower == 6
    # a player's own change is news to nobody
    await table.say(ANNA, "/dmg 1 у")
    assert len([c for c in table.session.sent if c.chat_id == ANNA.id]) == 3


async def test_the_screens_changes_go_into_the_sessions_chronicle(table: Table) -> None:
    await campaign(table)
    table.chat = GROUP
    await table.say(ST, "/session start")
    table.chat = PRIVATE
    screen, _text = await open_screen(table)
    await press(table, screen, "Anna")
    await press(table, screen, "+тяжёл")
    table.chat = GROUP
    await table.say(ST, "/dmg 1 у", reply_to=ANNA)
    events = await load_events(table.store.redis, GROUP.id, 1)
    assert [e["who"] for e in events] == ["Anna", "Anna"]
    assert "тяжёл" in events[0]["what"]


async def test_the_screen_shows_the_fights_npcs_and_round(table: Table) -> None:
    await campaign(table)
    table.chat = GROUP
    await table.say(ST, "/npc Страж: ловкость 3 смекалка 2 выносливость 2")
    await table.say(ANNA, "/init 7")
    await table.say(ST, "/init npc Страж 5")
    table.chat = PRIVATE
    _screen, text = await open_screen(table)
    assert "Страж" in text
    assert "раунд 1" in text
    names = [b.text for b in buttons(last_markup(table))]
    assert "👹 Страж" in names
    assert "👤 Anna" in names


async def test_a_secret_roll_from_the_screen_belongs_to_the_running_session(table: Table) -> None:
    await campaign(table)
    table.chat = GROUP
    await table.say(ST, "/session start")
    table.chat = PRIVATE
    screen, _text = await open_screen(table)
    await press(table, screen, "Anna")
    await press(table, screen, "Тайный")
    await press(table, screen, "Восприятие+Бдительность")
    await press(table, screen, "6")
    marker = (await table.store.recent_rolls(GROUP.id))[0]
    assert marker["hidden"] is True
    assert marker["ses"] == 1


async def test_a_copy_without_a_sheet_of_its_own_gets_one_from_the_screen(table: Table) -> None:
    """«Гуль 1», «Гуль 2» joined the fight before the group had a sheet: the screen's first
    change writes the copy's own — the group's traits when the group has a sheet by now, a
    blank one when it has none — with the change on it, as the fight's first wound does."""
    await campaign(table)
    table.chat = GROUP
    await table.say(ANNA, "/init 7")
    await table.say(ST, "/init npc Гуль x2 5")
    assert await table.store.load_npc(GROUP.id, SheetSystem.MAGE, "Гуль 1") is None
    await table.say(ST, "/npc Гуль: ловкость 3 сила воли 4")
    table.chat = PRIVATE
    screen, _text = await open_screen(table)
    await press(table, screen, "Гуль 1")
    await press(table, screen, "+летальн")
    first = await table.store.load_npc(GROUP.id, SheetSystem.MAGE, "Гуль 1")
    assert first is not None
    assert first.health.boxes == (DamageType.LETHAL,)
    assert first.traits.get("dexterity") == 3  # the group's traits, health of its own
    group = await table.store.load_npc(GROUP.id, SheetSystem.MAGE, "Гуль")
    assert group is not None
    assert group.health.boxes == ()
    await press(table, screen, "−1")  # its Willpower, which the copy now has
    first = await table.store.load_npc(GROUP.id, SheetSystem.MAGE, "Гуль 1")
    assert first is not None
    assert first.willpower_current == 3
    assert "Гуль 1" in table.session.edits[-1].text


async def test_a_copy_of_a_group_without_any_sheet_starts_a_blank_one(table: Table) -> None:
    await campaign(table)
    table.chat = GROUP
    await table.say(ANNA, "/init 7")
    await table.say(ST, "/init npc Упырь x2 5")
    table.chat = PRIVATE
    screen, _text = await open_screen(table)
    await press(table, screen, "Упырь 2")
    await press(table, screen, "+ударн")
    second = await table.store.load_npc(GROUP.id, SheetSystem.MAGE, "Упырь 2")
    assert second is not None
    assert second.health.boxes == (DamageType.BASHING,)
    assert await table.store.load_npc(GROUP.id, SheetSystem.MAGE, "Упырь 1") is None


async def test_a_roll_asked_from_the_screen_is_the_players_alone_and_shows_on_it(
    table: Table,
) -> None:
    """The Storyteller asks Anna for Perception+Alertness at 6 from the screen: the group gets
    the request naming her, only her press rolls it (once), the result lands in the group's
    message and the screen shows it."""
    await campaign(table)
    screen, _text = await open_screen(table)
    await press(table, screen, "Anna")
    await press(table, screen, "Запросить бросок")
    await press(table, screen, "Восприятие+Бдительность")
    before = len(table.session.sent)
    await press(table, screen, "6")
    [asked] = [c for c in table.session.sent[before:] if c.chat_id == GROUP.id]
    assert "Anna" in asked.text
    assert "tg://user?id=1" in asked.text
    assert "сложность 6" in asked.text
    assert "ждём броска" in table.session.edits[-1].text  # the screen keeps the request
    request = next(
        m for m in table.session.messages if m.chat.id == GROUP.id and m.text == asked.text
    )
    [roll] = [b for b in buttons(asked.reply_markup) if "Бросить" in b.text]
    assert roll.callback_data is not None
    table.chat = GROUP
    await table.tap(BORIS, roll.callback_data, request.message_id)
    assert table.session.answers[-1].show_alert  # asked of Anna, not of Boris
    await table.tap(ANNA, roll.callback_data, request.message_id)
    answered = [e for e in table.session.edits if e.message_id == request.message_id][-1]
    assert "• Anna: 5к10" in answered.text
    assert answered.reply_markup is None  # the one player asked has rolled
    logged = (await table.store.recent_rolls(GROUP.id))[0]
    assert logged["kind"] == "request"
    shown = screen_edits(table, screen)[-1]  # redrawn by itself once Anna rolled
    assert "📣 Anna: Восприятие+Бдительность, сложность 6:" in shown
    assert "ждём" not in shown


def screen_edits(table: Table, screen: int) -> list[str]:
    return [e.text for e in table.session.edits if e.message_id == screen]


async def test_the_groups_dmg_redraws_the_open_screen_once(table: Table) -> None:
    """The Storyteller's /dmg in the group edits the open screen in place, once; talk and a
    change the screen does not show edit nothing."""
    await campaign(table)
    screen, text = await open_screen(table)
    assert "💚" in text or "unhurt" in text or "невредим" in text.casefold()
    table.chat = GROUP
    await table.say(ANNA, "просто разговор")
    await table.say(ANNA, "/r 3 6")  # a roll that spends nothing: the screen stays as it is
    assert screen_edits(table, screen) == []
    await table.say(ST, "/dmg Anna 1 л")
    [edited] = screen_edits(table, screen)
    assert "Anna" in edited
    assert "[X]" in edited or "−1" in edited or "Задет" in edited
    sheet = await table.store.load_sheet(GROUP.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.health.boxes == (DamageType.LETHAL,)
    # the screen's buttons still work on the redrawn message
    table.chat = PRIVATE
    await press(table, screen, "Anna")
    assert len(screen_edits(table, screen)) == 2


async def test_an_expired_screen_is_forgotten_by_its_campaign(table: Table) -> None:
    await campaign(table)
    await open_screen(table)
    settings = await table.store.load_chat(GROUP.id)
    assert settings.screen is not None
    chat, flow_id, _message = settings.screen.split(":")
    await table.store.redis.delete(flow_key(int(chat), flow_id))
    table.chat = GROUP
    await table.say(ST, "/dmg Anna 1 л")
    assert (await table.store.load_chat(GROUP.id)).screen is None
