"""A roll from the page is the player's ``/r`` update: sent twice, or again by a process
started after a crash (a new delivery on the same store), it is shown and paid once."""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.app import create_dispatcher, make_bot
from bot.features import FeatureSet
from bot.i18n import LOCALES_DIR, load_i18n
from bot.miniapp import initdata
from bot.miniapp.server import MiniApp
from bot.settings import Settings
from handlers import roll, sheet
from rules.sheet import SheetSystem, set_trait, set_willpower
from table.store import Store
from tests.handlers.conftest import TOKEN, RecordingSession

GROUP, ANYA = -100123, 1002
ROLLED = re.compile(r"Смекалка 3 → 3к10")  # the roll of Wits 3


def signed() -> str:
    user = {"id": ANYA, "first_name": "Аня", "language_code": "ru"}
    fields = {
        "user": json.dumps(user),
        "auth_date": str(int(time.time())),
        "start_param": initdata.encode_campaign(GROUP),
    }
    return initdata.sign(fields, TOKEN)


async def post_roll(store: Store, session: RecordingSession) -> int:
    """One process's Mini App: the page's roll request, answered."""
    bot = make_bot(TOKEN, session)
    i18n = load_i18n(LOCALES_DIR, "ru")
    features = FeatureSet([roll.FEATURE, sheet.FEATURE])
    dispatcher = create_dispatcher(Settings(_env_file=None), store, i18n, features=features)
    miniapp = MiniApp(bot, store, TOKEN, i18n, dispatcher)
    app = web.Application()
    miniapp.add_routes(app, "/app/")
    body: dict[str, Any] = {
        "traits": ["wits"],
        "difficulty": 6,
        "willpower": True,
        "request_id": "the-same-request",
    }
    async with TestClient(TestServer(app)) as client:
        response = await client.post(
            "/app/api/roll", json=body, headers={initdata.HEADER: signed()}
        )
        status = response.status
        for _ in range(200):
            if any(ROLLED.search(call.text) for call in session.sent):
                break
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.2)
    await miniapp.close()
    return status


async def test_a_roll_sent_again_by_another_process_is_shown_and_paid_once(
    fake_store: Store,
) -> None:
    await fake_store.update_sheet(
        GROUP,
        ANYA,
        SheetSystem.MAGE,
        lambda s: set_willpower(set_trait(s, "wits", 3), 5),
    )
    first, second = RecordingSession(), RecordingSession()
    assert await post_roll(fake_store, first) == 200
    assert await post_roll(fake_store, second) == 200  # the same request, a new process
    shown = [call for call in first.sent + second.sent if ROLLED.search(call.text)]
    assert len(shown) == 1, [call.text for call in first.sent + second.sent]
    assert shown[0].chat_id == GROUP
    stored = await fake_store.load_sheet(GROUP, ANYA, SheetSystem.MAGE)
    assert stored is not None
    assert stored.willpower_current == 4
