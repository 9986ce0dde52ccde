"""The d6 roll drawn without a bot: the wizard with a sheet's powers or bare chances, the odds,
a result, a fiasco, an automatic success, the special effort and its prices."""

from __future__ import annotations

from aiogram.utils.i18n import I18n

from handlers.d6roll import view
from handlers.d6roll.flow import D6RollState
from rules import d6, profiles
from rules import sheet as sheets
from rules.sheet import D6Field, SheetSystem
from tests.handlers.views import buttons, labels, prefixes, rows, speaking

D6 = profiles.D6
SHEET = sheets.set_trait(
    sheets.set_weakness(
        sheets.set_power(
            sheets.set_power(sheets.new_sheet(SheetSystem.D6), "Сила", 2), "Ловкость", 3
        ),
        2,
    ),
    D6Field.LUCK,
    1,
)
STRICT = D6.model_copy(
    update={"d6": D6.d6.model_copy(update={"special_effort_noop_allowed": False})}
)
FRESH = D6RollState(roller="Аня & <к>")
CHOSEN = D6RollState(
    roller="Аня & <к>", powers=("Ловкость",), chance=3, label="Ловкость", required=2
)
ROLLED = CHOSEN.model_copy(update={"result": d6.roll(3, required=2, faces=(6, 2, 1))})


def test_the_wizard_before_and_after_a_chance(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        empty = view.wizard_text(FRESH, None, None)
        from_sheet = view.wizard_text(FRESH, None, None, powers=True)
        chosen = view.wizard_text(CHOSEN, 3, None, profile=D6)
        problem = view.wizard_text(FRESH, None, "Нет такой силы.")
    assert empty.splitlines() == [
        "🎲 <b>Аня &amp; &lt;к&gt;</b> — бросок d6",
        "Выберите силы, которые нужны для действия, или шанс.",
    ]
    assert from_sheet.endswith("\nВыберите силы, которые нужны для действия.")
    assert chosen.splitlines()[1:] == [
        "Шанс: Ловкость = 3",
        "Нужно мер успеха: 2",
        "Успех 25,9% · фиаско 29,6% · с особым усилием 58,3%",
    ]
    assert problem.endswith("\nНет такой силы.")
    with speaking(i18n, "en"):
        chosen = view.wizard_text(CHOSEN, 3, None, profile=D6)
    assert chosen.splitlines() == [
        "🎲 <b>Аня &amp; &lt;к&gt;</b> — a d6 roll",
        "Chance: Ловкость = 3",
        "Measures needed: 2",
        "Success 25.9% · fiasco 29.6% · with a special effort 58.3%",
    ]


def test_the_sheets_powers_weakness_and_luck(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        keyboard = view.wizard_keyboard("F", 2, CHOSEN, SHEET, True)
    assert rows(keyboard) == [
        ["Сила 2", "✅ Ловкость 3"],
        ["🚫 Без силы", "Слабость −2", "✅🍀0", "🍀1"],
        ["-3", "-2", "-1", "✅±0", "+1", "+2", "+3"],
        ["1 мера", "✅ 2 меры", "3 меры", "4 меры"],
        ["🎲 Бросить"],
    ]
    assert buttons(keyboard)[1] == ("✅ Ловкость 3", "d6:F:2:pw:1")
    assert buttons(keyboard)[-1] == ("🎲 Бросить", "d6:F:2:go:0")
    assert prefixes(keyboard) == {"d6"}
    with speaking(i18n, "en"):
        keyboard = view.wizard_keyboard("F", 2, CHOSEN, SHEET, True)
    assert rows(keyboard)[1][:2] == ["🚫 No power", "Weakness −2"]
    assert rows(keyboard)[3] == ["1 measure", "✅ 2 measures", "3 measures", "4 measures"]
    assert labels(keyboard)[-1] == "🎲 Roll!"


def test_without_a_sheet_the_chances_are_numbers_and_nothing_to_roll_yet(i18n: I18n) -> None:
    with speaking(i18n, "en"):
        keyboard = view.wizard_keyboard("F", 2, FRESH, None, False)
    assert rows(keyboard)[:2] == [[str(n) for n in range(1, 7)], [str(n) for n in range(7, 13)]]
    assert buttons(keyboard)[0] == ("1", "d6:F:2:c:1")
    assert "🎲 Roll!" not in labels(keyboard)
    assert not any("Weakness" in label or "🍀" in label for label in labels(keyboard))


def test_a_result_and_its_special_effort(i18n: I18n) -> None:
    choosing = ROLLED.model_copy(update={"choosing": True})
    with speaking(i18n, "ru"):
        text = view.result_text(ROLLED, 2, D6)
        offer = view.result_keyboard("F", 3, ROLLED, D6)
        prices = view.result_keyboard("F", 3, choosing, D6)
    assert text.splitlines() == [
        "🎲 Аня &amp; &lt;к&gt;: шанс 3к6 (Ловкость), нужно мер успеха: 2",
        "<b>6</b> 2 1",
        "<b>Недостаточно</b>: 1 мера успеха · выигрыш 1",
    ]
    assert buttons(offer) == [("💪 Особое усилие", "d6:F:3:ef:0")]
    assert buttons(prices) == [
        ("Телесная рана 1", "d6:F:3:ef:1"),
        ("Душевная рана 3", "d6:F:3:ef:2"),
        ("Воспоминание", "d6:F:3:ef:3"),
        ("↩ Назад", "d6:F:3:bk:0"),
    ]
    with speaking(i18n, "en"):
        assert labels(view.result_keyboard("F", 3, choosing, D6)) == [
            "A physical wound 1",
            "A mental wound 3",
            "A memory",
            "↩ Back",
        ]
        assert view.result_text(ROLLED, 2, D6).splitlines()[2] == (
            "<b>Not enough</b>: 1 measure of success · gain 1"
        )


def test_a_fiasco_and_an_automatic_success(i18n: I18n) -> None:
    fiasco = D6RollState(roller="Борис", chance=2, result=d6.roll(2, faces=(2, 1)))
    auto = D6RollState(roller="Борис", label="Сила", result=d6.auto_success())
    all_measures = D6RollState(roller="Борис", chance=2, result=d6.roll(2, faces=(6, 5)))
    with speaking(i18n, "ru"):
        text = view.result_text(fiasco, 2, D6)
        auto_text = view.result_text(auto, None, D6)
        assert view.result_keyboard("F", 3, auto, D6) is None  # nothing to reroll
        # Every die a measure: an effort rerolls nothing, offered only where the chat allows.
        assert labels(view.result_keyboard("F", 3, all_measures, D6)) == ["💪 Особое усилие"]
        assert view.result_keyboard("F", 3, all_measures, STRICT) is None
    assert text.splitlines() == [
        "🎲 Борис: шанс 2к6",
        "2 1",
        "<b>Фиаско</b>",
        "Осложнение: рана тяжестью 2, качество предмета −2 или готовность замысла −2.",
    ]
    assert auto_text == "✅ Борис: без броска (Сила)\n<b>Автоуспех</b>: выигрыш считается равным 1"
    with speaking(i18n, "en"):
        assert view.result_text(auto, None, D6) == (
            "✅ Борис: no roll needed (Сила)\n<b>Automatic success</b>: the gain counts as 1"
        )
        assert view.result_text(fiasco, 2, D6).endswith(
            "A complication: a wound of severity 2, an item's quality −2, or a project's "
            "readiness −2."
        )
