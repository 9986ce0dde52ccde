"""``/r`` end to end through the Dispatcher: results, hints, the wizard, «Ещё раз»."""

from __future__ import annotations

import re

from tests.handlers.conftest import Table, player

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")


def faces_of(text: str) -> list[int]:
    line = text.splitlines()[1]
    return [int(x) for x in re.findall(r"\d+", line)]


async def test_simple_roll_shows_seven_faces_and_successes(table: Table) -> None:
    await table.say(ANNA, "/r 7 6")
    [sent] = table.session.sent
    print(sent.text)
    assert len(faces_of(sent.text)) == 7
