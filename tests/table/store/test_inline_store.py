"""Inline mode's keys on one Redis and on a cluster: an offer rolls once, in the campaign's
slot, and a finished update that rolled in a group makes it the player's campaign."""

from __future__ import annotations

import pytest

from rules.errors import RulesInputError
from rules.sheet import Sheet, SheetSystem, set_willpower, spend_willpower
from table.scope import Campaign
from table.store import PLAYS_CAP, Begun, LogEntry, SheetSpend, Store, UpdateRef

SEED = bytes(32)
CAMPAIGN = -100_777
ANNA = 501


def entry() -> LogEntry:
    return LogEntry(user_id=ANNA, name="Аня", pool=3, difficulty=6, faces=(9, 5, 1))


def willpower() -> SheetSpend:
    return SheetSpend(ANNA, SheetSystem.MAGE, spend_willpower)


async def test_an_offer_is_rolled_once_with_its_spend_and_log_line(store: Store) -> None:
    await store.update_sheet(CAMPAIGN, ANNA, SheetSystem.MAGE, lambda s: set_willpower(s, 3, 3))
    await store.put_offers(CAMPAIGN, {"abcdefghijkl": '{"user_id": 501}'})
    assert await store.load_offer(CAMPAIGN, "abcdefghijkl") == ('{"user_id": 501}', None)

    def text(sheet: Sheet | None) -> str:
        return f"rolled, {sheet.willpower_current if sheet else '-'} left"

    first = await store.settle_offer(
        CAMPAIGN, "abcdefghijkl", text, spend=willpower(), entries=[entry()]
    )
    second = await store.settle_offer(
        CAMPAIGN, "abcdefghijkl", text, spend=willpower(), entries=[entry()]
    )
    assert first == (True, "rolled, 2 left")
    assert second == (False, "rolled, 2 left")
    sheet = await store.load_sheet(CAMPAIGN, ANNA, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.willpower_current == 2
    assert len(await store.recent_rolls(CAMPAIGN)) == 1
    assert await store.settle_offer(CAMPAIGN, "gone00000000", text) == (False, None)


async def test_a_spend_the_sheet_cannot_pay_writes_nothing(store: Store) -> None:
    await store.update_sheet(CAMPAIGN, ANNA, SheetSystem.MAGE, lambda s: set_willpower(s, 3, 0))
    await store.put_offers(CAMPAIGN, {"abcdefghijkl": "{}"})
    with pytest.raises(RulesInputError):
        await store.settle_offer(
            CAMPAIGN, "abcdefghijkl", lambda _s: "x", spend=willpower(), entries=[entry()]
        )
    assert await store.load_offer(CAMPAIGN, "abcdefghijkl") == ("{}", None)
    assert await store.recent_rolls(CAMPAIGN) == []


async def test_an_update_that_rolled_in_a_group_makes_it_the_players_campaign(
    store: Store,
) -> None:
    assert await store.plays(ANNA) == (None, {})
    for n in range(PLAYS_CAP + 3):
        chat = CAMPAIGN - n
        status, _, _, _ = await store.begin_update(
            UpdateRef(7, 10 + n, chat, chat, "me"), force=False, seed=SEED
        )
        assert status is Begun.GO
        played = (ANNA, Campaign(chat), f"Game {n}")
        await store.finish_update(7, 10 + n, chat, "me", played=played)
    last, groups = await store.plays(ANNA)
    assert last == Campaign(CAMPAIGN - PLAYS_CAP - 2)
    assert groups[last] == f"Game {PLAYS_CAP + 2}"
    assert len(groups) <= PLAYS_CAP
    assert await store.choose_play(ANNA, Campaign(CAMPAIGN - 999)) is False
    older = next(chat for chat in groups if chat != last)
    assert await store.choose_play(ANNA, older) is True
    assert (await store.plays(ANNA))[0] == older
