"""The contract between the one-message wizard and the table rolls it opens (docs/product.md §2).

``/ext``, ``/team``, ``/vs`` and ``/multi`` typed without numbers open one wizard
(``handlers/wizard``): the player picks the pool, the difficulty and maybe a target on
buttons, and «Бросить» turns the same message into the feature's own roll. The wizard knows
no feature: each one declares a :class:`WizardTarget` under :func:`target_key`, and opens the
wizard through :data:`OPEN_WIZARD`; both go through the :class:`~bot.features.FeatureSet`
(ARCHITECTURE.md "Features do not import each other"). «Продлить» under a ``/r`` result hands
its roll to the extended action the same way (:data:`EXTEND_ROLL`).

A hand-off is two steps so that nothing is half done: ``start`` is pure (it checks the
numbers and builds the new flow, raising ``RulesInputError`` on a bad one), then the caller
closes its own flow, and only the one tap that closed it calls :attr:`Opening.open`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, TypeVar

from aiogram.filters import CommandObject
from aiogram.types import InlineKeyboardMarkup, Message

from bot import render, table_text
from bot.features import FeatureSet, HandoffKey
from bot.names import roller_name
from bot.parsing import ArgumentsError
from bot.store import FlowState, LogEntry, Store
from rules.d10 import D10Result
from rules.profiles import GameSystem, Profile

Arguments = TypeVar("Arguments")
Drawn = tuple[str, InlineKeyboardMarkup | None]


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
    """A flow another feature is about to open: its state and log lines, and how it is
    stored and drawn once the caller has closed its own flow."""

    state: FlowState
    entries: Sequence[LogEntry]
    open: Callable[[Store, int, int], Awaitable[Drawn]]


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
