"""Inline mode: ``@bot 7 6`` in any chat, rolled fairly by the sender's press (README
"Inline mode").

Telegram prepares an inline answer before the player chooses it, so a bot that rolled while
answering would let the player type until the dice pleased them. Here the answer only
*offers* the roll — the dice, the difficulty, the exact odds — and keeps the offer in Redis
under a random id (``table.store.inline``). The message sent carries «🎲 Бросить»; the first
press by its sender resolves the pool on the sheet as it is then, rolls through
``bot.rolling`` like every roll, and in one transaction marks the offer rolled, takes the
Willpower or luck off the sheet and writes the campaign's log line; then it edits the message
by its ``inline_message_id``. Anyone else's press gets a toast; a second press, a second copy
of the same offer or a re-run of the update shows the stored result and rolls nothing.

The sheet and the log are those of the campaign the player last rolled in — a group's own
game, or the forum topic they played in — or the one they chose with ``/inline`` in the
private chat; with none, typed pools roll for the player alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from aiogram import Bot, Router
from aiogram.enums import ChatType
from aiogram.filters import Command
from aiogram.types import (
    InlineQuery,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Message,
)
from pydantic import ValidationError

from bot import render, rolling, runner
from bot.middlewares import chat_profile
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
from table.parsing import ArgumentsError, Problem, parse_d6_arguments, parse_roll_arguments
from table.scope import Campaign
from table.store import LOG_CAP, LogEntry, SheetSpend, Store
from table.store.inline import new_offer_id

# Telegram keeps an inline answer for this long per user and query (is_personal): short, so
# a sheet changed at the table shows at once; never shared, so no one sees another's sheet.
CACHE_SECONDS = 5
QUERY_MAX = 80  # what an inline line may hold and still be a roll (Telegram allows 256)


def make_router() -> Router:
    router = Router(name="inline")
    router.inline_query.register(offer_roll)
    runner.register(router, OFFER_TAP)
    runner.register(router, CHOOSE_TAP)
    router.message.register(inline_command, Command("inline"))
    return router


class Refused(Exception):
    """Why a line cannot be offered or rolled, ready to show (HTML)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


@dataclass(frozen=True)
class Home:
    """Where the player's inline rolls belong: the campaign (``home``: a group's own game or
    a forum topic) whose sheet, log and rules they use, its title (None: no group yet, the
    player's own id), its profile."""

    home: Campaign
    title: str | None
    profile: Profile

    @property
    def d6(self) -> bool:
        return self.profile.system is GameSystem.D6


async def _home(store: Store, user_id: int) -> Home:
    last, played = await store.plays(user_id)
    home = last if last is not None else Campaign(user_id)
    profile = chat_profile(await store.load_chat(home))
    return Home(home, played.get(last) if last is not None else None, profile)


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
    who = rolling.Roller(offer.place, offer.user_id, offer.name)
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
    who = rolling.Roller(offer.place, offer.user_id, offer.name)
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


def _typed(line: str, base: Offer, campaign: Home) -> Offer:
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
        reply_markup=view.roll_keyboard(offer_id, offer.place),
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
    campaign = await _home(store, user.id)
    base = Offer(
        user_id=user.id,
        name=user.first_name,
        home=campaign.home.chat_id,
        thread=campaign.home.thread_id,
        campaign=campaign.title,
    )
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


@dataclass(frozen=True)
class Settling:
    """A roll the step made, for the offer's one settlement (``Store.settle_offer``): the
    result's text of the sheet after the spend, the spend and the log line."""

    text: Callable[[Sheet | None], str]
    spend: SheetSpend | None
    entries: tuple[LogEntry, ...]


@dataclass(frozen=True)
class Ticket:
    """An offer as a press finds it: the offer, its result's text once rolled, its campaign's
    profile, and (in a step's change) the roll to settle it with."""

    offer: Offer
    rolled: str | None
    profile: Profile
    settling: Settling | None = None


@dataclass(frozen=True)
class D10Ready:
    pool: rolling.Pool
    difficulty: Difficulty


@dataclass(frozen=True)
class D6Ready:
    pool: rolling.D6Pool


# What an offer's roll reads: the pool resolved on the sheet as it is now, or why not (HTML);
# None when the press will not roll.
Ready = D10Ready | D6Ready | str | None


async def load_ticket(pressed: runner.Pressed[InlineRollCallback]) -> Ticket | runner.Refuse:
    """The offer the button names, in the campaign it names, with what it rolled if it did;
    nothing in the button is trusted (a chat's plain id, as older buttons carry it, names its
    own game)."""
    data = pressed.data
    home = Campaign.from_button(data.home)
    if pressed.callback.inline_message_id is None or home is None:
        return runner.refuse(render.invalid_button_text)
    raw, rolled = await pressed.store.load_offer(home, data.offer)
    offer = _parse_offer(raw)
    if offer is None or offer.place != home:
        return runner.refuse(view.expired_text)
    profile = chat_profile(await pressed.store.load_chat(home))
    return Ticket(offer, rolled, profile)


def _rolls(ticket: Ticket, presser: int) -> bool:
    offer = ticket.offer
    d6 = ticket.profile.system is GameSystem.D6
    return offer.user_id == presser and ticket.rolled is None and (offer.system == "d6") == d6


async def read_pool(pressed: runner.Pressed[InlineRollCallback], ticket: Ticket) -> Ready:
    """The pool on the sheet as it is now, read only for the press that rolls."""
    if not _rolls(ticket, pressed.presser.id):
        return None
    try:
        if ticket.offer.system == "d6":
            return D6Ready(await _d6_pool(pressed.store, ticket.offer, ticket.profile))
        return D10Ready(*await _d10_pool(pressed.store, ticket.offer, ticket.profile))
    except Refused as refused:
        return refused.text


def offer_step(
    ticket: Ticket, data: InlineRollCallback, actor: runner.Actor, seen: runner.Seen[Ready]
) -> runner.Deed[Ticket]:
    """The sender's first press rolls the offer and shows it in the message, once; a second
    press, a copy of the offer or a re-run shows the roll made, with no new dice."""
    offer = ticket.offer
    if offer.user_id != actor.id:
        return runner.refuse(lambda: view.not_yours_text(offer.name), alert=False)
    if ticket.rolled is not None:
        return runner.Keep(answer=view.rolled_text)
    ready = seen.read
    if ready is None:  # /rules changed the game since the offer
        return runner.refuse(view.expired_text)
    if isinstance(ready, str):
        said = ready
        return runner.refuse(lambda: render.plain(said)[:200])
    if isinstance(ready, D6Ready):
        return _d6_roll(ticket, ready.pool, seen.rng)
    return _d10_roll(ticket, ready, seen.rng)


def _d6_roll(ticket: Ticket, d6: rolling.D6Pool, rng: Rng | None) -> runner.Change[Ticket]:
    offer, profile = ticket.offer, ticket.profile
    who = rolling.Roller(offer.place, offer.user_id, offer.name)
    result = rolling.roll_d6(d6.dice, required=offer.required, rng=rng, profile=profile)
    entry = rolling.d6_log_entry(offer.user_id, offer.name, d6.dice, offer.required, result)
    text = view.d6_result_text(
        render.d6_roll_text(result, roller=offer.name), d6.label, offer.campaign
    )
    settling = Settling(lambda _sheet: text, rolling.d6_spend(who, d6), (entry,))
    return runner.Change(replace(ticket, settling=settling), unpaid=lambda: rolling.no_luck_text(0))


def _d10_roll(ticket: Ticket, ready: D10Ready, rng: Rng | None) -> runner.Change[Ticket]:
    offer, profile = ticket.offer, ticket.profile
    pool, difficulty = ready.pool, ready.difficulty
    who = rolling.Roller(offer.place, offer.user_id, offer.name)
    result = rolling.roll_d10(
        pool.dice,
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
    known = rolling.willpower_left(pool.sheet)
    permanent = known[1] if known else 0
    return runner.Change(
        replace(ticket, settling=Settling(text_of, spend, (entry,))),
        unpaid=lambda: rolling.no_willpower_text(permanent),
    )


async def settle(
    pressed: runner.Pressed[InlineRollCallback], before: Ticket, after: Ticket
) -> Ticket | None:
    """Roll the offer once (``Store.settle_offer``): the result, the spend and the log line
    in one transaction; None when another press rolled it first (shown as it was rolled)."""
    settling = after.settling
    assert settling is not None
    rolled_now, text = await pressed.store.settle_offer(
        after.offer.place,
        pressed.data.offer,
        settling.text,
        spend=settling.spend,
        entries=list(settling.entries),
    )
    if not rolled_now or text is None:
        return None
    return replace(after, rolled=text, settling=None)


def ticket_view(ticket: Ticket, data: InlineRollCallback, seen: runner.Seen[Ready]) -> runner.Drawn:
    """The result in place of the offer, its button gone."""
    return ticket.rolled or "", None


OFFER_TAP: runner.RecordTap[Ticket, InlineRollCallback, Ready] = runner.RecordTap(
    name="inline_roll",
    callback=InlineRollCallback,
    load=load_ticket,
    read=read_pool,
    step=offer_step,
    view=ticket_view,
    swap=settle,
)


def _parse_offer(raw: str | None) -> Offer | None:
    if raw is None:
        return None
    try:
        return Offer.model_validate_json(raw)
    except ValidationError:
        return None


# ----- the private chat: which campaign ---------------------------------------------------------


async def inline_command(message: Message, store: Store, bot: Bot) -> None:
    """``/inline``: how to roll from any chat; in the private chat, which campaign the inline
    rolls belong to, with a button for each campaign the player rolled in (a group's own
    game, or a forum topic named after its chat)."""
    me = await bot.me()
    bot_name = me.username or me.first_name
    user = message.from_user
    if message.chat.type != ChatType.PRIVATE or user is None:
        await message.answer(view.group_text(bot_name))
        return
    campaign = await _home(store, user.id)
    _chosen, played = await store.plays(user.id)
    await message.answer(
        view.campaigns_text(campaign.title, bot_name, campaign.d6, len(played)),
        reply_markup=view.campaigns_keyboard(_listed(played), campaign.home),
    )


def _listed(played: dict[Campaign, str]) -> list[tuple[Campaign, str]]:
    """The player's campaigns by title: a forum's topics side by side, after its General."""
    return sorted(played.items(), key=lambda item: (item[1].casefold(), item[0].key))


@dataclass(frozen=True)
class Plays:
    """The player's campaigns (campaign → title) and the one their inline rolls belong to
    now."""

    chosen: Campaign | None
    groups: dict[Campaign, str]


@dataclass(frozen=True)
class Naming:
    """What the chooser's message names besides the groups: the bot, and whether the group
    pressed plays the d6 game."""

    bot_name: str
    d6: bool


async def load_plays(pressed: runner.Pressed[CampaignCallback]) -> Plays | runner.Refuse:
    message = pressed.message
    if message is None or message.chat.type != ChatType.PRIVATE:
        return runner.refuse(render.invalid_button_text)
    chosen, groups = await pressed.store.plays(pressed.presser.id)
    return Plays(chosen, groups)


async def read_naming(pressed: runner.Pressed[CampaignCallback], plays: Plays) -> Naming:
    bot = pressed.context.bot
    assert bot is not None
    me = await bot.me()
    campaign = Campaign.from_button(pressed.data.campaign)
    profile = (
        chat_profile(await pressed.store.load_chat(campaign)) if campaign is not None else None
    )
    d6 = profile is not None and profile.system is GameSystem.D6
    return Naming(me.username or me.first_name, d6)


def choose_step(
    plays: Plays, data: CampaignCallback, actor: runner.Actor, seen: runner.Seen[Naming]
) -> runner.Deed[Plays]:
    """One of the player's own campaigns only: a forged, foreign or forgotten button is
    invalid."""
    campaign = Campaign.from_button(data.campaign)
    title = plays.groups.get(campaign) if campaign is not None else None
    if campaign is None or title is None:
        return runner.refuse(render.invalid_button_text)
    return runner.Change(
        Plays(campaign, plays.groups), answer=lambda: view.chosen_text(title), alert=False
    )


async def choose_play(
    pressed: runner.Pressed[CampaignCallback], before: Plays, after: Plays
) -> Plays | None:
    """None when the campaign is no longer the player's: the press runs again and says so."""
    assert after.chosen is not None
    return after if await pressed.store.choose_play(pressed.presser.id, after.chosen) else None


def plays_view(plays: Plays, data: CampaignCallback, seen: runner.Seen[Naming]) -> runner.Drawn:
    chosen = plays.chosen
    title = plays.groups.get(chosen) if chosen is not None else None
    return view.campaigns_text(title, seen.read.bot_name, seen.read.d6, len(plays.groups)), (
        view.campaigns_keyboard(_listed(plays.groups), chosen)
    )


CHOOSE_TAP: runner.RecordTap[Plays, CampaignCallback, Naming] = runner.RecordTap(
    name="inline_campaign",
    callback=CampaignCallback,
    load=load_plays,
    read=read_naming,
    step=choose_step,
    view=plays_view,
    swap=choose_play,
)
