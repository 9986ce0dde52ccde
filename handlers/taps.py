"""Opening and answering a tap on a button under a message that a flow drives.

Every such button carries a flow id (and usually the version it was drawn at), and nothing
in it is trusted: :func:`load_tap` loads the flow and refuses a closed, foreign or garbled
one with the same alerts everywhere, :func:`open_tap` also answers a stale version quietly
(a double tap already did its work), and after the compare-and-set (``Store.advance_flow``)
:func:`show_tap` redraws the message in place or, when another tap won, only answers. Who
may press is each feature's own rule, so it stays with the feature.
"""

from __future__ import annotations

from collections.abc import Callable

from aiogram.enums import ParseMode
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message

from bot import render
from bot.session import safe_edit
from bot.state import Flow, Store


async def load_tap(
    callback: CallbackQuery, flow_id: str, store: Store, *kinds: str
) -> tuple[Flow, Message] | None:
    """The flow a button names and the message it sits under, or None once the tap has been
    answered: a closed or expired flow is «закрыт», and a flow of another chat or of another
    feature than the button's (a forged or garbled callback) is an invalid button."""
    message = callback.message
    flow = await store.load_flow(flow_id)
    if flow is None or flow.closed or not isinstance(message, Message):
        await callback.answer(render.closed_text(), show_alert=True)
        return None
    if flow.chat_id != message.chat.id or flow.kind not in kinds:
        await callback.answer(render.invalid_button_text(), show_alert=True)
        return None
    return flow, message


async def open_tap(
    callback: CallbackQuery, flow_id: str, version: int, store: Store, kind: str
) -> tuple[Flow, Message] | None:
    """:func:`load_tap` at the version the button was drawn at; an older one is answered
    quietly, since the tap that moved the flow on already redrew the message."""
    loaded = await load_tap(callback, flow_id, store, kind)
    if loaded is None:
        return None
    flow, message = loaded
    if flow.version != version:
        await callback.answer()
        return None
    return flow, message


View = Callable[[Flow], tuple[str, InlineKeyboardMarkup | None]]


async def show_tap(
    callback: CallbackQuery, message: Message, advanced: Flow | None, view: View
) -> None:
    """The end of a tap, after :meth:`Store.advance_flow`: the message redrawn from the new
    version (its buttons carry that version), or, when another tap won the race (None),
    only the quiet answer, because the winner already redrew it."""
    if advanced is not None:
        text, markup = view(advanced)
        await safe_edit(message, text, markup, parse_mode=ParseMode.HTML)
    await callback.answer()
