"""Character sheets drawn without a bot: a sheet in each game, an empty one, the editor's
categories, traits and values, the export, the Storyteller's roster and its pages."""

from __future__ import annotations

from aiogram.utils.i18n import I18n

from handlers.sheet import view
from handlers.sheet.callbacks import Category
from rules import profiles
from rules import sheet as sheets
from rules.sheet import Ability, Attribute, SheetSystem
from tests.handlers.views import buttons, labels, prefixes, speaking

MAGE = sheets.set_willpower(
    sheets.set_trait(
        sheets.set_trait(sheets.new_sheet(SheetSystem.MAGE), Attribute.DEXTERITY, 3),
        Ability.BRAWL,
        2,
    ),
    5,
    3,
)
D6 = sheets.set_power(sheets.new_sheet(SheetSystem.D6), "Сила", 2)
EMPTY = sheets.new_sheet(SheetSystem.MAGE)


def test_a_sheet_in_each_game_and_an_empty_one(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        mage = view.sheet_text(MAGE, "Аня & <к>", "ru", profile=profiles.HOUSE_MAGE)
        revised = view.sheet_text(MAGE, "Аня", "ru", profile=profiles.MAGE_REVISED)
        bare = view.sheet_text(MAGE, "Аня", "ru")
        empty = view.sheet_text(EMPTY, "Аня", "ru")
        d6 = view.sheet_text(D6, "Борис", "ru", profile=profiles.D6)
    assert mage.splitlines() == [
        "📜 <b>Аня &amp; &lt;к&gt;</b> — лист персонажа, Маг (домашние правила)",
        "<b>Атрибуты</b>",
        "Физические: Ловкость 3",
        "<b>Способности</b>: Драка 2",
        "<b>Сила Воли</b>: 3 из 5",
    ]
    # the chat's game, not the house sheet's name in a Revised chat
    assert revised.splitlines()[0].endswith("лист персонажа, Маг: Восхождение (Revised)")
    assert bare.splitlines()[0].endswith("лист персонажа, Маг")
    assert empty.endswith("\nЛист пуст. Задайте черты: /set ловкость 3 драка 2")
    assert d6.splitlines()[1] == "<b>Силы</b>: Сила 2"
    with speaking(i18n, "en"):
        mage = view.sheet_text(MAGE, "Ann", "en")
        d6 = view.sheet_text(D6, "Bo", "en", profile=profiles.D6)
    assert mage.splitlines()[1:] == [
        "<b>Attributes</b>",
        "Physical: Dexterity 3",
        "<b>Abilities</b>: Brawl 2",
        "<b>Willpower</b>: 3 of 5",
    ]
    assert d6 == "📜 <b>Bo</b> — character sheet, Narrative d6 system\n<b>Powers</b>: Сила 2"


def test_the_editor_from_categories_to_a_value(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        top_text = view.editor_text(MAGE, "Аня", "ru", None, None)
        top = view.editor_keyboard("F", 2, MAGE, "ru", None, None)
        spheres = view.editor_keyboard("F", 2, MAGE, "ru", Category.SPHERES, None)
        advantages = view.editor_keyboard("F", 2, MAGE, "ru", Category.ADVANTAGES, None)
        value_text = view.editor_text(MAGE, "Аня", "ru", None, Attribute.DEXTERITY.value)
    assert top_text.endswith("\n\n✏️ Выберите, что изменить.")
    assert buttons(top) == [
        ("Атрибуты", "sh:F:2:c:at:0"),
        ("Способности", "sh:F:2:c:ab:0"),
        ("Сила Воли и прочее", "sh:F:2:c:ad:0"),
        ("Сферы", "sh:F:2:c:sp:0"),
        ("✅ Готово", "sh:F:2:d::0"),
    ]
    assert labels(spheres)[:3] == ["Связи", "Энтропия", "Силы"]
    assert buttons(spheres)[0] == ("Связи", "sh:F:2:t:correspondence:0")
    assert labels(spheres)[-2:] == ["⬅️ Назад", "✅ Готово"]
    # Willpower set: its current points get a button of their own.
    assert buttons(advantages)[:2] == [
        ("Сила Воли", "sh:F:2:t:willpower:0"),
        ("Сила Воли (текущая)", f"sh:F:2:t:{view.WP_CURRENT}:0"),
    ]
    assert value_text.endswith("✏️ Ловкость: выберите значение (сейчас 3).")
    assert prefixes(top) == {"sh"}
    with speaking(i18n, "en"):
        values = view.editor_keyboard("F", 2, MAGE, "en", None, Attribute.DEXTERITY.value)
        current = view.editor_text(MAGE, "Ann", "en", None, view.WP_CURRENT)
        points = view.editor_keyboard("F", 2, MAGE, "en", None, view.WP_CURRENT)
    assert labels(values) == ["0", "1", "2", "• 3 •", "4", "5", "⬅️ Back", "✅ Done"]
    assert buttons(values)[3] == ("• 3 •", "sh:F:2:x:dexterity:3")
    assert current.endswith("✏️ Willpower (current): choose the value (now 3).")
    assert labels(points)[:6] == ["0", "1", "2", "• 3 •", "4", "5"]  # 0 to the permanent 5


def test_export_and_the_roster(i18n: I18n) -> None:
    players = [("Аня", MAGE), ("Борис", EMPTY)]
    with speaking(i18n, "ru"):
        export = view.export_text(MAGE, "Аня", "ru")
        roster, keyboard = view.roster_page(players, "ru", "📜", [("Гро & м", MAGE)])
        nobody, _none = view.roster_page([], "ru", "📜")
    assert export.endswith("\n<pre>Ловкость 3\nДрака 2\nСила Воли 3/5</pre>")
    assert roster.splitlines() == [
        "📜 <b>Аня</b>: Ловкость 3 · Драка 2 · Сила Воли 3/5",
        "📜 <b>Борис</b>: —",
        "🎭 <b>Гро &amp; м</b>: Ловкость 3 · Драка 2 · Сила Воли 3/5",
    ]
    assert keyboard is None  # one page
    assert nobody.startswith("В этом чате пока нет листов")
    many = [(f"Игрок {n}", MAGE) for n in range(200)]
    with speaking(i18n, "en"):
        first, first_keys = view.roster_page(many, "en", "📜")
        second, second_keys = view.roster_page(many, "en", "📜", page=1, npc_only=True)
    assert "Page 1 of " in first.splitlines()[-1]
    assert buttons(first_keys) == [("Next ➡", "ro:1:0")]
    assert "Page 2 of " in second.splitlines()[-1]
    assert buttons(second_keys)[0] == ("⬅ Back", "ro:0:1")


def test_the_d6_game_is_shown_its_own_traits_in_every_example(i18n: I18n) -> None:
    """A d6 sheet has no Dexterity, Brawl or Willpower: its examples name its own traits."""
    empty_d6 = sheets.new_sheet(SheetSystem.D6)
    with speaking(i18n, "ru"):
        sheet = view.sheet_text(empty_d6, "Борис", "ru", profile=profiles.D6)
        export = view.export_text(empty_d6, "Борис", "ru")
        nothing = view.empty_set_text(SheetSystem.D6)
        nobody, _none = view.roster_page([], "ru", "📜", d6=True)
        d10 = view.empty_set_text(SheetSystem.MAGE)
    assert sheet.endswith("\nЛист пуст. Задайте черты: /set огонь 2 слабость 3")
    assert export.endswith("\nЛист пуст. Задайте черты: /set огонь 2 слабость 3")
    for text in (nothing, nobody):
        assert "Пример: /set огонь 2 слабость 3 — или просто /set для кнопок" in text
        assert "ловкость" not in text
    assert "Пример: /set ловкость 3 драка 2" in d10
    with speaking(i18n, "en"):
        assert view.empty_set_text(SheetSystem.D6).endswith(
            "Example: /set fire 2 weakness 3 — or /set alone for buttons; several lines at "
            "once: /sheet set, then one trait per line."
        )
