"""Where the Store's keys live: one Redis Cluster slot per chat, a clock or a cap on each key,
and the older layout moved once (docs/product.md §5 "Scale").

Each test runs on fakeredis, one redis-server and a real three-node cluster (conftest.py):
on the cluster a script or transaction whose keys fall in two slots fails, so these tests
also prove the steps that reach beyond one chat (the Storyteller's campaign lists, a hidden
roll made from the private chat for a campaign, the inbox) are made in ways a cluster runs.
"""

from __future__ import annotations

import pytest
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

import table.store.hidden
from rules.sheet import SheetSystem, set_trait
from table.scope import Campaign, Scope
from table.store import (
    CHAT_TTL,
    LOG_TTL,
    Begun,
    HiddenRecord,
    LogEntry,
    Store,
    UpdateRef,
    chat_key,
    connect,
    flow_key,
    hidden_key,
    hidden_seq_key,
    inbox_key,
    is_cluster,
    journal_key,
    live_key,
    lock_key,
    log_key,
    running_key,
    sheet_key,
)
from table.store.base import campaign_pick_key, campaigns_key, none_key
from table.store.legacy import LAYOUT, LAYOUT_KEY
from table.store.updates import MAX_ATTEMPTS
from tests.table.store.scoping import bound_to
from tests.table.store.test_store import Tally

SEED = bytes(range(32))
CHAT = -1001234567890


def _slot(key: str) -> int:
    return int(key_slot(key.encode()))


def test_a_chats_keys_and_its_updates_share_one_slot() -> None:
    keys = [
        chat_key(CHAT),
        flow_key(CHAT, "abcdefghijkl"),
        log_key(CHAT),
        sheet_key(CHAT),
        hidden_key(CHAT),
        hidden_seq_key(CHAT),
        live_key(CHAT, "init"),
        journal_key(7, 99, CHAT),
        lock_key(7, CHAT),
        running_key(7, CHAT),
        none_key(CHAT),
    ]
    assert {_slot(key) for key in keys} == {_slot(chat_key(CHAT))}
    # Another chat's keys go elsewhere, so chats spread over the cluster's nodes.
    assert _slot(chat_key(-100)) != _slot(chat_key(CHAT))
    assert _slot(flow_key(-100, "abcdefghijkl")) != _slot(flow_key(CHAT, "abcdefghijkl"))


def test_a_cluster_url_makes_a_cluster_client() -> None:
    client = connect("redis+cluster://127.0.0.1:7000")
    assert isinstance(client, RedisCluster)
    assert is_cluster(client)
    assert not is_cluster(connect("redis://127.0.0.1:7000/0"))


async def test_a_finished_or_given_up_update_leaves_the_inbox(store: Store) -> None:
    await store.inbox_add(7, {501: '{"update_id": 501}', 502: '{"update_id": 502}'})
    status, _, _, _ = await store.begin_update(
        UpdateRef(7, 501, -100, -100, "a"), force=False, seed=SEED
    )
    assert status is Begun.GO
    await store.finish_update(7, 501, -100, "a")
    assert list(await store.inbox(7)) == [502]
    # Delivered again once finished (a webhook's retry): found done and taken out again.
    await store.inbox_add(7, {501: '{"update_id": 501}'})
    again, _, _, _ = await store.begin_update(
        UpdateRef(7, 501, -100, -100, "b"), force=False, seed=SEED
    )
    assert again is Begun.DONE
    assert list(await store.inbox(7)) == [502]
    for _ in range(MAX_ATTEMPTS):
        await store.begin_update(UpdateRef(7, 502, -100, -100, "a"), force=True, seed=SEED)
    dropped, _, _, _ = await store.begin_update(
        UpdateRef(7, 502, -100, -100, "a"), force=True, seed=SEED
    )
    assert dropped is Begun.GIVEN_UP
    assert await store.inbox(7) == {}


async def test_a_run_that_met_an_outage_is_not_a_failed_try(store: Store) -> None:
    """Redis or Telegram away for longer than MAX_ATTEMPTS runs never drops an update whose
    result may be paid for; what a postponed run sent raises the chat's floor."""
    for _ in range(3 * MAX_ATTEMPTS):
        status, _, _, _ = await store.begin_update(
            UpdateRef(7, 503, -100, -100, "a"), force=True, seed=SEED
        )
        assert status is Begun.GO
        await store.postpone_update(7, 503, -100, sent=None)
    await store.postpone_update(7, 503, -100, sent=41)
    assert await store.last_sent(-100) == 41
    await store.postpone_update(7, 504, -100)  # an update never begun: no journal made
    status, _, _, _ = await store.begin_update(
        UpdateRef(7, 504, -100, -100, "a"), force=True, seed=SEED
    )
    assert status is Begun.GO


async def test_the_storytellers_campaigns_follow_the_role(store: Store) -> None:
    await store.set_storyteller(-100, expected=None, new_id=1, name="Аня", title="Хроника")
    assert await store.campaigns(1) == (None, {Campaign(-100): "Хроника"})
    lost = await store.set_storyteller(-100, expected=None, new_id=2, name="Борис", title="X")
    assert lost is None
    assert await store.campaigns(2) == (None, {})
    # Inside an update: the role changes in the chat's transaction, the lists right after.
    _, _, journal, _ = await store.begin_update(
        UpdateRef(1, 70, -100, -100, "a"), force=False, seed=SEED
    )
    with bound_to(store, Scope(journal=journal)) as bound:
        taken = await bound.set_storyteller(
            -100, expected=1, new_id=2, name="Борис", title="Хроника"
        )
    assert taken is not None
    assert taken.storyteller_id == 2
    # The process died between the two: the re-run writes the lists again, not the role.
    await store.redis.hset(campaigns_key(1), "-100", "Хроника")
    await store.redis.delete(campaigns_key(2))
    _, _, again, _ = await store.begin_update(
        UpdateRef(1, 70, -100, -100, "b"), force=True, seed=SEED
    )
    with bound_to(store, Scope(journal=again)) as bound:
        replayed = await bound.set_storyteller(
            -100, expected=1, new_id=2, name="Борис", title="Хроника"
        )
    assert replayed == taken
    assert await store.campaigns(1) == (None, {})
    assert await store.campaigns(2) == (None, {Campaign(-100): "Хроника"})
    await store.choose_campaign(2, -100)
    for key in (campaigns_key(2), campaign_pick_key(2), chat_key(-100)):
        assert 0 < await store.redis.ttl(key) <= CHAT_TTL


def _hidden(seq: int, chat_id: int = -100) -> HiddenRecord:
    return HiddenRecord(
        seq=seq,
        chat_id=chat_id,
        owner_id=42,
        name="Аня",
        profile="mage",
        pool=5,
        payload=f"p{seq}",
        nonce="0" * 64,
        commitment="1" * 64,
        result={},
    )


def _hidden_line(seq: int) -> LogEntry:
    return LogEntry(user_id=42, name="Аня", hidden=True, seq=seq)


async def test_a_hidden_roll_for_a_campaign_is_stored_once_from_the_private_chat(
    store: Store,
) -> None:
    """The Storyteller rolls in their private chat (the update's journal is in that chat's
    slot) for the campaign -100 (another slot): a re-run after a crash keeps the number and
    stores the roll and its log line once."""
    for attempt, seed in enumerate((SEED, bytes(32))):
        _, _, journal, _ = await store.begin_update(
            UpdateRef(1, 80, 42, 42, "a"), force=attempt > 0, seed=seed
        )
        with bound_to(store, Scope(journal=journal)) as bound:
            seq = await bound.next_hidden_seq(-100)
            await bound.save_hidden(_hidden(seq), _hidden_line(seq))
        assert seq == 1
    assert list(await store.hidden_rolls(-100)) == [1]
    assert len(await store.recent_rolls(-100)) == 1
    for key in (hidden_key(-100), hidden_seq_key(-100)):
        assert 0 < await store.redis.ttl(key) <= CHAT_TTL


async def test_a_chat_keeps_its_last_hidden_rolls(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table.store.hidden, "HIDDEN_CAP", 3)
    for _ in range(5):
        seq = await store.next_hidden_seq(-100)
        await store.save_hidden(_hidden(seq), _hidden_line(seq))
        if seq == 3:
            assert await store.reveal_hidden(-100, 3) is True
    assert sorted(await store.hidden_rolls(-100)) == [3, 4, 5]
    for _ in range(2):
        seq = await store.next_hidden_seq(-100)
        await store.save_hidden(_hidden(seq), _hidden_line(seq))
    assert sorted(await store.hidden_rolls(-100)) == [5, 6, 7]
    assert await store.redis.hget(hidden_key(-100), "3:r") is None  # its mark went with it
    assert await store.reveal_hidden(-100, 3) is None


async def test_every_key_has_a_clock_and_an_update_renews_its_chats(store: Store) -> None:
    await store.update_chat(-100, profile="dark-ages")
    await store.update_sheet(-100, 42, SheetSystem.MAGE, lambda s: set_trait(s, "strength", 3))
    await store.create_flow(Tally(total=1), -100, 42, entries=[LogEntry(user_id=42, name="А")])
    await store.open_live("init", Tally(), -100, 42)
    seq = await store.next_hidden_seq(-100)
    await store.save_hidden(_hidden(seq), _hidden_line(seq))
    await store.set_storyteller(-100, expected=None, new_id=42, name="Аня", title="Хроника")
    await store.choose_campaign(42, -100)
    await store.inbox_add(7, {900: "{}"})
    await store.begin_update(UpdateRef(7, 900, -100, -100, "a"), force=False, seed=SEED)
    await store.finish_update(7, 900, -100, "a")
    every = {"target_nodes": RedisCluster.PRIMARIES} if store.cluster else {}  # each node's
    keys = [str(key) for key in await store.redis.keys("*", **every)]
    assert inbox_key(7) not in keys  # emptied: the inbox holds only updates in flight
    assert len(keys) >= 10, keys
    for key in keys:
        assert await store.redis.ttl(key) > 0, key
    for key in (chat_key(-100), sheet_key(-100), hidden_key(-100), hidden_seq_key(-100)):
        await store.redis.expire(key, 100)
    await store.begin_update(UpdateRef(7, 901, -100, -100, "a"), force=False, seed=SEED)
    for key in (chat_key(-100), sheet_key(-100), hidden_key(-100), hidden_seq_key(-100)):
        assert await store.redis.ttl(key) > CHAT_TTL - 60, key


async def test_the_layout_before_hash_tags_is_moved_once(store: Store) -> None:
    if store.cluster:  # a cluster never held the old names: nothing to look for
        assert await store.migrate_layout() == 0
        return
    r = store.redis
    await r.set("sdb:chat:-100", '{"profile": "dark-ages"}')
    await r.hset("sdb:sheet:-100", "u:42:mage", "{}")
    await r.rpush("sdb:log:-100", '{"user_id": 42, "name": "Аня"}')
    await r.hset("sdb:hidden:-100", "1", "{}")
    await r.set("sdb:hseq:-100", "1")
    await r.set("sdb:live:-100:init", '{"flow": "abcdefghijkl", "message": 5}', ex=600)
    await r.hset(
        "sdb:flow:abcdefghijkl",
        mapping={"kind": Tally.kind, "chat_id": -100, "owner_id": 42, "version": 0},
    )
    await r.hset("sdb:flow:abcdefghijkl", mapping={"closed": "0", "data": '{"total": 2}'})
    await r.expire("sdb:flow:abcdefghijkl", 500)
    await r.hset("sdb:st:42", "-100", "Хроника")
    await r.set("sdb:chat:-200", "{}")
    await r.set(chat_key(-200), '{"profile": "mage"}')  # already written the new way
    assert await store.migrate_layout() == 7
    assert (await store.load_chat(-100)).profile == "dark-ages"
    flow = await store.load_flow(-100, "abcdefghijkl")
    assert flow is not None
    assert flow.state(Tally) == Tally(total=2)
    assert 0 < await r.ttl(flow_key(-100, "abcdefghijkl")) <= 500  # kept its own clock
    assert await r.hget(sheet_key(-100), "u:42:mage") == "{}"
    assert len(await store.recent_rolls(-100)) == 1
    assert await r.get(live_key(-100, "init")) is not None
    for key, clock in (
        (chat_key(-100), CHAT_TTL),
        (sheet_key(-100), CHAT_TTL),
        (hidden_key(-100), CHAT_TTL),
        (hidden_seq_key(-100), CHAT_TTL),
        (log_key(-100), LOG_TTL),
        (campaigns_key(42), CHAT_TTL),
    ):
        assert clock - 60 < await r.ttl(key) <= clock, key
    assert await r.get(chat_key(-200)) == '{"profile": "mage"}'  # not overwritten
    assert await r.get(LAYOUT_KEY) == LAYOUT
    assert await store.migrate_layout() == 0  # once
