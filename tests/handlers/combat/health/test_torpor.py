"""Torpor (docs/rules.md §B.13 [P]): a vampire brought to «Без Сознания» lies in torpor, and
bashing or lethal past it never kills; the sheet, /hp and the tracker say so, the fight
passes them over, and blood that mends a level wakes them."""

from __future__ import annotations

from rules.sheet import SheetSystem
from tests.handlers.combat.tracker.test_initiative import ANNA, BORIS, VERA, press, screen
from tests.handlers.conftest import Table


async def test_a_vampire_past_incapacitated_lies_in_torpor_and_blood_wakes_them(
    table: Table,
) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/rules dark-ages")
    await table.say(BORIS, "/set ловкость 3 смекалка 2 поколение 9 кровь 6")
    await table.say(VERA, "/set ловкость 2 смекалка 2")
    await table.say(BORIS, "/init")
    await table.say(VERA, "/init")
    await table.say(BORIS, "/dmg 9 л")  # two past «Без Сознания»: a mortal would be dead
    sheet = await table.store.load_sheet(table.chat.id, BORIS.id, SheetSystem.DARK_AGES)
    assert sheet is not None
    assert not sheet.health.dead
    await table.say(BORIS, "/hp")
    said = table.session.sent[-1].text
    assert "💤 Торпор" in said
    assert "В торпоре: в бою ход пропускается" in said
    assert "Мёртв" not in said
    _mid, text, _markup = screen(table)
    assert "💤 Торпор" in text
    assert "ход пропускается" in text
    await press(table, ANNA, "Заявки")
    _mid, text, _markup = screen(table)
    assert "✍️ Вера" in text  # Борис declares nothing
    await press(table, VERA, "Заявлено")
    _mid, text, _markup = screen(table)
    assert "▶️ Вера" in text  # and acts in no slot
    await table.say(BORIS, "/heal 2")
    _mid, text, _markup = screen(table)
    assert "ход пропускается" not in text
    await table.say(BORIS, "/sheet")
    assert "Торпор" not in table.session.sent[-1].text


async def test_aggravated_past_a_full_track_of_aggravated_is_final_death(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/rules dark-ages")
    await table.say(BORIS, "/set поколение 12 кровь 4")
    await table.say(BORIS, "/dmg 7 т")
    await table.say(BORIS, "/sheet")
    assert "💤 Торпор" in table.session.sent[-1].text
    await table.say(BORIS, "/dmg 1 т")
    sheet = await table.store.load_sheet(table.chat.id, BORIS.id, SheetSystem.DARK_AGES)
    assert sheet is not None
    assert sheet.health.dead
