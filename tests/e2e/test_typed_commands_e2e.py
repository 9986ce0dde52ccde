"""End to end: commands typed as on a phone reach their handlers in the real ``python -m bot``.

Played in the session's shared world (tests/e2e/conftest.py): the bot's clean stop is
tests/e2e/test_roll_e2e.py's to check.
"""

from __future__ import annotations

import pytest

from localapi.server import FakeBotApi
from tests.e2e.conftest import BotLauncher
from tests.e2e.test_roll_e2e import check_roll_report
from tests.e2e.test_sheet_e2e import bot_process as bot_process  # the shared world's bot
from tests.e2e.test_sheet_e2e import fake_api as fake_api  # the shared world's fake API

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


async def test_commands_typed_as_on_a_phone(fake_api: FakeBotApi, bot_process: BotLauncher) -> None:
    """Any case, a number glued on, a Latin «c» in «св»: each is the command meant, run by
    its own handler in the real process (bot/routing.py). The Russian layout's «/к» is no
    bot command for Telegram, so a group with privacy mode never shows it to the bot: it is
    read where the bot sees it, in a private chat."""
    anya = fake_api.add_user("Аня", language_code="ru")
    group = fake_api.add_group("Стол", owner=anya)
    await bot_process.start()
    command = fake_api.send_text(group, anya, "/R 6 7")
    reply = await fake_api.wait_for_message(group, after=command, timeout=10)
    check_roll_report(reply, pool=6, difficulty=7)
    command = fake_api.send_text(group, anya, "/r6 7 cв")  # the «c» is Latin
    reply = await fake_api.wait_for_message(group, after=command, timeout=10)
    assert "Сила Воли" in reply.text or "св" in reply.text, reply.text
    command = fake_api.send_text(group, anya, "/Rules")
    reply = await fake_api.wait_for_message(group, after=command, timeout=10)
    assert "Игра этого чата" in reply.text, reply.text
    private = fake_api.open_private_chat(anya)
    command = fake_api.send_text(private, anya, "/к 6 7")  # the key where «r» is
    reply = await fake_api.wait_for_message(private, after=command, timeout=10)
    assert reply.text.startswith("Поняли как /r 6 7\n"), reply.text
    check_roll_report(reply, pool=6, difficulty=7)
