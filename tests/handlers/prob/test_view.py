"""/prob drawn without a bot: the bars of every result, both botch rules, the d6 measures."""

from __future__ import annotations

from aiogram.utils.i18n import I18n

from handlers.prob import view
from rules import probability, profiles
from rules.d6 import probability as d6_probability
from tests.handlers.views import speaking

MAGE = profiles.HOUSE_MAGE


def d10_text(i18n: I18n, locale: str) -> str:
    chances = probability.d10(pool=3, difficulty=6, profile=MAGE, willpower=False, threshold=0)
    with speaking(i18n, locale):
        return view.prob_text(
            pool=3,
            difficulty=6,
            threshold=0,
            willpower=False,
            profile=MAGE,
            chances=chances,
            other_rule_botch=0.05,
        )


def d6_text(i18n: I18n, locale: str, required: int = 1) -> str:
    measures = [float(p) for p in d6_probability.measures_distribution(2)]
    with speaking(i18n, locale):
        return view.d6_prob_text(
            chance=2,
            required=required,
            measures=measures,
            success=0.5,
            fiasco=0.25,
            with_effort=0.7,
        )


def test_d10_odds_as_bars_in_both_languages(i18n: I18n) -> None:
    ru = d10_text(i18n, "ru")
    assert ru.splitlines()[:2] == ["📊 3к10, сложность 6 (стандартно)", "Успехов:"]
    assert "<pre> 0 ████████████████▌    26,0%\n 1 ████████████████████ 31,5%\n" in ru
    assert " 3 ███████▉             12,5%</pre>" in ru
    assert "Успех: 74,0%" in ru
    assert "Провал по правилу Мага (ни одного успеха и единица): 6,1%" in ru
    assert ru.endswith("Провал по правилу Тёмных веков (единиц больше, чем успехов): 5,0%")
    en = d10_text(i18n, "en")
    assert en.startswith("📊 3d10, difficulty 6 (standard)\nSuccesses:\n<pre>")
    assert "Success: 74.0%\nFailure: 19.9%\n" in en
    assert en.endswith("Botch by the Dark Ages rule (more 1s than successes): 5.0%")


def test_d6_odds_name_measures_fiasco_and_effort(i18n: I18n) -> None:
    ru = d6_text(i18n, "ru")
    assert ru.startswith("📊 шанс 2к6\nМеры успеха:\n<pre> 0 ")
    assert ru.endswith("Успех: 50,0%\nФиаско: 25,0%\nУспех с особым усилием: 70,0%")
    assert "нужно мер успеха" not in ru
    assert d6_text(i18n, "ru", required=2).startswith("📊 шанс 2к6, нужно мер успеха: 2\n")
    en = d6_text(i18n, "en", required=2)
    assert en.startswith("📊 chance 2d6, measures needed: 2\nMeasures of success:\n")
    assert en.endswith("Fiasco: 25.0%\nSuccess with a special effort: 70.0%")


def test_help_and_usage_follow_the_game(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        assert view.help_line(profiles.D6).startswith("/prob 4 2 — ")
        assert view.help_line(MAGE).startswith("/prob 7 6 — ")
        assert "/prob 4 2" in view.d6_usage_text()
    with speaking(i18n, "en"):
        assert view.help_line(MAGE) == "/prob 7 6 — exact chances of every result"
        assert view.d6_usage_text().startswith("Example: /prob 4")
