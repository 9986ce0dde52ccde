"""The contract between the one-message wizard and the table rolls it opens (docs/product.md §2).

``/ext``, ``/team``, ``/vs`` and ``/multi`` typed without numbers open one wizard
(``handlers/wizard``): the player picks the pool, the difficulty and maybe a target on
buttons, and «Бросить» turns the same message into the feature's own roll. The wizard knows
no feature: each one declares a :class:`WizardTarget` under :func:`target_key`, and opens the
wizard through :data:`OPEN_WIZARD`; both go through the :class:`~bot.features.FeatureSet`
(ARCHITECTURE.md "Features do not import each other"). «Продлить» under a ``/r`` result hands
its roll to the extended action the same way (:data:`EXTEND_ROLL`).

Every wizard of the bot — the table rolls' (``handlers/wizard``), ``/r``'s, the d6 ``/r``'s and
the Effect's setup under ``/m`` — runs on one machinery, :class:`Wizard`: its choice buttons are
a table of :class:`Choices` (an action's number in, the next choices out, a number no button
offers refused), the buttons that end it (roll, cast, cancel) are steps of their own, and the
runner (bot/runner.py) stores, redraws and answers for all of them alike.

A hand-off is pure so that nothing is half done: ``start`` checks the numbers and says what
the new flow is (an :class:`Opening`, raising ``RulesInputError`` on a bad one), and the
runner stores it in the very write that closes the caller's flow (:attr:`Opening.into`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Generic, Protocol, TypeVar, cast

from aiogram.filters import CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardMarkup, Message

from bot import render, table_text
from bot.features import FeatureSet, HandoffKey
from bot.names import roller_name
from bot.runner import Actor, Advance, Into, Known, Outcome, Step
from rules.d10 import D10Result
from rules.dice import Rng
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import GameSystem, Profile
from table.parsing import ArgumentsError
from table.store import Flow, FlowState, LogEntry, Store

Arguments = TypeVar("Arguments")
Drawn = tuple[str, InlineKeyboardMarkup | None]
S = TypeVar("S", bound=FlowState)
A = TypeVar("A", bound=CallbackData)
R = TypeVar("R")
Seen = TypeVar("Seen")

Pick = Callable[[S, int, Seen], S]


class Pressed(Protocol):
    """A wizard's button as the machinery reads it: which choice (``a``) and its number."""

    @property
    def a(self) -> Enum: ...

    @property
    def x(self) -> int: ...


@dataclass(frozen=True)
class Choices(Generic[S, Seen]):
    """A wizard's choice buttons: for each action, how its number changes the choices so far
    (``Seen``: what a choice may consult — the chat's profile, the sheet read, the roll the
    wizard opens). A pick raises ``RulesInputError`` for a number no button offers; an action
    the table lacks is an invalid button too."""

    picks: Mapping[Enum, Pick[S, Seen]]

    def choose(self, state: S, action: Enum, x: int, seen: Seen) -> S:
        pick = self.picks.get(action)
        if pick is None:
            raise RulesInputError(ErrorCode.UNKNOWN_KEY, "action", str(action.value))
        return pick(state, x, seen)


@dataclass(frozen=True)
class Wizard(Generic[S, A, R, Seen]):
    """One wizard: its :class:`Choices`, the buttons that end it (``ends``: a step each, for
    a roll, a cast or «Отмена»), and what its choices consult (``seen``, from what the
    step knows). :meth:`step` is the declaration's pure step (bot/runner.py)."""

    choices: Choices[S, Seen]
    ends: Mapping[Enum, Step[S, A, R]]
    seen: Callable[[S, Known[R]], Seen]

    def step(self, state: S, data: A, actor: Actor, known: Known[R], rng: Rng | None) -> Outcome[S]:
        pressed = cast(Pressed, data)  # every wizard's CallbackData names its action and number
        end = self.ends.get(pressed.a)
        if end is not None:
            return end(state, data, actor, known, rng)
        seen = self.seen(state, known)
        return Advance(state=self.choices.choose(state, pressed.a, pressed.x, seen))


class WizardMode(StrEnum):
    """How the wizard asks for dice: one pool; several pools declared one by one (§A.9,
    cumulative); or one pool to split (§A.9, split-pool games)."""

    ONE_POOL = "one"
    DECLARE = "declare"
    SPLIT = "split"


@dataclass(frozen=True)
class WizardChoice:
    """What the player chose, and the first roll when the target rolls at once."""

    owner_id: int
    roller: str
    pool: int | None
    difficulty: int
    target: int | None
    pools: tuple[int, ...]
    carry: str | None
    first: D10Result | None
    difficulties: tuple[int, ...] = ()  # per declared pool, in the order of ``pools``


@dataclass(frozen=True)
class Opening:
    """A flow another feature is about to open: its state and log lines, how it is drawn
    once it has an id, and ``closed`` when it is finished from the start (nothing to press)."""

    state: FlowState
    entries: Sequence[LogEntry]
    draw: Callable[[Flow], Drawn]
    closed: bool = False

    @property
    def into(self) -> Into:
        """Drawn into the pressed message, stored in the write that closes the pressed flow
        (bot/runner.py :class:`HandOver`)."""
        return Into(self.state, self.draw, tuple(self.entries), self.closed)


@dataclass(frozen=True)
class WizardTarget:
    """A table roll the wizard can open.

    ``targets``: the wizard offers «🏁 target» buttons; ``target_required``: «Бросить» waits
    for one. ``rolls_first``: the wizard rolls the chosen pool before handing over (all but
    /multi, whose actions are rolled one by one afterwards)."""

    name: str
    title: Callable[[], str]
    mode: Callable[[Profile], WizardMode]
    start: Callable[[WizardChoice, Profile], Opening]
    targets: bool = False
    target_required: bool = False
    rolls_first: bool = True


def target_key(name: str) -> HandoffKey[WizardTarget]:
    return HandoffKey(f"wizard.target.{name}")


class OpenWizard(Protocol):
    async def __call__(
        self,
        message: Message,
        store: Store,
        profile: Profile,
        target: str,
        roller: str,
        *,
        carry: FlowState | None = None,
        opponent: str | None = None,
        features: FeatureSet,
    ) -> None: ...


OPEN_WIZARD: HandoffKey[OpenWizard] = HandoffKey("wizard.open")


@dataclass(frozen=True)
class ExtendRequest:
    """A finished ``/r`` roll to become the first roll of an extended action (§A.11)."""

    roller: str
    pool: int
    difficulty: int
    target: int
    first: D10Result


EXTEND_ROLL: HandoffKey[Callable[[ExtendRequest, Profile], Opening]] = HandoffKey(
    "extended.from_roll"
)


async def typed_or_wizard(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    features: FeatureSet,
    target: str,
    parse: Callable[[str | None], Arguments],
    usage: str,
) -> Arguments | None:
    """The arguments of ``/ext``, ``/team`` or ``/multi``, or None once answered: the d6
    game has no such rolls, a bare command opens the wizard (docs/product.md §2), and a line
    that does not parse is explained with the command's usage."""
    if profile.system is not GameSystem.D10:
        await message.answer(render.wrong_system_text())
        return None
    if not (command.args or "").strip():
        roller = roller_name(message, message.from_user)
        await features.handoff(OPEN_WIZARD)(
            message, store, profile, target, roller, features=features
        )
        return None
    try:
        return parse(command.args)
    except ArgumentsError as problem:
        await message.answer(
            table_text.problem_text(problem.problem, problem.token, profile, usage)
        )
        return None
