"""``/init`` and the round tracker: one live message per chat (docs/rules.md §B.1–§B.2).

The round is a flow the chat points to (``Store.open_live``), so ``/init`` from any player
joins the same fight, and every step is the flow's compare-and-set. The message is edited
in place; a command that finds it buried under the conversation posts it again at the
bottom with the same state (the old one is deleted) and pins it when the bot may. Buttons
that walk the phases carry the step they were drawn for, so two players pressing «Дальше»
at once move the round one step, not two (docs/product.md §3 "Concurrency"). What a step means
is :mod:`rules.combat.tracker`; this module only decides who may press and draws.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message, User

from bot import live as bot_live
from bot import npcs, render, rolling
from bot.access import runs_game
from bot.i18n import own_language
from bot.names import numbered_names, roller_name
from bot.parsing import ArgumentsError, parse_init_arguments
from bot.session import safe_edit
from bot.store import ChatSettings, Flow, SheetSpend, Store
from bot.taps import (
    CONFLICT_ATTEMPTS,
    TapConflict,
    commit_tap,
    heal,
    open_state,
    retrying,
    screen_of,
    tell,
)
from handlers.combat.attack.router import open_panel
from handlers.combat.tracker import view
from handlers.combat.tracker.callbacks import PANELS, InitAction, InitCallback, Panel
from handlers.combat.tracker.flow import KIND, ROUND_TTL, InitFlow, Note, NoteKind
from handlers.combat.tracker.steps import current_round, initiative_modifier, read_tracks
from rules import combat
from rules.combat import tracker
from rules.combat.situation import Condition
from rules.combat.tracker import Fighter, Phase, Round
from rules.dice import Rng
from rules.errors import ErrorCode, RulesInputError
from rules.health import DamageType, apply_damage, wound_penalty
from rules.profiles import GameSystem, Profile
from rules.sheet import (
    Ability,
    Attribute,
    Sheet,
    SheetSystem,
    set_conditions,
    set_health,
    system_of,
)

log = logging.getLogger(__name__)

Change = Callable[[Round], Round]
Drawn = tuple[str, InlineKeyboardMarkup | None]


def make_router() -> Router:
    router = Router(name="initiative")
    router.message.register(init_command, Command("init", "initiative"))
    router.callback_query.register(init_tap, InitCallback.filter())
    return router


def sheet_base(sheet: Sheet | None) -> int | None:
    """Ловкость + Смекалка from the sheet (§B.1), None while either is unset."""
    if sheet is None:
        return None
    dexterity, wits = sheet.rating(Attribute.DEXTERITY), sheet.rating(Attribute.WITS)
    if dexterity is None or wits is None:
        return None
    return dexterity + wits


# ----- the message ------------------------------------------------------------------------


# ----- /init --------------------------------------------------------------------------------


def _refusal(error: RulesInputError) -> str:
    if error.code is ErrorCode.STATE and error.field == "key":
        return view.already_in_text()
    if error.field == "fighters":
        return view.too_many_text()
    return render.invalid_button_text()


async def init_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
    rng: Rng | None = None,
) -> None:
    if profile.system is not GameSystem.D10:
        await message.answer(view.d10_only_text())
        return
    try:
        args = parse_init_arguments(command.args)
    except ArgumentsError:
        await message.answer(view.usage_text())
        return
    user = message.from_user
    system = system_of(profile)
    chat_id = message.chat.id
    if args.npc is not None:
        if not await runs_game(bot, message.chat, chat_settings, user, message.sender_chat):
            await message.answer(view.storyteller_only_text())
            return
        npc = args.npc
        names, npc_sheet = await _seat_group(store, chat_id, system, npc, args.copies)
        typed = args.base if args.base is not None else sheet_base(npc_sheet)
        if typed is None:
            await message.answer(view.no_npc_base_text(npc))
            return
        base = typed
        # a copy joins with its own untouched health; a lone NPC with the sheet's
        lone = names == [npc] and npc_sheet is not None
        modifier = initiative_modifier(profile, npc_sheet.health if lone and npc_sheet else None)

        def change(current: Round) -> Round:
            for name in names:
                current = tracker.join(
                    current,
                    key=tracker.npc_key(name),
                    name=name,
                    dex_wits=base,
                    rng=rng,
                    modifier=modifier,
                )
            return current

    else:
        if user is None or message.sender_chat is not None:
            await message.answer(view.usage_text())
            return
        sheet = await store.load_sheet(chat_id, user.id, system)
        own = args.base if args.base is not None else sheet_base(sheet)
        if own is None and await runs_game(bot, message.chat, chat_settings, user, None):
            # The Storyteller with no character of their own (no Dexterity + Wits) opens (or
            # shows) the fight and is no fighter in it: the players roll in, the NPCs are
            # added by name; /init 7 or «Бросить инициативу» seats them.
            await _apply(message, store, profile, bot, lambda current: current)
            return
        if own is None:
            # «Roll initiative» is a button of an open tracker: without one, name what exists.
            tracker_open = await store.load_live(chat_id, KIND) is not None
            await message.answer(view.no_base_text() if tracker_open else view.no_sheet_base_text())
            return
        name, user_id, base = roller_name(message, user), user.id, own
        modifier = initiative_modifier(profile, sheet.health if sheet else None)

        def change(current: Round) -> Round:
            return tracker.join(
                current,
                key=tracker.player_key(user_id),
                name=name,
                user_id=user_id,
                dex_wits=base,
                rng=rng,
                modifier=modifier,
            )

    await _apply(message, store, profile, bot, change)


async def _seat_group(
    store: Store, chat_id: int, system: SheetSystem, npc: str, copies: int
) -> tuple[list[str], Sheet | None]:
    """The names the NPCs join under (numbered when several: «Гуль 1», «Гуль 2») and the
    group's sheet; each numbered copy gets the group's traits with health of its own
    (bot.npcs)."""
    current = await current_round(store, chat_id) or Round()

    def taken(candidate: str) -> bool:
        return current.fighter(tracker.npc_key(candidate)) is not None

    names = numbered_names(npc, copies, taken)
    sheet = await npcs.seat_copies(store, chat_id, system, npc, names)
    return names, sheet


async def _apply(
    message: Message, store: Store, profile: Profile, bot: Bot, change: Change
) -> None:
    """Open the chat's round with this change, or apply it to the open one (retrying a
    compare-and-set lost to a tap), then show the tracker."""
    chat_id = message.chat.id
    owner = message.from_user.id if message.from_user else 0
    try:
        opening = change(Round())
    except RulesInputError as error:
        await message.answer(_refusal(error))
        return
    first = InitFlow(round=opening, health=await read_tracks(store, chat_id, profile, opening))
    flow, live, created = await store.open_live(KIND, first, chat_id, owner, ttl=ROUND_TTL)
    for _attempt in range(CONFLICT_ATTEMPTS):
        state = flow.state(InitFlow)
        if created:
            drawn = view.draw(flow, state, profile)
            await store.keep_screen(flow, screen_of(*drawn))
            await bot_live.show(
                bot, store, message, KIND, flow, live, drawn, ttl=ROUND_TTL, pin=True
            )
            return
        try:
            changed = change(state.round)
        except RulesInputError as error:
            await message.answer(_refusal(error))
            return
        tracks = await read_tracks(store, chat_id, profile, changed)
        after = state.model_copy(update={"round": changed, "health": tracks})
        drawn = view.draw(flow.next(after), after, profile)
        advanced = await store.advance_flow(flow, flow.version, after, screen=screen_of(*drawn))
        if advanced is not None:
            await bot_live.show(
                bot, store, message, KIND, advanced, live, drawn, ttl=ROUND_TTL, pin=True
            )
            return
        loaded = await store.load_live(chat_id, KIND)
        if loaded is None:
            flow, live, created = await store.open_live(KIND, first, chat_id, owner, ttl=ROUND_TTL)
        else:
            flow, live = loaded
    await message.answer(render.busy_text())


# ----- the buttons --------------------------------------------------------------------------


class _Refused(Exception):
    """The tap was answered with a refusal; nothing changes. ``text`` is drawn when the alert
    is, in the presser's own language (the tracker keeps the chat's)."""

    def __init__(self, text: Callable[[], str]) -> None:
        self.text = text


@dataclass(frozen=True)
class _Tap:
    """One press on the tracker: what every step of it reads, and who may press."""

    callback: CallbackQuery
    message: Message
    store: Store
    profile: Profile
    bot: Bot
    chat_settings: ChatSettings
    flow: Flow
    state: InitFlow
    rng: Rng | None

    @property
    def user(self) -> User:
        return self.callback.from_user

    async def storyteller(self) -> None:
        if not await runs_game(self.bot, self.message.chat, self.chat_settings, self.user, None):
            raise _Refused(view.storyteller_only_text)

    async def own_or_storyteller(self, key: str | None) -> None:
        if key is not None and key == tracker.player_key(self.user.id):
            return
        if not await runs_game(self.bot, self.message.chat, self.chat_settings, self.user, None):
            fighter = self.state.round.fighter(key) if key is not None else None
            raise _Refused(lambda: view.not_your_turn_text(fighter.name if fighter else "?"))

    async def acting(self) -> str:
        """The one acting now, if the presser may press for them."""
        acting = self.state.round.actor()
        if acting is None:
            raise _Refused(render.invalid_button_text)
        await self.own_or_storyteller(acting[0])
        return acting[0]


@retrying
async def init_tap(
    callback: CallbackQuery,
    callback_data: InitCallback,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
    rng: Rng | None = None,
) -> None:
    opened = await open_state(
        callback,
        callback_data.f,
        callback_data.v,
        store,
        InitFlow,
        profile,
        owner_only=False,
        current_only=False,
    )
    if opened is None:
        return
    flow, message, state = opened
    tap = _Tap(callback, message, store, profile, bot, chat_settings, flow, state, rng)
    action, x = callback_data.a, callback_data.x
    if action in _STEPS and x != _step_of(action, state.round):
        # a step already taken by someone else's press of the same button
        await heal(message, flow)
        with own_language():
            said = render.already_done_text()
        await callback.answer(said)
        return
    if action in _BY_INDEX and callback_data.v != flow.version:
        await heal(message, flow)
        with own_language():
            said = view.changed_text()
        await tell(callback, lambda: render.plain(said), alert=True)
        return
    try:
        step = await _step(tap, action, x)
    except _Refused as refused:
        with own_language():
            said = refused.text()
        await tell(callback, lambda: render.plain(said), alert=True)
        return
    except RulesInputError as error:
        with own_language():
            said = _tap_refusal(action, error)
        await tell(callback, lambda: render.plain(said), alert=True)
        return
    if step is not None:
        await _store_step(tap, *step)


async def _step(tap: _Tap, action: InitAction, x: int) -> tuple[InitFlow, str | None] | None:
    """The tracker's next state and a toast for the presser, or None when the press was
    answered already (the attack panel opened, an Interruption or a stand-up stored)."""
    state, current = tap.state, tap.state.round
    if action is InitAction.ROLL or action is InitAction.BASE:
        return await _roll_in(
            tap.store, tap.profile, tap.message.chat.id, state, tap.user, action, x, tap.rng
        )
    if action in (InitAction.DECLARED, InitAction.MORE, InitAction.DECLARED_DEFENCE):
        key = current.declarer()
        if key is None:
            raise _Refused(render.invalid_button_text)
        await tap.own_or_storyteller(key)
        changed = (
            tracker.more_actions(current, key)
            if action is InitAction.MORE
            else tracker.declare(current, key, defence=action is InitAction.DECLARED_DEFENCE)
        )
        return state.model_copy(update={"round": changed}), None
    if action is InitAction.ATTACK:
        key = await tap.acting()
        fighter = current.fighter(key)
        name = fighter.name if fighter is not None else "?"
        refusal = await open_panel(tap.bot, tap.store, tap.profile, tap.message, current, key, name)
        shown = render.plain(refusal) if refusal is not None else None
        await tap.callback.answer(shown, show_alert=refusal is not None)
        return None
    if action is InitAction.INTERRUPT or action is InitAction.INTERRUPT_SPEND:
        fighter = _at(current, x)
        await tap.own_or_storyteller(fighter.key)
        await _interrupt(tap, fighter, spend=action is InitAction.INTERRUPT_SPEND)
        return None
    if action is InitAction.STAND_UP:
        await _stand_up(tap, await tap.acting())
        return None
    if action is InitAction.PANEL and _interrupt_panel(state, x):
        # Anyone at the table may ask to interrupt: the panel lists who still can.
        if x and not any(current.can_interrupt(f.key) for f in current.fighters):
            raise _Refused(render.invalid_button_text)
        return state.model_copy(update={"panel": PANELS[x], "picked": None}), None
    if _removal(state, action, x):
        return await _remove(state, action, x, tap.user, tap.storyteller), None
    if action is InitAction.NEXT or action is InitAction.DELAY:
        await tap.acting()
        changed = tracker.advance(current) if action is InitAction.NEXT else tracker.delay(current)
        return state.model_copy(update={"round": changed}), None
    await tap.storyteller()
    after = await _storyteller_step(
        tap.store, tap.profile, tap.message.chat.id, state, action, x, tap.rng
    )
    return after, None


async def _store_step(tap: _Tap, after: InitFlow, toast: str | None) -> None:
    """The step stored and shown; conditions travel with the sheets, so every roll of the
    character sees them (§B.8): those who leave the fight, or all at its end, lose theirs
    before the step is stored (a repeat after a crash clears again, harmlessly); a changed
    one is written with the step."""
    after = after.model_copy(update={"note": None})  # a note lasts until the next step
    current, message = tap.state.round, tap.message
    system = system_of(tap.profile)
    for gone in _left_with_conditions(current, after.round, ended=after.ended):
        await _write_conditions(tap.store, message.chat.id, system, gone, ())
    toggled = _conditions_changed(current, after.round)
    if toggled is not None and not after.ended:
        await _commit_conditions(tap, after, toggled, system)
        return
    await commit_tap(
        tap.callback,
        message,
        tap.store,
        tap.flow,
        after,
        lambda f: view.draw(f, after, tap.profile),
        close=after.ended,
        toast=toast,
    )
    if after.ended:
        await tap.store.end_live(message.chat.id, KIND, tap.flow.id)
        await bot_live.unpin(tap.bot, message)


def _left_with_conditions(before: Round, after: Round, *, ended: bool) -> list[Fighter]:
    return [f for f in before.fighters if f.conditions and (ended or after.fighter(f.key) is None)]


def _conditions_changed(before: Round, after: Round) -> Fighter | None:
    for fighter in after.fighters:
        old = before.fighter(fighter.key)
        if old is not None and old.conditions != fighter.conditions:
            return fighter
    return None


async def _write_conditions(
    store: Store,
    chat_id: int,
    system: SheetSystem,
    fighter: Fighter,
    conditions: tuple[Condition, ...],
) -> None:
    def change(sheet: Sheet) -> Sheet:
        return set_conditions(sheet, conditions)

    if fighter.user_id is not None:
        await store.update_sheet(chat_id, fighter.user_id, system, change)
    else:
        await store.update_npc(chat_id, system, fighter.name, change)


async def _commit_conditions(
    tap: _Tap, after: InitFlow, fighter: Fighter, system: SheetSystem
) -> None:
    """A condition toggled: the tracker's step and the character's sheet in one step (a
    character with no sheet yet gets one there)."""
    callback, message, store, flow, profile = (
        tap.callback,
        tap.message,
        tap.store,
        tap.flow,
        tap.profile,
    )
    conditions = fighter.conditions
    spend = SheetSpend(
        user_id=fighter.user_id or 0,
        system=system,
        change=lambda sheet: set_conditions(sheet, conditions),
        npc=fighter.name if fighter.user_id is None else None,
        create=True,
    )
    text, markup = view.draw(flow.next(after), after, profile)
    advanced, _sheet = await store.advance_flow_spending(
        flow, flow.version, after, spend, screen=screen_of(text, markup)
    )
    if advanced is None:
        raise TapConflict(flow.id)
    await safe_edit(message, text, markup)
    await callback.answer()


# Buttons that take one step of the round carry the step they were drawn for (x): a second
# press of the same drawing finds the step taken and changes nothing.
_STEPS = frozenset(
    {InitAction.START, InitAction.DECLARED, InitAction.MORE, InitAction.NEXT, InitAction.DELAY}
    | {InitAction.DECLARED_DEFENCE}
    | {InitAction.NEW_ROUND, InitAction.ATTACK, InitAction.STAND_UP}
)
# Buttons that name a participant by position need the very drawing they were pressed on (a
# second press of an Interruption finds the drawing gone: Willpower is rolled or spent once).
_BY_INDEX = frozenset(
    {InitAction.REMOVE, InitAction.PICK, InitAction.CONDITION}
    | {InitAction.INTERRUPT, InitAction.INTERRUPT_SPEND}
)


def _removal(state: InitFlow, action: InitAction, x: int) -> bool:
    """«Убрать»: the panel opened or closed from itself, or a participant removed."""
    if action is InitAction.REMOVE:
        return True
    if action is not InitAction.PANEL:
        return False
    return x == PANELS.index(Panel.REMOVE) or (x == 0 and state.panel is Panel.REMOVE)


async def _remove(
    state: InitFlow,
    action: InitAction,
    x: int,
    user: User,
    storyteller: Callable[[], Awaitable[None]],
) -> InitFlow:
    """Anyone in the fight opens «Убрать» and takes their own character out; the Storyteller
    removes anyone, a player or an NPC (docs/product.md "NPCs")."""
    current = state.round
    own = tracker.player_key(user.id)
    if action is InitAction.PANEL:
        if current.fighter(own) is None:
            await storyteller()
        return state.model_copy(update={"panel": PANELS[x], "picked": None})
    gone = _at(current, x)
    if gone.key != own:
        await storyteller()
    changed = tracker.leave(current, gone.key)
    return state.model_copy(update={"round": changed, "panel": Panel.NONE})


def _interrupt_panel(state: InitFlow, x: int) -> bool:
    """The Interruption panel opened, or closed from itself: not the Storyteller's alone."""
    opens = x == PANELS.index(Panel.INTERRUPT)
    return opens or (x == 0 and state.panel is Panel.INTERRUPT)


async def _sheet_of(store: Store, chat_id: int, system: SheetSystem, who: Fighter) -> Sheet | None:
    if who.user_id is not None:
        return await store.load_sheet(chat_id, who.user_id, system)
    return await store.load_npc(chat_id, system, who.name)


async def _interrupt(tap: _Tap, who: Fighter, *, spend: bool) -> None:
    """S4 «Прерывание … (бросок Силы Воли или трата 1 Силы Воли)»: the Willpower roll at the
    table's difficulty needs one success (AMB-B4); a point spent (where the table allows it)
    always interrupts, and leaves the sheet in the same step as the tracker's."""
    callback, message, store, flow, state, profile, rng = (
        tap.callback,
        tap.message,
        tap.store,
        tap.flow,
        tap.state,
        tap.profile,
        tap.rng,
    )
    current = state.round
    if not current.can_interrupt(who.key):
        raise _Refused(lambda: view.cannot_interrupt_text(who.name))
    system = system_of(profile)
    sheet = await _sheet_of(store, message.chat.id, system, who)
    if spend:
        try:
            combat.interruption_allowed(profile, spend_willpower=True)
        except RulesInputError:
            raise _Refused(view.no_interrupt_spend_text) from None
        known = rolling.willpower_left(sheet)
        if known is not None and known[0] < 1:
            raise _Refused(lambda: rolling.no_willpower_text(known[1]))
        left = (known[0] - 1, known[1]) if known is not None else None
        note = Note(kind=NoteKind.INTERRUPT, name=who.name, ok=True, willpower_left=left)
        after = state.model_copy(
            update={"round": tracker.interrupt(current, who.key), "panel": Panel.NONE, "note": note}
        )
        roller = rolling.Roller(
            message.chat.id,
            who.user_id or 0,
            who.name,
            npc=who.name if who.user_id is None else None,
        )
        paid = rolling.spend(roller, profile, willpower=True)
        if paid is None:
            raise _Refused(render.invalid_button_text)
        drawn = view.draw(flow.next(after), after, profile)
        advanced, _sheet = await store.advance_flow_spending(
            flow, flow.version, after, paid, screen=screen_of(*drawn)
        )
        if advanced is None:
            raise TapConflict(flow.id)
        await safe_edit(message, drawn[0], drawn[1])
        await callback.answer()
        return
    dice = sheet.willpower if sheet is not None else None
    if not dice:
        raise _Refused(lambda: view.no_willpower_rating_text(who.name))
    roll = rolling.roll_d10(dice, profile.combat.interruption_difficulty, profile, rng=rng)
    ok = combat.interruption_allowed(profile, willpower_roll=roll)
    note = Note(kind=NoteKind.INTERRUPT, name=who.name, ok=ok, roll=roll)
    changed = tracker.interrupt(current, who.key) if ok else current
    after = state.model_copy(update={"round": changed, "panel": Panel.NONE, "note": note})
    await commit_tap(callback, message, store, flow, after, lambda f: view.draw(f, after, profile))


async def _stand_up(tap: _Tap, key: str) -> None:
    """§B.8 «Чтобы сразу подняться - Ловкость + Атлетизм, с -2 к инициативе, при неудаче
    лежащий тратит целое действие, вставая на ноги, при провале ещё и получает 1 Ударный
    Урон»: the roll at the table's difficulty, the wound penalty off the pool (AMB-B17); a
    botch's level lands on the sheet directly, or soaked where the table allows (AMB-B16),
    with the knockdown taken off, in the same step as the tracker's."""
    callback, message, store, flow, state, profile, rng = (
        tap.callback,
        tap.message,
        tap.store,
        tap.flow,
        tap.state,
        tap.profile,
        tap.rng,
    )
    current = state.round
    who = current.fighter(key)
    if who is None or Condition.PRONE not in who.conditions:
        raise _Refused(render.invalid_button_text)
    system = system_of(profile)
    sheet = await _sheet_of(store, message.chat.id, system, who)
    if sheet is None:
        raise _Refused(lambda: view.cannot_stand_text(who.name))
    dexterity = sheet.rating(Attribute.DEXTERITY) or 0
    athletics = sheet.rating(Ability.ATHLETICS) or 0
    plan = combat.stand_up_plan(dexterity, athletics, profile)
    wounds = wound_penalty(sheet.health)
    dice = plan.pool + wounds.penalty
    if plan.status is not combat.PlanStatus.ROLL or dice <= 0 or not wounds.can_act:
        raise _Refused(lambda: view.cannot_stand_text(who.name))
    roll = rolling.roll_d10(dice, plan.difficulty, profile, rng=rng)
    result = combat.stand_up(roll, profile)
    levels, soak = result.bashing, None
    if levels and result.soakable:
        soaker = combat.Target(stamina=sheet.rating(Attribute.STAMINA) or 0, track=sheet.health)
        soak_dice = combat.soak_pool(soaker, DamageType.BASHING, profile.combat)
        soak = combat.roll_soak(soak_dice, profile.combat, rng=rng)
        levels = max(0, levels - soak.successes)
    changed = tracker.stand_up(current, key, result)
    note = Note(
        kind=NoteKind.STAND_UP,
        name=who.name,
        ok=result.stood,
        roll=roll,
        bashing=result.bashing,
        soak=soak,
        levels=levels,
    )
    health = dict(state.health)
    if levels:
        health[key] = apply_damage(sheet.health, DamageType.BASHING, levels, profile.combat).track
    after = state.model_copy(update={"round": changed, "health": health, "note": note})
    standing = changed.fighter(key)
    conditions = standing.conditions if standing is not None else ()

    def up(now: Sheet) -> Sheet:
        now = set_conditions(now, conditions)
        if not levels:
            return now
        return set_health(
            now, apply_damage(now.health, DamageType.BASHING, levels, profile.combat).track
        )

    paid = SheetSpend(
        user_id=who.user_id or 0,
        system=system,
        change=up,
        npc=who.name if who.user_id is None else None,
    )
    drawn = view.draw(flow.next(after), after, profile)
    advanced, _sheet = await store.advance_flow_spending(
        flow, flow.version, after, paid, screen=screen_of(*drawn)
    )
    if advanced is None:
        raise TapConflict(flow.id)
    await safe_edit(message, drawn[0], drawn[1])
    await callback.answer()


def _step_of(action: InitAction, current: Round) -> int | None:
    """The step a phase button stands for (what the view puts in its x); None when the
    round is not in that button's phase, so no number matches."""
    if action is InitAction.START:
        return 0 if current.phase is Phase.GATHER else None
    if action is InitAction.NEW_ROUND:
        return current.number if current.phase is Phase.DONE else None
    if action in (InitAction.DECLARED, InitAction.MORE, InitAction.DECLARED_DEFENCE):
        return current.declared if current.phase is Phase.DECLARE else None
    return current.step if current.phase is Phase.RESOLVE else None


def _tap_refusal(action: InitAction, error: RulesInputError) -> str:
    if action is InitAction.DELAY:
        return view.no_delay_text()
    if action is InitAction.MORE:
        return view.too_many_actions_text()
    if action is InitAction.START:
        return view.nobody_text()
    return _refusal(error)


async def _roll_in(
    store: Store,
    profile: Profile,
    chat_id: int,
    state: InitFlow,
    user: User,
    action: InitAction,
    x: int,
    rng: Rng | None,
) -> tuple[InitFlow, str | None]:
    key = tracker.player_key(user.id)
    current = state.round
    if current.fighter(key) is not None:
        raise _Refused(view.already_in_text)
    sheet = await store.load_sheet(chat_id, user.id, system_of(profile))
    if action is InitAction.BASE:
        if not state.is_pending(user.id):
            raise _Refused(view.press_roll_first_text)
        if x not in view.BASES:
            raise _Refused(render.invalid_button_text)
        base: int | None = x
    else:
        base = sheet_base(sheet)
        if base is None:
            if state.is_pending(user.id):
                raise _Refused(view.no_base_text)
            pending = (*state.pending, (user.id, user.first_name))
            return state.model_copy(update={"pending": pending}), view.choose_base_text()
    assert base is not None
    changed = tracker.join(
        current,
        key=key,
        name=user.first_name,
        user_id=user.id,
        dex_wits=base,
        rng=rng,
        modifier=initiative_modifier(profile, sheet.health if sheet else None),
    )
    pending = tuple(p for p in state.pending if p[0] != user.id)
    toast = view.joined_late_text() if current.phase in (Phase.DECLARE, Phase.RESOLVE) else None
    health = dict(state.health)
    if sheet is not None:
        health[key] = sheet.health
    update = {"round": changed, "pending": pending, "health": health}
    return state.model_copy(update=update), toast


async def _storyteller_step(
    store: Store,
    profile: Profile,
    chat_id: int,
    state: InitFlow,
    action: InitAction,
    x: int,
    rng: Rng | None,
) -> InitFlow:
    current = state.round
    if action is InitAction.START:
        changed = tracker.start_declarations(current, rng=rng, options=profile.combat)
        return state.model_copy(update={"round": changed, "pending": ()})
    if action is InitAction.NEW_ROUND:
        modifiers = {k: initiative_modifier(profile, t) for k, t in state.health.items()}
        changed = tracker.new_round(current, rng=rng, options=profile.combat, modifiers=modifiers)
        return state.model_copy(update={"round": changed, "pending": (), "panel": Panel.NONE})
    if action is InitAction.END:
        return state.model_copy(update={"ended": True, "pending": (), "panel": Panel.NONE})
    if action is InitAction.PANEL:
        if not 0 <= x < len(PANELS):
            raise _Refused(render.invalid_button_text)
        return state.model_copy(update={"panel": PANELS[x], "picked": None})
    if action is InitAction.NPC_ADD:
        if x not in view.NPC_BASES:
            raise _Refused(render.invalid_button_text)
        n = 1
        while current.fighter(tracker.npc_key(view.npc_name(n))) is not None:
            n += 1
        name = view.npc_name(n)
        changed = tracker.join(current, key=tracker.npc_key(name), name=name, dex_wits=x, rng=rng)
        return state.model_copy(update={"round": changed, "panel": Panel.NONE})
    if action is InitAction.PICK:
        return state.model_copy(update={"picked": _at(current, x).key})
    picked = state.picked
    conditions = tuple(Condition)
    if action is not InitAction.CONDITION or picked is None or not 0 <= x < len(conditions):
        raise _Refused(render.invalid_button_text)
    changed = tracker.toggle_condition(current, picked, conditions[x])
    return state.model_copy(update={"round": changed})


def _at(current: Round, index: int) -> Fighter:
    if not 0 <= index < len(current.fighters):
        raise _Refused(render.invalid_button_text)
    return current.fighters[index]
