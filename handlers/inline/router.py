"""Inline mode: ``@bot 7 6`` in any chat, rolled fairly by the sender's press (README
"Inline mode").

Telegram prepares an inline answer before the player chooses it, so a bot that rolled while
answering would let the player type until the dice pleased them. Here the answer only
*offers* the roll — the dice, the difficulty, the exact odds — and keeps the offer in Redis
under a random id (``bot.store.inline``). The message sent carries «🎲 Бросить»; the first
press by its sender resolves the pool on the sheet as it is then, rolls through
``bot.rolling`` like every roll, and in one transaction marks the offer rolled, takes the
Willpower or luck off the sheet and writes the campaign's log line; then it edits the message
by its ``inline_message_id``. Anyone else's press gets a toast; a second press, a second copy
of the same offer or a re-run of the update shows the stored result and rolls nothing.

The sheet and the log are those of the campaign the player last used the bot in (or chose
with ``/inline`` in the private chat); with none, typed pools roll for the player alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiogram import Bot, Router
from aiogram.enums import ChatType
from aiogram.exceptions import TelegramBadRequest
from aiogram.filters import Command
from aiogram.types import (
    CallbackQuery,
    InlineQuery,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Message,
)
from pydantic import ValidationError

from bot import render, rolling
from bot.middlewares import chat_profile
from bot.parsing import ArgumentsError, Problem, parse_d6_arguments, parse_roll_arguments
from bot.runner import tell
from bot.session import is_not_modified
from bot.store import LOG_CAP, Store
from bot.store.inline import new_offer_id
from handlers.inline import view
from handlers.inline.callbacks import CampaignCallback, InlineRollCallback
from handlers.inline.flow import Offer, d6_offer, d10_offer, needs_table, recent_queries
from rules import probability
from rules.d6 import probability as d6_probability
from rules.dice import Rng
from rules.difficulty import Difficulty
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile
from rules.sheet import Sheet

# Telegram keeps an inline answer for this long per user and query (is_personal): short, so
# a sheet changed at the table shows at once; never shared, so no one sees another's sheet.
CACHE_SECONDS = 5
QUERY_MAX = 80  # what an inline line may hold and still be a roll (Telegram allows 256)


def make_router() -> Router:
    router = Router(name="inline")
    router.inline_query.register(offer_roll)
    router.callback_query.register(roll_offer, InlineRollCallback.filter())
    router.callback_query.register(choose_campaign, CampaignCallback.filter())
    router.message.register(inline_command, Command("inline"))
    return router


class Refused(Exception):
    """Why a line cannot be offered or rolled, ready to show (HTML)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


@dataclass(frozen=True)
class Campaign:
    """Where the player's inline rolls belong: the chat (``home``) whose sheet, log and
    rules they use, its title (None: no group yet, the player's own id), its profile."""

    home: int
    title: str | None
    profile: Profile

    @property
    def d6(self) -> bool:
        return self.profile.system is GameSystem.D6


async def _campaign(store: Store, user_id: int) -> Campaign:
    last, groups = await store.plays(user_id)
    home = last if last is not None else user_id
    profile = chat_profile(await store.load_chat(home))
    return Campaign(home, groups.get(last) if last is not None else None, profile)


@dataclass(frozen=True)
class Offered:
    """An offer resolved against the sheet: what the list and the message show."""

    offer: Offer
    title: str
    source: str | None
    odds: str


# ----- the one road, for an offer ------------------------------------------------------------


async def _d10_pool(
    store: Store, offer: Offer, profile: Profile
) -> tuple[rolling.Pool, Difficulty]:
    """The pool and difficulty of the offer on the sheet as it is now (§A.2, §B.8, §B.9)."""
    who = rolling.Roller(offer.home, offer.user_id, offer.name)
    try:
        pool = await rolling.resolve_pool(
            store,
            who,
            profile,
            dice=offer.dice if offer.traits is None else None,
            traits=offer.traits,
            modifier=offer.modifier,
        )
        rolling.check_pool(pool.dice, profile)
        base = rolling.check_difficulty(offer.difficulty, profile)
        difficulty = pool.difficulty(base, profile, offer.threshold)
    except rolling.PoolRefused as refused:
        raise Refused(refused.text) from None
    except RulesInputError as error:
        raise Refused(render.range_sentence(error.field, profile)) from None
    if offer.willpower:
        left = rolling.willpower_left(pool.sheet)
        if left is not None and left[0] <= 0:
            raise Refused(rolling.no_willpower_text(left[1]))
    return pool, difficulty


async def _d6_pool(store: Store, offer: Offer, profile: Profile) -> rolling.D6Pool:
    who = rolling.Roller(offer.home, offer.user_id, offer.name)
    try:
        ask = rolling.D6Ask(
            chance=offer.chance,
            powers=offer.powers,
            weakness=offer.weakness,
            modifier=offer.modifier,
            luck=offer.luck,
        )
        return await rolling.d6_pool(store, who, profile, ask)
    except rolling.PoolRefused as refused:
        raise Refused(refused.text) from None


async def _offered(store: Store, offer: Offer, profile: Profile) -> Offered:
    """The offer with its exact odds (``rules.probability``), nothing rolled."""
    if offer.system == "d6":
        d6 = await _d6_pool(store, offer, profile)
        success = float(d6_probability.p_success(d6.dice, offer.required))
        fiasco = float(d6_probability.p_fiasco(d6.dice))
        title = view.d6_title(d6.dice, offer.required)
        return Offered(offer, title, d6.label, view.odds_line(success, fiasco, d6=True))
    pool, difficulty = await _d10_pool(store, offer, profile)
    try:
        odds = probability.d10(
            pool.dice, difficulty.difficulty, profile, offer.willpower, difficulty.threshold
        )
    except RulesInputError as error:
        raise Refused(render.range_sentence(error.field, profile)) from None
    title = view.d10_title(
        pool.dice, difficulty.difficulty, difficulty.threshold, offer.willpower, profile
    )
    return Offered(offer, title, pool.source, view.odds_line(odds.success, odds.botch))


def _typed(line: str, base: Offer, campaign: Campaign) -> Offer:
    """The typed line as an offer; :class:`Refused` says what is wrong with it."""
    if len(line) > QUERY_MAX:
        raise Refused(render.problem_sentence(Problem.NOT_A_NUMBER, line[:24], campaign.profile))
    try:
        if campaign.d6:
            args = parse_d6_arguments(line)
            if needs_table(args):
                raise Refused(view.table_only_text())
            return d6_offer(base, args)
        return d10_offer(base, parse_roll_arguments(line, allow_traits=True))
    except ArgumentsError as problem:
        if campaign.d6:  # the d6 game's own words: a chance, measures, powers
            raise Refused(view.d6_problem_text(problem.token)) from None
        raise Refused(
            render.problem_sentence(problem.problem, problem.token, campaign.profile)
        ) from None


# ----- the inline answer ---------------------------------------------------------------------


def _offer_result(offered: Offered, offer_id: str) -> InlineQueryResultArticle:
    offer = offered.offer
    text = view.offer_text(offer.name, offered.title, offered.source, offered.odds, offer.campaign)
    return InlineQueryResultArticle(
        id=offer_id,
        title=render.plain(offered.title),
        description=view.description(offered.odds, offered.source, offer.campaign),
        input_message_content=InputTextMessageContent(message_text=text),
        reply_markup=view.roll_keyboard(offer_id, offer.home),
    )


def _hint_result(
    result_id: str, title: str, description: str, text: str
) -> InlineQueryResultArticle:
    return InlineQueryResultArticle(
        id=result_id,
        title=title,
        description=description,
        input_message_content=InputTextMessageContent(message_text=text),
    )


async def offer_roll(inline_query: InlineQuery, store: Store, bot: Bot) -> None:
    """Offer the typed roll (and the same with Willpower), or with an empty line a short help
    and the player's recent pools, or a hint: never an error, never a die."""
    user = inline_query.from_user
    me = await bot.me()
    bot_name = me.username or me.first_name
    campaign = await _campaign(store, user.id)
    base = Offer(user_id=user.id, name=user.first_name, home=campaign.home, campaign=campaign.title)
    line = " ".join(inline_query.query.split())
    offers: list[Offered] = []
    hints: list[InlineQueryResultArticle] = []
    if not line:
        hints.append(
            _hint_result(
                "help",
                view.help_title(),
                view.help_description(campaign.d6),
                view.help_text(bot_name, campaign.d6, campaign.title),
            )
        )
        entries = await store.recent_rolls(campaign.home, LOG_CAP)
        for recent in recent_queries(entries, user.id, campaign.d6):
            try:
                offer = _typed(recent, base, campaign)
                offers.append(await _offered(store, offer, campaign.profile))
            except Refused:
                continue
    else:
        try:
            offer = _typed(line, base, campaign)
            offers.append(await _offered(store, offer, campaign.profile))
        except Refused as refused:
            hints.append(
                _hint_result(
                    "hint",
                    view.problem_title(),
                    render.plain(refused.text),
                    view.problem_text(refused.text, bot_name, campaign.d6),
                )
            )
        else:
            if offer.system == "d10" and not offer.willpower and campaign.profile.wp_auto_success:
                try:
                    with_wp = offer.model_copy(update={"willpower": True})
                    offers.append(await _offered(store, with_wp, campaign.profile))
                except Refused:
                    pass
    ids = [new_offer_id() for _ in offers]
    await store.put_offers(
        campaign.home, {i: o.offer.model_dump_json() for i, o in zip(ids, offers, strict=True)}
    )
    results = [_offer_result(o, i) for i, o in zip(ids, offers, strict=True)]
    await inline_query.answer(
        [*results, *hints] if line else [*hints, *results],
        cache_time=CACHE_SECONDS,
        is_personal=True,
    )


# ----- the press -----------------------------------------------------------------------------


async def roll_offer(
    callback: CallbackQuery,
    callback_data: InlineRollCallback,
    store: Store,
    bot: Bot,
    rng: Rng | None = None,
) -> None:
    """The sender's first press rolls the offer and shows it in the message, once."""
    inline_id = callback.inline_message_id
    if inline_id is None:
        await tell(callback, lambda: render.invalid_button_text(), alert=True)
        return
    raw, rolled = await store.load_offer(callback_data.home, callback_data.offer)
    offer = _parse_offer(raw)
    if offer is None or offer.home != callback_data.home:
        await tell(callback, lambda: view.expired_text(), alert=True)
        return
    if offer.user_id != callback.from_user.id:
        await tell(callback, lambda: view.not_yours_text(offer.name))
        return
    if rolled is not None:  # a second press, a copy of the offer, or a re-run: no new dice
        await _show(bot, inline_id, rolled)
        await tell(callback, lambda: view.rolled_text())
        return
    profile = chat_profile(await store.load_chat(offer.home))
    if (offer.system == "d6") != (profile.system is GameSystem.D6):  # /rules changed the game
        await tell(callback, lambda: view.expired_text(), alert=True)
        return
    try:
        rolled_now, text = await _roll(store, offer, callback_data.offer, profile, rng)
    except Refused as refused:
        await callback.answer(render.plain(refused.text)[:200], show_alert=True)
        return
    if text is None:
        await tell(callback, lambda: view.expired_text(), alert=True)
        return
    await _show(bot, inline_id, text)
    await callback.answer(None if rolled_now else view.rolled_text())


def _parse_offer(raw: str | None) -> Offer | None:
    if raw is None:
        return None
    try:
        return Offer.model_validate_json(raw)
    except ValidationError:
        return None


async def _roll(
    store: Store, offer: Offer, offer_id: str, profile: Profile, rng: Rng | None
) -> tuple[bool, str | None]:
    """Resolve, roll and store in one step (``Store.settle_offer``): (rolled by this press,
    the result's text). Willpower or luck leave the sheet with the roll, or nothing does."""
    who = rolling.Roller(offer.home, offer.user_id, offer.name)
    if offer.system == "d6":
        d6 = await _d6_pool(store, offer, profile)
        result6 = rolling.roll_d6(d6.dice, required=offer.required, rng=rng, profile=profile)
        entry = rolling.d6_log_entry(offer.user_id, offer.name, d6.dice, offer.required, result6)
        text6 = view.d6_result_text(
            render.d6_roll_text(result6, roller=offer.name), d6.label, offer.campaign
        )
        try:
            return await store.settle_offer(
                offer.home,
                offer_id,
                lambda _sheet: text6,
                spend=rolling.d6_spend(who, d6),
                entries=[entry],
            )
        except RulesInputError:
            raise Refused(rolling.no_luck_text(0)) from None
    pool, difficulty = await _d10_pool(store, offer, profile)
    result = rolling.roll_d10(
        pool,
        difficulty.difficulty,
        profile,
        willpower=offer.willpower,
        threshold=difficulty.threshold,
        rng=rng,
    )
    spend = rolling.spend(who, profile, willpower=offer.willpower)

    def text_of(sheet: Sheet | None) -> str:
        left = rolling.willpower_left(sheet) if spend is not None else None
        shown = render.roll_result_text(
            result,
            pool=pool.dice,
            roller=offer.name,
            profile=profile,
            source=pool.source,
            willpower_left=left,
        )
        return view.d10_result_text(shown, offer.campaign)

    entry = rolling.log_entry(offer.user_id, offer.name, pool.dice, result, traits=pool.traits)
    try:
        return await store.settle_offer(offer.home, offer_id, text_of, spend=spend, entries=[entry])
    except RulesInputError as error:
        if not rolling.is_out_of_willpower(error):
            raise
        known = rolling.willpower_left(pool.sheet)
        raise Refused(rolling.no_willpower_text(known[1] if known else 0)) from None


async def _show(bot: Bot, inline_message_id: str, text: str) -> None:
    """The result in place of the offer, its button gone; an edit already made is fine."""
    try:
        await bot.edit_message_text(text=text, inline_message_id=inline_message_id)
    except TelegramBadRequest as error:
        if not is_not_modified(error):
            raise


# ----- the private chat: which campaign ---------------------------------------------------------


async def inline_command(message: Message, store: Store, bot: Bot) -> None:
    """``/inline``: how to roll from any chat; in the private chat, which campaign the inline
    rolls belong to, with a button for each of the player's groups."""
    me = await bot.me()
    bot_name = me.username or me.first_name
    user = message.from_user
    if message.chat.type != ChatType.PRIVATE or user is None:
        await message.answer(view.group_text(bot_name))
        return
    campaign = await _campaign(store, user.id)
    _chosen, groups = await store.plays(user.id)
    await message.answer(
        view.campaigns_text(campaign.title, bot_name, campaign.d6, len(groups)),
        reply_markup=view.campaigns_keyboard(
            sorted(groups.items(), key=lambda item: item[1]), campaign.home
        ),
    )


async def choose_campaign(
    callback: CallbackQuery, callback_data: CampaignCallback, store: Store, bot: Bot
) -> None:
    message = callback.message
    if message is None or message.chat.type != ChatType.PRIVATE:
        await tell(callback, lambda: render.invalid_button_text(), alert=True)
        return
    user_id = callback.from_user.id
    if not await store.choose_play(user_id, callback_data.chat):
        await tell(callback, lambda: render.invalid_button_text(), alert=True)
        return
    me = await bot.me()
    campaign = await _campaign(store, user_id)
    _chosen, groups = await store.plays(user_id)
    try:
        await bot.edit_message_text(
            text=view.campaigns_text(
                campaign.title, me.username or me.first_name, campaign.d6, len(groups)
            ),
            chat_id=message.chat.id,
            message_id=message.message_id,
            reply_markup=view.campaigns_keyboard(
                sorted(groups.items(), key=lambda item: item[1]), campaign.home
            ),
        )
    except TelegramBadRequest as error:
        if not is_not_modified(error):
            raise
    await tell(callback, lambda: view.chosen_text(campaign.title or ""))
