"""What a press on the screen does to the campaign: the part that is not pure, run as a
``runner.Delegate`` because it writes another chat than the screen's (the campaign's group:
another cluster slot, so no one compare-and-set can hold both). A change lands on the
campaign's sheet (its own atomic step), goes into the running session's chronicle, reaches
the player privately; then the screen's own next state (what was just done) is stored by
compare-and-set and the screen redrawn from the sheets as they are now. A secret roll is
the hidden feature's (``bot.hidden_rolls.HIDDEN_ROLL``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from aiogram.types import InlineKeyboardMarkup, User
from aiogram.utils.i18n import get_i18n

from bot import notices
from bot.features import FeatureSet
from bot.hidden_rolls import HIDDEN_ROLL, HiddenAsk
from bot.i18n import drawing
from bot.roll_requests import ASK_ROLL, RollAsk
from bot.runner import Actor, Answer, Sequel, screen_of
from bot.session import safe_edit
from handlers.screen import view
from handlers.screen.flow import ScreenFlow
from handlers.screen.table import Campaign, Character, read_campaign
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.sheet import Sheet, SheetSystem, new_sheet, system_of
from table.scope import Campaign as Where
from table.store import Flow, Store
from table.store.sessions import add_event

Change = Callable[[Sheet], Sheet]
Words = Callable[[], str]  # what changed, in words, made in the language it is shown in


async def redraw(
    sequel: Sequel, campaign_id: int | Where, title: str, after: ScreenFlow | None = None
) -> None:
    """The screen drawn anew; ``after``, the screen's next state, stored first with what it
    draws (a press that raced another on the same screen keeps the other's state: its change
    still landed), so the group's next change redraws it only if it shows something new."""
    flow = sequel.flow
    if flow is None:
        return
    if after is not None:
        ahead = flow.next(after)
        text, markup = await _drawn(sequel.store, ahead, after, campaign_id, title)
        stored = await sequel.store.advance_flow(
            flow, flow.version, after, screen=screen_of(text, markup)
        )
        if stored is not None:
            await safe_edit(sequel.message, text, markup)
            return
        flow = await sequel.store.load_flow(flow.chat_id, flow.id) or flow
    state = flow.state(ScreenFlow)
    text, markup = await _drawn(sequel.store, flow, state, campaign_id, title)
    await safe_edit(sequel.message, text, markup)


async def _drawn(
    store: Store, flow: Flow, state: ScreenFlow, campaign_id: int | Where, title: str
) -> tuple[str, InlineKeyboardMarkup | None]:
    fresh = await read_campaign(store, campaign_id, title, state.asked())
    with drawing(flow):
        return view.draw(flow, state, fresh, flow.locale or "ru")


@dataclass(frozen=True)
class SheetChange:
    campaign: Campaign
    target: Character
    change: Change
    words: Words  # «the Storyteller dealt you 1 lethal level»
    event: Words  # «Аня: +1 lethal level» for the chronicle
    after: ScreenFlow  # the screen once it is done: what it did, to whom


def _from_base(change: Change, target: Character, system: SheetSystem) -> Change:
    """An NPC drawn without a sheet (a group's copy): the change applies to the sheet its
    first change starts (``Character.base``), unless one was written since (a wound typed in
    the group), which it then applies to as it is."""
    base = target.base
    if target.sheet is not None or base is None:
        return change
    blank = new_sheet(system)
    return lambda current: change(base if current == blank else current)


async def change_sheet(sequel: Sequel, asked: SheetChange) -> Answer | None:
    campaign, target = asked.campaign, asked.target
    store, system = sequel.store, system_of(campaign.profile)
    try:
        if target.npc is not None:
            change = _from_base(asked.change, target, system)
            sheet = await store.update_npc(campaign.where, system, target.npc, change)
        elif target.user_id is not None:
            sheet = await store.update_sheet(campaign.where, target.user_id, system, asked.change)
        else:
            return view.gone_text
    except RulesInputError:
        await redraw(sequel, campaign.where, campaign.title)
        return view.refused_text
    locale = campaign.settings.locale
    i18n = get_i18n()
    session = campaign.settings.session
    if session is not None:
        with i18n.use_locale(locale or i18n.current_locale):
            what = asked.event()
        event = {"at": time.time(), "who": target.name, "what": what}
        await add_event(store, campaign.where, session, event)
    if target.user_id is not None and sequel.bot is not None:
        with i18n.use_locale(locale or i18n.current_locale):
            said = (
                asked.words()
                + "\n"
                + view.character_line(Character(target.key, target.name, sheet), campaign.profile)
            )
        await notices.tell_player(
            sequel.bot,
            store.redis,
            campaign_id=campaign.where,
            campaign=campaign.title,
            user_id=target.user_id,
            name=target.name,
            what=said,
            locale=locale,
        )
    await redraw(sequel, campaign.where, campaign.title, asked.after)
    return None


@dataclass(frozen=True)
class SecretRoll:
    campaign: Campaign
    target: Character
    storyteller: User
    traits: str
    difficulty: int
    features: FeatureSet | None
    rng: Rng | None
    after: ScreenFlow


async def secret_roll(sequel: Sequel, asked: SecretRoll) -> Answer | None:
    if asked.features is None or sequel.bot is None or not asked.features.has(HIDDEN_ROLL):
        return view.refused_text
    roll = asked.features.handoff(HIDDEN_ROLL)
    target = asked.target
    why = await roll(
        HiddenAsk(
            bot=sequel.bot,
            store=sequel.store,
            chat_id=asked.campaign.where,
            title=asked.campaign.title,
            storyteller=asked.storyteller,
            profile=asked.campaign.profile,
            name=target.name,
            traits=asked.traits,
            difficulty=asked.difficulty,
            user_id=target.user_id or 0,
            npc=target.npc,
            rng=asked.rng,
            session=asked.campaign.settings.session,
        )
    )
    await redraw(sequel, asked.campaign.where, asked.campaign.title, asked.after)
    return why


@dataclass(frozen=True)
class RollRequest:
    campaign: Campaign
    target: Character
    storyteller: Actor
    traits: str
    difficulty: int
    features: FeatureSet | None
    after: ScreenFlow  # the screen once asked; the request's flow id is added to it


async def request_roll(sequel: Sequel, asked: RollRequest) -> Answer | None:
    """The request posted in the campaign addressed to the player, then the screen keeps it
    and shows its answer once the player rolls (the screen is redrawn on the group's rolls)."""
    features, target = asked.features, asked.target
    if features is None or sequel.bot is None or not features.has(ASK_ROLL):
        return view.refused_text
    if target.user_id is None:
        return view.only_players_asked_text
    campaign = asked.campaign
    made = await features.handoff(ASK_ROLL)(
        RollAsk(
            bot=sequel.bot,
            store=sequel.store,
            chat_id=campaign.where,
            profile=campaign.profile,
            asker=asked.storyteller.name,
            asker_id=asked.storyteller.id,
            user_id=target.user_id,
            name=target.name,
            traits=asked.traits,
            difficulty=asked.difficulty,
            locale=campaign.settings.locale,
        )
    )
    if not isinstance(made, str):
        return made
    after = asked.after.model_copy(update={"request": made})
    await redraw(sequel, campaign.where, campaign.title, after)
    return view.requested_text
