"""Property tests for the table rolls: no text after /ext, /vs, /team,
/multi and no callback_data under their messages makes the bot fail, and a refused input
changes nothing.

Each example gets a fresh table on its own event loop, so hypothesis can shrink freely.
"""

from __future__ import annotations

import asyncio

from aiogram.utils.i18n import I18n
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.store import log_key
from tests.handlers.conftest import Table, flows, fresh_store, make_table, player

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
APOLOGIES = ("Что-то пошло не так", "Не получилось разобрать", "Хранилище бота")
FAST = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

words = st.sampled_from(
    ["7", "6", "10", "0", "99", "до", "to5", "цель", "5", "нпс", "@bob", "x", "6/8", "ловк+драка"]
)
typed = st.one_of(st.text(max_size=25), st.lists(words, max_size=6).map(" ".join))
commands = st.sampled_from(["/ext", "/vs", "/team", "/multi"])


def no_apology(table: Table) -> None:
    for sent in table.session.sent:
        assert not sent.text.startswith(APOLOGIES), sent.text


@FAST
@given(commands, typed)
def test_any_text_is_answered_sensibly(i18n: I18n, command: str, text: str) -> None:
    async def scenario() -> None:
        table = make_table(fresh_store(), i18n)
        await table.say(ANNA, f"{command} {text}")
        no_apology(table)
        [sent] = table.session.sent
        if sent.text.startswith(("⏳", "⚔️", "🤝", "🔀")):
            return  # a roll began: its own tests check what it shows
        # Otherwise a refusal: it says what a correct line looks like and changes nothing.
        assert any(hint in sent.text for hint in ("Пример", "/set", "Кому")), sent.text
        assert sent.reply_markup is None
        assert await flows(table.store) == {}
        assert await table.store.redis.llen(log_key(table.chat.id)) == 0

    asyncio.run(scenario())


setups = st.sampled_from(["/ext 3 6 10", "/vs 3 6 @bob", "/team 3 6 цель 5", "/multi 6 7 7"])
actions = st.sampled_from(["go", "st", "p", "d", "ga", "gb", "cx", "j", "end", "sp", "zz", ""])
prefixes = st.sampled_from(["x", "o", "tm", "mu"])


@FAST
@given(setups, prefixes, actions, st.integers(-3, 30), st.integers(-2, 3), st.booleans())
def test_any_callback_data_changes_at_most_by_the_rules(
    i18n: I18n, setup: str, prefix: str, action: str, x: int, version: int, owner: bool
) -> None:
    """A forged or stale tap is answered once; if it changed anything, the flow's version
    moved by exactly one (a legal tap), never anything else."""

    async def scenario() -> None:
        table = make_table(fresh_store(), i18n)
        await table.say(ANNA, setup)
        message_id = table.session.messages[-1].message_id
        before = await flows(table.store)
        [flow_id] = [key.split(":")[-1] for key in before]
        data = f"{prefix}:{flow_id}:{version}:{action}:{x}"
        await table.tap(ANNA if owner else BORIS, data, message_id)
        no_apology(table)
        assert len(table.session.answers) == 1
        after = await flows(table.store)
        assert after.keys() == before.keys()
        [old], [new] = before.values(), after.values()
        if new != old:
            assert int(new["version"]) == int(old["version"]) + 1
        else:
            assert table.session.edits == []

    asyncio.run(scenario())
