"""The campaign's roll counters (table/store/log.py): written in the step that logs a roll, so
``/stats`` counts every roll of the campaign while the log keeps only the last ``LOG_CAP``; a
hidden roll counts once, from its reveal; a log older than the counters is added once.

Each test runs on fakeredis, a real redis-server and a Redis Cluster (the ``store`` fixture):
the counters share their chat's slot with the log, so every step stays one script or one
transaction there too.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import pytest

from bot import hidden_rolls
from rules import d10, profiles
from rules.sheet import SheetSystem, set_willpower, spend_willpower
from table.stats import ChatStats, from_counters
from table.store import (
    LOG_CAP,
    FlowState,
    HiddenRecord,
    LogEntry,
    Screen,
    SheetSpend,
    StepWrites,
    Store,
    log_key,
    stats_key,
)
from table.store.base import CHAT_TTL

CHAT = -100


class Step(FlowState):
    kind: ClassVar[str] = "test-step"

    n: int = 0


def roll(n: int, user: int = 42, name: str = "Аня") -> LogEntry:
    faces = (n % 10 + 1, (n * 7) % 10 + 1)
    return LogEntry(
        user_id=user,
        name=name,
        pool=2,
        difficulty=6,
        faces=faces,
        successes=sum(f >= 6 for f in faces),
        outcome="success" if any(f >= 6 for f in faces) else "failure",
    )


async def stats_of(store: Store) -> ChatStats:
    return from_counters(await store.campaign_counters(CHAT, hidden_rolls.older_tally))


async def test_the_counters_outlive_the_log_cap(store: Store) -> None:
    """Every road a roll is logged by adds to the counters: rolls past the cap still count."""
    await store.update_sheet(CHAT, 42, SheetSystem.MAGE, lambda s: set_willpower(s, 9, 9))
    flow = await store.create_flow(Step(), CHAT, 42)
    spend = SheetSpend(42, SheetSystem.MAGE, spend_willpower)
    made = 0
    while made < LOG_CAP + 40:
        await store.log_roll(CHAT, roll(made))  # a transaction
        await store.create_flow(Step(), CHAT, 42, entries=[roll(made + 1)])
        advanced = await store.advance_flow(
            flow, flow.version, Step(n=made), entries=[roll(made + 2)]
        )
        assert advanced is not None
        flow = advanced
        new = store.new_flow(Step(), CHAT, 42)
        advanced, _opened = await store.advance_flow_creating(
            flow, flow.version, Step(n=made), new, entries=[roll(made + 3), roll(made + 4)]
        )  # a script
        assert advanced is not None
        flow = advanced
        made += 5
    spent, _sheet = await store.advance_flow_spending(
        flow, flow.version, Step(), spend, writes=StepWrites(entries=[roll(made, 7, "Борис")])
    )
    assert spent is not None
    made += 1
    assert await store.redis.llen(log_key(CHAT)) == LOG_CAP
    found = await stats_of(store)
    assert found.rolls == made
    assert found.dice[10].total == 2 * made
    anna, boris = found.players
    assert (anna.name, anna.rolls, boris.name, boris.rolls) == ("Аня", made - 1, "Борис", 1)
    expected = [0] * 10
    for n in range(made):
        for face in roll(n).faces or ():
            expected[face - 1] += 1
    assert list(found.dice[10].counts) == expected
    assert CHAT_TTL - 60 < await store.redis.ttl(stats_key(CHAT)) <= CHAT_TTL


def hidden(seq: int, faces: list[int]) -> HiddenRecord:
    result = d10.resolve(faces, 6, profiles.get("mage"))
    return HiddenRecord(
        seq=seq,
        chat_id=CHAT,
        owner_id=9,
        name="Мира",
        profile="mage",
        pool=len(faces),
        payload=f"p{seq}",
        nonce="0" * 64,
        commitment="1" * 64,
        result=result.model_dump(mode="json"),
    )


async def test_a_hidden_roll_counts_once_from_its_reveal(store: Store) -> None:
    seq = await store.next_hidden_seq(CHAT)
    record = hidden(seq, [9, 2, 6])
    await store.save_hidden(record, hidden_rolls.hidden_log_entry(record))
    assert (await stats_of(store)).rolls == 0  # nothing of it before /reveal
    entry = hidden_rolls.revealed_entry(record)
    assert entry is not None
    assert await store.reveal_hidden(CHAT, seq, entry) is True
    assert await store.reveal_hidden(CHAT, seq, entry) is False
    found = await stats_of(store)
    assert found.rolls == 1
    assert found.dice[10].counts == (0, 1, 0, 0, 0, 1, 0, 0, 1, 0)
    assert found.players[0].name == "Мира"


async def older_log(store: Store, lines: list[dict[str, Any]]) -> None:
    """A log written by a version that kept no counters (oldest first)."""
    for line in lines:
        await store.redis.lpush(log_key(CHAT), json.dumps(line, ensure_ascii=False))


async def test_a_log_older_than_the_counters_is_added_once(store: Store) -> None:
    old = [roll(n).model_dump(mode="json", exclude_none=True) for n in range(5)]
    await older_log(store, old)
    # two hidden rolls of that time, one revealed then, one revealed since (counted by it)
    for seq, faces in ((1, [10, 10]), (2, [1])):
        record = hidden(seq, faces)
        await store.save_hidden(record, hidden_rolls.hidden_log_entry(record))
    await store.redis.hset("sdb:hidden:{-100}", "1:r", "1")  # an older version's reveal
    await store.redis.delete(stats_key(CHAT))  # …and its lines were logged uncounted
    await store.reveal_hidden(CHAT, 2, hidden_rolls.revealed_entry(hidden(2, [1])))
    for n in range(5, 8):
        await store.log_roll(CHAT, roll(n))
    first = await stats_of(store)
    assert first.rolls == 5 + 2 + 3
    again = await stats_of(store)
    assert again == first  # added once
    await store.log_roll(CHAT, roll(8))
    later = await stats_of(store)
    assert later.rolls == first.rolls + 1
    assert later.dice[10].counts[9] == first.dice[10].counts[9] + (roll(8).faces or ()).count(10)


async def test_a_new_chat_has_nothing_older_to_add(store: Store) -> None:
    assert (await stats_of(store)).rolls == 0
    await store.log_roll(CHAT, roll(1))
    await store.log_roll(CHAT, roll(2))
    found = await stats_of(store)
    assert found.rolls == 2
    assert await store.redis.hget(stats_key(CHAT), "logged") == "2"


@pytest.mark.parametrize("damaged", ["not json", "[1, 2]", '{"user_id": "x"}'])
async def test_a_damaged_older_line_is_not_counted(store: Store, damaged: str) -> None:
    await store.redis.lpush(log_key(CHAT), damaged)
    await older_log(store, [roll(3).model_dump(mode="json", exclude_none=True)])
    assert (await stats_of(store)).rolls == 1


async def test_a_step_that_loses_its_compare_and_set_counts_nothing(store: Store) -> None:
    flow = await store.create_flow(Step(), CHAT, 42)
    assert await store.advance_flow(flow, 0, Step(n=1), entries=[roll(1)]) is not None
    assert await store.advance_flow(flow, 0, Step(n=2), entries=[roll(2)]) is None
    assert (await stats_of(store)).rolls == 1
    screen = Screen(text="…")
    assert await store.advance_flow(flow, 1, Step(n=3), screen=screen) is not None
    assert (await stats_of(store)).rolls == 1
