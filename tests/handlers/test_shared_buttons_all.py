"""Every button that several players press on one message, pressed by all of them at once on
a real redis-server: each press applies once, none is lost, nobody is told "already done"
(docs/product.md §3 "Concurrency"; the «Помочь» of /team has its own tests beside this one).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest
from aiogram.filters.callback_data import CallbackData
from aiogram.utils.i18n import I18n

from handlers.combat.tracker.callbacks import InitAction, InitCallback
from handlers.d6combat.tracker.callbacks import D6InitAction, D6InitCallback
from handlers.d6contest.callbacks import ContestAction, ContestCallback
from handlers.d6requests.callbacks import D6RequestAction, D6RequestCallback
from handlers.requests.callbacks import RequestAction, RequestCallback
from rules.sheet import Ability, Attribute, Sheet, SheetSystem, set_power, set_trait
from table.store import Store
from table.store.flows import data_of
from tests.handlers.conftest import Table, flows, make_table, player
from tests.handlers.test_table_rolls import find

MASTER = player(1, "Мастер")
PLAYERS = [player(10 + n, f"P{n}") for n in range(8)]


@dataclass(frozen=True)
class Shared:
    """A message with a button for everyone: how to post it and which button it is."""

    game: str
    post: str
    factory: type[CallbackData]
    match: dict[str, object]


async def d10_sheets(table: Table) -> None:
    def fill(sheet: Sheet) -> Sheet:
        for code in (Attribute.DEXTERITY, Attribute.WITS, Attribute.PERCEPTION):
            sheet = set_trait(sheet, code, 2)
        return set_trait(sheet, Ability.ALERTNESS, 2)

    for p in PLAYERS:
        await table.store.update_sheet(table.chat.id, p.id, SheetSystem.MAGE, fill)


async def d6_sheets(table: Table) -> None:
    for p in PLAYERS:
        await table.store.update_sheet(
            table.chat.id, p.id, SheetSystem.D6, lambda s: set_power(s, "Сила", 2)
        )


CASES = {
    "roll request": Shared("mage", "/ask восп+бдит 7", RequestCallback, {"a": RequestAction.ROLL}),
    "roll initiative": Shared("mage", "/init npc Гуль 5", InitCallback, {"a": InitAction.ROLL}),
    "join the d6 tracker": Shared(
        "d6", "/init npc Гуль 2", D6InitCallback, {"a": D6InitAction.JOIN}
    ),
    "join a d6 contest": Shared("d6", "/vs 4", ContestCallback, {"a": ContestAction.JOIN, "x": 3}),
    "answer a d6 request": Shared(
        "d6", "/ask сила 1", D6RequestCallback, {"a": D6RequestAction.ROLL}
    ),
}
SETUP: dict[str, Callable[[Table], Awaitable[None]]] = {"mage": d10_sheets, "d6": d6_sheets}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
async def test_everyone_pressing_a_shared_button_at_once_is_counted(
    real_store: Store, i18n: I18n, case: str
) -> None:
    shared = CASES[case]
    table = make_table(real_store, i18n)
    table.session.admins.add(MASTER.id)
    await table.store.update_chat(table.chat.id, profile=shared.game)
    await SETUP[shared.game](table)
    await table.say(MASTER, shared.post)
    posted = table.session.messages[-1]
    data = find(posted.reply_markup, shared.factory, **shared.match)
    await asyncio.gather(*(table.tap(p, data, posted.message_id) for p in PLAYERS))
    stored = " ".join(data_of(f) for f in (await flows(table.store)).values())
    missing = [p.first_name for p in PLAYERS if f'"{p.first_name}"' not in stored]
    refused = [a.text for a in table.session.answers if a.show_alert]
    if case == "join a d6 contest":  # eight sides at most: the opener and seven more
        assert len(missing) == 1, missing
        assert refused == ["В состязании уже 8 сторон — больше не поместится."]
    else:
        assert missing == [], f"lost presses: {missing}"
        assert refused == []
    # A press repeated by the same player changes nothing more.
    before = await flows(table.store)
    await table.tap(PLAYERS[0], data, posted.message_id)
    assert await flows(table.store) == before
