"""Inline mode's keys on one Redis and on a cluster: an offer rolls once, in the campaign's
slot, and a finished update that rolled in a group makes it the player's campaign."""

from __future__ import annotations

import pytest

from rules.errors import RulesInputError
from rules.sheet import Sheet, SheetSystem, set_willpower, spend_willpower
from table.scope import Campaign, serial_of
from table.store import (
    PLAYS_CAP,
    Begun,
    LogEntry,
    SheetSpend,
    Store,
    UpdateRef,
    offer_key,
    plays_key,
)

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


async def finish_rolled(store: Store, update_id: int, campaign: Campaign, title: str) -> None:
    """An update of Anna's that rolled in ``campaign`` finishes, serialised as the state
    middleware serialises it (a topic by its campaign, a chat's own game by the chat's id)."""
    serial = serial_of(campaign)
    status, _, _, _ = await store.begin_update(
        UpdateRef(7, update_id, serial, campaign.chat_id, "me"), force=False, seed=SEED
    )
    assert status is Begun.GO
    await store.finish_update(7, update_id, serial, "me", played=(ANNA, campaign, title))


async def test_a_forum_topic_is_a_campaign_of_its_own_for_inline_rolls(store: Store) -> None:
    general, magic, dark = Campaign(CAMPAIGN), Campaign(CAMPAIGN, 45), Campaign(CAMPAIGN, 46)
    await finish_rolled(store, 1, general, "Хроника")
    await finish_rolled(store, 2, dark, "Хроника › Тёмные века")
    await finish_rolled(store, 3, magic, "Хроника › Маг")
    last, played = await store.plays(ANNA)
    assert last == magic
    assert played == {
        general: "Хроника",
        magic: "Хроника › Маг",
        dark: "Хроника › Тёмные века",
    }
    assert await store.redis.hget(plays_key(ANNA), "last") == f"{CAMPAIGN}:45"
    assert await store.choose_play(ANNA, dark) is True
    assert (await store.plays(ANNA))[0] == dark
    assert await store.choose_play(ANNA, general) is True
    assert (await store.plays(ANNA))[0] == general
    # A topic she never rolled in, of a forum she did: not hers, nothing changes.
    assert await store.choose_play(ANNA, Campaign(CAMPAIGN, 47)) is False
    assert (await store.plays(ANNA))[0] == general


async def test_what_the_release_before_topics_wrote_is_the_chats_own_game(store: Store) -> None:
    """``c:CHAT`` and ``last`` = CHAT, as that release wrote them, read as the chat's own
    game (General); a topic played since sits beside it, and either can be chosen."""
    await store.redis.hset(
        plays_key(ANNA),
        mapping={f"c:{CAMPAIGN}": "Хроника", "c:-100888": "Side game", "last": str(CAMPAIGN)},
    )
    assert await store.plays(ANNA) == (
        Campaign(CAMPAIGN),
        {Campaign(CAMPAIGN): "Хроника", Campaign(-100_888): "Side game"},
    )
    await finish_rolled(store, 4, Campaign(CAMPAIGN, 45), "Хроника › Маг")
    last, played = await store.plays(ANNA)
    assert last == Campaign(CAMPAIGN, 45)
    assert played[Campaign(CAMPAIGN)] == "Хроника"
    assert await store.choose_play(ANNA, Campaign(-100_888)) is True
    assert await store.redis.hget(plays_key(ANNA), "last") == "-100888"  # as that release
    assert (await store.plays(ANNA))[0] == Campaign(-100_888)


async def test_a_garbled_plays_record_reads_as_no_campaign(store: Store) -> None:
    await store.redis.hset(
        plays_key(ANNA),
        mapping={"c:abc": "x", f"c:{CAMPAIGN}:1": "General by a thread", "last": "abc"},
    )
    assert await store.plays(ANNA) == (None, {})
    await store.redis.hset(plays_key(ANNA), "last", f"{CAMPAIGN}:45")  # not one of hers
    assert await store.plays(ANNA) == (None, {})


async def test_a_topics_offer_rolls_in_the_topics_slot_sheet_and_log(store: Store) -> None:
    topic, general = Campaign(CAMPAIGN, 45), Campaign(CAMPAIGN)
    for where in (topic, general):
        await store.update_sheet(where, ANNA, SheetSystem.MAGE, lambda s: set_willpower(s, 3, 3))
    await store.put_offers(topic, {"abcdefghijkl": "{}"})
    assert offer_key(topic, "abcdefghijkl") == f"sdb:offer:{{{CAMPAIGN}:45}}:abcdefghijkl"
    assert await store.load_offer(general, "abcdefghijkl") == (None, None)  # not General's
    rolled = await store.settle_offer(
        topic, "abcdefghijkl", lambda _s: "rolled", spend=willpower(), entries=[entry()]
    )
    assert rolled == (True, "rolled")
    topic_sheet = await store.load_sheet(topic, ANNA, SheetSystem.MAGE)
    general_sheet = await store.load_sheet(general, ANNA, SheetSystem.MAGE)
    assert topic_sheet is not None
    assert general_sheet is not None
    assert (topic_sheet.willpower_current, general_sheet.willpower_current) == (2, 3)
    assert len(await store.recent_rolls(topic)) == 1
    assert await store.recent_rolls(general) == []
