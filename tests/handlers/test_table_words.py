"""The Russian the players flagged at a real table, read through the Dispatcher: a full soak
said as such, a failed challenge, a d6 contest that invites no side it cannot take, the d6
game's help in its own words («сценарист»), and dice written «к10»."""

from __future__ import annotations

import pytest

from handlers.d6contest.callbacks import ContestAction, ContestCallback
from handlers.d6project.callbacks import ProjectAction, ProjectCallback
from tests.handlers.conftest import Table, buttons, player
from tests.handlers.dealt import Dealt

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")


def first(markup: object, prefix: str) -> str:
    for button in buttons(markup):
        if (button.callback_data or "").startswith(prefix):
            return button.callback_data or ""
    raise AssertionError(prefix)


async def test_a_wound_soaked_whole_says_so(table: Table) -> None:
    await table.say(BORIS, "/set выносливость 2")
    await table.say(BORIS, "/dmg 1 b")
    sent = table.session.messages[-1]
    [soak] = buttons(sent.reply_markup)
    table.rng = Dealt(7, 8)
    await table.tap(BORIS, soak.callback_data or "", sent.message_id)
    text = table.session.edits[-1].text
    assert "🛡 Поглощение: <b>8</b> <b>7</b> — 2 успеха → урон полностью поглощён." in text
    assert "0 уровней" not in text


async def test_a_challenge_below_zero_is_failed(table: Table) -> None:
    await table.store.update_chat(table.chat.id, profile="d6")
    await table.say(ANNA, "/set слабость 2")
    await table.say(ANNA, "/project 5 действий 2")
    sent = table.session.messages[-1]
    table.rng = Dealt(1, 2)  # no measure at all: a fiasco takes the weakness, readiness −2
    data = next(
        b.callback_data or ""
        for b in buttons(sent.reply_markup)
        if ProjectCallback.unpack(b.callback_data or "").a is ProjectAction.ROLL
        and ProjectCallback.unpack(b.callback_data or "").x == 2
    )
    await table.tap(ANNA, data, sent.message_id)
    text = table.session.edits[-1].text
    assert "❌ Вызов провален: готовность ушла ниже нуля." in text
    assert "Замысел" not in text


async def test_a_two_sided_contest_invites_no_third_side(table: Table) -> None:
    """With contests of two sides only, a contest of two shows no join buttons and says
    nothing about more sides."""
    await table.store.update_chat(table.chat.id, profile="d6")
    table.session.admins.add(ANNA.id)
    await table.say(ANNA, "/rules set много_сторон=нет")
    await table.say(ANNA, "/vs 3")
    sent = table.session.messages[-1]
    join = next(
        b.callback_data or ""
        for b in buttons(sent.reply_markup)
        if ContestCallback.unpack(b.callback_data or "").a is ContestAction.JOIN
    )
    await table.tap(BORIS, join, sent.message_id)
    edit = table.session.edits[-1]
    assert "Могут вступить" not in edit.text
    assert "«Итог» подводит черту." in edit.text
    actions = {ContestCallback.unpack(b.callback_data or "").a for b in buttons(edit.reply_markup)}
    assert actions == {ContestAction.RESOLVE}


@pytest.mark.parametrize("topic", ["/help", "/help sheet"])
async def test_d6_help_speaks_the_d6_games_words(table: Table, topic: str) -> None:
    await table.store.update_chat(table.chat.id, profile="d6")
    await table.say(ANNA, topic)
    text = table.session.sent[-1].text
    assert "Рассказчик" not in text
    assert "сценарист" in text
    assert "ловкость 3" not in text


async def test_dice_are_written_k10_in_russian(table: Table) -> None:
    await table.say(ANNA, "/init 7")
    text = table.session.sent[-1].text
    assert "(Ловкость + Смекалка + 1к10)" in text
    assert "d10" not in text
