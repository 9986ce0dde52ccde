"""A point of Willpower once a turn in a fight, across /r, its buttons, /m and the tracker's
Interruption (docs/rules.md §A.7: S0 «Вы можете сделать это только один раз за ход»).

The fight's round is the turn: a point spent on a roll is marked on the round in the roll's
own transaction, and a second point in the same round, however it is asked for, is refused
with nothing paid. Outside a fight there is no turn and no limit.
"""

from __future__ import annotations

from rules.sheet import SheetSystem
from tests.handlers.combat.tracker.test_initiative import ANNA, BORIS, VERA, press, screen
from tests.handlers.combat.tracker.test_interrupt_and_stand_up import resolving
from tests.handlers.conftest import Table


async def willpower_of(table: Table, user_id: int) -> int | None:
    sheet = await table.store.load_sheet(table.chat.id, user_id, SheetSystem.MAGE)
    assert sheet is not None
    return sheet.willpower_current


async def test_a_second_roll_with_willpower_in_the_same_turn_is_refused(table: Table) -> None:
    await resolving(table)
    await table.say(VERA, "/r 3 6 св")
    assert "Сила Воли: осталось" in table.session.sent[-1].text
    assert await willpower_of(table, VERA.id) == 2
    await table.say(VERA, "/r 4 6 св")
    refused = table.session.sent[-1].text
    assert "Вера: Сила Воли уже потрачена в ходу 1" in refused
    assert "🎲" not in refused  # no result shown, nothing paid
    assert await willpower_of(table, VERA.id) == 2
    await table.say(VERA, "/r 4 6")  # a roll without the point goes on
    assert table.session.sent[-1].text.startswith("🎲 Вера: 4к10")


async def test_the_interruption_sees_the_point_a_roll_spent(table: Table) -> None:
    await resolving(table)
    await table.say(VERA, "/r 3 6 св")
    await press(table, VERA, "Прерывание")
    await press(table, VERA, "✨ Вера")
    assert "уже потрачена" in (table.session.answers[-1].text or "")
    assert await willpower_of(table, VERA.id) == 2


async def test_a_point_spent_on_the_interruption_refuses_the_roll(table: Table) -> None:
    await resolving(table)
    await press(table, VERA, "Прерывание")
    await press(table, VERA, "✨ Вера")
    assert await willpower_of(table, VERA.id) == 2
    await table.say(VERA, "/r 3 6 св")
    assert "в ходу 1" in table.session.sent[-1].text
    assert await willpower_of(table, VERA.id) == 2


async def test_a_new_round_frees_the_point(table: Table) -> None:
    await resolving(table)
    await table.say(VERA, "/r 3 6 св")
    await press(table, BORIS, "Дальше")
    await press(table, VERA, "Дальше")
    await press(table, ANNA, "Новый раунд")
    _mid, text, _markup = screen(table)
    assert "2" in text
    await table.say(VERA, "/r 3 6 св")
    assert "Сила Воли: осталось" in table.session.sent[-1].text
    assert await willpower_of(table, VERA.id) == 1


async def test_outside_a_fight_there_is_no_turn(table: Table) -> None:
    await table.say(VERA, "/set сила воли 3")
    await table.say(VERA, "/r 3 6 св")
    await table.say(VERA, "/r 3 6 св")
    assert "Сила Воли: осталось" in table.session.sent[-1].text
    assert await willpower_of(table, VERA.id) == 1


async def test_one_not_in_the_fight_spends_freely(table: Table) -> None:
    await resolving(table)
    await table.say(ANNA, "/set сила воли 3")
    await table.say(ANNA, "/r 3 6 св")
    await table.say(ANNA, "/r 3 6 св")
    assert "Сила Воли: осталось" in table.session.sent[-1].text
    assert await willpower_of(table, ANNA.id) == 1


async def test_a_typed_effect_with_willpower_counts_in_the_turn(table: Table) -> None:
    await resolving(table)
    await table.say(VERA, "/set арете 3 силы 2")
    await table.say(VERA, "/m силы 1 св")
    assert await willpower_of(table, VERA.id) == 2
    await table.say(VERA, "/m силы 1 св")
    assert "в ходу 1" in table.session.sent[-1].text
    assert await willpower_of(table, VERA.id) == 2
    await table.say(VERA, "/r 3 6 св")
    assert "в ходу 1" in table.session.sent[-1].text
