"""The older way to open a tap, kept as thin wrappers over :mod:`bot.runner` only for the
combat features until they move onto it (ARCHITECTURE.md "The road a tap travels"); new code
declares a :class:`bot.runner.Tap` instead. Marked for removal: :func:`open_state`,
:func:`commit_tap`, :func:`retrying`.

Their refusals are :func:`bot.runner.admit`'s, so a press is refused the same way on either
road; :func:`tell`, :func:`heal` and :func:`screen_of` are re-exported from there.
"""

from __future__ import annotations

import asyncio
import functools
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, ParamSpec, TypedDict, TypeVar, Unpack

from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message

from bot import render
from bot.i18n import drawing
from bot.runner import (
    CONFLICT_ATTEMPTS,
    CONFLICT_PAUSE,
    Gate,
    Refusal,
    Who,
    admit,
    answer_refusal,
    heal,
    screen_of,
    tell,
    typed,
)
from bot.session import safe_edit
from bot.store import Flow, FlowState, LogEntry, Store
from rules.profiles import GameSystem, Profile

__all__ = [
    "CONFLICT_ATTEMPTS",
    "CONFLICT_PAUSE",
    "TapConflict",
    "commit_tap",
    "heal",
    "open_state",
    "retrying",
    "screen_of",
    "tell",
]

P = ParamSpec("P")
S = TypeVar("S", bound=FlowState)
View = Callable[[Flow], tuple[str, InlineKeyboardMarkup | None]]


class StateRules(TypedDict, total=False):
    """:func:`open_state`'s refusals: owner only, current drawing only, the game."""

    owner_only: bool
    current_only: bool
    system: GameSystem


class CommitEffects(TypedDict, total=False):
    """What :func:`commit_tap` stores and says with its step."""

    close: bool
    entries: Sequence[LogEntry]
    toast: str | None


class TapConflict(Exception):
    """Another tap moved the flow on between this tap's read and its write."""


async def _opened(
    callback: CallbackQuery,
    flow_id: str,
    version: int,
    store: Store,
    gate: Gate,
    playing: GameSystem | None = None,
) -> tuple[Flow, Message] | None:
    """The flow a button names and its message once :func:`bot.runner.admit` let the press
    through, or None once the tap has been answered with its refusal."""
    message = callback.message
    if not isinstance(message, Message):
        await tell(callback, render.closed_text, alert=True)
        return None
    flow = await store.load_flow(message.chat.id, flow_id)
    refusal = admit(gate, flow, message.chat.id, version, callback.from_user.id, playing)
    if refusal is not None or flow is None:
        await answer_refusal(callback, message, flow, refusal or Refusal(render.closed_text))
        return None
    return flow, message


async def open_state(
    callback: CallbackQuery,
    flow_id: str,
    version: int,
    store: Store,
    model: type[S],
    profile: Profile,
    **rules: Unpack[StateRules],
) -> tuple[Flow, Message, S] | None:
    """To be removed once combat runs on :mod:`bot.runner`: the flow a button drawn at
    ``version`` names, refused as :func:`bot.runner.admit` refuses (closed, foreign, another
    feature's, a repeat, ``owner_only``, the game), read as ``model``, and ``current_only``
    (:attr:`bot.runner.Gate.current_only`)."""
    gate = Gate(
        kinds=(model.kind,),
        who=Who.OWNER if rules.get("owner_only", False) else Who.ANYONE,
        system=rules.get("system", GameSystem.D10),
        current_only=rules.get("current_only", False),
    )
    opened = await _opened(callback, flow_id, version, store, gate, profile.system)
    if opened is None:
        return None
    flow, message = opened
    state = typed(gate, flow, model, version)
    if isinstance(state, Refusal):
        await answer_refusal(callback, message, flow, state)
        return None
    return flow, message, state


async def commit_tap(
    callback: CallbackQuery,
    message: Message,
    store: Store,
    flow: Flow,
    state: FlowState | Mapping[str, Any],
    view: View,
    **effects: Unpack[CommitEffects],
) -> Flow:
    """To be removed once combat runs on :mod:`bot.runner`: one step of a tap, drawn for the
    next version, stored with that drawing (compare-and-set on ``flow.version``), then
    shown. Raises :class:`TapConflict` when another tap won, so :func:`retrying` applies
    this press again to what that tap left."""
    close, entries = effects.get("close", False), effects.get("entries", ())
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
    await callback.answer(effects.get("toast"))
    return advanced


def retrying(
    handler: Callable[P, Awaitable[None]],
) -> Callable[P, Awaitable[None]]:
    """To be removed once combat runs on :mod:`bot.runner` (whose :func:`~bot.runner.run_tap`
    runs a lost press again itself): a tap handler that starts over when its step lost the
    race (:class:`TapConflict`). aiogram reads the handler's own parameters through
    ``functools.wraps``."""

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
