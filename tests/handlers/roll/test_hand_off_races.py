"""A roll on Willpower whose sheet changes between the press's read and its write: the step
drew the result with the points it read, so the write stores nothing for a sheet that moved
(``runner.SheetMoved``) and the press is run again on the sheet as it is now; a sheet with
no point left by then is refused, and nothing is rolled, logged or spent (docs/rules.md
§A.7: a player never pays for a result they never see, nor sees one they did not pay for)."""

from __future__ import annotations

from typing import Any

import pytest

from handlers.roll.callbacks import RollAction
from rules.sheet import Sheet, SheetSystem, set_willpower
from table.store import Store, log_key
from tests.handlers.conftest import Table, player
from tests.handlers.roll.test_roll import action_data, open_wizard
from tests.handlers.roll.test_sheet_rolls import give_sheet
from tests.handlers.test_table_rolls import last_markup

ANNA = player(1, "Anna")


async def wizard_on_willpower(table: Table) -> tuple[int, str]:
    await table.store.load_scripts()
    wizard_id = await open_wizard(table)
    await table.tap(ANNA, action_data(last_markup(table), RollAction.POOL, 5), wizard_id)
    await table.tap(ANNA, action_data(last_markup(table), RollAction.WILLPOWER), wizard_id)
    await give_sheet(table, ANNA.id, wp=(3, 5))
    return wizard_id, action_data(last_markup(table), RollAction.ROLL)


def spend_first(monkeypatch: pytest.MonkeyPatch, table: Table, left: int) -> None:
    """Before the press's first write, another update leaves ``left`` points on the sheet."""
    write = Store.advance_flow_spending_opening
    done: list[bool] = []

    async def raced(self: Store, *args: Any, **kwargs: Any) -> Any:
        if not done:
            done.append(True)

            def spent(sheet: Sheet) -> Sheet:
                return set_willpower(sheet, 5, left)

            await table.store.update_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE, spent)
        return await write(self, *args, **kwargs)

    monkeypatch.setattr(Store, "advance_flow_spending_opening", raced)


async def willpower(table: Table) -> int | None:
    sheet = await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    return sheet.willpower_current


async def test_a_point_spent_meanwhile_runs_the_press_again_on_the_sheet_as_it_is(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    wizard_id, roll = await wizard_on_willpower(table)
    spend_first(monkeypatch, table, left=2)
    await table.tap(ANNA, roll, wizard_id)
    assert "Сила Воли: осталось 1 из 5" in table.session.edits[-1].text
    assert await willpower(table) == 1  # one point for the one roll shown
    assert await table.store.redis.llen(log_key(table.chat.id)) == 1


async def test_the_last_point_spent_meanwhile_refuses_the_roll_and_stores_nothing(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    wizard_id, roll = await wizard_on_willpower(table)
    shown = table.session.edits[-1].text
    spend_first(monkeypatch, table, left=0)
    await table.tap(ANNA, roll, wizard_id)
    answer = table.session.answers[-1]
    assert answer.show_alert
    assert "Силы Воли" in (answer.text or "")
    assert table.session.edits[-1].text == shown  # the wizard stays as it was, open
    assert await willpower(table) == 0
    assert await table.store.redis.llen(log_key(table.chat.id)) == 0
