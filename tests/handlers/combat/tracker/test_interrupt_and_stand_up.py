"""The round tracker's Interruption and standing up from a knockdown (docs/rules.md §B.3, §B.8).

S4 «Прерывание - отмена не разыгранных действий в обмен на любой защитный манёвр (бросок Силы
Воли или трата 1 Силы Воли)»; «Чтобы сразу подняться - Ловкость + Атлетизм, с -2 к
инициативе, при неудаче лежащий тратит целое действие, вставая на ноги, при провале ещё и
получает 1 Ударный Урон».
"""

from __future__ import annotations

import re

from rules.combat.situation import Condition
from rules.health import DamageType
from rules.sheet import SheetSystem
from tests.handlers.combat.tracker.test_initiative import ANNA, BORIS, VERA, data_of, press, screen
from tests.handlers.conftest import Table, buttons, player
from tests.handlers.dealt import Dealt


async def resolving(table: Table, *, knocked_down: bool = False) -> None:
    """Борис (initiative 9) acts first, Вера (3) after him; Вера has Willpower 3."""
    table.session.admins.add(ANNA.id)
    await table.say(BORIS, "/set ловкость 4 атлетизм 1 выносливость 2")
    await table.say(VERA, "/set сила воли 3")
    await table.say(BORIS, "/init 9")
    await table.say(VERA, "/init 1")
    if knocked_down:
        await press(table, ANNA, "Состояния")
        await press(table, ANNA, "Борис")
        await press(table, ANNA, "нокдаун")
        await press(table, ANNA, "Назад")
    await press(table, ANNA, "Заявки")
    await press(table, VERA, "Заявлено")
    await press(table, BORIS, "Заявлено")
    _mid, text, _markup = screen(table)
    assert "▶️ Борис действует" in text


def labels(table: Table) -> list[str]:
    _mid, _text, markup = screen(table)
    return [b.text for b in buttons(markup)]


async def willpower(table: Table) -> tuple[int | None, int | None]:
    sheet = await table.store.load_sheet(table.chat.id, VERA.id, SheetSystem.MAGE)
    assert sheet is not None
    return sheet.willpower_current, sheet.willpower


async def test_an_interruption_by_willpower_drops_the_declared_action(table: Table) -> None:
    await resolving(table)
    await press(table, VERA, "Прерывание")  # any player may open the panel
    _mid, text, _markup = screen(table)
    assert "Бросок Силы Воли на сложности 6 (хватит одного успеха)" in text
    assert labels(table)[:2] == [
        "🎲 Вера: бросок Силы Воли",
        "✨ Вера: −1 Сила Воли",
    ]  # not Борис: he acts
    await press(table, BORIS, "🎲 Вера")  # not Борис's Willpower
    assert "Рассказчик" in (table.session.answers[-1].text or "")
    table.rng = Dealt([8, 2, 2])
    await press(table, VERA, "🎲 Вера")
    _mid, text, _markup = screen(table)
    assert "Прерывание: Вера бросает Силу Воли: <b>8</b> 2 2 — 1 успех" in text
    assert "Вера прерывает: заявленные действия отменены" in text
    assert "✓ Вера" in text
    assert "Прерывание" not in " ".join(labels(table))  # nobody else may interrupt
    assert await willpower(table) == (3, 3)  # a roll spends nothing
    await press(table, BORIS, "Дальше")
    _mid, text, _markup = screen(table)
    assert "🏁" in text  # Вера's declared action went with the interruption
    assert "Прерывание:" not in text  # the note lasts one step


async def test_a_failed_interruption_leaves_the_round_as_declared(table: Table) -> None:
    await resolving(table)
    await press(table, VERA, "Прерывание")
    table.rng = Dealt([5, 2, 2])
    await press(table, VERA, "🎲 Вера")
    _mid, text, _markup = screen(table)
    assert "5 2 2 — 0 успехов" in text
    assert "Прервать не удалось: Вера действует как заявлено." in text
    assert "✓ Вера" not in text
    await press(table, BORIS, "Дальше")
    _mid, text, _markup = screen(table)
    assert "▶️ Вера действует" in text


async def test_spending_willpower_interrupts_and_costs_one_point_once(table: Table) -> None:
    await resolving(table)
    await press(table, VERA, "Прерывание")
    mid, _text, _markup = screen(table)
    data = data_of(table, "−1 Сила Воли")
    await table.tap(VERA, data, mid)
    _mid, text, _markup = screen(table)
    assert "Прерывание: Вера тратит пункт Силы Воли. Сила Воли: осталось 2 из 3" in text
    assert "✓ Вера" in text
    await table.tap(VERA, data, mid)  # a double tap spends nothing more
    assert "Уже учтено" in (table.session.answers[-1].text or "")
    assert await willpower(table) == (2, 3)


async def test_no_interruption_without_willpower_or_when_spending_is_off(table: Table) -> None:
    await resolving(table)
    await table.say(ANNA, "/rules set combat.interruption_by_wp_spend=off")
    await press(table, VERA, "Прерывание")
    _mid, text, _markup = screen(table)
    assert "Только броском Силы Воли на сложности 6" in text
    assert not any("−1 Сила Воли" in label for label in labels(table))
    await press(table, ANNA, "Назад")  # the Storyteller plays an NPC without a sheet
    await table.say(ANNA, "/init npc Гуль 2")
    _mid, text, _markup = screen(table)
    assert "Гуль" in text
    await press(table, VERA, "Прерывание")
    assert not any("Гуль" in label for label in labels(table))  # acts from the next round


async def test_a_player_without_willpower_on_the_sheet_cannot_roll_it(table: Table) -> None:
    table.session.admins.add(ANNA.id)
    await table.say(BORIS, "/init 9")
    await table.say(player(4, "Глеб"), "/init 1")
    await press(table, ANNA, "Заявки")
    await press(table, ANNA, "Заявлено")
    await press(table, ANNA, "Заявлено")
    await press(table, ANNA, "Прерывание")
    await press(table, ANNA, "🎲 Глеб")  # the Storyteller may press for anyone
    assert "на листе нет Силы Воли" in (table.session.answers[-1].text or "")
    _mid, text, _markup = screen(table)
    assert "✓ Глеб" not in text


async def test_standing_up_at_once_keeps_the_action_at_minus_two(table: Table) -> None:
    await resolving(table, knocked_down=True)
    assert "🧍 Встать" in labels(table)
    await press(table, VERA, "Встать")  # Борис gets himself up
    assert "Рассказчик" in (table.session.answers[-1].text or "")
    table.rng = Dealt([8, 2, 2, 2, 2, 9])
    mid, _text, _markup = screen(table)
    data = data_of(table, "Встать")
    await table.tap(BORIS, data, mid)
    _mid, text, _markup = screen(table)
    assert "Борис встаёт после нокдауна — Ловкость + Атлетизм: <b>8</b> 2 2 2 2 — 1 успех" in text
    assert "Борис сразу на ногах и сохраняет действие, с −2 к инициативе." in text
    line = next(x for x in text.splitlines() if x.startswith("1. ▶️ Борис"))
    assert re.search(r"\(9\+🎲\d+−2\)$", line), line  # up, at −2 initiative, no knockdown
    assert "▶️ Борис действует" in text
    assert "🧍 Встать" not in labels(table)
    await table.tap(BORIS, data, mid)  # the same press again
    assert "Уже учтено" in (table.session.answers[-1].text or "")
    assert table.rng.faces == [9]  # type: ignore[attr-defined]
    sheet = await table.store.load_sheet(table.chat.id, BORIS.id, SheetSystem.MAGE)
    assert sheet is not None
    assert Condition.PRONE not in sheet.conditions


async def test_a_botched_stand_up_costs_the_action_and_a_bashing_level(table: Table) -> None:
    await resolving(table, knocked_down=True)
    table.rng = Dealt([1, 2, 2, 2, 2])
    await press(table, BORIS, "Встать")
    _mid, text, _markup = screen(table)
    assert "на это уходит всё действие" in text
    assert "Провал: Борис получает 1 уровень ударного урона, без поглощения." in text
    assert "▶️ Вера действует" in text
    sheet = await table.store.load_sheet(table.chat.id, BORIS.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.health.boxes == (DamageType.BASHING,)
    assert Condition.PRONE not in sheet.conditions


async def test_no_stand_up_without_the_dice(table: Table) -> None:
    await resolving(table, knocked_down=True)
    await table.say(BORIS, "/set атлетизм 0")
    table.rng = Dealt([9, 9, 9])
    await press(table, BORIS, "Встать")
    assert "сразу подняться не выйдет" in (table.session.answers[-1].text or "")
    assert table.rng.faces == [9, 9, 9]  # type: ignore[attr-defined]
    _mid, text, _markup = screen(table)
    assert "· нокдаун" in text


async def test_wounds_take_dice_off_standing_up(table: Table) -> None:
    """AMB-B17: wound penalties reduce action pools; Ушибы take one die of five."""
    await resolving(table, knocked_down=True)
    await table.say(BORIS, "/dmg 2 b")
    table.rng = Dealt([8, 2, 2, 2, 9])
    await press(table, BORIS, "Встать")
    _mid, text, _markup = screen(table)
    assert "Ловкость + Атлетизм: <b>8</b> 2 2 2 — 1 успех" in text
    assert table.rng.faces == [9]  # type: ignore[attr-defined]
