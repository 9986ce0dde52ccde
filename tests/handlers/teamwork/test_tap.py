"""The team's step, pure: helpers join once, roll their own pool, and only the leader ends it."""

from __future__ import annotations

import pytest

from bot import render
from bot.runner import Actor, Advance, Open, Refuse
from handlers.teamwork import view
from handlers.teamwork.callbacks import TeamAction, TeamCallback
from handlers.teamwork.flow import MAX_MEMBERS, Member, TeamFlow
from handlers.teamwork.tap import step
from rules import d10
from rules.errors import RulesInputError
from rules.profiles import HOUSE_MAGE
from tests.handlers.stepping import ANNA, BORIS, Faces, known

FIRST = d10.roll(3, 6, HOUSE_MAGE, rng=Faces([7, 8, 2]))
LEADER = Member(user_id=ANNA.id, name=ANNA.name, pool=3, result=FIRST)
TEAM = TeamFlow(leader=ANNA.name, difficulty=6, members=(LEADER,))
CHOOSING = TEAM.model_copy(update={"pending": ((BORIS.id, BORIS.name),)})


def press(action: TeamAction, x: int = 0) -> TeamCallback:
    return TeamCallback(f="f1", v=3, a=action, x=x)


def test_help_puts_the_presser_among_those_choosing() -> None:
    outcome = step(TEAM, press(TeamAction.JOIN), BORIS, known(TEAM), Faces([]))
    assert outcome.state == CHOOSING
    assert not outcome.close
    assert outcome.entries == ()


def test_a_second_help_changes_nothing_and_says_so_quietly() -> None:
    outcome = step(CHOOSING, press(TeamAction.JOIN), BORIS, known(CHOOSING), Faces([]))
    assert isinstance(outcome, Refuse)
    assert outcome.answer is render.already_done_text
    assert not outcome.alert


def test_a_helper_rolls_their_pool_at_the_teams_difficulty() -> None:
    outcome = step(CHOOSING, press(TeamAction.POOL, 2), BORIS, known(CHOOSING), Faces([6, 5]))
    after = outcome.state
    assert after is not None
    assert after.pending == ()
    helper = after.members[-1]
    assert (helper.user_id, helper.name, helper.pool) == (BORIS.id, BORIS.name, 2)
    assert helper.result.faces == (6, 5)
    assert helper.result.successes == 1
    assert [(e.user_id, e.kind) for e in outcome.entries] == [(BORIS.id, "team")]


def test_a_pool_before_help_or_a_second_roll_is_refused() -> None:
    early = step(TEAM, press(TeamAction.POOL, 2), BORIS, known(TEAM), Faces([]))
    assert isinstance(early, Refuse)
    assert early.answer is view.team_press_help_text
    assert early.alert
    again = step(TEAM, press(TeamAction.JOIN), ANNA, known(TEAM), Faces([]))
    assert isinstance(again, Refuse)
    assert again.answer is view.team_already_text


def test_a_forged_pool_is_an_invalid_button() -> None:
    with pytest.raises(RulesInputError):  # the runner answers it as an invalid button
        step(CHOOSING, press(TeamAction.POOL, 99), BORIS, known(CHOOSING), Faces([]))


def test_only_the_leader_finishes_and_finishing_closes() -> None:
    refused = step(CHOOSING, press(TeamAction.FINISH), BORIS, known(CHOOSING), Faces([]))
    assert isinstance(refused, Refuse)
    assert refused.answer is view.team_leader_only_text
    done = step(CHOOSING, press(TeamAction.FINISH), ANNA, known(CHOOSING), Faces([]))
    assert done.close
    assert isinstance(done, Advance | Open)
    assert done.state.closed
    assert done.state.pending == ()


def test_a_full_team_takes_no_more_helpers() -> None:
    others = tuple((100 + n, f"P{n}") for n in range(MAX_MEMBERS - 1))
    full = TEAM.model_copy(update={"pending": others})
    outcome = step(full, press(TeamAction.JOIN), Actor(id=99, name="Эмма"), known(full), Faces([]))
    assert isinstance(outcome, Refuse)
    assert outcome.alert
