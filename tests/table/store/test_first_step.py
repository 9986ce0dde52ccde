"""What an update's first and last round-trips do besides the journal (table/store/updates.py):
keep the fetched update in the inbox, reserve its reply's send slot ahead (table/store/
budget.py), hand back a slot nobody took, and leave only a small mark once finished."""

from __future__ import annotations

import time
from typing import ClassVar

from table.scope import Scope
from table.store import (
    Begun,
    FlowState,
    Store,
    UpdateRef,
    budget_key,
    flow_key,
    inbox_key,
    journal_key,
)
from table.store.flows import DATA_PIECE, data_fields, data_of
from table.store.updates import DONE_SWEEP, Subject, about_member, done_key, subject_of
from tests.table.store.scoping import bound_to

SEED = bytes(range(32))


class Tally(FlowState):
    kind: ClassVar[str] = "test-first-step-tally"

    total: int = 0
    got: tuple[int, ...] = ()


GROUP = (-100, 20, 61.0)
OVERALL = (None, 25, 1.0)


async def test_the_first_step_keeps_the_update_in_the_inbox_unless_it_was_done(
    store: Store,
) -> None:
    status, _, _, _ = await store.begin_update(
        UpdateRef(7, 501, -100, -100, "me"), force=False, seed=SEED, inbox='{"update_id": 501}'
    )
    assert status is Begun.GO
    kept = await store.inbox(7)
    # On a cluster the inbox is in a slot of its own: the fetch writes it there itself.
    assert kept == ({} if store.cluster else {501: '{"update_id": 501}'})
    await store.finish_update(7, 501, -100, "me")
    assert await store.inbox(7) == {}
    again, _, _, _ = await store.begin_update(
        UpdateRef(7, 501, -100, -100, "me"), force=False, seed=SEED, inbox='{"update_id": 501}'
    )
    assert again is Begun.DONE
    assert await store.inbox(7) == {}  # a redelivery of a finished update is not kept


async def test_a_busy_chat_still_keeps_the_update_in_the_inbox(store: Store) -> None:
    await store.begin_update(UpdateRef(7, 601, -100, -100, "a"), force=False, seed=SEED)
    status, _, _, _ = await store.begin_update(
        UpdateRef(7, 602, -100, -100, "b"), force=False, seed=SEED, inbox='{"update_id": 602}'
    )
    assert status is Begun.BUSY
    if not store.cluster:
        assert await store.inbox(7) == {602: '{"update_id": 602}'}


async def test_a_finished_update_leaves_only_its_id_and_when(store: Store) -> None:
    _, _, journal, _ = await store.begin_update(
        UpdateRef(7, 701, -100, -100, "me"), force=False, seed=SEED
    )
    assert journal is not None
    await store.finish_update(7, 701, -100, "me")
    assert not await store.redis.exists(journal_key(7, 701, -100))
    finished = await store.redis.hgetall(done_key(7, -100))
    assert list(finished) == ["701"]
    assert abs(int(finished["701"]) - time.time()) < 60
    assert 0 < await store.redis.ttl(done_key(7, -100)) <= 86_400


async def test_finished_updates_older_than_a_redelivery_are_swept(store: Store) -> None:
    old = int(time.time()) - 2 * 86_400
    await store.redis.hset(done_key(7, -100), mapping={str(n): old for n in range(DONE_SWEEP - 2)})
    for update_id in (5001, 5002):
        await store.begin_update(UpdateRef(7, update_id, -100, -100, "me"), force=True, seed=SEED)
        await store.finish_update(7, update_id, -100, "me")
    # The sweep ran as the hash reached a multiple of DONE_SWEEP: only the new ones are left.
    assert sorted(await store.redis.hkeys(done_key(7, -100))) == ["5001", "5002"]
    status, _, _, _ = await store.begin_update(
        UpdateRef(7, 5001, -100, -100, "me"), force=True, seed=SEED
    )
    assert status is Begun.DONE


async def test_a_commands_reply_is_reserved_by_its_first_step(store: Store) -> None:
    _, _, journal, _ = await store.begin_update(
        UpdateRef(7, 801, -100, -100, "me"), force=False, seed=SEED, lease=[GROUP, OVERALL]
    )
    assert journal is not None
    if store.cluster:  # the bot's window is in a slot of its own: each send reserves
        assert journal.lease is None
        return
    assert journal.lease is not None
    assert await store.redis.zcard(budget_key(7, -100)) == 1
    assert await store.redis.zcard(budget_key(7, None)) == 1
    with bound_to(store, Scope(journal=journal)) as bound:
        assert await bound.reserve_send(7, [GROUP, OVERALL]) == 0.0  # the lease: no trip
        assert journal.lease.taken
        await bound.reserve_send(7, [GROUP, OVERALL])  # a second send reserves its own
    assert await store.redis.zcard(budget_key(7, -100)) == 2
    await store.finish_update(7, 801, -100, "me", lease=journal.lease)
    assert await store.redis.zcard(budget_key(7, -100)) == 2  # both sends stay counted


async def test_a_lease_nobody_took_is_handed_back(store: Store) -> None:
    if store.cluster:
        return
    _, _, journal, _ = await store.begin_update(
        UpdateRef(7, 901, -100, -100, "me"), force=False, seed=SEED, lease=[GROUP, OVERALL]
    )
    assert journal is not None
    assert journal.lease is not None
    await store.finish_update(7, 901, -100, "me", lease=journal.lease)
    assert await store.redis.zcard(budget_key(7, -100)) == 0
    assert await store.redis.zcard(budget_key(7, None)) == 0


async def test_a_stale_or_foreign_lease_is_not_taken(store: Store) -> None:
    if store.cluster:
        return
    _, _, journal, _ = await store.begin_update(
        UpdateRef(7, 902, 55, 55, "me"), force=False, seed=SEED, lease=[OVERALL]
    )
    assert journal is not None
    lease = journal.lease
    assert lease is not None
    assert lease.take([GROUP, OVERALL]) is None  # a send to a group the lease does not hold
    lease.at = time.monotonic() - 5
    assert lease.take([OVERALL]) is None  # long past its slot: the send reserves its own
    assert not lease.taken


async def test_a_full_window_makes_the_leased_reply_wait(store: Store) -> None:
    if store.cluster:
        return
    for _ in range(20):
        await store.reserve_send(7, [GROUP, OVERALL])
    _, _, journal, _ = await store.begin_update(
        UpdateRef(7, 903, -100, -100, "me"), force=False, seed=SEED, lease=[GROUP, OVERALL]
    )
    assert journal is not None
    assert journal.lease is not None
    wait = journal.lease.take([GROUP, OVERALL])
    assert wait is not None
    assert 59.0 < wait <= 61.0


async def test_the_inbox_key_is_the_one_the_fetch_writes(store: Store) -> None:
    await store.inbox_add(7, {1: "{}"})
    assert await store.redis.hexists(inbox_key(7), "1")


def test_a_flows_data_is_kept_in_short_pieces_cut_between_characters() -> None:
    raw = '{"name":"' + "Аня & Том " * 20 + '"}'
    fields = data_fields(raw)
    assert len(fields) > 1
    assert all(len(piece.encode()) <= DATA_PIECE for piece in fields.values())
    assert data_of(fields) == raw
    assert data_fields('{"a":1}') == {"data": '{"a":1}'}


async def test_a_new_flows_data_in_pieces_is_whole_again_after_a_step(store: Store) -> None:
    state = Tally(total=7, got=tuple(range(40)))
    flow = await store.create_flow(state, -100, 42)
    key = flow_key(-100, flow.id)
    assert await store.redis.hexists(key, "data1")  # a new flow: short pieces
    loaded = await store.load_flow(-100, flow.id)
    assert loaded is not None
    assert loaded.state(Tally) == state
    stepped = await store.advance_flow(loaded, 0, Tally(total=8))
    assert stepped is not None
    assert not await store.redis.hexists(key, "data1")  # the step wrote it whole
    again = await store.load_flow(-100, flow.id)
    assert again is not None
    assert again.state(Tally) == Tally(total=8)


def test_whom_a_message_is_about_is_kept_short_and_read_in_either_form() -> None:
    anna = Subject(user_id=42, name="Аня де ла Круз", username=None)
    boris = Subject(user_id=7, name="Борис", username="boris_b")
    for subject in (anna, boris):
        assert subject_of(about_member(15, subject)) == subject
    assert len(about_member(15, anna)) < len(f"15 {anna.model_dump_json()}")
    assert subject_of(f"15 {boris.model_dump_json()}") == boris  # written by an older version
    assert subject_of("15 garbage") is None


async def test_a_reply_finds_whom_the_message_is_about(store: Store) -> None:
    anna = Subject(user_id=42, name="Аня Ко", username="anya")
    await store.begin_update(UpdateRef(7, 950, -100, -100, "me"), force=False, seed=SEED)
    await store.finish_update(7, 950, -100, "me", about={31: anna})
    assert await store.message_about(-100, 31) == anna
    assert await store.message_about(-100, 32) is None


def test_an_ascii_data_json_is_cut_every_piece() -> None:
    raw = '{"faces":[' + ",".join(["10"] * 60) + "]}"
    fields = data_fields(raw)
    assert [len(piece) for piece in fields.values()][:-1] == [DATA_PIECE] * (len(fields) - 1)
    assert data_of(fields) == raw
