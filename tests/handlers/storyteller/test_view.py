"""/st drawn without a bot: the role's words in both games, names escaped, the claim button."""

from __future__ import annotations

import pytest
from aiogram.utils.i18n import I18n

from handlers.storyteller import view
from rules import profiles
from tests.handlers.views import buttons, speaking


def test_the_role_is_named_in_each_games_own_word(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        assert view.storyteller_set_text("Аня") == "🎭 Аня теперь Рассказчик этого чата."
        assert view.storyteller_set_text("Аня", d6=True) == "🎭 Аня теперь сценарист этого чата."
        assert view.storyteller_passed_text("Аня", "Борис", d6=True) == (
            "🎭 Аня передаёт роль сценариста: теперь сценарист — Борис."
        )
        assert view.help_line(profiles.D6) == "/st сценарист"
        assert view.help_line(profiles.HOUSE_MAGE) == "/st Рассказчик"
        current = view.storyteller_current_text("Аня")
        assert current.startswith("Рассказчик этого чата: Аня.\n")
        assert "/st" in current
        assert (
            view.storyteller_takeover_text("Аня") == "Сейчас Рассказчик — Аня. Забрать роль себе?"
        )
        for d6_text in (
            view.storyteller_already_text(d6=True),
            view.storyteller_admins_only_text(d6=True),
            view.storyteller_anonymous_text(d6=True),
            view.storyteller_changed_text(d6=True),
            view.storyteller_current_text("Аня", d6=True),
            view.storyteller_takeover_text("Аня", d6=True),
        ):
            assert "Рассказчик" not in d6_text, d6_text
            assert "сценарист" in d6_text.lower(), d6_text
    with speaking(i18n, "en"):
        assert view.storyteller_set_text("Ann") == "🎭 Ann is now the Storyteller of this chat."
        assert view.storyteller_set_text("Ann", d6=True) == "🎭 Ann is now the GM of this chat."
        assert view.storyteller_passed_text("Ann", "Bo") == (
            "🎭 Ann hands the Storyteller's role to Bo."
        )
        assert view.help_line(profiles.D6) == "/st the GM"
        assert view.storyteller_takeover_text("Ann", d6=True) == (
            "The GM now is Ann. Take the role over?"
        )
        assert "/st" in view.storyteller_target_problem_text()
        assert view.not_for_you_text() == "This button is not for you."


@pytest.mark.parametrize("locale", ["ru", "en"])
def test_names_are_escaped(i18n: I18n, locale: str) -> None:
    with speaking(i18n, locale):
        texts = [
            view.storyteller_set_text("Том & <Д>"),
            view.storyteller_passed_text("Том & <Д>", "<b>"),
            view.storyteller_current_text("Том & <Д>"),
            view.storyteller_takeover_text("Том & <Д>", d6=True),
        ]
    for text in texts:
        assert "Том &amp; &lt;Д&gt;" in text or "&lt;b&gt;" in text, text
        assert "<Д>" not in text
        assert "<b>" not in text


def test_claim_button(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        assert buttons(view.claim_keyboard("f1", 3, False)) == [("🎭 Я Рассказчик", "st:f1:3")]
        assert buttons(view.claim_keyboard("f1", 3, False, d6=True)) == [
            ("🎭 Я сценарист", "st:f1:3")
        ]
        assert buttons(view.claim_keyboard("f1", 4, True)) == [("🎭 Забрать роль", "st:f1:4")]
    with speaking(i18n, "en"):
        assert buttons(view.claim_keyboard("f1", 3, False)) == [
            ("🎭 I am the Storyteller", "st:f1:3")
        ]
        assert buttons(view.claim_keyboard("f1", 3, False, d6=True)) == [
            ("🎭 I am the GM", "st:f1:3")
        ]
        assert buttons(view.claim_keyboard("f1", 4, True, d6=True)) == [
            ("🎭 Take the role", "st:f1:4")
        ]
