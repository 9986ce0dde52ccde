"""``/ask`` in a d6 chat: each player's tap rolls the chance their own sheet gives (§D.2),
once; a player without the power is told so; the asker closes."""

from __future__ import annotations

import re

import pytest

from handlers.d6requests.callbacks import D6RequestAction, D6RequestCallback
from tests.handlers.conftest import Table, buttons, player

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")
VERA = player(3, "Vera")


@pytest.fixture
async def d6(table: Table) -> Table:
    await table.store.update_chat(table.chat.id, profile="d6")
    table.session.admins.add(VERA.id)
    return table


def press(markup: object, action: D6RequestAction) -> str:
    for button in buttons(markup):
        if D6RequestCallback.unpack(button.callback_data or "").a is action:
            return button.callback_data or ""
    raise AssertionError(f"no {action} button")


async def test_each_player_rolls_their_own_chance_once(d6: Table) -> None:
    await d6.say(ANNA, "/set\nСила 2\nЛовкость 3")
    await d6.say(BORIS, "/set\nСила 1\nЛовкость 1")
    await d6.say(ANNA, "/ask сила+ловкость")
    assert "Это может только сценарист." in d6.session.sent[-1].text
    await d6.say(VERA, "/ask сила+ловкость 2")
    sent = d6.session.sent[-1]
    assert "Vera просит бросок: сила + ловкость, нужно мер успеха: 2" in sent.text
    mid = d6.session.messages[-1].message_id
    roll = press(sent.reply_markup, D6RequestAction.ROLL)
    await d6.tap(ANNA, roll, mid)
    await d6.tap(ANNA, roll, mid)  # the same drawing again: a double tap
    assert d6.session.answers[-1].text == "Уже учтено."
    await d6.tap(ANNA, press(d6.session.edits[-1].reply_markup, D6RequestAction.ROLL), mid)
    assert "уже бросили" in d6.session.answers[-1].text
    await d6.tap(BORIS, roll, mid)
    text = d6.session.edits[-1].text
    anna = re.search(r"<b>Anna</b> \(Сила 2 \+ Ловкость 3\): ([\d <>/bu]+) —", text)
    boris = re.search(r"<b>Boris</b> \(Сила 1 \+ Ловкость 1\): ([\d <>/bu]+) —", text)
    assert anna is not None
    assert boris is not None
    assert len(re.findall(r"\d", anna.group(1))) == 5
    assert len(re.findall(r"\d", boris.group(1))) == 2
    await d6.tap(VERA, roll, mid)
    assert "нет листа" in d6.session.answers[-1].text
    latest = d6.session.edits[-1].reply_markup
    await d6.tap(BORIS, press(latest, D6RequestAction.CLOSE), mid)
    assert d6.session.answers[-1].show_alert
    await d6.tap(VERA, press(latest, D6RequestAction.CLOSE), mid)
    assert d6.session.edits[-1].reply_markup is None
    assert len(await d6.store.recent_rolls(d6.chat.id)) == 2


async def test_a_request_needs_powers(d6: Table) -> None:
    await d6.say(VERA, "/ask 4")
    assert "/ask сила+ловкость" in d6.session.sent[-1].text
