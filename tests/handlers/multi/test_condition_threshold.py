"""A condition that pushes a table roll's difficulty past the cap becomes a threshold there
too (§A.8, §B.8): blinded (+2) at difficulty 9 is difficulty 9 and threshold 2, as on /r."""

from __future__ import annotations

import pytest

from rules.combat.situation import Condition
from rules.sheet import Sheet, SheetSystem, set_conditions
from tests.handlers.conftest import Table, player

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")


async def blind(table: Table) -> None:
    def hurt(sheet: Sheet) -> Sheet:
        return set_conditions(sheet, [Condition.BLINDED])

    await table.store.update_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE, hurt)


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        ("/r 6 9", "6к10, сложность 9 (очень сложно), пороговое значение 2"),
        ("/ext 6 9 5", "6к10, сложность 9 (очень сложно), пороговое значение 2"),
        ("/vs 6 9 @boris", "6к10, сложность 9 (очень сложно), пороговое значение 2"),
        ("/multi 6/9 7/9", "4к10, сложность 9 (очень сложно), пороговое значение 2"),
    ],
)
async def test_a_blinded_roll_at_nine_keeps_its_threshold(
    table: Table, command: str, shown: str
) -> None:
    await blind(table)
    await table.say(ANNA, command)
    assert shown in table.session.sent[-1].text


async def test_the_opponent_is_not_blinded_by_the_challengers_condition(table: Table) -> None:
    await blind(table)
    await table.say(ANNA, "/vs 6 7 @boris")
    text = table.session.sent[-1].text
    assert "сложность 9" in text
    assert "пороговое" not in text  # 7 + 2 stays under the cap
