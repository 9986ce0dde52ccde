"""setMyCommands: English for everyone, Russian for Russian clients."""

from __future__ import annotations

from aiogram.methods import SetMyCommands
from aiogram.utils.i18n import I18n

from bot.app import make_bot
from bot.commands import set_commands
from handlers import all_features
from tests.handlers.conftest import TOKEN, RecordingSession, Table, player


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
        "h",
        "reveal",
        "log",
        "stats",
        "inline",
        "help",
    ]
    assert [c.command for c in russian.commands] == [c.command for c in default.commands]
    assert default.commands[0].description == "Roll dice: /r 7 6"
    assert russian.commands[0].description == "Бросок кубиков: /r 7 6"
    assert all(1 <= len(c.description) <= 256 for c in default.commands + russian.commands)


async def test_a_mistyped_command_is_answered_with_the_line_meant(table: Table) -> None:
    await table.say(player(1, "Аня"), "/к 7 6")
    assert "/r 7 6" in table.session.sent[-1].text
    assert "имели в виду" in table.session.sent[-1].text
    sent = len(table.session.sent)
    await table.say(player(1, "Аня"), "/kick@other_bot")
    await table.say(player(1, "Аня"), "/weather")
    assert len(table.session.sent) == sent  # another bot's business: silence
