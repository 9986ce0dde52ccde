"""setMyCommands: English for everyone, Russian for Russian clients; a chat playing another
game than the default gets that game's menu in its own scope."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from aiogram import Bot, Router
from aiogram.exceptions import TelegramBadRequest, TelegramRetryAfter
from aiogram.methods import DeleteMyCommands, SetMyCommands, TelegramMethod
from aiogram.types import BotCommandScopeChat, Chat
from aiogram.utils.i18n import I18n
from redis.exceptions import ConnectionError as RedisConnectionError

from bot.app import make_bot
from bot.commands import MENU_FLOOD_WAIT, MenuUpkeep, set_commands, set_game_commands
from bot.features import Feature, FeatureSet, MenuCommand
from bot.session import RetryMiddleware
from handlers import all_features
from rules import profiles
from rules.profiles import GameSystem
from rules.sheet import Attribute, SheetSystem
from tests.handlers.conftest import TOKEN, RecordingSession, Table, player

D10_ONLY = {"ext", "team", "multi", "blood", "m", "sphere", "barrier"}
MAGICK = {"m", "sphere", "barrier"}  # a Mage's sheet only: not in a Dark Ages chat's menu


async def test_command_menus_per_language(i18n: I18n) -> None:
    session = RecordingSession()
    await set_commands(make_bot(TOKEN, session), i18n, all_features())
    default, russian = session.of(SetMyCommands)
    assert default.language_code is None
    assert russian.language_code == "ru"
    assert [c.command for c in default.commands] == [
        "r",
        "prob",
        "ext",
        "vs",
        "team",
        "multi",
        "project",
        "set",
        "sheet",
        "blood",
        "init",
        "atk",
        "dmg",
        "hp",
        "m",
        "sphere",
        "barrier",
        "ask",
        "rules",
        "lang",
        "st",
        "screen",
        "h",
        "reveal",
        "log",
        "stats",
        "session",
        "chronicle",
        "notify",
        "inline",
        "help",
    ]
    assert [c.command for c in russian.commands] == [c.command for c in default.commands]
    assert default.commands[0].description == "Roll dice: /r 7 6"
    assert russian.commands[0].description == "Бросок кубиков: /r 7 6"
    assert all(1 <= len(c.description) <= 256 for c in default.commands + russian.commands)


async def test_a_command_typed_as_on_a_phone_runs_as_meant(table: Table) -> None:
    await table.say(player(1, "Аня"), "/к 7 6")  # the Russian layout: said, then rolled
    answer = table.session.sent[-1].text
    assert answer.startswith("<i>Поняли как</i> <code>/r 7 6</code>\n🎲 Аня: 7к10, сложность 6")
    await table.say(player(1, "Аня"), "/R 6 7")  # any case: not worth a word
    assert table.session.sent[-1].text.startswith("🎲 Аня: 6к10, сложность 7")
    await table.say(player(1, "Аня"), "/r6 7 cв")  # glued, and a Latin «c» in «св»
    assert table.session.sent[-1].text.startswith("🎲 Аня: 6к10, сложность 7")
    assert "Сила Воли" in table.session.sent[-1].text or "св" in table.session.sent[-1].text
    await table.say(player(1, "Аня"), "/Rules")
    assert "Поняли" not in table.session.sent[-1].text
    assert "🎲" not in table.session.sent[-1].text
    sent = len(table.session.sent)
    await table.say(player(1, "Аня"), "/kick@other_bot")
    await table.say(player(1, "Аня"), "/weather")
    assert len(table.session.sent) == sent  # another bot's business: silence


def test_each_game_menu_lists_its_own_commands_in_its_words(i18n: I18n) -> None:
    features = all_features()
    every = [c.command for c in features.menu(i18n, "en")]
    d6 = {c.command: c.description for c in features.menu(i18n, "ru", profiles.D6)}
    mage = [c.command for c in features.menu(i18n, "ru", profiles.MAGE_REVISED)]
    dark_ages = [c.command for c in features.menu(i18n, "ru", profiles.DARK_AGES)]
    assert set(d6) == set(every) - D10_ONLY
    assert mage == [name for name in every if name not in {"project", "blood"}]
    assert dark_ages == [name for name in every if name not in {"project", *MAGICK}]
    assert list(d6) == [name for name in every if name in d6]  # the same order
    assert d6["r"] == "Бросок кубиков: /r 4"
    assert d6["h"] == "Тайный бросок (сценарист): /h 4"
    assert d6["st"] == "Роль сценариста"
    assert not [text for text in d6.values() if "Рассказчик" in text]
    english = features.menu(i18n, "en", profiles.D6)
    assert not [c.description for c in english if "Storyteller" in c.description]
    assert {c.command: c.description for c in english}["ask"] == (
        "Ask the table for a roll (GM): /ask strength+agility"
    )


def test_help_offers_magick_to_mage_chats_only(i18n: I18n) -> None:
    features = all_features()

    def lines(profile: profiles.Profile) -> str:
        with i18n.context(), i18n.use_locale("en"):
            return "\n".join(
                line for found in features.help_lines(profile).values() for line in found
            )

    assert "/m 3 vulgar q 1" in lines(profiles.MAGE_REVISED)
    assert "/m 3 vulgar q 1" in lines(profiles.get(profiles.DEFAULT))
    assert "/m " not in lines(profiles.DARK_AGES)
    assert "/m " not in lines(profiles.D6)


async def test_a_chat_on_another_game_gets_its_menu_and_loses_it_back_home(i18n: I18n) -> None:
    session = RecordingSession()
    bot = make_bot(TOKEN, session)
    assert await set_game_commands(bot, i18n, all_features(), -1001, "d6")
    default, russian = session.of(SetMyCommands)
    assert default.scope == russian.scope == BotCommandScopeChat(chat_id=-1001)
    assert (default.language_code, russian.language_code) == (None, "ru")
    assert "project" in [c.command for c in russian.commands]
    assert russian.commands[0].description == "Бросок кубиков: /r 4"
    assert await set_game_commands(bot, i18n, all_features(), -1001, "mage")
    deleted = session.of(DeleteMyCommands)
    assert [(d.scope, d.language_code) for d in deleted] == [
        (BotCommandScopeChat(chat_id=-1001), None),
        (BotCommandScopeChat(chat_id=-1001), "ru"),
    ]
    assert len(session.of(SetMyCommands)) == 2


class Refusing(RecordingSession):
    """Telegram refuses every menu call with ``error``."""

    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error

    async def make_request(
        self,
        bot: Bot,
        method: TelegramMethod[Any],
        timeout: int | None = None,  # noqa: ASYNC109 - BaseSession's signature
    ) -> Any:
        if isinstance(method, SetMyCommands | DeleteMyCommands):
            self.calls.append(method)
            raise self.error
        return await super().make_request(bot, method, timeout)


@pytest.mark.parametrize(
    "error",
    [
        TelegramBadRequest(SetMyCommands(commands=[]), "Bad Request: chat not found"),
        TelegramRetryAfter(SetMyCommands(commands=[]), "Too Many Requests", retry_after=60),
    ],
)
async def test_a_refused_menu_is_logged_and_left(
    i18n: I18n, error: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    session = Refusing(error)
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    session.middleware(RetryMiddleware(sleep=sleep))
    with caplog.at_level(logging.WARNING, logger="bot.commands"):
        done = await set_game_commands(make_bot(TOKEN, session), i18n, all_features(), -5, "d6")
    assert done is False
    assert len(session.calls) == 1  # the first refusal ends it: no second language tried
    assert slept == []  # a minute's flood wait is not worth holding the chat's next updates
    assert "could not set the command menu of chat -5 for d6" in caplog.text


async def test_a_short_flood_wait_is_waited_out_within_the_menus_budget(i18n: I18n) -> None:
    session = Refusing(
        TelegramRetryAfter(SetMyCommands(commands=[]), "Too Many Requests", retry_after=2)
    )
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    session.middleware(RetryMiddleware(sleep=sleep))
    assert not await set_game_commands(make_bot(TOKEN, session), i18n, all_features(), -5, "d6")
    assert slept == [2.0, 2.0]
    assert sum(slept) <= MENU_FLOOD_WAIT


def test_one_command_has_one_entry_per_game(i18n: I18n) -> None:
    """A d6 feature may word a command the d10 one declares; the menu for every chat keeps
    the default game's words, and two entries for one game are a wiring error."""
    d10 = MenuCommand("r", "d10 words", rank=1, systems=frozenset({GameSystem.D10}))
    d6 = MenuCommand("r", "d6 words", rank=1, systems=frozenset({GameSystem.D6}))
    both = MenuCommand("r", "any words", rank=1)
    features = FeatureSet(
        [Feature("d6", Router, commands=(d6,)), Feature("d10", Router, commands=(d10,))]
    )
    assert [c.description for c in features.menu(i18n, "en")] == ["d10 words"]
    assert [c.description for c in features.menu(i18n, "en", profiles.D6)] == ["d6 words"]
    with pytest.raises(ValueError, match="two menu entries"):
        FeatureSet(
            [Feature("d6", Router, commands=(d6,)), Feature("any", Router, commands=(both,))]
        )


# A release that changes a game's menu reaches the chats that chose their game before it.


def chat_menus(table: Table) -> list[tuple[str | None, list[str]]]:
    """The menus published in the table's own scope so far: language code and commands."""
    return [
        (call.language_code, [c.command for c in call.commands])
        for call in table.session.of(SetMyCommands)
        if call.scope == BotCommandScopeChat(chat_id=table.chat.id)
    ]


async def test_a_chat_on_another_game_gets_this_releases_menu_once(table: Table) -> None:
    await table.store.update_chat(table.chat.id, profile="dark-ages")  # chosen before
    await table.say(player(1, "Аня"), "/r 5 6")
    published = chat_menus(table)
    assert [language for language, _ in published] == [None, "ru"]
    assert "blood" in published[1][1]
    assert "m" not in published[1][1]
    mark = await table.store.menu_mark(table.chat.id)
    assert mark is not None
    assert mark.startswith("dark-ages:")
    await table.say(player(2, "Борис"), "/r 3 6")
    assert len(chat_menus(table)) == 2  # looked at once


async def test_a_menu_published_by_this_release_is_left_alone(table: Table) -> None:
    admin = player(1, "Аня")
    table.session.admins.add(admin.id)
    await table.say(admin, "/rules d6")
    assert len(chat_menus(table)) == 2
    assert (await table.store.menu_mark(table.chat.id) or "").startswith("d6:")
    # Another process (a restart, a replica) sees the chat for the first time: same menu.
    upkeep = MenuUpkeep(table.i18n)
    await upkeep.keep(table.bot, table.store, all_features(), table.chat.id)
    assert len(chat_menus(table)) == 2
    await table.store.set_menu_mark(table.chat.id, "d6:an-older-release")
    await upkeep.keep(table.bot, table.store, all_features(), table.chat.id)
    assert len(chat_menus(table)) == 4
    await table.say(admin, "/rules mage")  # back home: the chat's own menu and mark go
    assert await table.store.menu_mark(table.chat.id) is None


async def test_a_chat_on_the_default_game_is_not_looked_at(table: Table) -> None:
    await table.say(player(1, "Аня"), "/r 5 6")
    assert chat_menus(table) == []
    assert table.session.of(DeleteMyCommands) == []


async def test_a_menu_not_checked_while_redis_is_away_is_only_logged(
    table: Table, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    await table.store.update_chat(table.chat.id, profile="d6")

    async def away(chat_id: int) -> str | None:
        raise RedisConnectionError("away")

    monkeypatch.setattr(table.store, "menu_mark", away)
    with caplog.at_level(logging.INFO, logger="bot.commands"):
        await MenuUpkeep(table.i18n).keep(table.bot, table.store, all_features(), table.chat.id)
    assert chat_menus(table) == []
    assert f"command menu of chat {table.chat.id} not checked" in caplog.text


async def test_a_name_a_slip_away_is_read_and_said(table: Table) -> None:
    anna = player(1, "Аня")
    await table.say(anna, "/set ловкость 3 драка 2")
    await table.say(anna, "/r ловкасть+драка 6")  # one letter wrong: only Ловкость is near
    answer = table.session.sent[-1].text
    assert answer.startswith(
        "<i>Поняли «ловкасть» как</i> «Ловкость»\n🎲 Аня: Ловкость 3 + Драка 2"
    )
    await table.say(anna, "/r сила+драка 6")  # a name typed right is not said
    assert not table.session.sent[-1].text.startswith("<i>")


async def test_an_unsure_name_asks_with_a_button_per_reading(table: Table) -> None:
    anna, boris = player(1, "Аня"), player(2, "Борис")
    await table.say(anna, "/set сила 2 драка 3")
    await table.say(anna, "/r сил+драка 6")  # Сила, Сила Воли or Силы: the player picks
    asked = table.session.sent[-1]
    assert asked.reply_markup is not None
    rows = asked.reply_markup.inline_keyboard
    assert [row[0].text for row in rows] == ["Сила", "Сила Воли", "Силы"]
    offer = table.session.messages[-1].message_id
    sent = len(table.session.sent)
    await table.tap(boris, rows[0][0].callback_data or "", offer)  # not Борис's to pick
    assert len(table.session.sent) == sent
    await table.tap(anna, rows[0][0].callback_data or "", offer)
    assert table.session.sent[-1].text.startswith("🎲 Аня: Сила 2 + Драка 3")
    assert table.session.edits[-1].text == "<code>/r Сила+драка 6</code>"
    sent = len(table.session.sent)
    await table.tap(anna, rows[1][0].callback_data or "", offer)  # once picked, it is done
    assert len(table.session.sent) == sent


async def test_a_line_not_sure_enough_to_run_is_offered_as_a_button(table: Table) -> None:
    private = Chat(id=1, type="private")
    table.chat = private
    await table.say(player(1, "Аня"), "r 7 6")  # no slash: a chat line or a roll?
    asked = table.session.sent[-1]
    assert asked.reply_markup is not None
    button = asked.reply_markup.inline_keyboard[0][0]
    assert button.text == "/r 7 6"
    await table.tap(
        player(1, "Аня"), button.callback_data or "", table.session.messages[-1].message_id
    )
    assert table.session.sent[-1].text.startswith("🎲 Аня: 7к10, сложность 6")


async def test_sheet_and_rules_lines_typed_on_a_phone(table: Table) -> None:
    anna = player(1, "Аня")
    table.session.admins.add(anna.id)
    await table.say(anna, "/set cила 4")  # a Latin «c»
    await table.say(anna, "/set харизма4")  # the number glued on
    sheet = await table.store.load_sheet(table.chat.id, anna.id, SheetSystem.MAGE)
    assert sheet is not None
    assert (sheet.rating(Attribute.STRENGTH), sheet.rating(Attribute.CHARISMA)) == (4, 4)
    await table.say(anna, "/rules set провал = после отмены")  # spaced, and two words
    chat = await table.store.load_chat(table.chat.id)
    assert chat.switches.get("botch_rule") == "net_negative", table.session.sent[-1].text
    await table.say(anna, "/rules set провал = без успехов")  # back to the book's own
    chat = await table.store.load_chat(table.chat.id)
    assert "botch_rule" not in chat.switches, table.session.sent[-1].text


async def test_a_hidden_roll_read_on_the_other_layout_says_nothing_in_the_group(
    table: Table,
) -> None:
    teller = player(3, "Мастер")
    table.session.admins.add(teller.id)
    await table.say(teller, "/st")
    sent = len(table.session.sent)
    await table.say(teller, "/р 7 6")  # «/h» on the Russian layout: the pool stays secret
    group = [m for m in table.session.sent[sent:] if m.chat_id == table.chat.id]
    assert group
    assert [m.text.split("\n")[0] for m in group] == ["🤫 Мастер бросает втайне: тайный бросок №1."]
