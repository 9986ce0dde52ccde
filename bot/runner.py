"""The one road of every button of the bot (ARCHITECTURE.md "The road a tap travels").

A feature says what its buttons do and nothing else: a pure **step** — the flow's state, the
button pressed, who pressed it and what the chat knows in; one case of :data:`Outcome` out —
and a **view** of a state. It declares both once as a :class:`Tap` and registers it on its
router (:func:`register`, the only way a feature answers a button). :func:`run_tap` does the
rest the same way for every feature:

1. load the flow the button names, in the message's own chat;
2. authorise the press (:func:`admit`, pure): a press under a message the flow is not drawn
   in is refused before anything else (:class:`Place`; nothing is edited there), a closed
   or expired flow is «закрыт» (and its message redrawn as the flow left it), another
   feature's flow or a version never drawn is an invalid button, a press on an older drawing
   is a repeat only for whoever acted since (docs/product.md §3 "Concurrency"), and the
   declaration's own rule of who may press (:class:`Who`), which game the buttons belong
   to, and whether a step is the current drawing's only (:attr:`Tap.current_only`);
3. read what the step needs besides the flow (:attr:`Tap.read`: a sheet, a right asked of
   Telegram), then call the step;
4. match its case in one place: :class:`Refuse`, :class:`Advance`, :class:`Open`,
   :class:`HandOver` or :class:`Delegate`; draw the next version and store the step with
   its effects — the log lines, the sheets' spends, a second flow's step, a flow it opens —
   and the message it was pressed under in ONE compare-and-set (``table.store.flows``);
5. a press that lost the race to another's is run again on the fresh state
   (:data:`CONFLICT_ATTEMPTS`); then the message is edited and the presser answered, in the
   presser's own language (:func:`tell`).

Buttons on no flow (the chat's settings, a hidden roll, a page of a list) are a
:class:`RecordTap` on the same road: a record loaded, a pure step (:data:`Deed`), at most one
compare-and-set of the record, the message redrawn, the presser answered.

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
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Generic, TypeVar, Union

from aiogram import Bot, Dispatcher, Router
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message, User
from pydantic import ValidationError

from bot import live as bot_live
from bot import render
from bot.combat import TrackerStep
from bot.features import FeatureSet
from bot.i18n import drawing, own_language
from bot.placed import pressed_message
from bot.scope import scope_of
from bot.session import is_not_modified, safe_edit
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile
from table.scope import Actor as Actor
from table.scope import Scope
from table.store import (
    ChatSettings,
    Flow,
    FlowState,
    FlowStateError,
    LogEntry,
    Screen,
    StepWrites,
    Store,
)
from table.store.flows import SheetSpend
from table.store.journaled import forget as forget_ahead

log = logging.getLogger(__name__)

S = TypeVar("S", bound=FlowState)
A = TypeVar("A", bound=CallbackData)
R = TypeVar("R")
T = TypeVar("T")

Answer = Callable[[], str]
Drawn = tuple[str, InlineKeyboardMarkup | None]


@dataclass(frozen=True)
class Sequel:
    """What a :class:`Delegate` may use: the store, the tapped message, the bot, the chat's
    profile, and the pressed flow as loaded (bound to the message), for a part whose road
    ends by storing the flow's own next step."""

    store: Store
    message: Message
    bot: Bot | None
    profile: Profile
    flow: Flow | None = None


@dataclass(frozen=True)
class Opens:
    """Another flow a step opens with a message of its own (the d6 tracker's «⚔️ Атака» rolls
    the attack): stored with the step and its ``entries`` in the same compare-and-set, then
    posted under the tapped message once the presser is answered."""

    state: FlowState
    owner: int
    draw: Callable[[Flow], Drawn]
    entries: tuple[LogEntry, ...] = ()


# How often a press that lost the race to another player's press is applied again to the
# fresh state: each loss means someone else's step went through, so a whole table pressing
# at once (20 helpers of a teamwork roll) settles within this many rounds; a short random
# pause between rounds spreads the retries out.
CONFLICT_ATTEMPTS = 24
CONFLICT_PAUSE = 0.004


async def tell(callback: CallbackQuery, text: Answer, *, alert: bool = False) -> None:
    """A toast or alert only the presser sees, in the presser's own language (bot/i18n.py):
    a tap runs in the language of the message it sits under, so the text is made here."""
    scope = scope_of(callback.bot)
    with own_language(scope.own if scope is not None else None):
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
class Known(Generic[R]):
    """What the chat knows when a step runs: the flow as stored (its id, owner, version), the
    chat's profile, the other features' hand-offs, what the declaration's ``read`` fetched
    (None without one), and the language the message is drawn in (bot/i18n.py)."""

    flow: Flow
    profile: Profile
    read: R
    features: FeatureSet | None = None
    locale: str = "ru"
    own: str | None = None  # the presser's own language, for what only they see (bot/i18n.py)


@dataclass(frozen=True)
class Refuse:
    """A press that changes nothing: the presser is told ``answer`` (a lazy ``() -> str``,
    made in their language; ``alert``: an alert, not a toast), and with ``heal`` the message
    is first redrawn from the screen its flow stored (a repeated press)."""

    answer: Answer
    alert: bool = True
    heal: bool = False


@dataclass(frozen=True)
class Advance(Generic[S]):
    """This flow's next version, ``state`` (``close``: its buttons stop), stored with its
    effects in one compare-and-set: ``entries`` in the chat's log, ``spends`` taken off
    sheets (``unpaid``: what the presser is told when a sheet no longer has what the step
    read, and then nothing is stored), and ``also``, a second flow's step (the round
    tracker's after an attack or a soak: it rides with a spend) redrawn where that flow is
    shown. Then the message is redrawn (``keyboard_only``: its buttons only, for a result
    whose text the step never changes); ``ends_live``: the chat's live message of that name
    ended with this step (a finished fight): the chat points at none from the same write on,
    and the message is unpinned. ``answer`` is the presser's toast (``alert``: an alert)."""

    state: S
    close: bool = False
    entries: tuple[LogEntry, ...] = ()
    spends: tuple[SheetSpend, ...] = ()
    unpaid: Answer = render.invalid_button_text
    also: TrackerStep | None = None
    keyboard_only: bool = False
    ends_live: str | None = None
    answer: Answer | None = None
    alert: bool = False


@dataclass(frozen=True)
class Open(Generic[S]):
    """This flow's next version and another flow with a message of its own (:class:`Opens`),
    stored in the same compare-and-set with both flows' ``entries`` and the ``spends`` (the
    attacker's tricks: ``unpaid`` as in :class:`Advance`); the new message is posted below
    once the presser is answered."""

    state: S
    opens: Opens
    entries: tuple[LogEntry, ...] = ()
    spends: tuple[SheetSpend, ...] = ()
    unpaid: Answer = render.invalid_button_text
    answer: Answer | None = None
    alert: bool = False


@dataclass(frozen=True)
class Into:
    """The flow the press opens as it closes the pressed one, stored in the very write that
    closes it: its state, how it is drawn once it has an id, its log lines, and ``closed``
    when it is finished from the start (an extended action its first roll completed). It is
    drawn into the pressed message (another feature's flow, ``bot.wizard.Opening.into``; the
    result of the wizard's roll), or with ``below`` posted as a message of its own under it,
    which keeps its text and loses its buttons (``/r``'s «Ещё раз»). ``spends`` and ``also``
    ride in the same write as in :class:`Advance` (a roll's point of Willpower and the
    fight's mark of it on the round; ``unpaid`` when the sheet no longer has the point)."""

    state: FlowState
    draw: Callable[[Flow], Drawn]
    entries: tuple[LogEntry, ...] = ()
    closed: bool = False
    below: bool = False
    spends: tuple[SheetSpend, ...] = ()
    also: TrackerStep | None = None
    unpaid: Answer = render.invalid_button_text


# What is handed over that is no flow (the Storyteller's seat in the chat's settings): given
# the store and the pressed flow as loaded, it makes its change and closes that flow at its
# version in ONE compare-and-set of its own, keeping what it returns (the message's new
# drawing) as the closed flow's screen; None when the flow moved since (the press runs again).
# Only what no transaction of the chat's can hold follows that write: a key in another slot
# of a Redis Cluster (the Storytellers' campaign lists, one per user), written repeatably.
Handoff = Callable[[Store, Flow], Awaitable[Drawn | None]]


@dataclass(frozen=True)
class HandOver:
    """The flow closes as it is, and only the press that closed it opens what comes next, in
    the same write: another flow (:class:`Into`), or a change that is no flow (a
    :data:`Handoff`, drawn into the message). Nothing is half done when two presses race."""

    open: Into | Handoff
    answer: Answer | None = None
    alert: bool = False


@dataclass(frozen=True)
class Delegate:
    """A press that is another part's to run on its own road (the d10 tracker's «Атака» opens
    the attack panel, a live message with its own compare-and-set): this flow stores nothing.
    What ``run`` returns, if anything, is the presser's alert."""

    run: Callable[[Sequel], Awaitable[Answer | None]]


# What a press does: one of a few cases, matched in one place (:func:`_attempt`).
Outcome = Union[Refuse, Advance[S], Open[S], HandOver, Delegate]  # noqa: UP007


def spending(*spends: SheetSpend | None) -> tuple[SheetSpend, ...]:
    """A step's :attr:`Advance.spends` from the changes it may make (None: none here)."""
    return tuple(spend for spend in spends if spend is not None)


def refuse(text: Answer, *, alert: bool = True) -> Refuse:
    """A press that changes nothing, answered with ``text``."""
    return Refuse(text, alert=alert)


def repeat() -> Refuse:
    """A press its presser already made: the message is brought up to date, a toast says so."""
    return Refuse(render.already_done_text, alert=False, heal=True)


class SheetMoved(Exception):
    """Raised by a spend's change when the sheet is no longer the one the step read: the
    press is run again on the sheet as it is now (a casting, a crossing of the Barrier)."""


# Why the runner turns a press away before its step runs: a :class:`Refuse` of its own.
Refusal = Refuse

CLOSED = Refusal(render.closed_text, heal=True)
INVALID = Refusal(render.invalid_button_text)
REPEATED = Refusal(render.already_done_text, alert=False, heal=True)
NOT_YOURS = Refusal(render.not_yours_text)
ELSEWHERE = Refusal(render.elsewhere_text)


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


@dataclass(frozen=True)
class Place:
    """Where a press arrived: the message it sits under (:func:`place_of`), and the flows its
    keyboard names as Telegram sent it (None: Telegram sent no keyboard, as for a message
    sent in inline mode)."""

    message: str
    named: frozenset[str] | None = None

    def holds(self, flow: Flow) -> bool:
        """Whether ``flow`` is drawn here: the message it recorded, or, for a flow that
        recorded none yet or whose live message was posted again, a message whose own
        keyboard carries its buttons."""
        if flow.message == self.message:
            return True
        if self.named is None:  # an inline message: only the one it recorded, if any
            return flow.message is None
        return flow.id in self.named


def place_of(callback: CallbackQuery) -> Place | None:
    """The message a press arrived under, and the flows its keyboard names; None when
    Telegram no longer shows it to the bot (too old)."""
    message = callback.message
    if isinstance(message, Message):
        named: set[str] = set()
        for row in message.reply_markup.inline_keyboard if message.reply_markup else ():
            for button in row:
                named.update((button.callback_data or "").split(":"))
        return Place(f"{message.chat.id}:{message.message_id}", frozenset(named))
    if message is not None:  # an old message (bot/placed.py): its keyboard unknown, as inline
        return Place(f"{message.chat.id}:{message.message_id}")
    if callback.inline_message_id:
        return Place(f"inline:{callback.inline_message_id}")
    return None


def admit(
    gate: Gate,
    flow: Flow | None,
    chat_id: int,
    version: int,
    presser: int,
    playing: GameSystem | None,
    here: Place | None = None,
) -> Refusal | None:
    """Whether a press on a button drawn at ``version`` of ``flow`` (None: the chat has no
    such flow) by ``presser``, in a chat ``playing`` a game, under the message ``here``
    (None: not checked), may run; pure, so every refusal is in one place. A press under a
    message the flow is not drawn in is refused before anything else: nothing is redrawn
    there."""
    if flow is not None and flow.chat_id != chat_id:
        return INVALID
    if flow is not None and here is not None and not here.holds(flow):
        return ELSEWHERE
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
    """What the update hands a tap (aiogram's workflow data, bot/app.py). ``dispatcher`` and
    ``workflow`` (the data as aiogram handed it) are for a press that runs a line as the
    presser's message (bot/retype.py)."""

    store: Store
    profile: Profile
    features: FeatureSet | None = None
    bot: Bot | None = None
    chat_settings: ChatSettings | None = None
    rng: Rng | None = None
    locale: str = "ru"
    dispatcher: Dispatcher | None = None
    workflow: Mapping[str, Any] = field(default_factory=dict)

    @property
    def scope(self) -> Scope:
        """The update's scope, as the Store it hands is bound to (bot/scope.py)."""
        return self.store.scope

    def actor(self, presser: User) -> Actor:
        """Who pressed, as the update's scope says (the same value its Store records as a
        step's actor); the presser as Telegram names them outside an update."""
        actor = self.store.scope.actor
        return actor if actor is not None else Actor.of(presser)

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Context:
        """From aiogram's workflow data: ``store`` and ``profile`` always, the rest if set."""
        locale = data.get("locale")
        dispatcher = data.get("dispatcher")
        return cls(
            store=data["store"],
            profile=data["profile"],
            features=data.get("features"),
            bot=data.get("bot"),
            chat_settings=data.get("chat_settings"),
            rng=data.get("rng"),
            locale=locale if isinstance(locale, str) else "ru",
            dispatcher=dispatcher if isinstance(dispatcher, Dispatcher) else None,
            workflow=dict(data),
        )


def address(data: CallbackData) -> tuple[str, int]:
    """The flow id and version a button carries (every flow button names them ``f``, ``v``;
    a button that carries no version reads as version 0)."""
    flow_id = getattr(data, "f", None)
    version = getattr(data, "v", 0)
    if not isinstance(flow_id, str) or not isinstance(version, int):
        raise TypeError(f"{type(data).__name__} names no flow and version")
    return flow_id, version


@dataclass(frozen=True)
class Pressed(Generic[A]):
    """A press on a :class:`RecordTap`'s button, as its record's ``load`` and ``swap`` see
    it: the query, the button's data and what the update knows."""

    callback: CallbackQuery
    data: A
    context: Context

    @property
    def message(self) -> Message | None:
        """The message pressed under; None for a message sent in inline mode (or too old)."""
        return pressed_message(self.callback)

    @property
    def presser(self) -> User:
        return self.callback.from_user

    @property
    def store(self) -> Store:
        return self.context.store


@dataclass(frozen=True)
class Seen(Generic[R]):
    """What a record's step and view know besides the record: the chat's profile, what the
    declaration's ``read`` fetched (None without one) and the language of the message."""

    profile: Profile
    read: R
    locale: str = "ru"
    rng: Rng | None = None  # the update's dice, for a press that rolls


@dataclass(frozen=True)
class Keep:
    """A press on a record that stores nothing: the message is drawn again from the record as
    loaded (a page turned, a card opened)."""

    answer: Answer | None = None
    alert: bool = False


@dataclass(frozen=True)
class Change(Generic[T]):
    """The record becomes ``after``: stored by the declaration's ``swap`` (one
    compare-and-set from the record as loaded; a lost race runs the press again on the fresh
    one), then the message drawn from what was stored and the declaration's ``effect``
    applied. ``unpaid``: what the presser is told when the swap finds a sheet no longer has
    what the step took off it (then nothing is stored)."""

    after: T
    answer: Answer | None = None
    alert: bool = False
    unpaid: Answer = render.invalid_button_text


# What a press on a record does: one of three cases, matched in one place (:func:`_run_record`).
Deed = Union[Refuse, Keep, Change[T]]  # noqa: UP007


@dataclass(frozen=True)
class RecordTap(Generic[T, A, R]):
    """Buttons that act on something other than a flow — the chat's settings, a hidden roll's
    record, a page of a list read afresh — declared once like a :class:`Tap`: ``load`` finds
    the record a press acts on (or the :class:`Refuse` of one that is gone), ``read`` fetches
    what else the step needs (a right asked of Telegram), ``step`` is pure (record, button, who,
    what is seen → :data:`Deed`), ``swap`` stores a :class:`Change` by compare-and-set and
    returns the record as stored (None: another press came first; no ``swap``: the buttons
    never change anything), ``view`` draws the message from the record
    (None: the message keeps its text and loses its buttons), and ``effect`` is what a
    stored change does besides the message (a game's command menu published, a revealed roll
    posted in its group). ``system``: the game the buttons belong to (None: any). ``among``:
    the other buttons of the same menu, beside which these may be pressed (the settings'
    menus share one message). ``name`` names the handler."""

    name: str
    callback: type[A]
    load: Callable[[Pressed[A]], Awaitable[T | Refuse]]
    step: Callable[[T, A, Actor, Seen[R]], Deed[T]]
    view: Callable[[T, A, Seen[R]], Drawn] | None
    read: Callable[[Pressed[A], T], Awaitable[R]] | None = None
    swap: Callable[[Pressed[A], T, T], Awaitable[T | None]] | None = None
    effect: Callable[[Pressed[A], T], Awaitable[None]] | None = None
    system: GameSystem | None = None
    wrong_system: Answer = render.wrong_system_text
    among: tuple[type[CallbackData], ...] = ()


def register(router: Router, tap: Tap[Any, Any, Any] | RecordTap[Any, Any, Any]) -> None:
    """Answer the declaration's buttons on ``router`` through :func:`run_tap`: the one way a
    feature registers a button (tests/handlers/test_one_road.py holds every feature to it)."""

    async def on_tap(callback: CallbackQuery, callback_data: CallbackData, **data: Any) -> None:
        await run_tap(tap, callback, callback_data, Context.of(data))

    if isinstance(tap, RecordTap):
        on_tap.__name__ = f"{tap.name}_tap"
        buttons = tap.callback.filter()
    else:
        on_tap.__name__ = f"{tap.model.kind}_tap"
        buttons = tap.callback.filter(tap.only) if tap.only is not None else tap.callback.filter()
    on_tap.__runner__ = tap  # type: ignore[attr-defined]  # how the one-road test knows it
    router.callback_query.register(on_tap, buttons)


def on_the_road(handler: Callable[..., Any]) -> bool:
    """Whether a registered callback handler is :func:`register`'s (runs :func:`run_tap`)."""
    return getattr(handler, "__runner__", None) is not None


async def run_tap(
    tap: Tap[S, A, R] | RecordTap[Any, A, R], callback: CallbackQuery, data: A, context: Context
) -> None:
    """Run a press to its end: answered once, stored at most once, whatever it carried."""
    if isinstance(tap, RecordTap):
        await _run_record(tap, Pressed(callback, data, context))
        return
    for attempt in range(CONFLICT_ATTEMPTS):
        if await _attempt(tap, callback, data, context):
            return
        await asyncio.sleep(random.random() * CONFLICT_PAUSE * (attempt + 1))
    await tell(callback, render.busy_text, alert=True)


def _holds_press(callback: CallbackQuery, kinds: tuple[type[CallbackData], ...]) -> bool:
    """Whether a press on a record's button may be taken under the message it came with: a
    message whose keyboard (as Telegram sent it with the press) shows buttons of other kinds
    only is someone else's — a roll, a fight — and a button forged under it is refused. Such
    buttons are stateless, so any of their kinds may be pressed where one is shown (a card
    opened from the list). A message that comes with no keyboard (its buttons just taken off,
    or sent in inline mode) holds nothing to protect: its record's step authorises the press."""
    message = callback.message
    if not isinstance(message, Message) or message.reply_markup is None:
        return True
    marks = tuple(f"{kind.__prefix__}{kind.__separator__}" for kind in kinds)
    return any(
        (button.callback_data or "").startswith(marks)
        for row in message.reply_markup.inline_keyboard
        for button in row
    )


async def _run_record(tap: RecordTap[T, A, R], pressed: Pressed[A]) -> None:
    """A press on a record's button, to its end: load, pure step, at most one stored change,
    redraw, answer — run again on the fresh record when another press changed it first."""
    callback, context = pressed.callback, pressed.context
    if not _holds_press(callback, (tap.callback, *tap.among)):  # a forged button
        await tell(callback, render.invalid_button_text, alert=True)
        return
    if tap.system is not None and context.profile.system is not tap.system:
        await tell(callback, tap.wrong_system, alert=True)
        return
    for attempt in range(CONFLICT_ATTEMPTS):
        record = await tap.load(pressed)
        if isinstance(record, Refuse):
            await tell(callback, record.answer, alert=record.alert)
            return
        read: Any = await tap.read(pressed, record) if tap.read is not None else None
        seen: Seen[R] = Seen(context.profile, read, context.locale, context.rng)
        try:
            deed = tap.step(record, pressed.data, context.actor(pressed.presser), seen)
        except (RulesInputError, ValidationError):
            await tell(callback, render.invalid_button_text, alert=True)
            return
        match deed:
            case Refuse():
                if deed.heal:
                    await _draw_record(tap, pressed, record, seen)
                await tell(callback, deed.answer, alert=deed.alert)
                return
            case Keep():
                await _draw_record(tap, pressed, record, seen)
                await _answered(callback, deed.answer, deed.alert)
                return
            case Change():
                if tap.swap is None:
                    raise TypeError(f"{tap.name}: a change needs the declaration's swap")
                try:
                    stored = await tap.swap(pressed, record, deed.after)
                except RulesInputError:  # a sheet no longer has what the step took
                    await tell(callback, deed.unpaid, alert=True)
                    return
                if stored is None:
                    await asyncio.sleep(random.random() * CONFLICT_PAUSE * (attempt + 1))
                    continue
                await _draw_record(tap, pressed, stored, seen)
                await _answered(callback, deed.answer, deed.alert)
                if tap.effect is not None:
                    await tap.effect(pressed, stored)
                return
    await tell(callback, render.busy_text, alert=True)


async def _draw_record(
    tap: RecordTap[T, A, R], pressed: Pressed[A], record: T, seen: Seen[R]
) -> None:
    """Draw the message pressed under from ``record``: in place, wherever it was sent."""
    callback, bot = pressed.callback, pressed.context.bot
    message = pressed.message
    if tap.view is None:
        with suppress(TelegramBadRequest):  # the message may be gone or too old to edit
            if message is not None:
                await message.edit_reply_markup(reply_markup=None)
            elif bot is not None and callback.inline_message_id is not None:
                await bot.edit_message_reply_markup(inline_message_id=callback.inline_message_id)
        return
    text, markup = tap.view(record, pressed.data, seen)
    if message is not None:
        await safe_edit(message, text, markup)
    elif bot is not None and callback.inline_message_id is not None:
        try:
            await bot.edit_message_text(
                text=text, inline_message_id=callback.inline_message_id, reply_markup=markup
            )
        except TelegramBadRequest as error:
            if not is_not_modified(error):
                raise


async def answer_refusal(
    callback: CallbackQuery, message: Message, flow: Flow | None, refusal: Refusal
) -> None:
    if refusal.heal and flow is not None:
        await heal(message, flow)
    await tell(callback, refusal.answer, alert=refusal.alert)


async def _attempt(tap: Tap[S, A, R], callback: CallbackQuery, data: A, context: Context) -> bool:
    """One try; False when another press won the compare-and-set (run again)."""
    message = pressed_message(callback)
    here = place_of(callback)
    if not isinstance(message, Message) or here is None:
        await tell(callback, render.closed_text, alert=True)
        return True
    flow_id, version = address(data)
    flow = await context.store.load_flow(message.chat.id, flow_id)
    gate = tap.gate
    presser = callback.from_user
    refusal = admit(gate, flow, message.chat.id, version, presser.id, context.profile.system, here)
    if refusal is not None or flow is None:
        await answer_refusal(callback, message, flow, refusal or CLOSED)
        return True
    state = typed(gate, flow, tap.model, version)
    if isinstance(state, Refuse):
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
    known: Known[R] = Known(
        flow, context.profile, read, context.features, context.locale, context.scope.own
    )
    try:
        outcome = tap.step(state, data, context.actor(presser), known, context.rng)
    except (RulesInputError, ValidationError):
        await tell(callback, render.invalid_button_text, alert=True)
        return True
    press = _Press(callback, message, context, flow.model_copy(update={"message": here.message}))
    match outcome:
        case Refuse():
            await answer_refusal(callback, message, flow, outcome)
            return True
        case Delegate(run=run):
            sequel = Sequel(context.store, message, context.bot, context.profile, press.flow)
            return await _answered(callback, None, False, await run(sequel))
        case HandOver():
            return await _hand_over(tap, press, state, known, outcome)
        case Advance() | Open():
            return await _advance(tap, press, known, outcome)
    raise TypeError(f"{tap.model.kind}: a step returned {outcome!r}")  # pragma: no cover


@dataclass(frozen=True)
class _Press:
    """A press being stored: its query and message, the update's context, and its flow as it
    will be stored (bound to the message it was pressed under)."""

    callback: CallbackQuery
    message: Message
    context: Context
    flow: Flow


async def _advance(
    tap: Tap[S, A, R], press: _Press, known: Known[R], outcome: Advance[S] | Open[S]
) -> bool:
    """Store the step with its effects and its drawing in one compare-and-set, then show it."""
    store, flow = press.context.store, press.flow
    after = outcome.state
    close = outcome.close if isinstance(outcome, Advance) else False
    if tap.view is None:
        raise TypeError(f"{tap.model.kind}: a step that advances needs the tap's view")
    with drawing(flow):
        text, markup = tap.view(flow.next(after, close=close), after, known)
    screen = screen_of(text, markup)
    also = outcome.also if isinstance(outcome, Advance) else None
    opened: Flow | None = None
    entries = outcome.entries
    ends = outcome.ends_live if isinstance(outcome, Advance) else None
    if isinstance(outcome, Open):
        opened = store.new_flow(outcome.opens.state, flow.chat_id, outcome.opens.owner)
        entries = (*entries, *outcome.opens.entries)
    advanced: Flow | None
    try:
        if outcome.spends:
            writes = StepWrites(
                close=close,
                entries=entries,
                screen=screen,
                also=also.step if also is not None else None,
                opens=opened,
                ends_live=ends,
            )
            first, *more = outcome.spends
            advanced, _sheet, kept = await store.advance_flow_spending_opening(
                flow, flow.version, after, first, writes=writes, more=tuple(more)
            )
            opened = kept or opened  # a re-run's: the flow its first run opened
        elif also is not None:
            raise TypeError(f"{tap.model.kind}: a second flow's step rides with a spend")
        elif opened is not None:
            advanced, opened = await store.advance_flow_creating(
                flow, flow.version, after, opened, screen=screen, entries=entries
            )
        else:
            advanced = await store.advance_flow(
                flow,
                flow.version,
                after,
                close=close,
                entries=entries,
                screen=screen,
                ends_live=ends,
            )
    except SheetMoved:  # the step's change was made for another sheet: run it again
        forget_ahead(store.scope)
        return False
    except RulesInputError:  # the sheet changed since the step read it: nothing was stored
        await tell(press.callback, outcome.unpaid, alert=True)
        return True
    if advanced is None:
        return False
    await _show_step(press, outcome, (text, markup), opened)
    return True


async def _show_step(
    press: _Press, outcome: Advance[Any] | Open[Any], drawn: Drawn, opened: Flow | None
) -> None:
    """Show a step already stored: its message redrawn, the second flow's message and the
    chat's live message brought along, the presser answered, and only then the opened
    flow's message posted below (so it lands under the answer, not before it)."""
    flow, message = press.flow, press.message
    text, markup = drawn
    if isinstance(outcome, Advance) and outcome.keyboard_only:
        # The old message may be gone or too old to edit; its flow is stored either way.
        with suppress(TelegramBadRequest):
            await message.edit_reply_markup(reply_markup=markup)
    else:
        await safe_edit(message, text, markup)
    bot = press.context.bot
    also = outcome.also if isinstance(outcome, Advance) else None
    if also is not None and also.drawn is not None and bot is not None:
        await bot_live.redraw(bot, flow.chat_id, also.live, also.drawn)
    if isinstance(outcome, Advance) and outcome.ends_live is not None and bot is not None:
        await bot_live.unpin(bot, message)  # the chat's pointer went with the step
    await _answered(press.callback, outcome.answer, outcome.alert)
    if isinstance(outcome, Open) and opened is not None:
        posted, buttons = outcome.opens.draw(opened)
        await message.answer(posted, reply_markup=buttons)


async def _hand_over(
    tap: Tap[S, A, R], press: _Press, state: S, known: Known[R], outcome: HandOver
) -> bool:
    """Close the flow as it is and open what comes next in one write; only the press whose
    write closed the flow shows it. A :data:`Handoff` makes that write itself."""
    if isinstance(outcome.open, Into):
        return await _hand_into(tap, press, state, known, outcome, outcome.open)
    drawn = await outcome.open(press.context.store, press.flow)
    if drawn is None:
        return False
    await safe_edit(press.message, *drawn)
    return await _answered(press.callback, outcome.answer, outcome.alert)


async def _hand_into(
    tap: Tap[S, A, R], press: _Press, state: S, known: Known[R], outcome: HandOver, into: Into
) -> bool:
    """Close the flow and store the other flow, its log lines, spends and the round's mark
    in one compare-and-set. Drawn into the same message, the new flow's drawing is kept as
    the closed flow's screen (a late press on the old buttons redraws it); posted below, the
    closed flow keeps its own drawing, without buttons."""
    store, flow, message = press.context.store, press.flow, press.message
    opened = store.new_flow(into.state, flow.campaign, flow.owner_id)
    if into.closed:
        opened = opened.model_copy(update={"closed": True})
    text, markup = into.draw(opened)
    kept = (text, markup)
    if into.below:
        if tap.view is None:
            raise TypeError(f"{tap.model.kind}: a hand-over below needs the tap's view")
        with drawing(flow):
            kept = tap.view(flow.next(state, close=True), state, known)
    also = into.also
    try:
        if into.spends:
            writes = StepWrites(
                close=True,
                entries=into.entries,
                screen=screen_of(*kept),
                also=also.step if also is not None else None,
                opens=opened,
            )
            first, *more = into.spends
            stored, _sheet, made = await store.advance_flow_spending_opening(
                flow, flow.version, state, first, writes=writes, more=tuple(more)
            )
            made = made or opened
        elif also is not None:
            raise TypeError(f"{tap.model.kind}: a second flow's step rides with a spend")
        else:
            stored, made = await store.advance_flow_creating(
                flow,
                flow.version,
                flow.data,
                opened,
                close=True,
                screen=screen_of(*kept),
                entries=into.entries,
            )
    except SheetMoved:  # the spend was made for a sheet that moved: run the press again
        forget_ahead(store.scope)
        return False
    except RulesInputError:  # the sheet no longer has what the step took: nothing stored
        await tell(press.callback, into.unpaid, alert=True)
        return True
    if stored is None:
        return False
    if made.id != opened.id:  # the update's first run opened it: its buttons name that flow
        text, markup = into.draw(made)
    bot = press.context.bot
    if also is not None and also.drawn is not None and bot is not None:
        await bot_live.redraw(bot, flow.chat_id, also.live, also.drawn)
    if not into.below:
        await safe_edit(message, text, markup)
        return await _answered(press.callback, outcome.answer, outcome.alert)
    with suppress(TelegramBadRequest):  # the old message may be gone or too old to edit
        await message.edit_reply_markup(reply_markup=kept[1])
    await message.answer(text, reply_markup=markup)
    return await _answered(press.callback, outcome.answer, outcome.alert)


async def _answered(
    callback: CallbackQuery, answer: Answer | None, alert: bool, instead: Answer | None = None
) -> bool:
    """The presser's answer: a delegate's alert (``instead``) when it has one."""
    if instead is not None:
        await tell(callback, instead, alert=True)
    elif answer is not None:
        await tell(callback, answer, alert=alert)
    else:
        await callback.answer()
    return True
