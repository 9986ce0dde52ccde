"""d6 wounds drawn for each state of a sheet without a bot (ARCHITECTURE.md: a view is a pure
function of its state); test_d6wounds.py types the commands that reach them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from aiogram.utils.i18n import I18n

from bot import render
from handlers.d6combat.wounds import view
from rules import profiles
from rules.d6.chance import DifficultyKind
from rules.sheet import add_wound, new_sheet

D6 = profiles.get("d6")
WOUNDED = add_wound(
    add_wound(new_sheet("d6"), DifficultyKind.PHYSICAL_WOUND, 2), DifficultyKind.MENTAL_WOUND, 1
)


@pytest.fixture(autouse=True)
def russian(i18n: I18n) -> Iterator[None]:
    with i18n.context(), i18n.use_locale("ru"):
        yield


def test_a_wound_lists_every_wound_on_the_sheet_and_helplessness() -> None:
    text = view.wounded_text("Том & Джерри", DifficultyKind.PHYSICAL_WOUND, 2, WOUNDED)
    assert text.splitlines() == [
        "Том &amp; Джерри: телесная рана тяжестью 2.",
        "Раны: 1) телесная рана −2, 2) душевная рана −1",
    ]
    helpless = view.wounded_text("Аня", DifficultyKind.MENTAL_WOUND, 1, WOUNDED, helpless=True)
    assert helpless.splitlines()[-1] == render.helpless_text()


def test_healing_and_hp_with_and_without_wounds() -> None:
    assert view.healed_text("Аня", new_sheet("d6")).splitlines() == [
        "Аня: одна рана зажила.",
        "Ран нет.",
    ]
    assert view.hp_text("Бандит <1>", WOUNDED, D6, helpless=False).splitlines() == [
        "<b>Бандит &lt;1&gt;</b>",
        "Раны: 1) телесная рана −2, 2) душевная рана −1",
        "Каждый шанс у персонажа меньше на 3.",
    ]
    assert view.hp_text("Аня", None, D6, helpless=True).splitlines() == [
        "<b>Аня</b>",
        "Ран нет.",
        render.helpless_text(),
    ]
