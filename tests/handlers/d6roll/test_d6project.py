"""``/project`` in a d6 chat (docs/rules.md §D.6): measures add up to the scope, a fiasco takes the
roller's weakness away, below zero fails; a challenge counts each character's actions."""

from __future__ import annotations

import pytest

from handlers.d6project.callbacks import ProjectAction, ProjectCallback
from handlers.d6project.flow import ProjectFlow
from rules.d6.projects import ProjectStatus, new_project, project_step
from rules.d6.roll import count_measures
from tests.handlers.conftest import Table, buttons, player

ANNA = player(1, "Anna")
BORIS = player(2, "Boris")


@pytest.fixture
async def d6(table: Table) -> Table:
    await table.store.update_chat(table.chat.id, profile="d6")
    return table


def press(markup: object, action: ProjectAction, x: int | None = None) -> str:
    for button in buttons(markup):
        data = ProjectCallback.unpack(button.callback_data or "")
        if data.a is action and (x is None or data.x == x):
            return button.callback_data or ""
    raise AssertionError(f"no {action} button")


async def state(table: Table, data: str) -> ProjectFlow:
    flow = await table.store.load_flow(table.chat.id, ProjectCallback.unpack(data).f)
    assert flow is not None
    return flow.state(ProjectFlow)


async def test_a_project_gathers_measures_to_its_scope(d6: Table) -> None:
    await d6.say(ANNA, "/set слабость 1")
    await d6.say(ANNA, "/project 3 Починить катер")
    sent = d6.session.sent[-1]
    assert "Замысел (3) — <b>Починить катер</b>" in sent.text
    mid = d6.session.messages[-1].message_id
    markup = sent.reply_markup
    expected = new_project(3)
    for _ in range(30):
        data = press(markup, ProjectAction.ROLL, 4)
        before = await state(d6, data)
        await d6.tap(ANNA, data, mid)
        after = await state(d6, data)
        rolled = after.history[-1].split(": ", 1)[1].split(" — ")[0]
        faces = [int(c) for c in rolled if c.isdigit()]
        expected = project_step(before.project, count_measures(faces), 1)
        assert after.project == expected
        edit = d6.session.edits[-1]
        if edit.reply_markup is None:
            break
        markup = edit.reply_markup
    assert expected.status in (ProjectStatus.COMPLETE, ProjectStatus.FAILED)
    text = d6.session.edits[-1].text
    assert (
        ("Готово" in text)
        if expected.status is ProjectStatus.COMPLETE
        else ("проваливается" in text)
    )


async def test_a_challenge_counts_actions_and_its_time_runs_out(d6: Table) -> None:
    await d6.say(ANNA, "/project 30 действий 1")
    sent = d6.session.sent[-1]
    assert "Вызов (30, 1)" in sent.text
    mid = d6.session.messages[-1].message_id
    await d6.tap(BORIS, press(sent.reply_markup, ProjectAction.ROLL, 8), mid)
    edit = d6.session.edits[-1]
    if edit.reply_markup is None:  # a fiasco on 8 dice (4 %): readiness −3, failed
        assert "проваливается" in edit.text
        return
    await d6.tap(BORIS, press(edit.reply_markup, ProjectAction.ROLL, 2), mid)
    assert "потрачены" in d6.session.answers[-1].text
    await d6.tap(BORIS, press(edit.reply_markup, ProjectAction.CLOSE), mid)
    assert d6.session.answers[-1].show_alert
    await d6.tap(ANNA, press(edit.reply_markup, ProjectAction.CLOSE), mid)
    final = await state(d6, press(edit.reply_markup, ProjectAction.CLOSE))
    assert final.project.status is ProjectStatus.FAILED_TIME  # a challenge stops when time is up
    assert "Время вышло: вызов провален." in d6.session.edits[-1].text
    assert "Недоделанный замысел" in d6.session.edits[-1].text or final.project.readiness < 0


async def test_bad_input_and_the_d10_games(d6: Table) -> None:
    await d6.say(ANNA, "/project")
    assert "/project 5" in d6.session.sent[-1].text
    await d6.say(ANNA, "/project 99")
    assert "/project 5" in d6.session.sent[-1].text
    await d6.store.update_chat(d6.chat.id, profile="mage")
    await d6.say(ANNA, "/project 5")
    assert "/ext" in d6.session.sent[-1].text


async def test_a_d6_roll_in_reply_to_a_project_counts_toward_it(d6: Table) -> None:
    await d6.say(ANNA, "/project 30 Построить мост")
    sent = d6.session.sent[-1]
    mid = d6.session.messages[-1].message_id
    data = press(sent.reply_markup, ProjectAction.ROLL, 4)
    await d6.say(ANNA, "/r 5", reply_to=BORIS, replied_id=mid, replied_markup=sent.reply_markup)
    after = await state(d6, data)
    assert after.used == {f"u{ANNA.id}": 1}
    assert len(after.history) == 1
    rolled = after.history[-1].split(": ", 1)[1].split(" — ")[0]
    assert len([c for c in rolled if c.isdigit()]) == 5
    assert "Построить мост" in d6.session.edits[-1].text


async def test_a_roll_in_reply_to_a_project_does_not_spend_luck(d6: Table) -> None:
    await d6.say(ANNA, "/project 3")
    sent = d6.session.sent[-1]
    mid = d6.session.messages[-1].message_id
    data = press(sent.reply_markup, ProjectAction.ROLL, 4)
    await d6.say(ANNA, "/set удача 2")
    await d6.say(
        ANNA, "/r 2 удача 1", reply_to=BORIS, replied_id=mid, replied_markup=sent.reply_markup
    )
    assert "удачи" in d6.session.sent[-1].text.casefold()
    assert (await state(d6, data)).used == {}
