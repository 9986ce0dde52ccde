"""Projects (Замыслы), challenges (Вызовы) and unfinished projects: docs/rules.md §D.6 (S2
«Замыслы», «Недоделанный замысел»).

A project is progress kept between rolls: S2 «Размах замысла — минимальное количество мер
успеха, которое нужно получить, чтобы воплотить его». Its readiness («степень готовности»)
goes in and comes out as a frozen :class:`Project`; a challenge adds S2's time limit, a number
of actions per character present.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from rules.d6.chance import MAGNITUDE_MAX, _Frozen
from rules.d6.roll import D6Outcome, D6Result, fiasco_penalty, gain_value
from rules.errors import ErrorCode, RulesInputError, check_int
from rules.profiles import Profile


class ProjectStatus(StrEnum):
    IN_PROGRESS = "in_progress"
    COMPLETE = "complete"  # readiness reached the scope
    FAILED = "failed"  # S2 «…оказывается отрицательной из-за фиаско, замысел проваливается»
    FAILED_TIME = "failed_time"  # a challenge whose actions ran out


class Project(_Frozen):
    """Замысел (размах). ``gain`` is set on completion: S2 «выигрыш — количество мер успеха
    сверх размаха»."""

    scope: int
    readiness: int = 0
    status: ProjectStatus = ProjectStatus.IN_PROGRESS
    gain: int | None = None


def new_project(scope: int) -> Project:
    return Project(scope=check_int(scope, "scope", 1, MAGNITUDE_MAX))


def _measures_and_fiasco(result: D6Result | int, profile: Profile | None) -> tuple[int, bool]:
    if isinstance(result, D6Result):
        if result.armour:
            raise RulesInputError(ErrorCode.NOT_ALLOWED, "result", "an armour roll builds nothing")
        return gain_value(result, profile), result.outcome is D6Outcome.FIASCO
    m = check_int(result, "result", 0, MAGNITUDE_MAX)
    return m, m == 0


def project_step(
    project: Project,
    result: D6Result | int,
    weakness: int | None,
    profile: Profile | None = None,
) -> Project:
    """Add one roll (a :class:`D6Result` or its measures) to ``project``.

    On a fiasco S2 takes away «твоя слабость (или −3, если у персонажей нет слабостей)» from the
    readiness; a negative readiness fails the project, zero survives. In a team project the
    weakness is the rolling character's (AMB-D13).
    """
    if not isinstance(project, Project):
        raise RulesInputError(ErrorCode.TYPE, "project", "expected Project")
    if project.status is not ProjectStatus.IN_PROGRESS:
        raise RulesInputError(ErrorCode.STATE, "project", f"project is {project.status}")
    measures, fiasco = _measures_and_fiasco(result, profile)
    if fiasco:
        readiness = project.readiness - fiasco_penalty(weakness, profile)
        if readiness < 0:
            return Project(scope=project.scope, readiness=readiness, status=ProjectStatus.FAILED)
    else:
        if weakness is not None:
            check_int(weakness, "weakness", 1, 5)
        readiness = project.readiness + measures
    if readiness >= project.scope:
        return Project(
            scope=project.scope,
            readiness=readiness,
            status=ProjectStatus.COMPLETE,
            gain=readiness - project.scope,
        )
    return Project(scope=project.scope, readiness=readiness)


class Challenge(_Frozen):
    """Вызов (размах, действия): S2 «сценарист объявляет размах замысла и сообщает, сколько
    действий каждый из присутствующих в сцене героев может предпринять».

    ``personal_owner`` marks a personal challenge (личный вызов): S2 «ему придётся справиться с
    ним в одиночку — помочь ему никто не сумеет».
    """

    project: Project
    actions_left: dict[str, int]
    personal_owner: str | None = None


def new_challenge(
    scope: int,
    actions: int,
    characters: Sequence[str],
    personal_owner: str | None = None,
) -> Challenge:
    """A challenge for ``characters`` each allowed ``actions`` rolls."""
    project = new_project(scope)
    check_int(actions, "actions", 1, MAGNITUDE_MAX)
    if isinstance(characters, str) or not isinstance(characters, Sequence):
        raise RulesInputError(ErrorCode.TYPE, "characters", "expected a sequence of ids")
    names = list(characters)
    if not all(isinstance(c, str) for c in names):
        raise RulesInputError(ErrorCode.TYPE, "characters", "expected a sequence of ids")
    if not names or len(set(names)) != len(names):
        raise RulesInputError(ErrorCode.RANGE, "characters", "distinct ids, at least one")
    if personal_owner is not None:
        if personal_owner not in names:
            raise RulesInputError(ErrorCode.STATE, "personal_owner", "owner is not present")
        names = [personal_owner]
    return Challenge(
        project=project,
        actions_left=dict.fromkeys(names, actions),
        personal_owner=personal_owner,
    )


def challenge_step(
    challenge: Challenge,
    character: str,
    result: D6Result | int,
    weakness: int | None,
    profile: Profile | None = None,
) -> Challenge:
    """One character's roll against a challenge.

    A character with no actions left, or anyone but the owner of a personal challenge, is refused
    with ``E_NOT_ALLOWED``. When the last action of everyone is spent and the project is still in
    progress, time is up: ``FAILED_TIME``.
    """
    if not isinstance(challenge, Challenge):
        raise RulesInputError(ErrorCode.TYPE, "challenge", "expected Challenge")
    if not isinstance(character, str):
        raise RulesInputError(ErrorCode.TYPE, "character", "expected an id")
    if challenge.personal_owner is not None and character != challenge.personal_owner:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "character", "a personal challenge")
    left = challenge.actions_left.get(character, 0)
    if left < 1:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "character", "no actions left")
    project = project_step(challenge.project, result, weakness, profile)
    actions_left = {**challenge.actions_left, character: left - 1}
    if project.status is ProjectStatus.IN_PROGRESS and sum(actions_left.values()) == 0:
        project = project.model_copy(update={"status": ProjectStatus.FAILED_TIME})
    return challenge.model_copy(update={"project": project, "actions_left": actions_left})


def unfinished_relief(magnitude: int, readiness: int) -> int:
    """The new magnitude of a difficulty eased by an unfinished project (S2 «Смягчение трудности
    … масштаб трудности может уменьшиться на выигрыш персонажа»).

    [P] The «выигрыш» of an unfinished project is read as its readiness (a project's gain proper
    only exists beyond the scope); 0 means the difficulty is gone.
    """
    check_int(magnitude, "magnitude", 1, MAGNITUDE_MAX)
    check_int(readiness, "readiness", 0, MAGNITUDE_MAX)
    return max(0, magnitude - readiness)


def removal_project(magnitude: int) -> Project:
    """Removing a difficulty or an advantage by action (S3 «нужно будет воплотить замысел, размах
    которого равен её масштабу»)."""
    return new_project(magnitude)
