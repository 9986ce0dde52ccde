"""The one road of a tap on a button under a flow's message (ARCHITECTURE.md "The road a tap
travels").

A feature says what its buttons do and nothing else: a pure **step** — the flow's state, the
button pressed, who pressed it and what the chat knows in; an :class:`Outcome` out — and a
**view** of a state. It declares both once as a :class:`Tap` and registers it on its router
(:func:`register`). :func:`run_tap` does the rest the same way for every feature:

1. load the flow the button names, in the message's own chat;
2. authorise the press (:func:`admit`, pure): a closed or expired flow is «закрыт» (and its
   message redrawn as the flow left it), another feature's flow or a version never drawn is
   an invalid button, a press on an older drawing is a repeat only for whoever acted since
   (docs/product.md §3 "Concurrency"), and the declaration's own rule of who may press
   (:class:`Who`), which game the buttons belong to, and whether a step is the current
   drawing's only (:attr:`Tap.current_only`);
3. read what the step needs besides the flow (:attr:`Tap.read`: a sheet, a right asked of
   Telegram), then call the step;
4. draw the next version and store the step with its effects — the log lines, a sheet's
   spend, a flow it opens — in one compare-and-set (``bot.store.flows``);
5. a press that lost the race to another's is run again on the fresh state
   (:data:`CONFLICT_ATTEMPTS`); then the message is edited and the presser answered, in the
   presser's own language (:func:`tell`).

A step raises ``RulesInputError`` (or pydantic's ``ValidationError``) for a press that means
nothing in its state (a forged number, a choice made impossible since): that is an invalid
button, and nothing changes.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from enum import Enum
from typing import Any, Generic, TypeVar

from aiogram import Bot, Router
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message, User
from pydantic import ValidationError

from bot import live as bot_live
from bot import render
from bot.features import FeatureSet
from bot.i18n import drawing, own_language
from bot.session import safe_edit
from bot.store import (
    AlsoStep,
    ChatSettings,
    Flow,
    FlowState,
    FlowStateError,
    Live,
    LogEntry,
    Screen,
    StepWrites,
    Store,
)
from bot.store.flows import SheetSpend
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile
from rules.sheet import Sheet

log = logging.getLogger(__name__)

S = TypeVar("S", bound=FlowState)
A = TypeVar("A", bound=CallbackData)
R = TypeVar("R")

Answer = Callable[[], str]
Drawn = tuple[str, InlineKeyboardMarkup | None]
Handoff = Callable[[Store, int, int], Awaitable[Drawn]]


@dataclass(frozen=True)
class Sequel:
    """What an :attr:`Outcome.then` may use once the step is stored (or, for a step that
    stores nothing, in its place): the store, the tapped message, the bot, the chat's profile,
    and what the compare-and-set left — the flow, and the sheet a ``spend`` changed (None
    when the step stored nothing or changed no sheet)."""

    store: Store
    message: Message
    bot: Bot | None
    profile: Profile
    flow: Flow | None = None
    sheet: Sheet | None = None


# Work a step leaves for after its compare-and-set, the one part of a press that is not pure
# (the attack panel opened for whoever acts, a finished fight's message unpinned); what it
# returns, if anything, is the presser's alert instead of the step's answer.
Then = Callable[[Sequel], Awaitable[Answer | None]]


@dataclass(frozen=True)
class Opens:
    """Another flow a step opens with a message of its own (the d6 tracker's «⚔️ Атака» rolls
    the attack): stored with the step and its ``entries`` in the same compare-and-set, then
    posted under the tapped message once the presser is answered."""

    state: FlowState
    owner: int
    draw: Callable[[Flow], Drawn]
    entries: tuple[LogEntry, ...] = ()


@dataclass(frozen=True)
class Redraw:
    """Another live message to edit once the step is stored: the tracker whose step
    (:attr:`Outcome.also`) went into the same compare-and-set as an attack's."""

    live: Live
    drawn: Drawn


# How often a press that lost the race to another player's press is applied again to the
# fresh state: each loss means someone else's step went through, so a whole table pressing
# at once (20 helpers of a teamwork roll) settles within this many rounds; a short random
# pause between rounds spreads the retries out.
CONFLICT_ATTEMPTS = 24
CONFLICT_PAUSE = 0.004


async def tell(callback: CallbackQuery, text: Answer, *, alert: bool = False) -> None:
    """A toast or alert only the presser sees, in the presser's own language (bot/i18n.py):
    a tap runs in the language of the message it sits under, so the text is made here."""
    with own_language():
        said = text()
    await callback.answer(said, show_alert=alert)


def screen_of(text: str, markup: InlineKeyboardMarkup | None) -> Screen:
    dumped = markup.model_dump(mode="json", exclude_none=True) if markup is not None else None
    return Screen(text=text, markup=dumped)


async def heal(message: Message, flow: Flow) -> None:
    """Redraw the message from the screen its flow stored when the message lags behind it
    (its keyboard differs from the stored one); a failure here only costs the healing."""
    if flow.screen is None:
        return
    shown = message.reply_markup
    if (shown.model_dump(mode="json", exclude_none=True) if shown else None) == flow.screen.markup:
        return  # its buttons carry the flow's version: the message is already current
    markup = (
        InlineKeyboardMarkup.model_validate(flow.screen.markup)
        if flow.screen.markup is not None
        else None
    )
    try:
        await safe_edit(message, flow.screen.text, markup)
    except TelegramAPIError as error:
        log.info("flow %s: message not redrawn: %s", flow.id, error)


class Who(Enum):
    """Who may press a flow's buttons, as far as the runner checks: whoever opened the flow,
    or anyone (then the step decides per button: a team's «Помочь», a challenge's side)."""

    ANYONE = "anyone"
    OWNER = "owner"


@dataclass(frozen=True)
class Actor:
    """Who pressed: their id, their first name and (when Telegram gave one) their full name."""

    id: int
    name: str
    full_name: str | None = None

    @property
    def whole_name(self) -> str:
        return self.full_name or self.name

    @classmethod
    def of(cls, user: User) -> Actor:
        return cls(id=user.id, name=user.first_name, full_name=user.full_name)


@dataclass(frozen=True)
class Known(Generic[R]):
    """What the chat knows when a step runs: the flow as stored (its id, owner, version), the
    chat's profile, the other features' hand-offs, what the declaration's ``read`` fetched
    (None without one), and the language the message is drawn in (bot/i18n.py)."""

    flow: Flow
    profile: Profile
    read: R
    features: FeatureSet | None = None
    locale: str = "ru"


@dataclass(frozen=True)
class Outcome(Generic[S]):
    """What a press does. ``state`` None: nothing is stored, the presser is only answered
    (a refusal). Otherwise ``state`` is stored as the flow's next version (``close``: its
    buttons stop), with ``entries`` in the chat's log, ``spend`` (and ``more``) taken off
    sheets, and ``creates`` stored as a new flow, all in one atomic step. ``handoff``: the
    flow closes as it is and the hand-off opens another feature's flow, whose drawing the
    message then shows (bot/wizard.py). ``answer`` is the presser's toast (``alert``: an
    alert), made in their language; ``heal``: the message is redrawn from its stored screen
    first (a repeated press). ``unpaid``: what the presser is told when ``spend`` finds the
    sheet no longer has what the step read (then nothing is stored). ``post``: once the step
    is stored, a new message is sent below, drawn by ``post`` (a next attempt posted as its
    own result); ``keyboard_only``: the message keeps its text and only its buttons are
    redrawn (a result whose text the step never changes). ``also``: a second flow's step
    stored in the same compare-and-set (the tracker's, with an attack's or a soak's: it needs
    a ``spend``), and ``redraw`` the live messages edited after it; ``then``: what is left to
    do once it is stored (:data:`Then`); ``opens``: a flow the step opens and posts
    (:class:`Opens`)."""

    state: S | None = None
    close: bool = False
    entries: tuple[LogEntry, ...] = ()
    spend: SheetSpend | None = None
    more: tuple[SheetSpend, ...] = ()
    creates: Flow | None = None
    handoff: Handoff | None = None
    answer: Answer | None = None
    alert: bool = False
    heal: bool = False
    unpaid: Answer = render.invalid_button_text
    post: Handoff | None = None
    keyboard_only: bool = False
    also: AlsoStep | None = None
    redraw: tuple[Redraw, ...] = ()
    then: Then | None = None
    opens: Opens | None = None


def refuse(text: Answer, *, alert: bool = True) -> Outcome[Any]:
    """A press that changes nothing, answered with ``text``."""
    return Outcome(answer=text, alert=alert)


def repeat() -> Outcome[Any]:
    """A press its presser already made: the message is brought up to date, a toast says so."""
    return Outcome(answer=render.already_done_text, heal=True)


class SheetMoved(Exception):
    """Raised by a spend's change when the sheet is no longer the one the step read: the
    press is run again on the sheet as it is now (a casting, a crossing of the Barrier)."""


@dataclass(frozen=True)
class Refusal:
    """Why a press is not run, as the presser is told; ``heal``: redraw the message first."""

    text: Answer
    alert: bool = True
    heal: bool = False


CLOSED = Refusal(render.closed_text, heal=True)
INVALID = Refusal(render.invalid_button_text)
REPEATED = Refusal(render.already_done_text, alert=False, heal=True)
NOT_YOURS = Refusal(render.not_yours_text)


@dataclass(frozen=True)
class Gate:
    """The refusals a flow's buttons share. ``kinds``: the flows the buttons belong to;
    ``versioned``: the buttons carry the version they were drawn at; ``system``: the game
    the buttons belong to (None: any), refused with ``wrong_system`` in another;
    ``current_only``: the steps are one person's, in order (an attack, a cast), so a press
    on an older drawing is a repeat, never a new choice."""

    kinds: tuple[str, ...]
    versioned: bool = True
    who: Who = Who.ANYONE
    system: GameSystem | None = GameSystem.D10
    wrong_system: Answer = render.wrong_system_text
    current_only: bool = False


def admit(
    gate: Gate,
    flow: Flow | None,
    chat_id: int,
    version: int,
    presser: int,
    playing: GameSystem | None,
) -> Refusal | None:
    """Whether a press on a button drawn at ``version`` of ``flow`` (None: the chat has no
    such flow) by ``presser``, in a chat ``playing`` a game, may run; pure, so every
    refusal is in one place."""
    if flow is not None and flow.chat_id != chat_id:
        return INVALID
    if flow is None or flow.closed:
        return CLOSED
    if flow.kind not in gate.kinds:
        return INVALID
    if gate.versioned:
        if not 0 <= version <= flow.version:  # never drawn: a forged or garbled button
            return INVALID
        if version < flow.version and flow.acted_since(version, presser):
            return REPEATED
    if gate.who is Who.OWNER and flow.owner_id != presser:
        return NOT_YOURS
    if gate.system is not None and playing is not gate.system:
        return Refusal(gate.wrong_system)
    return None


def typed(gate: Gate, flow: Flow, model: type[S], version: int) -> S | Refusal:
    """The admitted flow read as ``model`` (data that does not read is an invalid button),
    and the current-drawing-only rule, which needs the flow to be what it says it is."""
    try:
        state = flow.state(model)
    except (ValidationError, FlowStateError):
        return INVALID
    if gate.current_only and version != flow.version:
        return REPEATED
    return state


@dataclass(frozen=True)
class Reading(Generic[S, A]):
    """What a declaration's ``read`` may look at to fetch what its step needs (``profile``:
    the chat's, which says whose sheets a read loads)."""

    store: Store
    message: Message
    presser: User
    flow: Flow
    state: S
    action: A
    bot: Bot | None = None
    chat_settings: ChatSettings | None = None
    profile: Profile | None = None


Step = Callable[[S, A, Actor, Known[R], Rng | None], Outcome[S]]
View = Callable[[Flow, S, Known[R]], Drawn]


@dataclass(frozen=True)
class Tap(Generic[S, A, R]):
    """A feature's buttons, declared once: the flow's model, the buttons' CallbackData (it
    carries the flow's id as ``f`` and the drawing's version as ``v``), the pure step, the
    view, and who may press (:class:`Gate`'s rules). ``read``: what the step needs besides
    the flow, fetched before it runs (None: nothing). ``versioned`` False: the buttons carry
    no version (every player presses the same one, and the step applies each press once).
    ``view`` None: every step hands the message over (a one-time confirmation), so the
    runner never draws the flow itself. ``only``: a rule on the button's data (a magic
    filter, ``F.a.in_(…)``) when two declarations share one CallbackData, each for its own
    flow's buttons."""

    model: type[S]
    callback: type[A]
    step: Step[S, A, R]
    view: View[S, R] | None
    who: Who = Who.ANYONE
    system: GameSystem | None = GameSystem.D10
    wrong_system: Answer = render.wrong_system_text
    current_only: bool = False
    read: Callable[[Reading[S, A]], Awaitable[R]] | None = None
    versioned: bool = True
    more_kinds: tuple[str, ...] = ()
    only: Any = None

    @property
    def gate(self) -> Gate:
        return Gate(
            kinds=(self.model.kind, *self.more_kinds),
            versioned=self.versioned,
            who=self.who,
            system=self.system,
            wrong_system=self.wrong_system,
            current_only=self.current_only,
        )


@dataclass(frozen=True)
class Context:
    """What the update hands a tap (aiogram's workflow data, bot/app.py)."""

    store: Store
    profile: Profile
    features: FeatureSet | None = None
    bot: Bot | None = None
    chat_settings: ChatSettings | None = None
    rng: Rng | None = None
    locale: str = "ru"

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Context:
        """From aiogram's workflow data: ``store`` and ``profile`` always, the rest if set."""
        locale = data.get("locale")
        return cls(
            store=data["store"],
            profile=data["profile"],
            features=data.get("features"),
            bot=data.get("bot"),
            chat_settings=data.get("chat_settings"),
            rng=data.get("rng"),
            locale=locale if isinstance(locale, str) else "ru",
        )


def address(data: CallbackData) -> tuple[str, int]:
    """The flow id and version a button carries (every flow button names them ``f``, ``v``;
    a button that carries no version reads as version 0)."""
    flow_id = getattr(data, "f", None)
    version = getattr(data, "v", 0)
    if not isinstance(flow_id, str) or not isinstance(version, int):
        raise TypeError(f"{type(data).__name__} names no flow and version")
    return flow_id, version


def register(router: Router, tap: Tap[Any, Any, Any]) -> None:
    """Answer the declaration's buttons on ``router`` through :func:`run_tap`."""

    async def on_tap(callback: CallbackQuery, callback_data: CallbackData, **data: Any) -> None:
        await run_tap(tap, callback, callback_data, Context.of(data))

    on_tap.__name__ = f"{tap.model.kind}_tap"
    buttons = tap.callback.filter(tap.only) if tap.only is not None else tap.callback.filter()
    router.callback_query.register(on_tap, buttons)


async def run_tap(tap: Tap[S, A, R], callback: CallbackQuery, data: A, context: Context) -> None:
    """Run a press to its end: answered once, stored at most once, whatever it carried."""
    for attempt in range(CONFLICT_ATTEMPTS):
        if await _attempt(tap, callback, data, context):
            return
        await asyncio.sleep(random.random() * CONFLICT_PAUSE * (attempt + 1))
    await tell(callback, render.busy_text, alert=True)


async def answer_refusal(
    callback: CallbackQuery, message: Message, flow: Flow | None, refusal: Refusal
) -> None:
    if refusal.heal and flow is not None:
        await heal(message, flow)
    await tell(callback, refusal.text, alert=refusal.alert)


async def _attempt(tap: Tap[S, A, R], callback: CallbackQuery, data: A, context: Context) -> bool:
    """One try; False when another press won the compare-and-set (run again)."""
    message = callback.message
    if not isinstance(message, Message):
        await tell(callback, render.closed_text, alert=True)
        return True
    flow_id, version = address(data)
    flow = await context.store.load_flow(message.chat.id, flow_id)
    gate = tap.gate
    presser = callback.from_user
    refusal = admit(gate, flow, message.chat.id, version, presser.id, context.profile.system)
    if refusal is not None or flow is None:
        await answer_refusal(callback, message, flow, refusal or CLOSED)
        return True
    state = typed(gate, flow, tap.model, version)
    if isinstance(state, Refusal):
        await answer_refusal(callback, message, flow, state)
        return True
    read: Any = None
    if tap.read is not None:
        reading = Reading(
            context.store,
            message,
            presser,
            flow,
            state,
            data,
            context.bot,
            context.chat_settings,
            context.profile,
        )
        read = await tap.read(reading)
    known: Known[R] = Known(flow, context.profile, read, context.features, context.locale)
    try:
        outcome = tap.step(state, data, Actor.of(presser), known, context.rng)
    except (RulesInputError, ValidationError):
        await tell(callback, render.invalid_button_text, alert=True)
        return True
    if outcome.state is None:
        if outcome.heal:
            await heal(message, flow)
        return await _answered(callback, outcome, await _sequel(outcome, message, context))
    return await _commit(tap, callback, message, context, known, outcome)


async def _sequel(
    outcome: Outcome[Any],
    message: Message,
    context: Context,
    stored: tuple[Flow | None, Sheet | None] = (None, None),
) -> Answer | None:
    """Run the step's :attr:`Outcome.then`, if any; its answer, if it has one."""
    if outcome.then is None:
        return None
    flow, sheet = stored
    sequel = Sequel(context.store, message, context.bot, context.profile, flow, sheet)
    return await outcome.then(sequel)


async def _commit(
    tap: Tap[S, A, R],
    callback: CallbackQuery,
    message: Message,
    context: Context,
    known: Known[R],
    outcome: Outcome[S],
) -> bool:
    """Store the step with its effects and its drawing in one compare-and-set, then show it."""
    store = context.store
    flow, after = known.flow, outcome.state
    assert after is not None
    if outcome.handoff is not None:
        if not await _hand_off(message, store, flow, outcome.handoff):
            return False
        return await _answered(callback, outcome)
    if tap.view is None:
        raise TypeError(f"{tap.model.kind}: a step with no hand-off needs the tap's view")
    with drawing(flow):
        text, markup = tap.view(flow.next(after, close=outcome.close), after, known)
    screen = screen_of(text, markup)
    advanced: Flow | None
    sheet: Sheet | None = None
    opened: Flow | None = None
    try:
        if outcome.spend is not None:
            advanced, sheet = await store.advance_flow_spending(
                flow,
                flow.version,
                after,
                outcome.spend,
                writes=StepWrites(
                    close=outcome.close, entries=outcome.entries, screen=screen, also=outcome.also
                ),
                more=outcome.more,
            )
        elif outcome.opens is not None:
            opened = store.new_flow(outcome.opens.state, flow.chat_id, outcome.opens.owner)
            entries = (*outcome.entries, *outcome.opens.entries)
            advanced = await store.advance_flow_creating(
                flow, flow.version, after, opened, screen=screen, entries=entries
            )
        elif outcome.creates is not None:
            advanced = await store.advance_flow_creating(
                flow, flow.version, after, outcome.creates, screen=screen, entries=outcome.entries
            )
        else:
            advanced = await store.advance_flow(
                flow,
                flow.version,
                after,
                close=outcome.close,
                entries=outcome.entries,
                screen=screen,
            )
    except SheetMoved:  # the step's change was made for another sheet: run it again
        return False
    except RulesInputError:  # the sheet changed since the step read it: nothing was stored
        await tell(callback, outcome.unpaid, alert=True)
        return True
    if advanced is None:
        return False
    if outcome.keyboard_only:
        # The old message may be gone or too old to edit; its flow is stored either way.
        with suppress(TelegramBadRequest):
            await message.edit_reply_markup(reply_markup=markup)
    else:
        await safe_edit(message, text, markup)
    if context.bot is not None:
        for other in outcome.redraw:
            await bot_live.redraw(context.bot, flow.chat_id, other.live, other.drawn)
    if outcome.post is not None:
        posted, buttons = await outcome.post(store, flow.chat_id, flow.owner_id)
        await message.answer(posted, reply_markup=buttons)
    await _answered(callback, outcome, await _sequel(outcome, message, context, (advanced, sheet)))
    if outcome.opens is not None and opened is not None:
        text, markup = outcome.opens.draw(opened)
        await message.answer(text, reply_markup=markup)
    return True


async def _hand_off(message: Message, store: Store, flow: Flow, handoff: Handoff) -> bool:
    """Close the flow as it is; only the press that closed it opens the other feature's flow,
    whose drawing the closed flow keeps, so a late press on the old buttons redraws it."""
    if await store.close_flow(flow, flow.version) is None:
        return False
    text, markup = await handoff(store, flow.chat_id, flow.owner_id)
    await store.keep_screen(flow, screen_of(text, markup))
    await safe_edit(message, text, markup)
    return True


async def _answered(
    callback: CallbackQuery, outcome: Outcome[Any], instead: Answer | None = None
) -> bool:
    """The presser's answer: the sequel's alert (``instead``) when it has one."""
    if instead is not None:
        await tell(callback, instead, alert=True)
    elif outcome.answer is not None:
        await tell(callback, outcome.answer, alert=outcome.alert)
    else:
        await callback.answer()
    return True
