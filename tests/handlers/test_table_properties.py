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

from table.store import log_key
from tests.handlers.conftest import Table, flows, fresh_store, make_table, player

ANNA = player(1, "Anna")
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
