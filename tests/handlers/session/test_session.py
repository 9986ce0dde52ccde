"""``/session start|end``: the commitment, the seed, and the session's dice derived from it."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from aiogram.types import Update

from table import fairness
from tests.handlers.conftest import Table, player

ST = player(9, "Mira")
ANNA = player(1, "Anna")
HEX64 = re.compile(r"\b[0-9a-f]{64}\b")


async def feed_unseeded(table: Table, **payload: Any) -> None:
    """An update with the dice production gives it (the journal's, or a session's)."""
    table.update_id += 1
    await table.dispatcher.feed_update(table.bot, Update(update_id=table.update_id, **payload))


async def say(table: Table, user: Any, text: str) -> None:
    """``table.say`` without the test's seeded die, so a running session's dice are used."""
    seeded = table.feed

    async def feed(**payload: Any) -> None:
        await feed_unseeded(table, **payload)

    table.feed = feed  # type: ignore[method-assign]
    try:
        await table.say(user, text)
    finally:
        table.feed = seeded  # type: ignore[method-assign]


async def claim(table: Table) -> None:
    table.session.admins.add(ST.id)
    await table.say(ST, "/st")


async def test_a_session_commits_to_its_seed_and_reveals_it(table: Table) -> None:
    await claim(table)
    await say(table, ST, "/session start")
    started = table.session.sent[-1].text
    assert "SHA-256" in started
    commitment = HEX64.findall(started)[0]
    await say(table, ANNA, "/r 7 6")
    await say(table, ANNA, "/r 3 8")
    await say(table, ST, "/session end")
    ended = table.session.sent[-1].text
    seed = HEX64.findall(ended)[0]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commitment
    entries = await table.store.recent_rolls(table.chat.id)
    assert [e["ses"] for e in entries] == [1, 1]
    for entry in entries:
        ident, start = entry["pf"].split("#")
        expected = [
            fairness.die(bytes.fromhex(seed), ident, int(start) + i, 10)
            for i in range(len(entry["faces"]))
        ]
        assert entry["faces"] == expected
    # after the end, dice are the OS's again: no session, no proof
    await say(table, ANNA, "/r 2 6")
    newest = (await table.store.recent_rolls(table.chat.id))[0]
    assert "ses" not in newest
    assert "pf" not in newest


async def test_only_the_storyteller_starts_a_session(table: Table) -> None:
    await claim(table)
    await say(table, ANNA, "/session start")
    assert "Рассказчик" in table.session.sent[-1].text
    await say(table, ANNA, "/r 2 6")
    assert "ses" not in (await table.store.recent_rolls(table.chat.id))[0]


async def test_a_second_start_keeps_the_running_session(table: Table) -> None:
    await claim(table)
    await say(table, ST, "/session start")
    first = HEX64.findall(table.session.sent[-1].text)[0]
    await say(table, ST, "/session start")
    assert HEX64.findall(table.session.sent[-1].text) == [first]
    await say(table, ST, "/session end")
    await say(table, ST, "/session end")
    assert "/session start" in table.session.sent[-1].text


async def test_session_words_in_russian(table: Table) -> None:
    await claim(table)
    await say(table, ST, "/session начать")
    assert "SHA-256" in table.session.sent[-1].text
    await say(table, ST, "/session закончить")
    assert HEX64.search(table.session.sent[-1].text)


async def test_a_pasted_novel_as_the_word_is_echoed_cut_short(table: Table) -> None:
    await claim(table)
    await say(table, ST, "/session " + "я" * 4000)
    answer = table.session.sent[-1].text
    assert "я" * 39 + "…»" in answer
    assert len(answer) < 600


async def test_log_and_stats_of_a_session(table: Table) -> None:
    await claim(table)
    await table.say(ANNA, "/r 4 6")  # before the session
    await say(table, ST, "/session start")
    await say(table, ANNA, "/r 7 6")
    await say(table, ANNA, "/log session")
    text = table.session.sent[-1].text
    assert len(text.splitlines()) == 2
    assert "7к10" in text
    await say(table, ANNA, "/stats session")
    assert "1 бросок" in table.session.sent[-1].text.splitlines()[0]


def test_dice_by_rejection_are_in_range_and_fair_enough() -> None:
    seed = bytes(range(32))
    faces = [fairness.die(seed, "-1:1", k, 10) for k in range(2000)]
    assert set(faces) == set(range(1, 11))
    assert all(150 < faces.count(f) < 250 for f in range(1, 11))
    assert fairness.die(seed, "-1:1", 5, 6) == fairness.die(seed, "-1:1", 5, 6)


async def test_the_commitment_stands_on_the_line_that_names_sha256(table: Table) -> None:
    await claim(table)
    await say(table, ST, "/session start")
    lines = table.session.sent[-1].text.splitlines()
    assert any("SHA-256" in line and HEX64.search(line) for line in lines)
    await say(table, ST, "/session end")
    ended = table.session.sent[-1].text
    first = HEX64.search(ended)
    assert first is not None
    assert hashlib.sha256(bytes.fromhex(first.group())).hexdigest() in ended  # the seed first


async def test_a_hidden_roll_never_takes_the_sessions_dice(table: Table) -> None:
    """The revealed seed would tell a hidden roll's faces: it keeps its own commitment."""
    await claim(table)
    await say(table, ST, "/session start")
    await say(table, ST, "/h 6 6")
    await say(table, ST, "/session end")
    seed = bytes.fromhex(HEX64.findall(table.session.sent[-1].text)[0])
    records = await table.store.hidden_rolls(table.chat.id)
    assert len(records) == 1
    faces = next(iter(records.values())).result["faces"]
    update = table.update_id - 1  # the /h's update
    derived = [fairness.die(seed, f"{table.chat.id}:{update}", k, 10) for k in range(6)]
    assert faces != derived
    marker = (await table.store.recent_rolls(table.chat.id))[0]
    assert marker["hidden"] is True
    assert "pf" not in marker
