"""Magick drawn without a bot: the Effect's wizard with its odds and Paradox, the table's
modifiers opened, a cast with the Paradox wheel and what comes next, a ritual under way,
called off; a Sphere's card; the Barrier."""

from __future__ import annotations

from aiogram.utils.i18n import I18n

from handlers.magick import view
from handlers.magick.flow import BarrierFlow, EffectFlow, Stage
from rules import d10, profiles
from rules.sheet import Sphere
from table.store import Flow
from tests.handlers.views import buttons, labels, prefixes, rows, speaking

MAGE = profiles.HOUSE_MAGE
FLOW = Flow(id="M", kind="effect", chat_id=-1, owner_id=1, version=2, data={})
SETUP = EffectFlow(
    caster="Аня & <к>",
    user_id=1,
    arete=3,
    held=2,
    level=2,
    sphere=Sphere.FORCES,
    vulgar=True,
    witnesses=True,
    quintessence=1,
)
ROLL = d10.resolve([9, 8, 2], 7, MAGE)
CAST = SETUP.model_copy(
    update={"stage": Stage.CAST, "pool": 3, "result": ROLL, "paradox": 2, "wheel": (1, 2)}
)


def test_the_wizard_shows_the_odds_and_the_paradox_at_stake(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, SETUP, MAGE)
        _text, opened = view.draw(FLOW, SETUP.model_copy(update={"modifiers_open": True}), MAGE)
    assert text.splitlines() == [
        "✨ Аня &amp; &lt;к&gt;: Сфера 2, вульгарно, при свидетелях",
        "Арете 3к10, Квинтэссенция 1 · сложность 6 (база 7, модификаторы −1 из ±3)",
        "Шанс успеха 74,0%, провала 6,1%",
        "Парадокс: +3 при успехе или неудаче, +6 при провале",
    ]
    assert rows(keyboard) == [
        ["1", "[2]", "3", "4", "5"],
        ["🔥 вульгарно", "[👁 свидетели]"],
        ["💠0", "[💠1]", "💠2"],  # up to the Quintessence held
        ["-3", "-2", "-1", "[±0]", "+1", "+2", "+3"],
        ["⚙️ Модификаторы из таблицы"],
        ["💪 Сила Воли"],
        ["✨ Сотворить", "✖ Отменить"],
    ]
    assert buttons(keyboard)[-2:] == [("✨ Сотворить", "mg:M:2:go:0"), ("✖ Отменить", "mg:M:2:x:0")]
    assert prefixes(keyboard) == {"mg"}
    assert "анализ свойств цели (−1…−3)" in labels(opened)
    assert ("↩ Скрыть модификаторы", "mg:M:2:ms:0") in buttons(opened)
    with speaking(i18n, "en"):
        text, keyboard = view.draw(FLOW, SETUP, MAGE)
    assert text.splitlines()[1:] == [
        "Arete 3d10, Quintessence 1 · difficulty 6 (base 7, modifiers −1 of ±3)",
        "Chance of success 74.0%, of a botch 6.1%",
        "Paradox: +3 on a success or a failure, +6 on a botch",
    ]
    assert rows(keyboard)[-1] == ["✨ Cast", "✖ Cancel"]


def test_a_cast_its_wheel_and_what_comes_next(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, CAST, MAGE)
    assert text.splitlines() == [
        "✨ Аня &amp; &lt;к&gt;: Сфера 2, вульгарно, при свидетелях → Арете 3к10, "
        "сложность 7 (немного сложно), Квинтэссенция 1",
        "<b>9</b> <b>8</b> 2",
        "<b>2 успеха</b> · хватит на Обычный Эффект",
        "🌀 Парадокс +2",
        "Квинтэссенция 1 · Парадокс 2",
        "<code>◆·················✶✶</code>",
    ]
    assert buttons(keyboard) == [
        ("⚖ Распределить успехи", "mg:M:2:p:1"),
        ("📍 Связи", "mg:M:2:p:2"),
        ("🕰 Время", "mg:M:2:p:3"),
        ("⚡ Отдача", "mg:M:2:b:0"),
        ("⏳ Продлить", "mg:M:2:e:0"),
    ]
    with speaking(i18n, "en"):
        text, keyboard = view.draw(FLOW, CAST, MAGE)
    assert text.splitlines()[3:5] == ["🌀 Paradox +2", "Quintessence 1 · Paradox 2"]
    assert labels(keyboard) == [
        "⚖ Spend successes",
        "📍 Correspondence",
        "🕰 Time",
        "⚡ Backlash",
        "⏳ Extend into a ritual",
    ]


def test_a_ritual_under_way_and_a_call_off(i18n: I18n) -> None:
    ritual = SETUP.model_copy(
        update={
            "stage": Stage.RITUAL,
            "target": 5,
            "gathered": 2,
            "rolls": 1,
            "pool": 3,
            "result": ROLL,
        }
    )
    off = SETUP.model_copy(update={"stage": Stage.CANCELLED})
    with speaking(i18n, "ru"):
        text, keyboard = view.draw(FLOW, ritual, MAGE)
        called_off, none = view.draw(FLOW, off, MAGE)
    assert text.splitlines()[-1] == "🕯 Ритуал, бросок 1: ▰▰▰▰▱▱▱▱▱▱ 2/5"
    assert buttons(keyboard) == [
        ("🕯 Следующий бросок", "mg:M:2:n:0"),
        ("✖ Прервать", "mg:M:2:ab:0"),
    ]
    assert called_off.endswith("\n✖ Отменено.")
    assert none is None
    with speaking(i18n, "en"):
        text, keyboard = view.draw(FLOW, ritual, MAGE)
        called_off, _none = view.draw(FLOW, off, MAGE)
    assert text.splitlines()[-1] == "🕯 Ritual, roll 1: ▰▰▰▰▱▱▱▱▱▱ 2/5"
    assert labels(keyboard) == ["🕯 Next roll", "✖ Give up"]
    assert called_off.endswith("\n✖ Called off.")


def test_a_spheres_card(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        text, keyboard = view.sphere_card(Sphere.FORCES, 2, "ru")
    assert text.splitlines()[0] == "🔮 <b>Силы</b> ●● (Ученик)"
    assert buttons(keyboard) == [
        ("●", "sp:forces:1"),
        ("[●●]", "sp:forces:2"),
        ("●●●", "sp:forces:3"),
        ("●●●●", "sp:forces:4"),
        ("●●●●●", "sp:forces:5"),
        ("↩ Все Сферы", "sp::0"),
    ]
    with speaking(i18n, "en"):
        text, keyboard = view.sphere_card(Sphere.FORCES, 2, "en")
    assert text.splitlines()[0] == "🔮 <b>Forces</b> ●● (Apprentice)"
    assert labels(keyboard)[-1] == "↩ All Spheres"


def test_the_barrier(i18n: I18n) -> None:
    flow = Flow(id="B", kind="barrier", chat_id=-1, owner_id=1, version=1, data={})
    barrier = BarrierFlow(caster="Аня", user_id=1, arete=3)
    with speaking(i18n, "ru"):
        text, keyboard = view.draw_barrier(flow, barrier, MAGE)
    assert text.splitlines() == [
        "🌫 <b>Барьер</b>: Аня · большая часть городов",
        "Арете 3к10 · сложность 7 · нужно успехов: 4",
    ]
    assert "[большая часть городов]" in labels(keyboard)
    assert buttons(keyboard)[-2:] == [("🌫 Пересечь", "br:B:1:r:0"), ("✖ Остаться", "br:B:1:x:0")]
    assert prefixes(keyboard) == {"br"}
    with speaking(i18n, "en"):
        text, keyboard = view.draw_barrier(flow, barrier, MAGE)
    assert text.splitlines()[0] == "🌫 <b>The Barrier</b>: Аня · most cities"
    assert labels(keyboard)[-2:] == ["🌫 Cross", "✖ Stay"]


def test_a_tier_4_backlash_says_for_how_many_turns_the_mage_is_out(i18n: I18n) -> None:
    """S4 «потеря сознания магом на (число успехов Отдачи) ходов»."""
    from handlers.magick.view import _tier_options
    from rules import magick

    effects = magick.backlash_effects(17)
    with speaking(i18n, "ru"):
        said = _tier_options(effects)
    assert "17 ходов" in said


def test_a_blinded_caster_sees_the_two_on_the_effect_and_the_barrier(i18n: I18n) -> None:
    """S4 «Ослепление: +2 сложности ко всем действиям» reaches /m and /barrier."""
    flow = Flow(id="B", kind="barrier", chat_id=-1, owner_id=1, version=1, data={})
    barrier = BarrierFlow(caster="Аня", user_id=1, arete=3, condition_difficulty=2)
    blind = SETUP.model_copy(update={"condition_difficulty": 2})
    with speaking(i18n, "ru"):
        crossing, _keys = view.draw_barrier(flow, barrier, MAGE)
        effect, _keys = view.draw(FLOW, blind, MAGE)
    assert "сложность 9" in crossing.splitlines()[1]
    assert "Ослепление: +2 к сложности" in crossing
    assert "сложность 8 (база 7, модификаторы −1 из ±3, ослепление +2)" in effect
