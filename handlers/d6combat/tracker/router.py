"""``/init`` in a d6 chat and its round tracker: one live message per chat
(docs/rules.md §D.7–§D.9).

Initiative in the d6 game is spent, not compared once: every action sets a die aside, so the
tracker is a sequence of small steps on :mod:`rules.d6.initiative`, each the flow's
compare-and-set. Steps that move the round carry how many steps were taken when they were
drawn, so two presses of «Действовать» move the round once. Who may press: the one who is up
(their player, or the Storyteller for anyone), a holder for themself, any participant with
dice for their own defence; the Storyteller picks the NPC who cuts in or defends, and is no
fighter unless they join; «Убрать» takes out one's own character, or anyone for the
Storyteller (docs/product.md "NPCs").
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message, User

from bot import live as bot_live
from bot import npcs, render
from bot.access import runs_game
from bot.features import in_game
from bot.i18n import drawing
from bot.names import numbered_names, roller_name
from bot.parsing import ArgumentsError, parse_init_arguments
from bot.session import safe_edit
from bot.store import ChatSettings, Flow, Store
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
from bot.vocabulary import PREPARATION
from handlers.d6combat.attack.router import open_from_tracker
from handlers.d6combat.tracker import view
from handlers.d6combat.tracker.callbacks import D6InitAction, D6InitCallback
from handlers.d6combat.tracker.flow import (
    KIND,
    ROUND_TTL,
    D6InitFlow,
    Member,
    Panel,
    npc_key,
    player_key,
)
from handlers.d6combat.tracker.steps import D6Side, refusal, side_name
from rules.d6 import initiative as d6i
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile
from rules.sheet import Sheet, SheetSystem

Change = Callable[[D6InitFlow], D6InitFlow]

_STEPS = frozenset(
    {
        D6InitAction.ACT,
        D6InitAction.ATTACK,
        D6InitAction.HOLD,
        D6InitAction.NEW_ROUND,
        D6InitAction.GUARD,
        D6InitAction.GUARD_BY,
    }
)


def make_router() -> Router:
    router = Router(name="d6init")
    router.message.register(d6_init_command, Command("init", "initiative"), in_game(GameSystem.D6))
    router.callback_query.register(d6_init_tap, D6InitCallback.filter())
    return router


def _combatant(key: str, sheet: Sheet | None, dice: int | None, hero: bool) -> d6i.Combatant:
    alacrity = dice
    if alacrity is None and sheet is not None and sheet.alacrity is not None:
        alacrity = sheet.alacrity
    return d6i.Combatant(
        id=key,
        alacrity=alacrity if alacrity is not None else d6i.HERO_ALACRITY,
        hero=hero,
        weakness=sheet.weakness if sheet is not None else None,
    )


def _join(
    state: D6InitFlow, combatant: d6i.Combatant, member: Member, rng: Rng | None
) -> D6InitFlow:
    if state.round is None:
        current = d6i.start_round([combatant], rng=rng)
    else:
        current = d6i.join(state.round, combatant, rng=rng)
    note = view.joined_note(member.name, combatant.alacrity)
    return state.model_copy(
        update={
            "round": current,
            "members": {**state.members, combatant.id: member},
            "note": note,
        }
    )


async def d6_init_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
    rng: Rng | None = None,
) -> None:
    words = (command.args or "").split()
    user = message.from_user
    chat_id = message.chat.id
    if words and words[0].casefold() in PREPARATION:
        await _prepare_command(message, store, profile, bot, words[1:], rng)
        return
    try:
        args = parse_init_arguments(command.args)
    except ArgumentsError:
        await message.answer(view.usage_text())
        return
    if args.base is not None and not 1 <= args.base <= d6i.ALACRITY_MAX:
        await message.answer(view.usage_text())
        return
    change: Change
    if args.npc is not None:
        if not await runs_game(bot, message.chat, chat_settings, user, message.sender_chat):
            await message.answer(view.storyteller_only_text())
            return
        loaded = await store.load_live(chat_id, KIND)
        seated = loaded[0].state(D6InitFlow) if loaded is not None else D6InitFlow()
        names = numbered_names(args.npc, args.copies, lambda c: npc_key(c) in seated.members)
        npc_sheet = await npcs.seat_copies(store, chat_id, SheetSystem.D6, args.npc, names)
        dice = args.base
        if dice is None and (npc_sheet is None or npc_sheet.alacrity is None):
            await message.answer(view.no_npc_dice_text(args.npc[:40]))
            return
        if npc_sheet is None:  # a bandit typed with its dice: known by name from now on
            await npcs.note_npcs(store, chat_id, SheetSystem.D6, names)

        def change(state: D6InitFlow) -> D6InitFlow:
            for name in names:
                combatant = _combatant(npc_key(name), npc_sheet, dice, hero=False)
                state = _join(state, combatant, Member(name=name), rng)
            return state

    else:
        if user is None or message.sender_chat is not None:
            await message.answer(view.usage_text())
            return
        sheet = await store.load_sheet(chat_id, user.id, SheetSystem.D6)
        character = sheet is not None and bool(sheet.powers)
        if (
            args.base is None
            and not character
            and await runs_game(bot, message.chat, chat_settings, user, None)
        ):
            # The scenarist with no character of their own (no powers: a wound or a trick
            # may have left a blank sheet) opens (or shows) the fight and is no fighter in
            # it; /init 3 or «Вступить» adds them.
            await _apply(message, store, bot, lambda state: state, profile)
            return
        member = Member(name=roller_name(message, user), user_id=user.id)
        combatant = _combatant(player_key(user.id), sheet, args.base, hero=True)

        def change(state: D6InitFlow) -> D6InitFlow:
            return _join(state, combatant, member, rng)

    await _apply(message, store, bot, change, profile)


async def _prepare_command(
    message: Message,
    store: Store,
    profile: Profile,
    bot: Bot,
    words: list[str],
    rng: Rng | None,
) -> None:
    """S3 «Подготовка»: a preparation's gain raises the sender's initiative dice (to 6 at
    most) before anyone has acted; the default plan of §D.7 places it."""
    user = message.from_user
    if user is None or len(words) != 1 or not words[0].isdigit() or not 1 <= int(words[0]) <= 20:
        await message.answer(view.usage_text())
        return
    gain, key = int(words[0]), player_key(user.id)

    def change(state: D6InitFlow) -> D6InitFlow:
        if state.round is None or key not in state.members:
            raise _Refused(view.not_in_fight_text())
        fighter = next(f for f in state.round.fighters if f.sheet.id == key)
        prepared = d6i.apply_preparation(fighter.remaining, gain, profile=profile)
        changed = d6i.prepare(state.round, key, gain, rng=rng, profile=profile)
        note = view.prepared_note(state.members[key].name, gain, prepared.wasted)
        return state.model_copy(update={"round": changed, "note": note})

    loaded = await store.load_live(message.chat.id, KIND)
    if loaded is None:
        await message.answer(view.no_fight_text())
        return
    await _apply(message, store, bot, change, profile)


class _Refused(Exception):
    def __init__(self, text: str) -> None:
        self.text = text


async def _apply(
    message: Message, store: Store, bot: Bot, change: Change, profile: Profile
) -> None:
    """Open the chat's fight with this change, or apply it to the open one (retrying a
    compare-and-set lost to a tap), then show the tracker. The change is made once per
    attempt on the state it applies to, so a newcomer's dice are rolled once."""
    chat_id = message.chat.id
    owner = message.from_user.id if message.from_user else 0
    for _attempt in range(CONFLICT_ATTEMPTS):
        loaded = await store.load_live(chat_id, KIND)
        try:
            # Its notes are the shared tracker's lines: in the tracker's language.
            with drawing(loaded[0]) if loaded else contextlib.nullcontext():
                after = change(loaded[0].state(D6InitFlow) if loaded else D6InitFlow())
        except _Refused as refused:
            await message.answer(refused.text if loaded else view.no_fight_text())
            return
        except RulesInputError as error:
            await message.answer(refusal(error))
            return
        if loaded is None:
            flow, live, created = await store.open_live(KIND, after, chat_id, owner, ttl=ROUND_TTL)
            if not created:
                continue  # another command opened the fight first: apply to that one
            drawn = view.draw(flow, after, profile)
            await store.keep_screen(flow, screen_of(*drawn))
            await bot_live.show(
                bot, store, message, KIND, flow, live, drawn, ttl=ROUND_TTL, pin=True
            )
            return
        flow, live = loaded
        drawn = view.draw(flow.next(after), after, profile)
        advanced = await store.advance_flow(flow, flow.version, after, screen=screen_of(*drawn))
        if advanced is not None:
            await bot_live.show(
                bot, store, message, KIND, advanced, live, drawn, ttl=ROUND_TTL, pin=True
            )
            return
    await message.answer(render.busy_text())


def _guard(
    state: D6InitFlow,
    current: d6i.Round,
    defender: str,
    index: int,
    name_of: Callable[[str], str],
    profile: Profile,
    rng: Rng | None,
) -> D6InitFlow:
    """S3 «Противник может … защищать себя или товарища»: ``defender`` (the presser's
    character, or the NPC the Storyteller picked) defends the fighter at ``index`` against the
    latest action; a slow defence of another is the chat's house rule (AMB-D8,
    ``d6.slow_defence_of_others``). ``index`` −1 opens the choice."""
    own = defender
    if index < 0:
        return state.model_copy(update={"panel": Panel.GUARD, "guard_by": None})
    if not 0 <= index < len(current.fighters):
        raise _Refused(render.invalid_button_text())
    protected = current.fighters[index].sheet.id
    if protected == view.last_actor(state):
        raise _Refused(view.refused_text("cannot defend against oneself"))
    guarded = None if protected == own else protected
    try:
        changed, defence = d6i.defend(current, own, protecting=guarded, rng=rng, profile=profile)
    except RulesInputError as error:
        if error.field == "protecting":
            raise _Refused(view.slow_guard_refused_text(profile)) from None
        raise
    if guarded is None:
        note = view.defended_note(name_of(own), defence.die, defence.slowness)
    else:
        note = view.guarded_note(name_of(own), name_of(guarded), defence.die, defence.slowness)
    return state.model_copy(
        update={"round": changed, "note": note, "panel": Panel.NONE, "guard_by": None}
    )


# ----- the buttons ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tap:
    """One press on the d6 tracker: what every step of it reads, and who may press."""

    callback: CallbackQuery
    message: Message
    store: Store
    profile: Profile
    bot: Bot
    chat_settings: ChatSettings
    flow: Flow
    state: D6InitFlow
    data: D6InitCallback
    rng: Rng | None

    @property
    def user(self) -> User:
        return self.callback.from_user

    @property
    def own(self) -> str:
        return player_key(self.user.id)

    async def storyteller(self) -> bool:
        return await runs_game(self.bot, self.message.chat, self.chat_settings, self.user, None)

    def name_of(self, key: str) -> str:
        return side_name(self.state, key)

    def npc_at(self, current: d6i.Round, index: int) -> str:
        """The NPC the Storyteller picked by position on the drawn list."""
        if not 0 <= index < len(current.fighters):
            raise _Refused(render.invalid_button_text())
        key = current.fighters[index].sheet.id
        member = self.state.members.get(key)
        if member is None or member.user_id is not None:
            raise _Refused(render.invalid_button_text())
        return key

    async def up(self, current: d6i.Round) -> str:
        """The one who is up, if the presser may press for them."""
        if current.up is None:
            raise _Refused(view.refused_text("not this fighter's turn"))
        actor = current.up.actor
        if actor != self.own and not await self.storyteller():
            raise _Refused(view.not_your_turn_text(self.name_of(actor)))
        return actor


@retrying
async def d6_init_tap(
    callback: CallbackQuery,
    callback_data: D6InitCallback,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
    rng: Rng | None = None,
) -> None:
    opened = await open_state(
        callback, callback_data.f, callback_data.v, store, D6InitFlow, profile, system=GameSystem.D6
    )
    if opened is None:
        return
    flow, message, state = opened
    current = state.round
    opening = current is None and callback_data.a in (D6InitAction.JOIN, D6InitAction.END)
    if (current is None and not opening) or state.ended:
        await tell(callback, lambda: render.closed_text(), alert=True)
        return
    action, x = callback_data.a, callback_data.x
    if action in _STEPS and current is not None and x != len(current.log):
        await heal(message, flow)
        await tell(callback, lambda: render.already_done_text())
        return
    tap = _Tap(
        callback, message, store, profile, bot, chat_settings, flow, state, callback_data, rng
    )
    if action is D6InitAction.ATTACK and callback_data.y >= 0 and current is not None:
        if callback_data.v != flow.version:  # a name pressed on an older list
            await tell(callback, lambda: view.changed_text(), alert=True)
            return
        await _attack(tap, current, callback_data.y)
        return
    try:
        after = await _step(tap)
    except _Refused as refused:
        await callback.answer(render.plain(refused.text), show_alert=True)
        return
    except RulesInputError as error:
        await callback.answer(refusal(error), show_alert=True)
        return
    await commit_tap(
        callback,
        message,
        store,
        flow,
        after,
        lambda f: view.draw(f, after, profile),
        close=after.ended,
    )
    if after.ended:
        await store.end_live(message.chat.id, KIND, flow.id)
        await bot_live.unpin(bot, message)


async def _step(tap: _Tap) -> D6InitFlow:
    state, data, own = tap.state, tap.data, tap.own
    if data.a is D6InitAction.JOIN:
        if own in state.members:
            raise _Refused(view.already_in_text())
        user = tap.user
        sheet = await tap.store.load_sheet(tap.message.chat.id, user.id, SheetSystem.D6)
        member = Member(name=user.full_name or str(user.id), user_id=user.id)
        return _join(state, _combatant(own, sheet, None, hero=True), member, tap.rng)
    if data.a is D6InitAction.END:
        if not await tap.storyteller():
            raise _Refused(view.storyteller_only_text())
        return state.model_copy(update={"ended": True, "panel": Panel.NONE, "note": ""})
    current = state.round
    assert current is not None
    if data.a is D6InitAction.REMOVE:
        if data.y >= 0 and data.v != tap.flow.version:  # a name pressed on an older list
            raise _Refused(view.changed_text())
        return await _remove(state, current, data.y, own, tap.storyteller)
    step = _STEP_OF.get(data.a)
    if step is None:
        raise _Refused(render.invalid_button_text())
    return await step(tap, current)


async def _targets(tap: _Tap, current: d6i.Round) -> D6InitFlow:
    """«⚔️ Атака»: the targets to pick from."""
    await tap.up(current)
    return tap.state.model_copy(update={"panel": Panel.TARGET, "guard_by": None})


async def _act_or_hold(tap: _Tap, current: d6i.Round) -> D6InitFlow:
    actor = await tap.up(current)
    assert current.up is not None
    if tap.data.a is D6InitAction.ACT:
        value = current.up.value
        changed = d6i.act(current, actor, tap.rng)
        note = view.acted_note(tap.name_of(actor), value)
    else:
        changed = d6i.hold(current, actor, tap.rng)
        note = view.held_note(tap.name_of(actor))
    return tap.state.model_copy(update={"round": changed, "note": note, "panel": Panel.NONE})


async def _cut_in_or_defend(tap: _Tap, current: d6i.Round) -> D6InitFlow:
    state, data, own, action = tap.state, tap.data, tap.own, tap.data.a
    if data.y >= 0:
        if not await tap.storyteller():
            raise _Refused(view.storyteller_only_text())
        key = tap.npc_at(current, data.y)
    elif own in state.members:
        key = own
    elif await tap.storyteller():
        panel = Panel.CUT_IN if action is D6InitAction.CUT_IN else Panel.DEFEND
        return state.model_copy(update={"panel": panel})
    else:
        raise _Refused(view.not_in_fight_text())
    fighter = next(f for f in current.fighters if f.sheet.id == key)
    if action is D6InitAction.CUT_IN:
        if not fighter.holding:
            raise _Refused(view.refused_text("not this fighter's turn"))
        value = fighter.remaining[0] if fighter.remaining else 0
        changed = d6i.act(current, key, tap.rng)
        note = view.cut_in_note(tap.name_of(key), value)
    else:
        changed, defence = d6i.defend(current, key, rng=tap.rng, profile=tap.profile)
        note = view.defended_note(tap.name_of(key), defence.die, defence.slowness)
    return state.model_copy(update={"round": changed, "note": note, "panel": Panel.NONE})


async def _guard_step(tap: _Tap, current: d6i.Round) -> D6InitFlow:
    state, data, own = tap.state, tap.data, tap.own
    guard_by = None
    if own not in state.members:
        if not await tap.storyteller():
            raise _Refused(view.not_in_fight_text())
        if data.y < 0:  # the Storyteller first picks the NPC who protects
            return state.model_copy(update={"panel": Panel.GUARD_BY, "guard_by": None})
        if state.panel is not Panel.GUARD or state.guard_by is None:
            raise _Refused(render.invalid_button_text())
        guard_by = state.guard_by
    return _guard(state, current, guard_by or own, data.y, tap.name_of, tap.profile, tap.rng)


async def _guard_by(tap: _Tap, current: d6i.Round) -> D6InitFlow:
    if not await tap.storyteller():
        raise _Refused(view.storyteller_only_text())
    key = tap.npc_at(current, tap.data.y)
    return tap.state.model_copy(update={"panel": Panel.GUARD, "guard_by": key})


async def _close_panel(tap: _Tap, current: d6i.Round) -> D6InitFlow:
    # anyone in the fight closes the choice of whom to protect or remove; the NPC panels
    # are the Storyteller's
    state = tap.state
    guard = state.panel in (Panel.GUARD, Panel.REMOVE, Panel.TARGET) and tap.own in state.members
    if not guard and not await tap.storyteller():
        raise _Refused(view.storyteller_only_text())
    return state.model_copy(update={"panel": Panel.NONE, "guard_by": None})


async def _new_round(tap: _Tap, current: d6i.Round) -> D6InitFlow:
    if current.up is not None and not await tap.storyteller():
        raise _Refused(view.storyteller_only_text())
    fresh, ended = d6i.restart(current, rng=tap.rng, profile=tap.profile)
    on_edge = {key: wound.magnitude for key, wound in ended.wounds.items()}
    note = view.on_edge_note([tap.name_of(k) for k in on_edge]) if on_edge else ""
    return tap.state.model_copy(
        update={"round": fresh, "note": note, "on_edge": on_edge, "panel": Panel.NONE}
    )


_STEP_OF: dict[D6InitAction, Callable[[_Tap, d6i.Round], Awaitable[D6InitFlow]]] = {
    D6InitAction.ATTACK: _targets,
    D6InitAction.ACT: _act_or_hold,
    D6InitAction.HOLD: _act_or_hold,
    D6InitAction.CUT_IN: _cut_in_or_defend,
    D6InitAction.DEFEND: _cut_in_or_defend,
    D6InitAction.GUARD: _guard_step,
    D6InitAction.GUARD_BY: _guard_by,
    D6InitAction.PANEL: _close_panel,
    D6InitAction.NEW_ROUND: _new_round,
}


async def _remove(
    state: D6InitFlow,
    current: d6i.Round,
    index: int,
    own: str,
    storyteller: Callable[[], Awaitable[bool]],
) -> D6InitFlow:
    """«Убрать»: anyone in the fight opens the list and takes their own character out; the
    scenarist removes anyone, a player or an NPC (docs/product.md "NPCs"). The last one out
    leaves the fight open with nobody in it."""
    if index < 0:
        if own not in state.members and not await storyteller():
            raise _Refused(view.storyteller_only_text())
        return state.model_copy(update={"panel": Panel.REMOVE, "guard_by": None})
    if not 0 <= index < len(current.fighters):
        raise _Refused(render.invalid_button_text())
    key = current.fighters[index].sheet.id
    if key != own and not await storyteller():
        raise _Refused(view.storyteller_only_text())
    changed = d6i.leave(current, key) if len(current.fighters) > 1 else None
    members = {k: m for k, m in state.members.items() if k != key}
    on_edge = {k: n for k, n in state.on_edge.items() if k != key}
    note = view.removed_note(state.members[key].name if key in state.members else key)
    return state.model_copy(
        update={
            "round": changed,
            "members": members,
            "on_edge": on_edge,
            "note": note,
            "panel": Panel.NONE,
        }
    )


def _side(state: D6InitFlow, fighter: d6i.Fighter) -> D6Side:
    key = fighter.sheet.id
    member = state.members.get(key)
    name = member.name if member is not None else key
    return D6Side(key, name, member.user_id if member is not None else None, fighter.sheet.alacrity)


async def _attack(tap: _Tap, current: d6i.Round, index: int) -> None:
    """«⚔️ Атака», a target picked: the attack is the one who is up's action, so their die is
    set aside whatever the result (§D.9) and the round goes on by itself; the attack, rolled
    from the attacker's sheet, is posted by the attack feature once the step is stored. An
    attack that cannot be made (no chance) spends nothing."""
    callback, message, store, profile, flow, state, rng = (
        tap.callback,
        tap.message,
        tap.store,
        tap.profile,
        tap.flow,
        tap.state,
        tap.rng,
    )
    user = callback.from_user
    up = current.up
    if up is None:
        await tell(callback, lambda: view.refused_text("not this fighter's turn"), alert=True)
        return
    actor = up.actor
    if actor != player_key(user.id) and not await tap.storyteller():
        await tell(callback, lambda: view.not_your_turn_text(side_name(state, actor)), alert=True)
        return
    if not 0 <= index < len(current.fighters) or current.fighters[index].sheet.id == actor:
        await tell(callback, lambda: render.invalid_button_text(), alert=True)
        return
    attacker = next(f for f in current.fighters if f.sheet.id == actor)
    target = current.fighters[index]
    opened = await open_from_tracker(
        store, profile, message.chat.id, _side(state, attacker), _side(state, target), rng
    )
    if isinstance(opened, str):
        await callback.answer(opened, show_alert=True)
        return
    try:
        changed = d6i.act(current, actor, rng)
    except RulesInputError as error:
        await callback.answer(refusal(error), show_alert=True)
        return
    note = view.attack_note(side_name(state, actor), side_name(state, target.sheet.id), up.value)
    after = state.model_copy(update={"round": changed, "note": note, "panel": Panel.NONE})
    if opened.spend is not None:  # the roll uses tricks off the sheet: a write of its own
        await commit_tap(
            callback, message, store, flow, after, lambda f: view.draw(f, after, profile)
        )
        try:
            made, _sheet = await store.create_flow_spending(
                opened.state, flow.chat_id, opened.owner, opened.spend, entries=opened.entries
            )
        except RulesInputError:
            return
        text, markup = opened.draw(made)
        await message.answer(text, reply_markup=markup)
        return
    new = store.new_flow(opened.state, flow.chat_id, opened.owner)
    drawn = view.draw(flow.next(after), after, profile)
    advanced = await store.advance_flow_creating(
        flow, flow.version, after, new, screen=screen_of(*drawn), entries=opened.entries
    )
    if advanced is None:
        raise TapConflict(flow.id)
    await safe_edit(message, drawn[0], drawn[1])
    await callback.answer()
    text, markup = opened.draw(new)
    await message.answer(text, reply_markup=markup)
