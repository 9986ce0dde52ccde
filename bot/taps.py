"""Opening, applying and answering a tap on a button under a message that a flow drives.

Every such button carries a flow id (and usually the version it was drawn at), and nothing
in it is trusted: :func:`load_tap` loads the flow and refuses a closed, foreign or garbled
one with the same alerts everywhere. A button drawn at an older version is not "a double
tap" for everyone (docs/product.md §3 "Concurrency"): only the presser who already moved the flow
on since that drawing repeated themselves; anyone else's press is applied to the current
state, and a press that loses a compare-and-set to another player's is tried again on fresh
state (:func:`retrying`). A message whose redraw failed after its step was stored is not
dead either: the step stored the screen it meant to show, and the next tap on the message
redraws it from there (:func:`heal`). Who may press is each feature's own rule, so it stays
with the feature; :func:`open_table_tap` adds the refusals the d10 table rolls share.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar

from aiogram.exceptions import TelegramAPIError
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message
from pydantic import ValidationError

from bot import render
from bot.i18n import drawing, own_language
from bot.session import safe_edit
from bot.store import Flow, FlowState, FlowStateError, LogEntry, Screen, Store
from rules.profiles import GameSystem, Profile

log = logging.getLogger(__name__)

P = ParamSpec("P")
View = Callable[[Flow], tuple[str, InlineKeyboardMarkup | None]]

# How often a press that lost the race to another player's press is applied again to the
# fresh state: each loss means someone else's step went through, so a whole table pressing
# at once (20 helpers of a teamwork roll) settles within this many rounds; a short random
# pause between rounds spreads the retries out.
CONFLICT_ATTEMPTS = 24
CONFLICT_PAUSE = 0.004


class TapConflict(Exception):
    """Another tap moved the flow on between this tap's read and its write."""


async def tell(callback: CallbackQuery, text: Callable[[], str], *, alert: bool = False) -> None:
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


async def load_tap(
    callback: CallbackQuery, flow_id: str, store: Store, *kinds: str
) -> tuple[Flow, Message] | None:
    """The flow a button names and the message it sits under, or None once the tap has been
    answered: a closed or expired flow is «закрыт» (and its message redrawn as it was left),
    and a flow of another feature than the button's (a forged or garbled callback) is an
    invalid button. A flow is looked up in the message's own chat, so another chat's flow is
    not found there."""
    message = callback.message
    flow = await store.load_flow(message.chat.id, flow_id) if message is not None else None
    if flow is not None and isinstance(message, Message) and flow.chat_id != message.chat.id:
        await tell(callback, render.invalid_button_text, alert=True)
        return None
    if flow is None or flow.closed or not isinstance(message, Message):
        if flow is not None and isinstance(message, Message):
            await heal(message, flow)
        await tell(callback, render.closed_text, alert=True)
        return None
    if flow.kind not in kinds:
        await tell(callback, render.invalid_button_text, alert=True)
        return None
    return flow, message


async def open_tap(
    callback: CallbackQuery, flow_id: str, version: int, store: Store, kind: str
) -> tuple[Flow, Message] | None:
    """:func:`load_tap` for a button drawn at ``version``. A presser who already acted since
    then repeated a tap: the message is redrawn as it stands and they are told so. Anyone
    else gets the current flow, and their press applies to it."""
    loaded = await load_tap(callback, flow_id, store, kind)
    if loaded is None:
        return None
    flow, message = loaded
    if not 0 <= version <= flow.version:  # never drawn: a forged or garbled button
        await tell(callback, render.invalid_button_text, alert=True)
        return None
    if version < flow.version and flow.acted_since(version, callback.from_user.id):
        await heal(message, flow)
        await tell(callback, render.already_done_text)
        return None
    return flow, message


async def commit_tap(
    callback: CallbackQuery,
    message: Message,
    store: Store,
    flow: Flow,
    state: FlowState | Mapping[str, Any],
    view: View,
    *,
    close: bool = False,
    entries: Sequence[LogEntry] = (),
    toast: str | None = None,
) -> Flow:
    """One step of a tap: the message is drawn for the next version first, the step is stored
    with that drawing (compare-and-set on ``flow.version``), then the message is edited.
    Raises :class:`TapConflict` when another tap won, so :func:`retrying` applies this press
    again to what that tap left."""
    with drawing(flow):
        text, markup = view(flow.next(state, close=close))
    advanced = await store.advance_flow(
        flow,
        flow.version,
        state,
        close=close,
        entries=entries,
        screen=screen_of(text, markup),
    )
    if advanced is None:
        raise TapConflict(flow.id)
    await safe_edit(message, text, markup)
    await callback.answer(toast)
    return advanced


def retrying(
    handler: Callable[P, Awaitable[None]],
) -> Callable[P, Awaitable[None]]:
    """A tap handler that starts over when its step lost the race (:class:`TapConflict`):
    the button's version is then behind, and :func:`open_tap` hands it the current flow.
    aiogram reads the handler's own parameters through ``functools.wraps``."""

    @functools.wraps(handler)
    async def run(*args: P.args, **kwargs: P.kwargs) -> None:
        for attempt in range(CONFLICT_ATTEMPTS):
            try:
                await handler(*args, **kwargs)
            except TapConflict:
                await asyncio.sleep(random.random() * CONFLICT_PAUSE * (attempt + 1))
                continue
            return
        callback = next((a for a in args if isinstance(a, CallbackQuery)), None)
        if callback is not None:
            await tell(callback, render.busy_text, alert=True)

    return run


async def open_table_tap(
    callback: CallbackQuery,
    flow_id: str,
    version: int,
    store: Store,
    kind: str,
    profile: Profile,
    *,
    owner_only: bool,
    system: GameSystem = GameSystem.D10,
) -> tuple[Flow, Message] | None:
    """:func:`open_tap` for the table's rolls: with ``owner_only`` only whoever opened the
    flow may press (a teamwork or a challenge decides per button instead), and a chat that
    switched to another game (``system``) since the message was drawn gets the same refusal
    as a command."""
    opened = await open_tap(callback, flow_id, version, store, kind)
    if opened is None:
        return None
    if owner_only and opened[0].owner_id != callback.from_user.id:
        await tell(callback, render.not_yours_text, alert=True)
        return None
    if profile.system is not system:
        await tell(callback, render.wrong_system_text, alert=True)
        return None
    return opened


S = TypeVar("S", bound=FlowState)


async def open_state(
    callback: CallbackQuery,
    flow_id: str,
    version: int,
    store: Store,
    model: type[S],
    profile: Profile,
    *,
    owner_only: bool = False,
    current_only: bool = False,
    system: GameSystem = GameSystem.D10,
) -> tuple[Flow, Message, S] | None:
    """:func:`open_table_tap` with the flow read as ``model`` (a flow that does not read as
    it is an invalid button). ``current_only``: the flow's steps are one person's, in order
    (an attack, a cast), so a press on an older drawing is a repeat, never a new choice."""
    opened = await open_table_tap(
        callback, flow_id, version, store, model.kind, profile, owner_only=owner_only, system=system
    )
    if opened is None:
        return None
    flow, message = opened
    try:
        state = flow.state(model)
    except (ValidationError, FlowStateError):
        await tell(callback, render.invalid_button_text, alert=True)
        return None
    if current_only and version != flow.version:
        await heal(message, flow)
        await tell(callback, render.already_done_text)
        return None
    return flow, message, state
