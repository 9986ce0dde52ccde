"""What the table-roll handlers (/ext, /vs, /team, /multi) share: the tap checks and the log.

:func:`open_table_tap` is :func:`handlers.taps.open_tap` plus the refusals every table
button shares (only the d10 games roll here; most buttons are the opener's own). Who else
may press is each feature's own rule, so it stays with them.
"""

from __future__ import annotations

from aiogram.types import CallbackQuery, Message

from bot import render, rolling
from bot.store import Flow, Store
from bot.taps import open_tap
from rules.difficulty import check_base
from rules.errors import check_int
from rules.profiles import GameSystem, Profile
from rules.sheet import system_of


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


def check_pool(pool: int, profile: Profile, field: str = "pool") -> int:
    return check_int(pool, field, 1, profile.pool_sanity_max)


def check_difficulty(difficulty: int | None, profile: Profile) -> int:
    return check_base(profile.default_difficulty if difficulty is None else difficulty, profile)


log_entry = rolling.log_entry


PoolRefused = rolling.PoolRefused


async def pool_from_sheet(
    store: Store, chat_id: int, user_id: int, owner: str, expression: str, profile: Profile
) -> rolling.Pool:
    """``ловк+драка`` → the player's dice from their sheet in this chat (§A.2, wounds §B.9)."""
    roller = rolling.Roller(chat_id, user_id, owner)
    return await rolling.resolve_pool(store, roller, profile, traits=expression)


async def willpower_on_sheet(
    store: Store, chat_id: int, user_id: int, profile: Profile
) -> tuple[int, int] | None:
    """(current, permanent) Willpower on the player's sheet, or None when it is not tracked."""
    if profile.system is not GameSystem.D10:
        return None
    sheet = await store.load_sheet(chat_id, user_id, system_of(profile))
    return rolling.willpower_left(sheet)


async def typed_pool(
    store: Store, message: Message, owner: str, pool: int, traits: str | None, profile: Profile
) -> tuple[int, str | None]:
    """The pool a command names, through the one road (:func:`bot.rolling.resolve_pool`):
    the typed number or the sheet's dice for ``traits``, after wounds, with the label saying
    where they came from; raises :class:`PoolRefused`."""
    user = message.from_user
    roller = rolling.Roller(message.chat.id, user.id if user else 0, owner)
    if traits is None:
        if pool < 1:
            return pool, None
        resolved = await rolling.resolve_pool(store, roller, profile, dice=pool)
    else:
        resolved = await rolling.resolve_pool(store, roller, profile, traits=traits)
    return resolved.dice, resolved.source
