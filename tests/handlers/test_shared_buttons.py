"""Shared buttons under faults and races (docs/product.md §3 "Concurrency").

Presses race on a real redis-server, where the compare-and-set really interleaves: only the
same presser's repeat is a double tap; anyone else's press applies to the current state; a
message whose redraw failed is redrawn by the next tap on it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramServerError
from aiogram.methods import EditMessageText, TelegramMethod
from aiogram.methods.base import TelegramType
from aiogram.utils.i18n import I18n

from bot.app import make_bot
from handlers.extended.callbacks import ExtAction, ExtCallback
from handlers.roll.callbacks import RollAction, RollCallback
from handlers.teamwork.callbacks import TeamAction, TeamCallback
from handlers.teamwork.flow import MAX_MEMBERS, TeamFlow
from table.store import Store
from table.store.flows import data_of
from tests.handlers.conftest import RecordingSession, Table, flows, make_table, player
from tests.handlers.test_table_rolls import find

ANNA = player(1, "Anna")
PLAYERS = [player(10 + n, f"P{n}") for n in range(19)]


class FailingEdits(RecordingSession):
    """Answers the next ``failures`` edits with 502, after recording them as not applied."""

    def __init__(self) -> None:
        super().__init__()
        self.failures = 0

    async def make_request(
        self,
        bot: Bot,
        method: TelegramMethod[TelegramType],
        timeout: int | None = None,  # noqa: ASYNC109 - BaseSession's signature
    ) -> TelegramType:
        if isinstance(method, EditMessageText) and self.failures:
            self.failures -= 1
            raise TelegramServerError(method, "Bad Gateway")
        return await super().make_request(bot, method, timeout)


@pytest.fixture
def real_table(real_store: Store, i18n: I18n) -> Table:
    table = make_table(real_store, i18n)
    session = FailingEdits()
    table.session = session
    table.bot = make_bot(table.bot.token, session)
    return table


def team_state(stored: dict[str, Any]) -> TeamFlow:
    [flow] = stored.values()
    return TeamFlow.model_validate_json(data_of(flow))


async def test_players_pressing_help_at_once_all_join(real_table: Table) -> None:
    table = real_table
    await table.say(ANNA, "/team 3 6")
    join = find(table.session.sent[-1].reply_markup, TeamCallback, a=TeamAction.JOIN)
    message_id = table.session.next_message_id
    await asyncio.gather(*(table.tap(p, join, message_id) for p in PLAYERS))
    state = team_state(await flows(table.store))
    assert sorted(user_id for user_id, _ in state.pending) == [p.id for p in PLAYERS]
    assert all(a.show_alert is not True for a in table.session.answers)
    assert len(table.session.answers) == len(PLAYERS)


async def test_thirty_presses_on_help_fill_the_team_and_tell_the_rest_it_is_full(
    real_table: Table,
) -> None:
    table = real_table
    crowd = [player(100 + n, f"Q{n}") for n in range(30)]
    await table.say(ANNA, "/team 3 6")
    join = find(table.session.sent[-1].reply_markup, TeamCallback, a=TeamAction.JOIN)
    message_id = table.session.next_message_id
    await asyncio.gather(*(table.tap(p, join, message_id) for p in crowd))
    state = team_state(await flows(table.store))
    assert len(state.members) + len(state.pending) == MAX_MEMBERS == 20  # the leader and 19
    refused = [a for a in table.session.answers if a.show_alert]
    assert len(refused) == 30 - 19
    assert {a.text for a in refused} == {"В команде уже нет мест: не больше 20 участников."}


async def test_a_press_on_an_old_keyboard_by_someone_else_applies(real_table: Table) -> None:
    table = real_table
    await table.say(ANNA, "/team 3 6")
    old_join = find(table.session.sent[-1].reply_markup, TeamCallback, a=TeamAction.JOIN)
    message_id = table.session.next_message_id
    await table.tap(PLAYERS[0], old_join, message_id)
    await table.tap(PLAYERS[1], old_join, message_id)  # half a second later, same drawing
    state = team_state(await flows(table.store))
    assert [user_id for user_id, _ in state.pending] == [PLAYERS[0].id, PLAYERS[1].id]
    await table.tap(PLAYERS[1], old_join, message_id)  # their own repeat
    assert table.session.answers[-1].text == "Уже учтено."
    assert team_state(await flows(table.store)).pending == state.pending


async def test_a_message_whose_redraw_failed_is_redrawn_by_the_next_tap(
    real_table: Table,
) -> None:
    table = real_table
    await table.say(ANNA, "/ext 5 6 20")
    message_id = table.session.next_message_id
    session = table.session
    assert isinstance(session, FailingEdits)
    roll = find(session.sent[-1].reply_markup, ExtCallback, a=ExtAction.ROLL)
    session.failures = 1
    await table.tap(ANNA, roll, message_id)  # stored, but the message was not redrawn
    assert session.answers[-1].show_alert is True
    [stored] = (await flows(table.store)).values()
    assert stored["version"] == "1"
    await table.tap(ANNA, roll, message_id)  # the old keyboard again
    assert session.answers[-1].text == "Уже учтено."
    healed = session.edits[-1]
    assert healed.message_id == message_id
    assert find(healed.reply_markup, ExtCallback, a=ExtAction.ROLL) != roll
    [after] = (await flows(table.store)).values()
    assert after["version"] == "1"  # redrawn, not rolled again
    stop = find(healed.reply_markup, ExtCallback, a=ExtAction.STOP)
    await table.tap(ANNA, stop, message_id)
    assert "⏹" in session.edits[-1].text


async def test_a_wizard_roll_whose_result_was_not_shown_is_shown_on_the_next_tap(
    real_table: Table,
) -> None:
    table = real_table
    session = table.session
    assert isinstance(session, FailingEdits)
    await table.say(ANNA, "/r")
    message_id = table.session.next_message_id
    markup = session.sent[-1].reply_markup
    pool = find(markup, RollCallback, a=RollAction.POOL, x=5)
    await table.tap(ANNA, pool, message_id)
    roll = find(session.edits[-1].reply_markup, RollCallback, a=RollAction.ROLL)
    session.failures = 1
    await table.tap(ANNA, roll, message_id)
    logged = await table.store.recent_rolls(table.chat.id)
    assert len(logged) == 1
    await table.tap(ANNA, roll, message_id)  # the wizard's keyboard is still shown
    assert session.answers[-1].show_alert is True  # «закрыт» …
    shown = session.edits[-1]
    assert "5к10" in shown.text  # … and the result appears, not the wizard
    assert "Шанс успеха" not in shown.text
    assert len(await table.store.recent_rolls(table.chat.id)) == 1
