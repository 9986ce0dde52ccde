"""/r drawn without a bot: the wizard before a pool is chosen, with a pool and the odds,
from the sheet's traits; the buttons under a result; an automatic success."""

from __future__ import annotations

from aiogram.utils.i18n import I18n

from handlers.roll import view
from handlers.roll.flow import WizardState
from rules import probability, profiles
from rules.d10 import Degree
from table.store import Flow
from tests.handlers.views import buttons, labels, prefixes, rows, speaking

MAGE = profiles.HOUSE_MAGE
POOLS = [str(n) for n in range(1, 16)]
DIFFICULTIES = ["🎯4", "🎯5", "[🎯6]", "🎯7", "🎯8", "🎯9", "🎯10"]


def test_the_wizard_before_and_after_a_pool(i18n: I18n) -> None:
    chances = probability.d10(pool=5, difficulty=7, profile=MAGE, willpower=False, threshold=0)
    with speaking(i18n, "ru"):
        empty = view.wizard_text(
            pool=None, difficulty=6, willpower=False, profile=MAGE, chances=None
        )
        sheet = view.wizard_text(
            pool=None, difficulty=6, willpower=False, profile=MAGE, chances=None, from_sheet=True
        )
        chosen = view.wizard_text(
            pool=5,
            difficulty=7,
            willpower=False,
            profile=MAGE,
            chances=chances,
            source="Ловкость 3 + Драка 2",
        )
    assert empty == "🎲 <b>Бросок</b>\nВыберите запас кубиков."
    assert sheet.startswith("🎲 <b>Бросок</b>\n")
    assert sheet != empty
    assert chosen.splitlines()[1] == "Ловкость 3 + Драка 2 → 5к10, сложность 7 (немного сложно)"
    assert chosen.splitlines()[2].startswith("Шанс успеха ")
    with speaking(i18n, "en"):
        assert view.wizard_text(
            pool=None, difficulty=6, willpower=False, profile=MAGE, chances=None
        ) == ("🎲 <b>Roll</b>\nChoose the pool (number of dice).")
        problem = view.wizard_text(
            pool=None, difficulty=6, willpower=False, profile=MAGE, chances=None, problem="No dice."
        )
    assert problem == "🎲 <b>Roll</b>\nNo dice."


def _flow() -> Flow:
    return Flow(id="F", kind="roll.wizard", chat_id=-1, owner_id=1, version=2, data={})


def test_pool_difficulty_willpower_and_roll_buttons(i18n: I18n) -> None:
    def keyboard(*, auto_success: bool = True, **changes: object) -> object:
        state = WizardState.model_validate(
            {"pool": 5, "difficulty": 6, "willpower": True, **changes}
        )
        extras = view.WizardExtras(auto_success=auto_success, ready=state.pool is not None)
        return view.wizard_keyboard(_flow(), state, MAGE, extras)

    with speaking(i18n, "ru"):
        full = keyboard()
        no_pool = keyboard(pool=None, willpower=False, auto_success=False)
        spent = keyboard(willpower_offered=False, auto_success=False)
    assert labels(full) == [
        *[("[5]" if n == "5" else n) for n in POOLS],
        *DIFFICULTIES,
        "✅ Сила Воли",
        "✨ Автоуспех",
        "🎲 Бросить",
    ]
    assert rows(full)[0] == ["1", "2", "3", "4", "[5]"]
    assert buttons(full)[-1] == ("🎲 Бросить", "r:F:2:go:0")
    assert ("✨ Автоуспех", "r:F:2:au:0") in buttons(full)
    assert ("[🎯6]", "r:F:2:d:6") in buttons(full)
    assert prefixes(full) == {"r"}
    # No pool yet: nothing to roll; Willpower unticked.
    assert labels(no_pool)[-1] == "▫️ Сила Воли"
    assert "🎲 Бросить" not in labels(no_pool)
    # No Willpower left on the sheet: no toggle at all.
    assert not any("Сила Воли" in label for label in labels(spent))
    with speaking(i18n, "en"):
        assert labels(keyboard())[-3:] == ["✅ Willpower", "✨ Automatic success", "🎲 Roll!"]


def test_the_sheets_traits_with_dice_to_add_and_a_recent_pool(i18n: I18n) -> None:
    traits = [view.TraitButton(0, "Ловкость 3", True), view.TraitButton(5, "Драка 2", False)]
    state = WizardState(
        pool=None, difficulty=6, willpower=False, willpower_offered=False, modifier=1
    )
    extras = view.WizardExtras(traits=traits, recent=["ловк+драка 6"], ready=True)
    with speaking(i18n, "en"):
        keyboard = view.wizard_keyboard(_flow(), state, MAGE, extras)
    assert buttons(keyboard)[:3] == [
        ("⭐ ловк+драка 6", "r:F:2:rp:0"),
        ("✅ Ловкость 3", "r:F:2:t:0"),
        ("Драка 2", "r:F:2:t:5"),
    ]
    assert rows(keyboard)[2] == ["-2", "-1", "±0", "[+1]", "+2", "+3"]
    assert buttons(keyboard)[-1] == ("🎲 Roll!", "r:F:2:go:0")
    assert not any(label in POOLS for label in labels(keyboard))  # traits replace the pools


def test_under_a_result_and_an_automatic_success(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        assert buttons(view.result_keyboard("F", 2, retry=True)) == [
            ("🔁 Ещё раз", "r:F:2:re:0"),
            ("⏳ Продлить", "r:F:2:ex:0"),
        ]
        assert labels(view.result_keyboard("F", 2, retry=False)) == ["⏳ Продлить"]
        assert buttons(view.extend_targets_keyboard("F", 2))[0] == ("🎯3", "r:F:2:ex:3")
        auto = view.auto_success_text(
            pool=6,
            difficulty=6,
            roller="Аня & <к>",
            profile=MAGE,
            degree=Degree.MARGINAL,
            willpower_left=(3, 5),
            source="Ловкость 3",
        )
    assert auto.splitlines() == [
        "🎲 Аня &amp; &lt;к&gt;: Ловкость 3 → 6к10, сложность 6 (стандартно)",
        "<b>Автоуспех</b>: 1 успех",
        "Сила Воли: осталось 3 из 5",
    ]
    with speaking(i18n, "en"):
        assert labels(view.result_keyboard("F", 2, retry=True)) == ["🔁 Try again", "⏳ Extend"]
        assert view.example_text().startswith("Example: /r 7 6 (7 dice, difficulty 6)")
        assert view.help_lines(MAGE).startswith("/r 7 — 7 dice at the default difficulty (6)")


def test_a_dark_ages_automatic_success_says_it_is_dubious(i18n: I18n) -> None:
    """S1 «Такой успех считается сомнительным (как при получении одного успешного балла)»."""
    with speaking(i18n, "ru"):
        auto = view.auto_success_text(
            pool=6, difficulty=6, roller="Аня", profile=profiles.DARK_AGES, degree=Degree.MARGINAL
        )
    assert auto.splitlines()[1] == "<b>Автоуспех</b>: сомнительный успех, 1 успех"
