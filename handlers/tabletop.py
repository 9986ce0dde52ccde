"""What the table-roll handlers (/ext, /vs, /team, /multi) share: the tap checks and the log.

:func:`open_table_tap` is :func:`handlers.taps.open_tap` plus the refusals every table
button shares (only the d10 games roll here; most buttons are the opener's own). Who else
may press is each feature's own rule, so it stays with them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aiogram import Bot
from aiogram.types import CallbackQuery, Chat, Message, User
from aiogram.utils.i18n.context import get_i18n

from bot import render, table_render
from bot.sheet_view import lang_of, name_problem_text, no_sheet_text, trait_name
from bot.state import ChatSettings, Flow, Store
from bot.traits import TraitNameError, parse_pool_expression
from handlers.parsing import Problem
from handlers.settings import is_admin
from handlers.taps import open_tap
from rules.actions import PoolStatus
from rules.d10 import D10Result
from rules.difficulty import check_base
from rules.errors import RulesInputError, check_int
from rules.profiles import GameSystem, Profile
from rules.sheet import pool_from_traits, system_of


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
        await callback.answer(table_render.wrong_system_text(), show_alert=True)
        return None
    return opened


def check_pool(pool: int, profile: Profile, field: str = "pool") -> int:
    return check_int(pool, field, 1, profile.pool_sanity_max)


def check_difficulty(difficulty: int | None, profile: Profile) -> int:
    return check_base(profile.default_difficulty if difficulty is None else difficulty, profile)


def log_entry(user_id: int, name: str, pool: int, result: D10Result, kind: str) -> dict[str, Any]:
    """The same line a ``/r`` roll logs, plus which kind of table roll it belonged to."""
    return {
        "user_id": user_id,
        "name": name,
        "pool": pool,
        "difficulty": result.difficulty,
        "threshold": result.threshold,
        "willpower": result.willpower,
        "faces": list(result.faces),
        "successes": result.successes,
        "outcome": result.outcome.value,
        "attempt": 1,
        "kind": kind,
    }


async def is_storyteller(
    bot: Bot, chat: Chat, user: User | None, chat_settings: ChatSettings
) -> bool:
    """Who may play the NPC side: the chat's Storyteller once one has claimed the role with
    ``/st`` (issue 4 item 6); before that a chat administrator stands in, as for ``/rules``."""
    storyteller_id = getattr(chat_settings, "storyteller_id", None)
    if isinstance(storyteller_id, int):
        return user is not None and user.id == storyteller_id
    return await is_admin(bot, chat, user, None)


EXPRESSION_MAX = 80  # two trait names and a «+»; anything longer is not a pool


class PoolRefused(Exception):
    """A pool named by traits that cannot be rolled; ``text`` says why, ready to send."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


@dataclass(frozen=True)
class NamedPool:
    """The dice the sheet gives and the escaped label saying where they came from."""

    dice: int
    label: str


async def pool_from_sheet(
    store: Store, chat_id: int, user_id: int, owner: str, expression: str, profile: Profile
) -> NamedPool:
    """``ловк+драка`` → the player's dice from their sheet in this chat (§A.2, wounds §B.9).

    Names are resolved first (bot.traits: Russian or English, any case, unambiguous
    prefixes), so an unknown or ambiguous name answers with the candidates even before the
    player has a sheet; then the sheet is read; no sheet is a hint to fill it with /set.
    """
    if len(expression) > EXPRESSION_MAX:
        raise PoolRefused(render.problem_sentence(Problem.NOT_A_NUMBER, expression, profile))
    system = system_of(profile)
    lang = lang_of(get_i18n().current_locale)
    try:
        codes = parse_pool_expression(expression, system, max_traits=profile.max_traits_per_pool)
    except TraitNameError as error:
        raise PoolRefused(name_problem_text(error, lang, system)) from None
    except RulesInputError:
        raise PoolRefused(table_render.too_many_traits_text(profile.max_traits_per_pool)) from None
    sheet = await store.load_sheet(chat_id, user_id, system)
    if sheet is None:
        raise PoolRefused(no_sheet_text(owner))
    try:
        pool = pool_from_traits(sheet, codes, profile)
    except RulesInputError as error:
        if error.field == "pool":
            raise PoolRefused(render.range_sentence("pool", profile)) from None
        raise PoolRefused(table_render.trait_not_rolled_text()) from None
    label = table_render.sheet_pool_label(
        [trait_name(code, lang, system) for code in pool.codes],
        pool.ratings,
        [code in pool.missing for code in pool.codes],
        pool.wound_penalty,
    )
    if pool.status is PoolStatus.AUTO_FAILURE:
        raise PoolRefused(table_render.pool_auto_failure_text(label))
    if not pool.rollable:
        raise PoolRefused(table_render.pool_impossible_text(label))
    return NamedPool(pool.dice, label)


async def willpower_on_sheet(
    store: Store, chat_id: int, user_id: int, profile: Profile
) -> tuple[int, int] | None:
    """(current, permanent) Willpower on the player's sheet, or None when it is not tracked."""
    if profile.system is not GameSystem.D10:
        return None
    sheet = await store.load_sheet(chat_id, user_id, system_of(profile))
    if sheet is None or sheet.willpower is None:
        return None
    return sheet.willpower_current or 0, sheet.willpower


async def typed_pool(
    store: Store, message: Message, owner: str, pool: int, traits: str | None, profile: Profile
) -> tuple[int, str | None]:
    """The pool a command names: the typed number, or the sheet's dice for ``traits`` with
    the label saying where they came from; raises :class:`PoolRefused`."""
    if traits is None:
        return pool, None
    user = message.from_user
    named = await pool_from_sheet(
        store, message.chat.id, user.id if user else 0, owner, traits, profile
    )
    return named.dice, named.label
