"""Celerity on the round tracker (docs/rules.md §B.13): on a vampire's declaration the
tracker offers «⚡ Стремительность», an extra action for a point of blood paid off the sheet
in the tracker's own step, up to the Discipline's dots and the Generation's blood a turn;
the extra actions come after the declared ones. A mortal is offered nothing."""

from __future__ import annotations

from rules.sheet import SheetSystem
from tests.handlers.combat.tracker.test_initiative import ANNA, BORIS, VERA, press, screen
from tests.handlers.conftest import Table, buttons


def labels(table: Table) -> list[str]:
    _mid, _text, markup = screen(table)
    return [b.text for b in buttons(markup)]


async def blood_of(table: Table) -> int | None:
    sheet = await table.store.load_sheet(table.chat.id, BORIS.id, SheetSystem.DARK_AGES)
    assert sheet is not None
    return sheet.blood


async def declaring(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/rules dark-ages")
    await table.say(BORIS, "/set ловкость 3 смекалка 2 стремительность 2 поколение 9 кровь 5")
    await table.say(VERA, "/set ловкость 2 смекалка 2")
    await table.say(BORIS, "/init")
    await table.say(VERA, "/init")
    await press(table, ANNA, "Заявки")


async def test_a_vampire_buys_extra_actions_with_blood_and_acts_them_last(table: Table) -> None:
    await declaring(table)
    _mid, text, _markup = screen(table)
    if "✍️ Вера" in text:
        assert not [b for b in labels(table) if "⚡" in b]  # a mortal: no Celerity
        await press(table, VERA, "Заявлено")
    _mid, text, _markup = screen(table)
    assert "✍️ Борис" in text
    await press(table, VERA, "⚡")  # not Вера's declaration
    assert "Рассказчик" in (table.session.answers[-1].text or "")
    await press(table, BORIS, "⚡")
    _mid, text, _markup = screen(table)
    assert "Борис тратит пункт крови на Стремительность: ещё одно действие." in text
    assert "Осталось крови: 4" in text
    assert "⚡ Стремительность +1" in text
    assert await blood_of(table) == 4
    await press(table, BORIS, "⚡")
    assert await blood_of(table) == 3
    assert not [b for b in labels(table) if "⚡" in b]  # Celerity 2: both bought
    await press(table, BORIS, "Заявлено")
    if "✍️ Вера" in screen(table)[1]:
        await press(table, VERA, "Заявлено")
    hints = []
    for _ in range(4):
        _mid, text, _markup = screen(table)
        if "🏁" in text:
            break
        hints.append("Дополнительное действие Стремительности" in text)
        acting = BORIS if "▶️ Борис" in text else VERA
        await press(table, acting, "Дальше")
    assert hints[-2:] == [True, True]  # two extra actions, after everyone's declared one
    assert hints.count(True) == 2


async def test_the_generation_bounds_the_blood_a_turn(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/rules dark-ages")
    await table.say(BORIS, "/set ловкость 3 смекалка 2 стремительность 3 поколение 12 кровь 5")
    await table.say(BORIS, "/init")
    await press(table, ANNA, "Заявки")
    await press(table, BORIS, "⚡")
    await press(table, BORIS, "⚡")
    assert "Поколение позволяет тратить не больше 1 крови за ход" in (
        table.session.answers[-1].text or ""
    )
    assert await blood_of(table) == 4


async def test_no_blood_no_extra_action(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/rules dark-ages")
    await table.say(BORIS, "/set ловкость 3 смекалка 2 стремительность 1 поколение 9 кровь 0")
    await table.say(BORIS, "/init")
    await press(table, ANNA, "Заявки")
    await press(table, BORIS, "⚡")
    assert "не осталось крови" in (table.session.answers[-1].text or "")
    assert "Стремительность +" not in screen(table)[1]
