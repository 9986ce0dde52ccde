"""Property tests (docs/product.md §5): no text and no callback_data makes the bot fail.

Each example gets a fresh table (fakeredis, recording session) on its own event loop, so
hypothesis can shrink freely. "Failing" means an exception out of the Dispatcher or the
error middleware's apology; "changed state" means a flow or log that a refused input left.
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
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

words = st.sampled_from(["7", "6", "0", "wp", "св", "t1", "+2", "пор3", "t-1", "99", "x", "/r"])
roll_text = st.one_of(
    st.text(max_size=30),
    st.lists(words, max_size=5).map(" ".join),
)


def no_apology(table: Table) -> None:
    for sent in table.session.sent:
        assert not sent.text.startswith(APOLOGIES), sent.text


@FAST
@given(roll_text)
def test_any_roll_text_is_answered_sensibly(i18n: I18n, text: str) -> None:
    async def scenario() -> None:
        table = make_table(fresh_store(), i18n)
        await table.say(ANNA, "/r " + text)
        no_apology(table)
        [sent] = table.session.sent
        stored = await flows(table.store)
        logged = await table.store.redis.llen(log_key(table.chat.id))
        if not text.strip():
            assert len(stored) == 1  # the wizard
        elif sent.text.startswith("🎲 Anna"):
            assert logged == 1
        else:
            assert "/r 7 6" in sent.text  # a hint with an example
            # ... and at most the offer of what the line may have meant («w»: Willpower?),
            # its buttons under the hint (bot/retype.py)
            assert all(flow["kind"] == "retype" for flow in stored.values()), stored
            assert bool(stored) == (sent.reply_markup is not None)
            assert logged == 0

    asyncio.run(scenario())
