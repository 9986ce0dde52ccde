"""``/vs`` in a d6 chat (docs/rules.md §D.5): sides join by their chance; the most measures win by
the difference; equal tops tie; a fiasco is named whoever won."""

from __future__ import annotations

import pytest

from handlers.d6contest.callbacks import ContestAction, ContestCallback
from handlers.d6contest.flow import ContestFlow
from rules.d6.roll import contest
from tests.handlers.conftest import Table, buttons, player
from tests.handlers.dealt import Dealt

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
VERA = player(3, "Vera")


@pytest.fixture
async def d6(table: Table) -> Table:
    await table.store.update_chat(table.chat.id, profile="d6")
    return table


def press(markup: object, action: ContestAction, x: int | None = None) -> str:
    for button in buttons(markup):
        data = ContestCallback.unpack(button.callback_data or "")
        if data.a is action and (x is None or data.x == x):
            return button.callback_data or ""
    raise AssertionError(f"no {action} button")


async def test_three_sides_join_and_the_opener_calls_it(d6: Table) -> None:
    await d6.say(ANNA, "/vs 4")
    sent = d6.session.sent[-1]
    assert "Состязание d6" in sent.text
    mid = d6.session.messages[-1].message_id
    await d6.tap(BORIS, press(sent.reply_markup, ContestAction.JOIN, 3), mid)
    edit = d6.session.edits[-1]
    await d6.tap(BORIS, press(edit.reply_markup, ContestAction.JOIN, 3), mid)  # once per side
    assert d6.session.answers[-1].show_alert
    await d6.tap(VERA, press(edit.reply_markup, ContestAction.JOIN, 2), mid)
    edit = d6.session.edits[-1]
    await d6.tap(BORIS, press(edit.reply_markup, ContestAction.RESOLVE), mid)
    assert d6.session.answers[-1].show_alert  # only the opener (or the Storyteller)
    await d6.tap(ANNA, press(edit.reply_markup, ContestAction.RESOLVE), mid)
    final = d6.session.edits[-1]
    assert final.reply_markup is None
    flow_id = ContestCallback.unpack(press(edit.reply_markup, ContestAction.RESOLVE)).f
    stored = await d6.store.load_flow(d6.chat.id, flow_id)
    assert stored is not None
    state = stored.state(ContestFlow)
    assert [len(s.faces) for s in state.sides] == [4, 3, 2]
    expected = contest({s.key: s.measures for s in state.sides})
    assert state.outcome == expected
    if expected.tie:
        assert "Ничья" in final.text
    else:
        assert f"выигрыш {expected.gain}" in final.text
    entries = await d6.store.recent_rolls(d6.chat.id)
    assert [e.get("kind") for e in entries] == ["vs", "vs", "vs"]


async def test_against_an_opponent_at_once(d6: Table) -> None:
    await d6.say(ANNA, "/vs 5 3")
    text = d6.session.sent[-1].text
    assert "Соперник 1" in text
    assert ("Ничья" in text) or ("побеждает" in text)
    assert d6.session.sent[-1].reply_markup is None


async def test_from_the_sheet_and_bad_input(d6: Table) -> None:
    await d6.say(ANNA, "/set\nСила 2\nЛовкость 2")
    await d6.say(ANNA, "/vs сила+ловк")
    assert "(Сила 2 + Ловкость 2)" in d6.session.sent[-1].text
    await d6.say(ANNA, "/vs 99")
    assert "/vs 4 3" in d6.session.sent[-1].text


async def test_the_storyteller_contests_as_the_npc_named_first(d6: Table) -> None:
    from rules.sheet import Sheet, SheetSystem, set_power

    def write(sheet: Sheet) -> Sheet:
        return set_power(sheet, "сабля", 2)

    d6.session.admins.add(VERA.id)
    await d6.store.update_npc(d6.chat.id, SheetSystem.D6, "Атаман", write)
    await d6.say(VERA, "/vs атаман 4 3")
    text = d6.session.sent[-1].text
    assert "Атаман" in text
    assert "Vera" not in text
    await d6.say(VERA, "/vs атаман сабля")
    text = d6.session.sent[-1].text
    assert "Атаман" in text
    assert "Vera" not in text


async def test_a_challenge_rolls_every_action_and_the_larger_total_wins(d6: Table) -> None:
    """S2 «Также это может быть вызов … определённое количество действий, и победит тот,
    кто в итоге наберёт больше мер успеха»: three rolls each, all at once."""
    d6.rng = Dealt([6, 1, 5, 5, 1, 1, 6, 2, 2])  # Anna 1 + 2 + 0, the opponent 1 + 0 + 0
    await d6.say(ANNA, "/vs 2 1 действий 3")
    text = d6.session.sent[-1].text
    assert "вызов, у каждой стороны 3 действия: побеждает больший итог" in text
    assert "<b>6</b> 1 · <b>5</b> <b>5</b> · 1 1 — 3 меры (1 + 2 + 0)" in text
    assert "— 1 мера (1 + 0 + 0)" in text
    assert "Побеждает Anna, выигрыш 2." in text
    assert len(await d6.store.recent_rolls(d6.chat.id)) == 6  # one line a roll


async def test_a_challenge_joined_by_button_rolls_as_many_actions(d6: Table) -> None:
    d6.rng = Dealt([6, 6, 2, 2])
    await d6.say(ANNA, "/vs 1 действий 2")
    sent = d6.session.sent[-1]
    mid = d6.session.messages[-1].message_id
    await d6.tap(BORIS, press(sent.reply_markup, ContestAction.JOIN, 1), mid)
    edit = d6.session.edits[-1]
    await d6.tap(ANNA, press(edit.reply_markup, ContestAction.RESOLVE), mid)
    final = d6.session.edits[-1].text
    assert "<b>Boris</b> (1): 2 · 2 — 0 мер (0 + 0)" in final
    assert "Побеждает Anna, выигрыш 2." in final


@pytest.mark.parametrize("line", ["/vs 4 действий", "/vs 4 действий 0", "/vs 4 3 действий 11"])
async def test_a_challenge_without_a_count_of_actions_is_refused(d6: Table, line: str) -> None:
    await d6.say(ANNA, line)
    assert "/vs 4 3 действий 3" in d6.session.sent[-1].text
    assert await d6.store.recent_rolls(d6.chat.id) == []
