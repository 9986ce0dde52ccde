"""End to end: a sheet pasted as a table pastes it, with the real ``python -m bot`` process, the
fake Bot API (privacy mode on, as a group bot runs) and a real redis-server: the session's
shared ones, in a group of its own.

A player with no sheet asks for it, replies to the bot's «no sheet yet» with a block in
headings («Таланты: Бдительность 2, Драка 3»), and rolls from it; the Storyteller types a
house rule in Russian and the roll owns up to it under a short 🏠.
"""

from __future__ import annotations

import pytest

from localapi.server import FakeBotApi
from tests.e2e.conftest import BotLauncher
from tests.e2e.test_sheet_e2e import Table, check_roll, say
from tests.e2e.test_sheet_e2e import bot_process as bot_process  # the shared world's bot
from tests.e2e.test_sheet_e2e import fake_api as fake_api  # the shared world's fake API
from tests.e2e.test_sheet_e2e import table as table  # the fixture: Рита's group

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


async def test_a_labelled_paste_under_no_sheet_yet_and_a_russian_house_rule(
    fake_api: FakeBotApi, bot_process: BotLauncher, table: Table
) -> None:
    await bot_process.start()
    none_yet = await say(fake_api, table, table.vera, "/sheet")
    assert none_yet.text.startswith("📜 Вера: в этом чате пока нет листа персонажа.")
    pasted = await say(
        fake_api,
        table,
        table.vera,
        "Атрибуты\nФизические: Сила 2, Ловкость 3\nТаланты: Бдительность 2, Драка 3",
        reply_to=none_yet,
    )
    assert pasted.text == "✅ Вера — лист: Сила 2 · Ловкость 3 · Бдительность 2 · Драка 3"
    rolled = await say(fake_api, table, table.vera, "/r ловк+драка 6")
    assert rolled.text.startswith("🎲 Вера: Ловкость 3 + Драка 3 → 6к10, сложность 6")
    check_roll(rolled, pool=6, difficulty=6)

    changed = await say(fake_api, table, table.rita, "/rules set провал=после_отмены")
    assert "Провал = единица осталась после отмены" in changed.text
    tagged = await say(fake_api, table, table.vera, "/r ловк+драка 6")
    assert "🏠 Провал: единица осталась после отмены" in tagged.text
    fake_api.assert_no_duplicate_sends()
