"""A roll by trait names costs the same Redis round-trips however many sheets and NPCs the
chat keeps: the NPC a line may start with is looked up by its field, read ahead in the
update's first round-trip (``table.store.sheets.sheets_ahead``), never by reading every sheet.

A round-trip is one request the client writes (a pipeline or a script is written at once),
counted at the connection, the same for fakeredis and a real server.
"""

from __future__ import annotations

from typing import Any

import pytest
from redis.asyncio.connection import AbstractConnection

from rules.sheet import Ability, Attribute, Sheet, SheetSystem, set_trait
from table.store import sheet_key
from tests.handlers.conftest import Table, fresh_store, make_table, player
from tests.handlers.roll.test_sheet_rolls import give_sheet

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")


@pytest.fixture
def trips(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Each request written to Redis, as the bytes it was written as."""
    sent: list[bytes] = []
    send = AbstractConnection.send_packed_command

    async def counted(self: AbstractConnection, command: Any, *args: Any, **kwargs: Any) -> None:
        parts = [command] if isinstance(command, (bytes, str)) else list(command)
        sent.append(b"".join(p.encode() if isinstance(p, str) else bytes(p) for p in parts))
        await send(self, command, *args, **kwargs)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", counted)
    return sent


def guard(sheet: Sheet) -> Sheet:
    return set_trait(set_trait(sheet, Attribute.DEXTERITY, 2), Ability.BRAWL, 3)


async def crowded_table(table: Table, sheets: int) -> None:
    """Anna's sheet, the Storyteller's «Старый страж», and ``sheets`` more of both kinds."""
    table.session.admins.add(BORIS.id)
    await table.store.load_scripts()
    await give_sheet(table, ANNA.id)
    await table.store.update_npc(table.chat.id, SheetSystem.MAGE, "Старый страж", guard)
    for n in range(sheets // 2):
        await give_sheet(table, 100 + n)
        await table.store.update_npc(table.chat.id, SheetSystem.MAGE, f"Бандит {n}", guard)
    await table.say(ANNA, "/r 3 6")  # the first update of the process, warmed up


async def trips_of(table: Table, trips: list[bytes], who: Any, line: str) -> int:
    before = table.session.sent[-1].text
    trips.clear()
    await table.say(who, line)
    assert table.session.sent[-1].text != before
    assert "→" in table.session.sent[-1].text  # rolled, not refused
    whole = sheet_key(table.chat.id).encode()
    assert not [t for t in trips if b"HGETALL" in t and whole in t]  # no sheet read in bulk
    return len(trips)


@pytest.mark.parametrize(
    ("who", "line", "most"),
    [
        (ANNA, "/r ловк+драка 6", 3),
        (BORIS, "/r старый страж ловк+драка 6", 3),
        (BORIS, "/r Бандит 0 ловк 6", 3),
        # Willpower is paid in a WATCH transaction on the sheet (table/store/flows.py), after
        # the chat's fight is read for the round's once-a-turn mark (bot/combat.py)
        (ANNA, "/r Ловкость + Драка 6 св", 6),
    ],
)
async def test_a_trait_roll_costs_the_same_with_2_or_30_sheets(
    fake_store: Any, i18n: Any, trips: list[bytes], who: Any, line: str, most: int
) -> None:
    small, large = make_table(fake_store, i18n), make_table(fresh_store(), i18n)
    await crowded_table(small, 2)
    await crowded_table(large, 30)
    assert len(await large.store.list_npcs(large.chat.id, SheetSystem.MAGE)) == 16
    few = await trips_of(small, trips, who, line)
    many = await trips_of(large, trips, who, line)
    assert few == many
    # the update's first step, the roll's own write and its finish: nothing else (a roll
    # with Willpower reads the chat's fight first)
    assert few <= most
