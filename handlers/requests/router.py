"""Roll requests: ``/ask восп+бдит 8`` (docs/product.md "Storyteller").

The Storyteller asks the table «Бросьте Восприятие + Бдительность, сложность 8»; the message
carries a button, and each player's tap rolls the pool THEIR sheet gives (§A.2: the traits'
sum, the profile's zero-Ability rule; §B.9: the wound penalty of their health track). Every
answer becomes a line of the same message, edited in place.

Who asks: the Storyteller, or while the chat has none a chat administrator
(:func:`handlers.storyteller.game_access`, as for ``/rules``). Who answers: anyone with the
traits on their sheet, once. Many players tap at once, so a tap re-reads the flow and retries
its compare-and-set until its answer is in (or the player is found to have answered already);
the roll and its log line are written by one script, so nothing is counted twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message
from pydantic import ValidationError

from bot import render, rolling, sheet_text
from bot.access import GameAccess, game_access
from bot.i18n import own_locale
from bot.parsing import tokenize
from bot.session import safe_edit
from bot.store import ChatSettings, Flow, FlowStateError, LogEntry, Store
from bot.taps import load_tap, tell
from bot.traits import TraitNameError, parse_pool_expression
from handlers.requests import view
from handlers.requests.callbacks import RequestAction, RequestCallback
from handlers.requests.flow import RequestAnswer, RequestState
from rules import d10
from rules.actions import PoolStatus
from rules.dice import Rng
from rules.difficulty import check_base
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import GameSystem, Profile
from rules.sheet import TraitCode, new_sheet, pool_from_traits, system_of, trait_code

REQUEST = "request"
# Each retry means another player's answer landed first; a table is a handful of players.
CAS_ATTEMPTS = 12


def make_router() -> Router:
    router = Router(name="requests")
    router.message.register(ask_command, Command("ask"))
    router.callback_query.register(request_tap, RequestCallback.filter())
    return router


DIGITS_MAX = 6


def parse_request(text: str, profile: Profile) -> tuple[list[TraitCode], int]:
    """``восп+бдит 8`` → the trait codes and the difficulty (the profile's default if none).

    Raises :class:`TraitNameError` for a name and :class:`RulesInputError` for the rest; the
    pool is tried on an empty sheet so a trait that is never rolled (a Sphere) is refused now
    rather than at every player's tap.
    """
    words = tokenize(text)
    difficulty = profile.default_difficulty
    if words and words[-1].isascii() and words[-1].isdigit():
        typed = words.pop()
        if len(typed) > DIGITS_MAX:  # far out of range, and too long to read as a number
            raise RulesInputError(ErrorCode.RANGE, "difficulty", typed[:DIGITS_MAX])
        difficulty = int(typed)
    if not words:
        raise RulesInputError(ErrorCode.STATE, "pool", "no traits")
    system = system_of(profile)
    codes = parse_pool_expression(" ".join(words), system, max_traits=profile.max_traits_per_pool)
    check_base(difficulty, profile)
    pool_from_traits(new_sheet(system), codes, profile)
    return codes, difficulty


async def ask_command(
    message: Message,
    command: CommandObject,
    bot: Bot,
    store: Store,
    profile: Profile,
    chat_settings: ChatSettings,
    locale: str,
) -> None:
    access = await game_access(
        bot, message.chat, chat_settings, message.from_user, message.sender_chat
    )
    if access is GameAccess.DENIED:
        await message.answer(view.only_storyteller_text())
        return
    if profile.system is not GameSystem.D10:
        await message.answer(view.ask_d10_only_text())
        return
    system = system_of(profile)
    try:
        codes, difficulty = parse_request(command.args or "", profile)
    except TraitNameError as error:
        text = sheet_text.name_problem_text(error, sheet_text.lang_of(locale), system)
        await message.answer(text + "\n" + view.ask_hint_text())
        return
    except RulesInputError as error:
        await message.answer(_input_problem(error, profile))
        return
    asker = render_name(message)
    state = RequestState(
        system=system, codes=tuple(c.value for c in codes), difficulty=difficulty, asker=asker
    )
    user = message.from_user
    flow = await store.create_flow(state, message.chat.id, user.id if user else 0)
    await message.answer(
        view.request_text(state, codes, locale, profile, closed=False),
        reply_markup=view.request_keyboard(flow.id),
    )


def render_name(message: Message) -> str:
    if message.sender_chat is not None and message.sender_chat.title:
        return message.sender_chat.title
    return message.from_user.first_name if message.from_user else "?"


def _input_problem(error: RulesInputError, profile: Profile) -> str:
    if error.code is ErrorCode.TOO_MANY_TRAITS:
        return view.too_many_traits_text(profile.max_traits_per_pool)
    if error.field == "difficulty" or error.field == "base":
        return render.range_problem_text("difficulty", profile, command="r").splitlines()[0] + (
            "\n" + view.ask_hint_text()
        )
    if error.code is ErrorCode.NOT_ALLOWED and error.field == "codes":
        return view.not_rolled_text() + "\n" + view.ask_hint_text()
    return view.ask_hint_text()


async def request_tap(
    callback: CallbackQuery,
    callback_data: RequestCallback,
    bot: Bot,
    store: Store,
    profile: Profile,
    chat_settings: ChatSettings,
    locale: str,
    rng: Rng | None = None,
) -> None:
    loaded = await load_tap(callback, callback_data.f, store, REQUEST)
    if loaded is None:
        return
    flow, message = loaded
    try:
        state = flow.state(RequestState)
        codes = [trait_code(c, state.system) for c in state.codes]
        if state.system is not system_of(profile):
            raise RulesInputError(ErrorCode.STATE, "system", "the chat's game changed")
    except (RulesInputError, ValidationError, FlowStateError):
        await tell(callback, lambda: render.invalid_button_text(), alert=True)
        return
    press = _Press(callback, message, flow, codes, store, profile, locale)
    if callback_data.a is RequestAction.CLOSE:
        await _close(press, bot, chat_settings)
        return
    await _answer(press, state, rng)


@dataclass(frozen=True)
class _Press:
    """A press under a request: the message, its flow and traits, and the chat's settings."""

    callback: CallbackQuery
    message: Message
    flow: Flow
    codes: list[TraitCode]
    store: Store
    profile: Profile
    locale: str


async def _answer(press: _Press, state: RequestState, rng: Rng | None) -> None:
    callback, flow, codes = press.callback, press.flow, press.codes
    store, profile, locale = press.store, press.profile, press.locale
    user = callback.from_user
    if state.answered(user.id):
        await tell(callback, lambda: view.already_rolled_text(), alert=True)
        return
    sheet = await store.load_sheet(flow.chat_id, user.id, state.system)
    if sheet is None:
        own = own_locale(locale)  # the alert is the presser's: trait names in their words
        await tell(callback, lambda: view.no_sheet_text(codes, own, state.system), alert=True)
        return
    pool = pool_from_traits(sheet, codes, profile)
    if pool.missing:
        own = own_locale(locale)
        await tell(
            callback, lambda: view.missing_traits_text(pool.missing, own, state.system), alert=True
        )
        return
    try:
        harder = rolling.conditions_difficulty(sheet, pool.codes)
    except rolling.PoolRefused as refused:
        await callback.answer(render.plain(refused.text), show_alert=True)
        return
    result = None
    if pool.status is PoolStatus.ROLL:
        difficulty = min(10, state.difficulty + harder)  # a request carries no threshold
        result = rolling.roll_d10(pool.dice, difficulty, profile, rng=rng)
    answer = RequestAnswer(
        user_id=user.id,
        name=user.first_name,
        status=pool.status,
        base=pool.base,
        penalty=pool.wound_penalty,
        dice=pool.dice,
        reason=pool.reason,
        result=result,
    )
    entries = [] if result is None else [_log_entry(answer, result)]
    current: Flow | None = flow
    for _attempt in range(CAS_ATTEMPTS):
        if current is None or current.closed:
            await tell(callback, lambda: render.closed_text(), alert=True)
            return
        state = current.state(RequestState)
        if state.answered(user.id):
            await tell(callback, lambda: view.already_rolled_text(), alert=True)
            return
        updated = state.model_copy(update={"answers": (*state.answers, answer)})
        advanced = await store.advance_flow(current, current.version, updated, entries=entries)
        if advanced is not None:
            text = view.request_text(updated, codes, locale, profile, closed=False)
            await safe_edit(press.message, text, view.request_keyboard(flow.id))
            await callback.answer()
            return
        current = await store.load_flow(flow.chat_id, flow.id)
    await tell(callback, lambda: render.invalid_button_text(), alert=True)


def _log_entry(answer: RequestAnswer, result: d10.D10Result) -> LogEntry:
    return rolling.log_entry(answer.user_id, answer.name, answer.dice, result, REQUEST)


async def _close(press: _Press, bot: Bot, chat_settings: ChatSettings) -> None:
    """The asker closes, or whoever may run the game now (a tap carries the real id, so an
    anonymous administrator who asked can close too). Answers landing meanwhile are kept."""
    callback, message, flow, store = press.callback, press.message, press.flow, press.store
    user = callback.from_user
    if user.id != flow.owner_id:
        access = await game_access(bot, message.chat, chat_settings, user, None)
        if access is not GameAccess.ALLOWED:
            await tell(callback, lambda: view.only_asker_closes_text(), alert=True)
            return
    current: Flow | None = flow
    for _attempt in range(CAS_ATTEMPTS):
        if current is None or current.closed:
            # Closed by a double tap or by another Storyteller's tap.
            await tell(callback, lambda: render.already_done_text())
            return
        closed = await store.close_flow(current, current.version)
        if closed is not None:
            state = closed.state(RequestState)
            text = view.request_text(state, press.codes, press.locale, press.profile, closed=True)
            await safe_edit(message, text, None)
            await callback.answer()
            return
        current = await store.load_flow(flow.chat_id, flow.id)
    await tell(callback, lambda: render.invalid_button_text(), alert=True)
