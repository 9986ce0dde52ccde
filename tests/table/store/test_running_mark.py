"""The chat's running mark (table/store/updates.py): the update whose run died mid-way goes
before the chat's next one, so nothing of the chat finishes between the dead run and its
re-run (bot/sent.py looks above the chat's floor for what the dead run had sent); a mark that
names an update which will never run again holds nothing up."""

from __future__ import annotations

import time

from table.store import Begun, Store, UpdateRef, journal_key, lock_key, running_key
from table.store.journal import Dropped
from table.store.updates import MAX_ATTEMPTS, done_key

SEED = bytes(range(32))
BOT, CHAT = 7, -100


def ref(update_id: int, token: str) -> UpdateRef:
    return UpdateRef(BOT, update_id, CHAT, CHAT, token)


async def mark(store: Store) -> str | None:
    raw = await store.redis.get(running_key(BOT, CHAT))
    return None if raw is None else str(raw)


async def test_the_update_of_a_run_that_died_goes_before_the_chats_next_one(
    store: Store,
) -> None:
    first, _, _, _ = await store.begin_update(ref(700, "dead"), force=False, seed=SEED)
    assert first is Begun.GO
    assert await mark(store) == "700"
    # Its holder lives: the next update waits for the lock, as before.
    busy, _, _, _ = await store.begin_update(ref(699, "other"), force=False, seed=SEED)
    assert busy is Begun.BUSY
    await store.redis.delete(lock_key(BOT, CHAT))  # the dead holder's lock ran out
    behind, _, journal, ahead = await store.begin_update(ref(699, "other"), force=False, seed=SEED)
    assert (behind, ahead.behind, journal) == (Begun.BEHIND, 700, None)
    # Not begun: no run counted, the chat's lock left free for the dead run's update.
    assert not await store.redis.hexists(journal_key(BOT, 699, CHAT), "attempts")
    assert await store.redis.get(lock_key(BOT, CHAT)) is None
    rerun, _, again, _ = await store.begin_update(ref(700, "other"), force=False, seed=SEED)
    assert rerun is Begun.GO
    assert again is not None
    assert again.attempts == 2  # so it looks for what the dead run sent
    await store.finish_update(BOT, 700, CHAT, "other")
    assert await mark(store) is None
    status, _, _, _ = await store.begin_update(ref(699, "other"), force=False, seed=SEED)
    assert status is Begun.GO
    assert await mark(store) == "699"


async def test_a_polling_take_over_lets_the_dead_run_go_first_too(store: Store) -> None:
    await store.begin_update(ref(710, "dead"), force=True, seed=SEED)
    behind, _, _, ahead = await store.begin_update(ref(711, "new"), force=True, seed=SEED)
    assert (behind, ahead.behind) == (Begun.BEHIND, 710)


async def test_a_marked_update_this_process_runs_is_alive_not_dead(store: Store) -> None:
    """Its run's journal names this process (``by``): the chat's next update here goes on,
    however the lock stands; another process's next update still lets it go first."""
    await store.begin_update(ref(720, "here"), force=False, seed=SEED)
    await store.redis.delete(lock_key(BOT, CHAT))  # released by another update of this process
    status, _, _, _ = await store.begin_update(ref(721, "here"), force=False, seed=SEED)
    assert status is Begun.GO
    await store.redis.delete(lock_key(BOT, CHAT))
    behind, _, _, ahead = await store.begin_update(ref(722, "there"), force=False, seed=SEED)
    assert (behind, ahead.behind) == (Begun.BEHIND, 721)


async def test_an_update_put_off_is_not_waited_for(store: Store) -> None:
    """Redis or Telegram away: the update wrote down what it delivered and runs again later;
    the chat's other updates need not wait for it."""
    await store.begin_update(ref(720, "a"), force=False, seed=SEED)
    await store.postpone_update(BOT, 720, CHAT, sent=41)
    assert await mark(store) is None
    await store.redis.delete(lock_key(BOT, CHAT))
    status, _, _, _ = await store.begin_update(ref(721, "b"), force=False, seed=SEED)
    assert status is Begun.GO
    await store.postpone_update(BOT, 720, CHAT)  # another update's mark stays
    assert await mark(store) == "721"


async def test_a_mark_of_an_update_that_will_not_run_again_is_cleared(store: Store) -> None:
    marks = running_key(BOT, CHAT)
    # Finished (its id among the chat's finished updates, its journal gone).
    await store.redis.set(marks, "730")
    await store.redis.hset(done_key(BOT, CHAT), "730", str(int(time.time())))
    status, _, _, _ = await store.begin_update(ref(731, "a"), force=False, seed=SEED)
    assert status is Begun.GO
    await store.finish_update(BOT, 731, CHAT, "a")
    # Its journal gone (a day passed) or never made.
    await store.redis.set(marks, "732")
    status, _, _, _ = await store.begin_update(ref(733, "a"), force=False, seed=SEED)
    assert status is Begun.GO
    await store.finish_update(BOT, 733, CHAT, "a")
    # Dropped: its journal says done.
    await store.redis.hset(journal_key(BOT, 734, CHAT), mapping={"attempts": "1", "done": "1"})
    await store.redis.set(marks, "734")
    status, _, _, _ = await store.begin_update(ref(735, "a"), force=False, seed=SEED)
    assert status is Begun.GO
    assert await mark(store) == "735"
    await store.finish_update(BOT, 735, CHAT, "a")


async def test_an_update_given_up_or_dropped_leaves_no_mark(store: Store) -> None:
    for _ in range(MAX_ATTEMPTS):
        status, _, _, _ = await store.begin_update(ref(740, "a"), force=True, seed=SEED)
        assert status is Begun.GO
    status, _, _, _ = await store.begin_update(ref(740, "a"), force=True, seed=SEED)
    assert status is Begun.GIVEN_UP
    assert await mark(store) is None
    await store.begin_update(ref(741, "a"), force=True, seed=SEED)
    assert await store.drop_update(BOT, 741, CHAT, "a") == Dropped([], wrote=False)
    assert await mark(store) is None


async def test_a_mark_is_unmarked_only_of_the_update_it_names(store: Store) -> None:
    await store.begin_update(ref(750, "a"), force=False, seed=SEED)
    await store.unmark(BOT, CHAT, 751)
    assert await mark(store) == "750"
    await store.unmark(BOT, CHAT, 750)
    assert await mark(store) is None


async def test_one_update_is_read_from_the_inbox(store: Store) -> None:
    await store.inbox_add(BOT, {760: '{"update_id": 760}'})
    assert await store.inbox_entry(BOT, 760) == '{"update_id": 760}'
    assert await store.inbox_entry(BOT, 761) is None
