"""The campaign's privacy setting (README "The Mini App sheet"): read from ``/rules set``,
set by whoever runs the game, shown on the /rules card, left alone by a game switch."""

from __future__ import annotations

import pytest
from aiogram.utils.i18n import I18n

from handlers.settings import privacy, view
from handlers.settings.callbacks import SheetsCallback
from tests.handlers.conftest import GROUP, Table, buttons, player

ANNA = player(1, "Anna")  # an admin
BORIS = player(2, "Boris")
EMMA = player(3, "Emma", "en")


def test_the_setting_is_read_among_house_rules_in_either_language(i18n: I18n) -> None:
    with i18n.context():
        read_words(i18n)


def read_words(i18n: I18n) -> None:
    assert privacy.split_words(["листы=открыты"]) == (True, [])
    assert privacy.split_words(["Sheets=Closed", "botch=net_negative"]) == (
        False,
        ["botch=net_negative"],
    )
    assert privacy.split_words(["листы", "закрыты"]) == (False, [])
    assert privacy.split_words(["botch=net_negative"]) == (None, ["botch=net_negative"])
    for words in (["листы=может"], ["sheets="], ["листы"]):
        with pytest.raises(privacy.PrivacyError):
            privacy.split_words(words)


def test_the_rules_card_says_the_setting_and_how_to_change_it(i18n: I18n) -> None:
    with i18n.context(), i18n.use_locale("ru"):
        closed = view.rules_text("mage", False)
        opened = view.rules_text("mage", True)
    assert "Листы игроков: <b>закрыты</b>" in closed
    assert "/rules set листы=открыты" in closed
    assert "Листы игроков: <b>открыты</b>" in opened
    assert "/rules set листы=закрыты" in opened
    with i18n.context(), i18n.use_locale("en"):
        assert "/rules set sheets=open" in view.rules_text("mage", False)


async def test_whoever_runs_the_game_opens_and_closes_the_sheets(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(BORIS, "/rules set листы=открыты")
    assert "меняет Рассказчик" in table.session.sent[-1].text
    assert (await table.store.load_chat(GROUP.id)).sheets_open is False

    await table.say(ANNA, "/rules set листы=открыты")
    assert table.session.sent[-1].text.startswith("Листы игроков теперь открыты")
    assert (await table.store.load_chat(GROUP.id)).sheets_open is True
    await table.say(ANNA, "/rules")
    assert "Листы игроков: <b>открыты</b>" in table.session.sent[-1].text

    await table.say(ANNA, "/rules set листы=наполовину")
    assert "«наполовину»" in table.session.sent[-1].text
    assert (await table.store.load_chat(GROUP.id)).sheets_open is True

    await table.say(ANNA, "/rules dark-ages")  # a game switch leaves it as it is
    assert (await table.store.load_chat(GROUP.id)).sheets_open is True
    await table.say(ANNA, "/rules reset")
    assert (await table.store.load_chat(GROUP.id)).sheets_open is True

    await table.say(ANNA, "/rules set sheets=closed wp_auto_success=off")
    settings = await table.store.load_chat(GROUP.id)
    assert settings.sheets_open is False
    assert settings.switches == {"wp_auto_success": False}


async def test_the_rules_card_button_opens_and_closes_the_sheets(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/rules")
    sent = table.session.sent[-1]
    found = [b for b in buttons(sent.reply_markup) if (b.callback_data or "").startswith("shp:")]
    assert [b.text for b in found] == ["👁 Открыть листы игроков"]
    message_id = table.session.messages[-1].message_id
    opening = found[0].callback_data or ""

    await table.tap(BORIS, opening, message_id)
    assert table.session.answers[-1].text == "Менять игру могут только администраторы чата."
    assert (await table.store.load_chat(GROUP.id)).sheets_open is False

    await table.tap(ANNA, opening, message_id)
    await table.tap(ANNA, opening, message_id)  # a double tap sets it once
    assert (await table.store.load_chat(GROUP.id)).sheets_open is True
    edit = table.session.edits[-1]
    assert "Листы игроков: <b>открыты</b>" in edit.text
    assert "👁 Закрыть листы игроков" in [b.text for b in buttons(edit.reply_markup)]

    await table.tap(ANNA, SheetsCallback(o=0).pack(), message_id)
    assert (await table.store.load_chat(GROUP.id)).sheets_open is False
    await table.tap(ANNA, "shp:7", message_id)  # nothing typed as a button may raise
    assert (await table.store.load_chat(GROUP.id)).sheets_open is False
