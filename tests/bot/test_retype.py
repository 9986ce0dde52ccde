"""The offer of what a line may have meant (bot/retype.py): its typer's press runs the line
once, as if they had typed it; a second press, or anyone else's, runs nothing."""

from __future__ import annotations

import pytest
from aiogram.types import Chat
from aiogram.utils.i18n import I18n

from bot.i18n import LOCALES_DIR, load_i18n
from bot.retype import RetypeCallback
from tests.handlers.conftest import Table, buttons, fresh_store, make_table, player

ANNA = player(1, "Аня")
BORIS = player(2, "Борис")


@pytest.fixture(scope="module")
def i18n() -> I18n:
    return load_i18n(LOCALES_DIR, "ru")


def private_table(i18n: I18n) -> Table:
    table = make_table(fresh_store(), i18n)
    table.chat = Chat(id=ANNA.id, type="private", first_name="Аня")
    return table


async def test_the_typer_s_press_runs_the_line_meant_once(i18n: I18n) -> None:
    table = private_table(i18n)
    await table.say(ANNA, "r 7 6")  # a private chat: no slash needed to be read as a command
    offer = table.session.sent[-1]
    assert offer.text == "Возможно, вы имели в виду <code>/r 7 6</code>?"
    (button,) = buttons(offer.reply_markup)
    assert RetypeCallback.unpack(button.callback_data or "").i == 0
    offered = table.session.messages[-1].message_id
    sent = len(table.session.sent)

    await table.tap(BORIS, button.callback_data or "", offered)
    assert table.session.answers[-1].text == "Выбрать может только тот, кто набрал команду."
    assert len(table.session.sent) == sent  # nothing ran

    await table.tap(ANNA, button.callback_data or "", offered)
    assert table.session.edits[-1].text == "<code>/r 7 6</code>"
    assert table.session.edits[-1].reply_markup is None
    rolled = table.session.sent[sent:]
    assert len(rolled) == 1
    assert rolled[0].text.startswith("🎲 Аня: 7к10, сложность 6")

    await table.tap(ANNA, button.callback_data or "", offered)  # pressed again: closed
    assert table.session.answers[-1].text == "Этот бросок закрыт."
    assert len(table.session.sent) == sent + 1


async def test_a_forged_choice_runs_nothing(i18n: I18n) -> None:
    table = private_table(i18n)
    await table.say(ANNA, "r 7 6")
    (button,) = buttons(table.session.sent[-1].reply_markup)
    offered = table.session.messages[-1].message_id
    flow = RetypeCallback.unpack(button.callback_data or "").f
    sent = len(table.session.sent)
    for forged in (RetypeCallback(f=flow, i=5).pack(), RetypeCallback(f="x" * 12, i=0).pack()):
        await table.tap(ANNA, forged, offered)
        assert table.session.answers[-1].show_alert
    assert len(table.session.sent) == sent
