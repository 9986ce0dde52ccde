"""The /r wizard on a Dark Ages sheet: besides Attributes and Abilities, the buttons a vampire
rolls by — the Virtues, Humanity and the Disciplines — and a forged button for a trait no
wizard rolls (the blood pool) changes nothing."""

from __future__ import annotations

from handlers.roll.callbacks import RollAction
from rules.sheet import Attribute, Discipline, SheetSystem, Stat, Virtue, catalogue
from tests.handlers.conftest import Table, buttons, player
from tests.handlers.roll.test_sheet_rolls import wizard_data

ANNA = player(1, "Anna")
DA = SheetSystem.DARK_AGES


async def test_virtues_humanity_and_disciplines_are_buttons(table: Table) -> None:
    await table.store.update_chat(table.chat.id, profile="dark-ages")
    await table.say(ANNA, "/set ловкость 3 совесть 3 храбрость 2 человечность 7 мощь 2 кровь 9")
    await table.say(ANNA, "/r")
    wizard = table.session.messages[-1].message_id
    shown = [b.text for b in buttons(table.session.sent[-1].reply_markup)]
    for label in ("Ловкость 3", "Совесть 3", "Храбрость 2", "Человечность 7", "Мощь 2"):
        assert label in shown
    assert not any(text.startswith("Запас крови") for text in shown)
    codes = catalogue(DA)
    await table.tap(ANNA, wizard_data(table, RollAction.TRAIT, codes.index(Virtue.COURAGE)), wizard)
    assert "Храбрость 2 → 2к10" in table.session.edits[-1].text
    await table.tap(ANNA, wizard_data(table, RollAction.TRAIT, codes.index(Virtue.COURAGE)), wizard)
    await table.tap(ANNA, wizard_data(table, RollAction.TRAIT, codes.index(Stat.HUMANITY)), wizard)
    assert "Человечность 7 → 7к10" in table.session.edits[-1].text
    await table.tap(ANNA, wizard_data(table, RollAction.TRAIT, codes.index(Stat.HUMANITY)), wizard)
    potence = codes.index(Discipline.POTENCE)
    dexterity = codes.index(Attribute.DEXTERITY)
    await table.tap(ANNA, wizard_data(table, RollAction.TRAIT, dexterity), wizard)
    await table.tap(ANNA, wizard_data(table, RollAction.TRAIT, potence), wizard)
    assert "Ловкость 3 + Мощь 2 → 5к10" in table.session.edits[-1].text
    edits = len(table.session.edits)
    # A forged button for the blood pool: refused, the wizard as it was.
    forged = wizard_data(table, RollAction.TRAIT, potence).replace(
        f":{potence}", f":{codes.index(Stat.BLOOD)}"
    )
    await table.tap(ANNA, forged, wizard)
    assert len(table.session.edits) == edits
    assert table.session.answers[-1].show_alert
