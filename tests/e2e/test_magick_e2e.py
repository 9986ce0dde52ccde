"""A cast and its Backlash end to end: the real process, the fake Bot API, a real redis-server.

The outside contract of the magick issue: with Арете 3 and Квинтэссенция 5 on the sheet,
``/m 3 вульг свид кв 2`` rolls 3 dice at difficulty 6 and says «Парадокс +4» (or «+8» on a
botch); /sheet then shows Квинтэссенция 3 and Парадокс 4 (or 8). «Отдача» under the cast then
discharges the wheel in the same message.
"""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import BotLauncher
from tests.e2e.test_table_e2e import unexpected_errors

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


@pytest.fixture(scope="module")
def world(shared_world: BotLauncher) -> BotLauncher:
    return shared_world


async def test_a_cast_then_its_backlash(world: BotLauncher) -> None:
    api = world.api
    master = api.add_user("Мастер", language_code="ru")
    anya = api.add_user("Аня", language_code="ru")
    chat = api.add_group("Магия", owner=master, members=[anya])
    first = len(api.calls)

    async def say(text: str) -> str:
        typed = api.send_text(chat, anya, text)
        return (await api.wait_for_message(chat, after=typed)).text

    await say("/set арете 3 квинтэссенция 5")
    typed = api.send_text(chat, anya, "/m 3 вульг свид кв 2")
    cast = await api.wait_for_message(chat, after=typed)
    assert "сложность 6" in cast.text
    assert len(cast.text.split("\n")[1].split()) == 3
    gained = 8 if "Провал" in cast.text else 4
    assert f"Парадокс +{gained}" in cast.text
    sheet = await say("/sheet")
    assert "Квинтэссенция 3" in sheet
    assert f"Парадокс {gained}" in sheet

    data = next(b["callback_data"] for b in cast.buttons if "Отдача" in b["text"])
    edits = cast.edits
    query = api.press(chat, anya, cast, data)
    await api.wait_for_callback_answer(query)
    await api.wait_for(lambda: cast.edits > edits)
    assert "Отдача" in cast.text
    assert all("Отдача" not in b["text"] for b in cast.buttons)  # once only
    found = re.search(r"разряжено: (\d+), на треке остаётся: (\d+)", cast.text)
    assert found is not None, cast.text
    assert int(found.group(1)) + int(found.group(2)) == gained
    # Checked before the second /sheet: a Backlash that discharges nothing leaves the sheet as
    # it was, and a second command showing the same sheet is not a send made twice.
    api.assert_no_duplicate_sends()
    sheet = await say("/sheet")
    assert f"Парадокс {found.group(2)}" in sheet or found.group(2) == "0"
    assert unexpected_errors(api.calls[first:]) == []
