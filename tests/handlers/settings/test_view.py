"""/lang and /rules drawn without a bot: the language and game pickers, the house rules' top,
group and card screens, in both languages."""

from __future__ import annotations

from aiogram.utils.i18n import I18n

from bot.house_rules import Group, switches_of
from handlers.settings import house, view
from rules import profiles
from table.store import ChatSettings
from tests.handlers.views import buttons, labels, prefixes, speaking

CHANGED = profiles.MAGE_REVISED.model_copy(update={"botch_rule": profiles.BotchRule.NET_NEGATIVE})


def test_language_picker(i18n: I18n) -> None:
    for locale in ("ru", "en"):
        with speaking(i18n, locale):
            assert buttons(view.language_keyboard()) == [
                ("Русский", "lang:ru"),
                ("English", "lang:en"),
            ]
    with speaking(i18n, "ru"):
        assert "/lang en" in view.language_problem_text()
        assert view.language_refusal_text(d6=True) == (
            "Язык группы выбирает сценарист или администратор."
        )
    with speaking(i18n, "en"):
        assert view.language_set_text() == "This chat now speaks English."
        assert view.language_refusal_text() == (
            "The group's language is set by its Storyteller or an administrator."
        )


def test_game_picker_marks_the_game_in_force(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        assert view.rules_text("dark-ages") == (
            "Игра этого чата: <b>Вампир: Тёмные века</b>. Выберите другую:"
        )
        assert buttons(view.rules_keyboard(profiles.names(), "d6")) == [
            ("Маг (домашние правила)", "prof:mage"),
            ("Маг: Восхождение (Revised)", "prof:mage-revised"),
            ("Вампир: Тёмные века", "prof:dark-ages"),
            ("✅ Повествовательная система d6", "prof:d6"),
            ("🏠 Домашние правила", "ho:t:0:0:0"),
        ]
    with speaking(i18n, "en"):
        assert view.rules_set_text("mage") == "Game of this chat: <b>Mage (house rules)</b>."
        keyboard = view.rules_keyboard(profiles.names(), "mage")
        assert labels(keyboard)[0] == "✅ Mage (house rules)"
        assert labels(keyboard)[-1] == "🏠 House rules"
        assert sum(label.startswith("✅") for label in labels(keyboard)) == 1


def test_who_may_change_the_game(i18n: I18n) -> None:
    nobody = ChatSettings()
    someone = ChatSettings(storyteller_id=7)
    with speaking(i18n, "ru"):
        assert view.game_refusal_text(someone, d6=True) == "Менять игру может только сценарист."
        assert "администратор" in view.game_refusal_text(nobody)
        assert "сценарист" in view.help_lines(profiles.D6)
        assert "Рассказчик" in view.help_lines(profiles.HOUSE_MAGE)
    with speaking(i18n, "en"):
        assert view.game_refusal_text(someone) == "Only the Storyteller can change the game."
        assert view.help_lines(profiles.D6).startswith("/lang — language of this chat\n/rules")


def test_house_rules_top_lists_what_changed(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        text = house.top_text(CHANGED)
        keyboard = house.top_keyboard(CHANGED)
        unchanged = house.top_text(profiles.D6)
        d6_keyboard = house.top_keyboard(profiles.D6)
    assert text.startswith("🏠 Домашние правила: Маг: Восхождение (Revised)\n• Провал: ")
    assert "(по книге: ни одного успеха и единица)" in text
    assert "/rules set провал=" in text
    assert labels(keyboard) == [
        "Кубики и Сила Воли",
        "Накопление, противостояние, команда",
        "Бой и здоровье",
        "Магия",
        "♻️ Сбросить все",
    ]
    assert prefixes(keyboard) == {"ho"}
    assert "Ничего не изменено" in unchanged
    assert buttons(d6_keyboard) == [("Игра d6", "ho:g:4:0:0"), ("♻️ Сбросить все", "ho:R:0:0:0")]
    with speaking(i18n, "en"):
        assert house.top_text(CHANGED).startswith(
            "🏠 House rules of Mage: the Ascension Revised\n• Botch: a 1 left after cancelling "
            "(the book: no successes and a 1)"
        )
        assert labels(house.top_keyboard(profiles.D6)) == ["The d6 game", "♻️ Reset all"]


def test_house_rules_group_and_card(i18n: I18n) -> None:
    botch = switches_of(Group.DICE)[0]
    with speaking(i18n, "en"):
        group = house.group_text(CHANGED, Group.DICE)
        group_keys = house.group_keyboard(CHANGED, Group.DICE)
        card = house.card_text(CHANGED, botch)
        card_keys = house.card_keyboard(CHANGED, Group.DICE, 0)
    assert group.startswith("🏠 Dice and Willpower\n✏️ <b>Botch</b>: a 1 left after cancelling")
    assert "<b>Threshold</b>: on" in group
    assert buttons(group_keys)[0] == ("Botch: a 1 left after cancelling", "ho:c:0:0:0")
    assert buttons(group_keys)[-2:] == [("♻️ Reset group", "ho:r:0:0:0"), ("↩ Back", "ho:t:0:0:0")]
    assert card.startswith("🏠 <b>Botch</b>\n")
    assert "To type it: <code>/rules set botch=…</code>" in card
    assert card.endswith("Now: <b>a 1 left after cancelling</b> · the book: no successes and a 1")
    assert buttons(card_keys) == [
        ("no successes and a 1", "ho:s:0:0:0"),
        ("✅ a 1 left after cancelling", "ho:s:0:0:1"),
        ("↩ Back", "ho:g:0:0:0"),
    ]
    with speaking(i18n, "ru"):
        ru_card = house.card_text(CHANGED, botch)
        assert ru_card.startswith("🏠 <b>Провал</b>\n")  # the name, no bare key beside it
        assert "Набрать: <code>/rules set провал=…</code>" in ru_card
        assert labels(house.card_keyboard(CHANGED, Group.DICE, 0)) == [
            "ни одного успеха и единица",
            "✅ единица осталась после отмены",
            "↩ Назад",
        ]
        assert house.group_text(CHANGED, Group.DICE).startswith("🏠 Кубики и Сила Воли\n✏️ ")
