"""The wound penalty reaches typed pools too: one road for every roll (docs/rules.md §B.9).

S4's health track takes dice from every action of the character, whether the player named
the traits or typed the number; a character who cannot act is told so and nothing is rolled.
"""

from __future__ import annotations

import re

import pytest

from rules.health import DamageType, track_of
from rules.sheet import Sheet, SheetSystem, set_health
from tests.handlers.conftest import Table, player

ANNA = player(1, "Anna")


async def wound(table: Table, boxes: str) -> None:
    kinds = {"L": DamageType.LETHAL, "B": DamageType.BASHING}
    track = track_of([kinds[b] for b in boxes])

    def hurt(sheet: Sheet) -> Sheet:
        return set_health(sheet, track)

    await table.store.update_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE, hurt)


def dice_shown(text: str) -> int:
    return len(re.findall(r"\d+", text.splitlines()[1]))


@pytest.mark.parametrize(("boxes", "dice"), [("", 6), ("LLL", 5), ("LLLLL", 4)])
async def test_a_typed_pool_loses_the_wound_penalty(table: Table, boxes: str, dice: int) -> None:
    if boxes:
        await wound(table, boxes)
    await table.say(ANNA, "/r 6 6")
    text = table.session.sent[-1].text
    assert dice_shown(text) == dice
    [entry] = await table.store.recent_rolls(table.chat.id)
    assert entry["pool"] == dice
    if boxes:
        assert "за раны" in text


async def test_an_incapacitated_character_cannot_roll(table: Table) -> None:
    await wound(table, "LLLLLLL")
    await table.say(ANNA, "/r 6 6")
    assert "не может действовать" in table.session.sent[-1].text
    assert await table.store.recent_rolls(table.chat.id) == []
