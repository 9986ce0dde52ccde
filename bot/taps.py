"""Opening and answering a tap on a button under a message that a flow drives.

Every such button carries a flow id (and usually the version it was drawn at), and nothing
in it is trusted: :func:`load_tap` loads the flow and refuses a closed, foreign or garbled
one with the same alerts everywhere, :func:`open_tap` also answers a stale version quietly
(a double tap already did its work), and after the compare-and-set (``Store.advance_flow``)
:func:`show_tap` redraws the message in place or, when another tap won, only answers. Who
may press is each feature's own rule, so it stays with the feature; :func:`open_table_tap`
adds the refusals the d10 table rolls share (the opener's own buttons, the d10 games only).
"""

from __future__ import annotations

from collections.abc import Callable

from aiogram.enums import ParseMode
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message

from bot import render
from bot.session import safe_edit
from bot.store import Flow, Store
from rules.profiles import GameSystem, Profile


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


async def open_table_tap(
    callback: CallbackQuery,
    flow_id: str,
    version: int,
    store: Store,
    kind: str,
    profile: Profile,
    *,
    owner_only: bool,
) -> tuple[Flow, Message] | None:
    """:func:`open_tap` for the d10 table rolls: with ``owner_only`` only whoever opened the
    flow may press (a teamwork or a challenge decides per button instead), and a chat that
    switched to the d6 game since the message was drawn gets the same refusal as a command."""
    opened = await open_tap(callback, flow_id, version, store, kind)
    if opened is None:
        return None
    if owner_only and opened[0].owner_id != callback.from_user.id:
        await callback.answer(render.not_yours_text(), show_alert=True)
        return None
    if profile.system is not GameSystem.D10:
        await callback.answer(render.wrong_system_text(), show_alert=True)
        return None
    return opened
