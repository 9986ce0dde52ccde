"""The wizard's buttons as one pure step (bot/runner.py): a choice of pool, difficulty or target,
undo, «Отмена», and «Бросить», which hands the message over to the roll it was opened for.

Only whoever opened the wizard presses. «Бросить» rolls the first roll (when the target
rolls at once) and builds the target's flow purely (:attr:`bot.wizard.WizardTarget.start`);
the runner then closes the wizard and only the press that closed it opens that flow.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiogram.types import InlineKeyboardMarkup

from bot import rolling, table_text
from bot.runner import Actor, Advance, HandOver, Known, Outcome, Tap, Who
from bot.wizard import Choices, Wizard, WizardChoice, WizardMode, WizardTarget, target_key
from handlers.wizard import view
from handlers.wizard.callbacks import SetupAction, SetupCallback
from handlers.wizard.flow import SetupState
from rules.dice import Rng
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import Profile
from table.store import Flow


def target_of(state: SetupState, known: Known[None]) -> WizardTarget:
    """The roll the wizard opens, as its feature declared it; a wizard whose target is gone,
    or whose chat switched between a cumulative and a split-pool game since it was drawn
    (§A.9: its choices mean nothing in the new mode), is an invalid button."""
    key = target_key(state.target_name)
    if known.features is None or not known.features.has(key):
        raise RulesInputError(ErrorCode.STATE, "target", state.target_name)
    target = known.features.handoff(key)
    if target.mode(known.profile) is not state.mode:
        raise RulesInputError(ErrorCode.STATE, "mode", "the chat's game changed")
    return target


@dataclass(frozen=True)
class Seen:
    """What the wizard's choices consult: the roll it opens and the chat's profile."""

    target: WizardTarget
    profile: Profile


def _seen(state: SetupState, known: Known[None]) -> Seen:
    return Seen(target_of(state, known), known.profile)


def _undo(state: SetupState, x: int, seen: Seen) -> SetupState:
    if state.mode is not WizardMode.DECLARE or not state.pools:
        raise RulesInputError(ErrorCode.STATE, "pools", "nothing to undo")
    return state.model_copy(
        update={"pools": state.pools[:-1], "difficulties": state.difficulties[:-1]}
    )


def _pool(state: SetupState, x: int, seen: Seen) -> SetupState:
    profile = seen.profile
    if state.mode is WizardMode.DECLARE:
        if x not in table_text.TABLE_POOLS or len(state.pools) >= profile.max_declared_actions:
            raise RulesInputError(ErrorCode.RANGE, "pool", str(x))
        return state.model_copy(
            update={
                "pools": (*state.pools, x),
                "difficulties": (*state.difficulties, state.difficulty),
            }
        )
    if state.mode is WizardMode.SPLIT and not 2 <= x <= table_text.SPLIT_BUTTONS_MAX:
        raise RulesInputError(ErrorCode.RANGE, "pool", str(x))
    if x not in table_text.TABLE_POOLS or x > profile.pool_sanity_max:
        raise RulesInputError(ErrorCode.RANGE, "pool", str(x))
    return state.model_copy(update={"pool": x})


def _difficulty(state: SetupState, x: int, seen: Seen) -> SetupState:
    return state.model_copy(update={"difficulty": rolling.check_difficulty(x, seen.profile)})


def _target(state: SetupState, x: int, seen: Seen) -> SetupState:
    if not seen.target.targets or x not in table_text.EXTEND_TARGETS:
        raise RulesInputError(ErrorCode.RANGE, "target", str(x))
    # A second tap on the chosen target clears it where a target is optional (teamwork).
    cleared = state.target == x and not seen.target.target_required
    return state.model_copy(update={"target": None if cleared else x})


def _cancel(
    state: SetupState, action: SetupCallback, actor: Actor, known: Known[None], rng: Rng | None
) -> Outcome[SetupState]:
    target_of(state, known)  # a wizard whose roll is gone is an invalid button, even here
    return Advance(state=state.model_copy(update={"cancelled": True}), close=True)


def _go(
    state: SetupState, action: SetupCallback, actor: Actor, known: Known[None], rng: Rng | None
) -> Outcome[SetupState]:
    return _start(state, target_of(state, known), known, rng)


# The table rolls' wizard on the one wizard machinery (bot/wizard.py).
WIZARD: Wizard[SetupState, SetupCallback, None, Seen] = Wizard(
    choices=Choices(
        {
            SetupAction.UNDO: _undo,
            SetupAction.POOL: _pool,
            SetupAction.DIFFICULTY: _difficulty,
            SetupAction.TARGET: _target,
        }
    ),
    ends={SetupAction.CANCEL: _cancel, SetupAction.GO: _go},
    seen=_seen,
)


def step(
    state: SetupState, action: SetupCallback, actor: Actor, known: Known[None], rng: Rng | None
) -> Outcome[SetupState]:
    return WIZARD.step(state, action, actor, known, rng)


def _start(
    state: SetupState, target: WizardTarget, known: Known[None], rng: Rng | None
) -> Outcome[SetupState]:
    """«Бросить»: the first roll (when the target rolls at once), and the message becomes
    the target's own flow. The dice are cast before the wizard closes, so a roll the rules
    refuse leaves the wizard open, and a lost race shows nothing."""
    if not state.ready(target):
        raise RulesInputError(ErrorCode.STATE, "pool", "not chosen")
    profile = known.profile
    difficulty = rolling.check_difficulty(state.difficulty, profile)
    first = None
    if target.rolls_first and state.pool is not None:
        first = rolling.roll_d10(state.pool, difficulty, profile, rng=rng)
    choice = WizardChoice(
        owner_id=known.flow.owner_id,
        roller=state.roller,
        pool=state.pool,
        difficulty=difficulty,
        target=state.target,
        pools=state.pools,
        difficulties=state.difficulties,
        carry=state.carry,
        first=first,
    )
    opening = target.start(choice, profile)
    return HandOver(opening.into)


def draw(
    flow: Flow, state: SetupState, known: Known[None]
) -> tuple[str, InlineKeyboardMarkup | None]:
    return view.draw(flow, state, target_of(state, known), known.profile)


TAP: Tap[SetupState, SetupCallback, None] = Tap(
    model=SetupState, callback=SetupCallback, step=step, view=draw, who=Who.OWNER
)
