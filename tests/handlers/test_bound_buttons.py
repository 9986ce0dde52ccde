"""A press is bound to its message (ARCHITECTURE.md "The road a tap travels"): a player who
forges callback_data naming their own flow and presses it under another player's message is
refused with a short alert, and the other message is neither edited nor its flow moved."""

from __future__ import annotations

from aiogram.methods import EditMessageReplyMarkup, EditMessageText

from handlers.extended.callbacks import ExtAction, ExtCallback
from handlers.history.callbacks import LogCallback
from table.store import Store
from tests.handlers.conftest import Table, flows, player
from tests.handlers.test_table_rolls import find

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
ELSEWHERE = "Эта кнопка не от этого сообщения."


async def _two_rolls(table: Table) -> tuple[str, int, str, int]:
    """Anna's and Boris's extended rolls: each one's «Бросить» and its message."""
    await table.say(ANNA, "/ext 7 6 10")
    annas = table.session.messages[-1]
    await table.say(BORIS, "/ext 5 6 10")
    boris = table.session.messages[-1]
    anna_roll = find(annas.reply_markup, ExtCallback, a=ExtAction.ROLL)
    boris_roll = find(boris.reply_markup, ExtCallback, a=ExtAction.ROLL)
    return anna_roll, annas.message_id, boris_roll, boris.message_id


def _edits_of(table: Table, message_id: int) -> list[object]:
    return [
        call
        for call in table.session.calls
        if isinstance(call, EditMessageText | EditMessageReplyMarkup)
        and call.message_id == message_id
    ]


async def _refused_elsewhere(
    table: Table, store: Store, data: str, under: int, said: str = ELSEWHERE
) -> None:
    before = await flows(store)
    edits = len(table.session.calls)
    await table.tap(ANNA, data, under)
    answer = table.session.answers[-1]
    assert answer.show_alert is True
    assert answer.text == said
    assert _edits_of(table, under) == []
    assert [c for c in table.session.calls[edits:] if isinstance(c, EditMessageText)] == []
    assert await flows(store) == before  # nothing stored, nobody's state moved


async def test_an_own_flow_pressed_under_another_players_message_is_refused(
    table: Table,
) -> None:
    anna_roll, _annas, _boris_roll, boris = await _two_rolls(table)
    # Anna's flow was never pressed yet: its message is not recorded, so the keyboard of the
    # message the press came under must carry it, and Boris's does not.
    await _refused_elsewhere(table, table.store, anna_roll, boris)


async def test_a_bound_flow_pressed_under_another_message_is_refused(table: Table) -> None:
    anna_roll, annas, _boris_roll, boris = await _two_rolls(table)
    await table.tap(ANNA, anna_roll, annas)  # the first roll binds the flow to Anna's message
    assert table.session.answers[-1].show_alert is not True
    after = find(table.session.keyboards[annas], ExtCallback, a=ExtAction.ROLL)
    await _refused_elsewhere(table, table.store, after, boris)
    # the flow recorded its message: Anna's own presses go on there
    await table.tap(ANNA, after, annas)
    assert table.session.answers[-1].show_alert is not True


async def test_another_players_flow_forged_under_ones_own_message_is_refused(
    table: Table,
) -> None:
    _anna_roll, annas, boris_roll, _boris = await _two_rolls(table)
    await _refused_elsewhere(table, table.store, boris_roll, annas)


async def test_a_records_button_pressed_under_a_message_without_it_is_refused(
    table: Table,
) -> None:
    """Buttons on no flow (a page of /log) are bound by the keyboard Telegram sent: under a
    message that shows none of them, such a button is a forged one."""
    _anna_roll, _annas, _boris_roll, boris = await _two_rolls(table)
    page = LogCallback(o=0).pack()
    await _refused_elsewhere(table, table.store, page, boris, "Эта кнопка недействительна.")
