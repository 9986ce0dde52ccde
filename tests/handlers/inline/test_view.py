"""Inline mode drawn without a bot: the offer before the roll, its button, the odds and the
help, the private chat's campaign choice."""

from __future__ import annotations

from aiogram.utils.i18n import I18n

from handlers.inline import view
from rules import profiles
from table.scope import Campaign
from tests.handlers.views import buttons, speaking

MAGE = profiles.HOUSE_MAGE
SOURCE = "Ловкость 3 + Драка 2"


def test_the_offer_names_the_roll_its_odds_and_who_presses(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        odds = view.odds_line(0.745, 0.031)
        title = view.d10_title(7, 6, 0, True, MAGE)
        ru = view.offer_text("Аня & <к>", "7к10", SOURCE, odds, "Хро<ника>")
        keyboard = view.roll_keyboard("OFF1", Campaign(-100))
        in_topic = view.roll_keyboard("OFF1", Campaign(-100, 45, "Маг"))
    assert odds == "Успех 74,5% · провал 3,1%"
    assert title == "7к10, сложность 6 (стандартно), Сила Воли"
    assert ru.splitlines() == [
        "🎲 Аня &amp; &lt;к&gt;: Ловкость 3 + Драка 2 → 7к10",
        "Успех 74,5% · провал 3,1%",
        "Кубики ещё не брошены: бросит Аня &amp; &lt;к&gt;, нажав «🎲 Бросить».",
        "📖 Кампания «Хро&lt;ника&gt;»",
    ]
    assert buttons(keyboard) == [("🎲 Бросить", "inl:OFF1:-100")]
    assert buttons(in_topic) == [("🎲 Бросить", "inl:OFF1:-100t45")]  # the topic's campaign
    with speaking(i18n, "en"):
        en = view.offer_text("Ann", "7d10", None, view.odds_line(0.5, 0.25, d6=True), None)
        assert buttons(view.roll_keyboard("OFF1", Campaign(-100))) == [("🎲 Roll", "inl:OFF1:-100")]
        assert view.d6_title(4, 2) == "chance 4d6, measures needed: 2"
        assert view.d6_title(4, 1) == "chance 4d6"
    assert en.splitlines() == [
        "🎲 Ann: 7d10",
        "Success 50.0% · fiasco 25.0%",
        "Not rolled yet: Ann presses «🎲 Roll».",
    ]


def test_the_list_entry_and_the_results(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        assert view.description("X", SOURCE, "Хроника") == (
            "X · Ловкость 3 + Драка 2 · кампания «Хроника»"
        )
        assert view.d10_result_text("🎲 …", "Хроника") == "🎲 …\n📖 Кампания «Хроника»"
        assert view.d6_result_text("🎲 …", "шанс 4", None) == "🎲 …\nшанс 4"
    with speaking(i18n, "en"):
        assert view.description("X", None, None) == "X"
        assert view.description("X", None, "C") == "X · campaign «C»"


def test_help_in_each_games_words(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        d6 = view.help_text("dice_bot", True, None)
        d10 = view.help_text("dice_bot", False, "Хроника")
    assert "@dice_bot 4 2 — нужно две меры успеха" in d6
    assert "к10" not in d6
    assert "@dice_bot 7 6 св — с Силой Воли" in d10
    assert d10.endswith("\n📖 Кампания «Хроника»")
    with speaking(i18n, "en"):
        en = view.help_text("dice_bot", False, None)
        assert view.problem_text("Bad.", "dice_bot", True) == "Bad.\nFor example: @dice_bot 4 2"
        assert view.d6_problem_text("ло<в>").startswith("«ло&lt;в&gt;» is not understood")
        assert view.d6_problem_text("").startswith("How many dice is the chance?")
    assert en.splitlines()[0] == (
        "🎲 Rolls in any chat, even where the bot is not a member: @dice_bot and the roll."
    )


def test_the_private_chat_chooses_the_campaign(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        several = view.campaigns_text("Хроника", "dice_bot", False, 2)
        none = view.campaigns_text(None, "dice_bot", False, 0)
        one = view.campaigns_text("<Хроника>", "dice_bot", False, 1)
        keyboard = view.campaigns_keyboard(
            [
                (Campaign(-1), "Хроника"),
                (Campaign(-1, 45), "Хроника › Маг"),
                (Campaign(-2), ""),
            ],
            Campaign(-1, 45),
        )
    assert several.endswith(
        "\n\nБроски из любого чата сейчас идут в кампанию «Хроника». Выберите другую:"
    )
    assert "Вы ещё не играли с ботом в группе" in none
    assert one.endswith("«&lt;Хроника&gt;».")
    # The chosen one marked (a topic, apart from its forum's General); a group with no title
    # shows its number.
    assert buttons(keyboard) == [
        ("Хроника", "inlc:-1"),
        ("[Хроника › Маг]", "inlc:-1t45"),
        ("-2", "inlc:-2"),
    ]
    assert view.campaigns_keyboard([(Campaign(-1), "Хроника")], Campaign(-1)) is None
    with speaking(i18n, "en"):
        assert view.campaigns_text("C", "dice_bot", True, 3).endswith(
            "Inline rolls now belong to «C». Choose another campaign:"
        )
        assert view.rolled_text() == "These dice are already rolled."
        assert view.not_yours_text("Ann") == "Only Ann can roll these dice."
