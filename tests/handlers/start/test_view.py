"""/start and /help drawn without a bot: the greeting, and the help screen's sections."""

from __future__ import annotations

from aiogram.utils.i18n import I18n

from bot.features import HelpSection
from handlers.start import view
from rules import profiles
from tests.handlers.views import speaking

SECTIONS = {
    HelpSection.ROLLS: ["/r roll"],
    HelpSection.TABLE: ["/x long", "/vs against"],
    HelpSection.COMBAT: ["/init round"],
    HelpSection.STORYTELLER: ["/st role", "/npc"],
    HelpSection.SETTINGS: ["/lang language"],
}


def test_greeting(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        ru = view.start_text()
    with speaking(i18n, "en"):
        en = view.start_text()
    assert ru.startswith("Привет! Я бросаю кубики")
    assert "/r 7 6" in ru
    assert "/help" in ru
    assert en.startswith("Hello! I roll dice for World of Darkness games")
    assert "/r 7 6" in en
    assert "/help" in en


def test_help_joins_the_table_and_puts_settings_last(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        ru = view.help_text(SECTIONS, profiles.D6)
    assert ru == (
        "<b>Броски</b>\n/r roll\n/x long · /vs against\n⚔️ /init round\n🎭 /st role · /npc"
        "\n\n<b>Настройки</b>\n/lang language\nТекущая игра: Повествовательная система d6"
    )
    with speaking(i18n, "en"):
        en = view.help_text(SECTIONS, profiles.DARK_AGES)
    assert en.startswith("<b>Rolls</b>\n/r roll\n")
    assert en.endswith("<b>Settings</b>\n/lang language\nCurrent game: Vampire: the Dark Ages")


def test_help_without_settings_still_names_the_game(i18n: I18n) -> None:
    with speaking(i18n, "en"):
        text = view.help_text({HelpSection.ROLLS: ["/r"]}, profiles.HOUSE_MAGE)
    assert text == "<b>Rolls</b>\n/r\n\nCurrent game: Mage (house rules)"
