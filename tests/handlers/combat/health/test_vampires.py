"""A vampire's wounds in chat (docs/rules.md §B.13): ``/dmg`` offers Stamina + Fortitude against
lethal, ``/heal`` spends blood at the Generation's rate, ``/hp`` never sends a vampire to
Medicine; a mortal in the same chat keeps the mortal rules."""

from __future__ import annotations

from rules.sheet import SheetSystem
from tests.handlers.conftest import Table, player
from tests.handlers.dealt import Dealt

ANNA = player(1, "Anna")  # a chat administrator
BORIS = player(2, "Boris")  # a player


async def test_a_vampire_soaks_lethal_and_mends_with_blood(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/rules dark-ages")
    await table.say(BORIS, "/set выносливость 2 стойкость 1 поколение 9 кровь 10")
    await table.say(BORIS, "/dmg 4 л")
    said = table.session.sent[-1].text
    assert "3к10" in said  # Stamina 2 + Fortitude 1 against lethal
    assert "Медицина" not in said
    assert "/heal" in said
    await table.say(BORIS, "/heal 4")
    said = table.session.sent[-1].text
    assert "Boris залечивает 2 уровня." in said  # the 9th Generation: two a turn
    assert "Потрачено крови: 2." in said
    assert "Поколение позволяет тратить 2 крови за ход" in said
    sheet = await table.store.load_sheet(table.chat.id, BORIS.id, SheetSystem.DARK_AGES)
    assert sheet is not None
    assert sheet.blood == 8
    assert len(sheet.health.boxes) == 2


async def test_an_aggravated_wound_takes_five_blood(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/rules dark-ages")
    await table.say(BORIS, "/set поколение 12 кровь 4")
    await table.say(BORIS, "/dmg 1 т")
    assert "5 крови и день отдыха" in table.session.sent[-1].text
    await table.say(BORIS, "/heal")
    assert "нужно 5. Ничего не потрачено" in table.session.sent[-1].text
    await table.say(BORIS, "/blood +1")
    await table.say(BORIS, "/heal")
    said = table.session.sent[-1].text
    assert "Потрачено крови: 5." in said
    assert "день отдыха" in said


async def test_a_mortal_in_a_vampires_chat_stays_mortal(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/rules dark-ages")
    await table.say(BORIS, "/set выносливость 2 стойкость 1 поколение 9 кровь 10")
    await table.say(ANNA, "/set выносливость 3")
    await table.say(ANNA, "/dmg 3 л")
    said = table.session.sent[-1].text
    assert "к10" not in said  # no soak of lethal for a mortal
    assert "Медицина" in said
    table.rng = Dealt([2], seed=1)
    await table.say(ANNA, "/heal")
    assert "Anna восстанавливает 1 уровень." in table.session.sent[-1].text


async def test_hp_all_shows_every_fighter(table: Table) -> None:
    await table.say(ANNA, "/hp все")
    assert "/hp" in table.session.sent[-1].text  # no fight on
    await table.say(ANNA, "/set ловкость 2 смекалка 2")
    await table.say(BORIS, "/set ловкость 3 смекалка 2")
    await table.say(ANNA, "/init")
    await table.say(BORIS, "/init")
    await table.say(BORIS, "/dmg 2 л")
    await table.say(ANNA, "/hp все")
    said = table.session.sent[-1].text
    assert "<b>Anna</b>" in said
    assert "<b>Boris</b>" in said
    assert said.count("Здоровье") == 2
