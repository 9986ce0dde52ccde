"""A d6 project's step, pure: actions add up, a challenge counts each one's actions."""

from __future__ import annotations

from bot import render
from bot.runner import Actor, Advance, Known, Open
from handlers.d6project import view
from handlers.d6project.callbacks import ProjectAction, ProjectCallback
from handlers.d6project.flow import ProjectFlow
from handlers.d6project.tap import Presser, step
from rules.d6.projects import ProjectStatus, new_project
from rules.profiles import D6
from tests.handlers.stepping import ANNA, Faces, flow_of, speaking

PROJECT = ProjectFlow(title="Мост", project=new_project(3))
CHALLENGE = ProjectFlow(title="Погоня", project=new_project(3), actions=1)


def press(action: ProjectAction, x: int = 0) -> ProjectCallback:
    return ProjectCallback(f="f1", v=3, a=action, x=x)


NOBODY = Presser()


def known(state: ProjectFlow, presser: Presser = NOBODY) -> Known[Presser]:
    return Known(flow=flow_of(state), profile=D6, read=presser)


def test_a_rolled_action_counts_and_is_logged_under_the_full_name() -> None:
    anna = Actor(id=ANNA.id, name="Аня", full_name="Аня Петрова")
    chance = view.ROLL_CHANCES[0]
    with speaking("ru"):
        outcome = step(
            PROJECT, press(ProjectAction.ROLL, chance), anna, known(PROJECT), Faces([6] * chance)
        )
    after = outcome.state
    assert after is not None
    assert after.used == {f"u{ANNA.id}": 1}
    assert after.names == {f"u{ANNA.id}": "Аня Петрова"}
    assert len(after.history) == 1
    assert [(e.name, e.kind) for e in outcome.entries] == [("Аня Петрова", "project")]


def test_an_action_with_no_roll_logs_nothing() -> None:
    with speaking("ru"):
        outcome = step(PROJECT, press(ProjectAction.AUTO), ANNA, known(PROJECT), Faces([]))
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.auto_counted
    assert outcome.entries == ()


def test_a_chance_no_button_offers_is_invalid_and_a_spent_challenger_is_told() -> None:
    forged = step(PROJECT, press(ProjectAction.ROLL, 99), ANNA, known(PROJECT), Faces([]))
    assert forged.answer is render.invalid_button_text
    spent = CHALLENGE.model_copy(update={"used": {f"u{ANNA.id}": 1}})
    again = step(spent, press(ProjectAction.AUTO), ANNA, known(spent), Faces([]))
    assert again.answer is view.no_actions_text


def test_closing_a_challenge_is_time_running_out() -> None:
    refused = step(CHALLENGE, press(ProjectAction.CLOSE), ANNA, known(CHALLENGE), Faces([]))
    assert refused.answer is view.only_opener_text
    closed = step(
        CHALLENGE,
        press(ProjectAction.CLOSE),
        ANNA,
        known(CHALLENGE, Presser(may_close=True)),
        Faces([]),
    )
    assert closed.close
    assert isinstance(closed, Advance | Open)
    assert closed.state.project.status is ProjectStatus.FAILED_TIME
    plain = step(
        PROJECT,
        press(ProjectAction.CLOSE),
        ANNA,
        known(PROJECT, Presser(may_close=True)),
        Faces([]),
    )
    assert isinstance(plain, Advance | Open)
    assert plain.state.closed_unfinished
