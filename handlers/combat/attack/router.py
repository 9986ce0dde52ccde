"""``/atk``: one attack played out on the chat's attack panel (docs/rules.md §B.3–§B.10).

The panel is one live message per chat (``bot.live``): every attack of the fight uses it in
turn and leaves a line above the next, so a round sends the tracker and the panel and edits
them after that (docs/product.md §5). The attacker (or the Storyteller for an NPC) picks the
manoeuvre and the §B.7 modifiers, then the target, whose button rolls the attack; the target
(or the Storyteller for an NPC) defends with one tap that rolls the damage and the soak too
(docs/rules.md §B.2); an ambush victim who may not defend takes it all in the attacker's tap.
The damage lands on the target's sheet in the same transaction as the step that shows it,
so a wound is never written without its message, nor twice (docs/product.md §3).
"""

from __future__ import annotations

from typing import Any

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot import live as bot_live
from bot import render, runner
from bot.access import runs_game
from bot.runner import CONFLICT_ATTEMPTS, screen_of
from handlers.combat.attack import view
from handlers.combat.attack.flow import (
    HISTORY_KEPT,
    KIND,
    PANEL_TTL,
    AttackFlow,
    Kit,
    Past,
    Side,
    Stage,
)
from handlers.combat.attack.tap import TAP
from handlers.combat.tracker.steps import current_round, open_tracker
from rules.combat.manoeuvres import Trait
from rules.combat.situation import Condition
from rules.combat.tracker import MAX_FIGHTERS, Fighter, Round, npc_key, player_key
from rules.errors import RulesInputError
from rules.health import HealthTrack
from rules.profiles import GameSystem, Profile
from rules.sheet import (
    Discipline,
    Sheet,
    is_vampire,
    system_of,
)
from table.parsing import ArgumentsError, InitArguments, parse_init_arguments
from table.store import ChatSettings, Flow, FlowStateError, Store


def make_router() -> Router:
    router = Router(name="attack")
    router.message.register(atk_command, Command("atk", "attack"))
    runner.register(router, TAP)
    return router


_SHEET_TRAITS = (
    Trait.DEXTERITY,
    Trait.STRENGTH,
    Trait.STAMINA,
    Trait.BRAWL,
    Trait.MELEE,
    Trait.FIREARMS,
    Trait.THROWING,
    Trait.DODGE,
    Trait.PERCEPTION,  # blind fire's check (§B.6)
    Trait.AWARENESS,
)


def _ratings(sheet: Sheet | None) -> dict[str, int]:
    """The traits an attack reads, by their combat code; what the sheet lacks is 0 (§B.5)."""
    found: dict[str, int] = {}
    if sheet is None:
        return found
    for trait in _SHEET_TRAITS:
        try:
            value = sheet.rating(trait.value)
        except RulesInputError:  # a trait this game's sheet does not have (Firearms in 1230)
            value = None
        if value:
            found[trait.value] = value
    return found


async def _sides(
    store: Store, chat_id: int, profile: Profile, fighters: list[Fighter], current: Round
) -> list[Side]:
    users = [f.user_id for f in fighters if f.user_id is not None]
    npcs = [f.name for f in fighters if f.user_id is None]
    players, named = await store.load_many(chat_id, system_of(profile), users, npcs)
    sides: list[Side] = []
    for fighter in fighters:
        if fighter.user_id is not None:
            sheet = players.get(fighter.user_id)
        else:
            sheet = named.get(fighter.name)
        sides.append(
            Side(
                key=fighter.key,
                name=fighter.name,
                user_id=fighter.user_id,
                ratings=_ratings(sheet),
                track=sheet.health if sheet is not None else HealthTrack(),
                conditions=_conditions(fighter, current),
                sheet=sheet is not None,
                willpower=sheet.willpower if sheet is not None else None,
                willpower_left=sheet.willpower_current if sheet is not None else None,
                **_kindred(sheet),
                **_declared(fighter, current),
            )
        )
    return sides


def _kindred(sheet: Sheet | None) -> dict[str, Any]:
    """A vampire's side of the fight (§B.13): the sheet says who is one, and their
    Fortitude and Potence."""
    if sheet is None or not is_vampire(sheet):
        return {}
    return {
        "vampire": True,
        "fortitude": sheet.rating(Discipline.FORTITUDE) or 0,
        "potence": sheet.rating(Discipline.POTENCE) or 0,
    }


def _declared(fighter: Fighter, current: Round) -> dict[str, Any]:
    """What the fighter declared this round (§A.9): a split pool divides by it. An extra
    action of Celerity (§B.13) is never split: its pool is whole."""
    acting = current.actor()
    if acting is not None and acting[0] == fighter.key and current.hastened_action(acting):
        return {
            "declared": 1,
            "defences": 0,
            "defended": 0,
            "action_no": 1,
        }
    return {
        "declared": max(1, fighter.actions),
        "defences": fighter.defences,
        "defended": fighter.defended,
        "action_no": acting[1] if acting is not None and acting[0] == fighter.key else 1,
    }


def _conditions(fighter: Fighter, current: Round) -> tuple[Condition, ...]:
    """The fighter's §B.8 conditions, with the stun the tracker counts (§B.11)."""
    if current.stunned(fighter.key) and Condition.STUNNED not in fighter.conditions:
        return (*fighter.conditions, Condition.STUNNED)
    return fighter.conditions


async def atk_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
) -> None:
    if profile.system is not GameSystem.D10:
        await message.answer(view.d10_only_text())
        return
    current = await current_round(store, message.chat.id)
    args = _atk_arguments(command.args, current)
    if args is None:
        await message.answer(view.usage_text())
        return
    if current is None:
        await message.answer(view.no_round_text())
        return
    attacker = await _attacker(message, args, current, bot, chat_settings)
    if attacker is None:
        return
    key, name = attacker
    refusal = await open_panel(bot, store, profile, message, current, key, name)
    if refusal is not None:
        await message.answer(refusal)


def _atk_arguments(text: str | None, current: Round | None) -> InitArguments | None:
    """``/atk``, ``/atk npc Имя [n]`` or a round's NPC named by the whole line; None for
    anything else (a bare number or a multiplier mean nothing here)."""
    try:
        args: InitArguments | None = parse_init_arguments(text)
    except ArgumentsError:
        args = None
    if args is not None and ((args.base is not None and args.npc is None) or args.copies != 1):
        args = None
    if args is not None:
        return args
    npc = _npc_fighter(current, text or "") if current is not None else None
    return InitArguments(npc=npc.name) if npc is not None else None


async def _attacker(
    message: Message,
    args: InitArguments,
    current: Round,
    bot: Bot,
    chat_settings: ChatSettings,
) -> tuple[str, str] | None:
    """Who attacks (key and name): the named NPC, the player, or for the Storyteller outside
    the fight the NPC acting now; None once a refusal is answered."""
    user = message.from_user
    if args.npc is not None:
        if not await runs_game(bot, message.chat, chat_settings, user, message.sender_chat):
            await message.answer(view.not_yours_text())
            return None
        name = args.npc if args.base is None else f"{args.npc} {args.base}"
        return npc_key(name), name
    if user is None or message.sender_chat is not None:
        await message.answer(view.usage_text())
        return None
    key, name = player_key(user.id), user.first_name
    if current.fighter(key) is not None or not await runs_game(
        bot, message.chat, chat_settings, user, None
    ):
        return key, name
    acting = _acting_npc(current)
    if acting is None:
        await message.answer(view.name_the_npc_text(_npc_names(current)))
        return None
    return acting.key, acting.name


def _acting_npc(current: Round) -> Fighter | None:
    """The Storyteller's bare ``/atk`` outside the fight: the NPC whose action it is now."""
    acting = current.actor()
    fighter = current.fighter(acting[0]) if acting is not None else None
    return fighter if fighter is not None and fighter.user_id is None else None


def _npc_names(current: Round) -> list[str]:
    return [f.name for f in current.fighters if f.user_id is None]


def _npc_fighter(current: Round, text: str) -> Fighter | None:
    """``/atk Гуль 2``: the Storyteller attacks as an NPC of the round named by the whole
    line (docs/product.md "NPCs")."""
    typed = " ".join(text.split()).casefold()
    for fighter in current.fighters:
        if fighter.user_id is None and " ".join(fighter.name.split()).casefold() == typed:
            return fighter
    return None


async def open_panel(
    bot: Bot,
    store: Store,
    profile: Profile,
    message: Message,
    current: Round,
    key: str,
    name: str,
    ambushed: str | None = None,
) -> str | None:
    """A new attack by the participant ``key`` on the chat's panel (posted, or the finished
    attack's panel reused); the refusal to answer with, or None. ``message`` is what the
    attack came from: the command, or the tracker whose «Атака» was pressed. ``ambushed``:
    the victim of an ambush the attacker won (§B.7), chosen and undefended from the start."""
    chat_id = message.chat.id
    attacker = current.fighter(key)
    if attacker is None:
        return view.not_in_fight_text(name)
    others = [f for f in current.fighters if f.key != key]
    if not others:
        return view.no_targets_text()
    sides = await _sides(store, chat_id, profile, [attacker, *others], current)
    opened = await open_tracker(store, chat_id, profile, tracks=False)
    fight = opened.flow.id if opened is not None else ""
    fresh = AttackFlow(
        attacker=sides[0], targets=tuple(sides[1:]), round_no=current.number, fight=fight
    )
    victim = [i for i, side in enumerate(fresh.targets) if side.key == ambushed]
    if victim:
        fresh = fresh.model_copy(update={"target": victim[0], "ambush": True})
    owner = attacker.user_id or 0
    # The chat has no panel yet (as read ahead): post it, then store it in one step.
    new = store.new_flow(fresh, chat_id, owner)
    drawn = view.draw(new, fresh, profile)
    if await bot_live.open_shown(bot, store, message, KIND, new, drawn, ttl=PANEL_TTL):
        return None
    for _attempt in range(CONFLICT_ATTEMPTS):
        flow, live, created = await store.open_live(KIND, fresh, chat_id, owner, ttl=PANEL_TTL)
        if created:
            drawn = view.draw(flow, fresh, profile)
            await store.keep_screen(flow, screen_of(*drawn))
            shown = bot_live.Shown(KIND, flow, live, drawn, PANEL_TTL)
            await bot_live.show_live(bot, store, message, shown)
            return None
        after = _replacing(flow, fresh, fight, current, key, name)
        if isinstance(after, str):
            return after
        drawn = view.draw(flow.next(after), after, profile)
        advanced = await store.advance_flow(flow, flow.version, after, screen=screen_of(*drawn))
        if advanced is not None:
            shown = bot_live.Shown(KIND, advanced, live, drawn, PANEL_TTL)
            await bot_live.show_live(bot, store, message, shown)
            return None
    return render.busy_text()


def _replacing(
    flow: Flow, fresh: AttackFlow, fight: str, current: Round, key: str, name: str
) -> AttackFlow | str:
    """The new attack in place of the chat's panel, or the refusal while the panel is held."""
    try:
        state = flow.state(AttackFlow)
    except FlowStateError:
        state = None
    if (
        state is not None
        and state.stage not in (Stage.DONE, Stage.CANCELLED)
        and not state.outlived(fight or None, current.number)
    ):
        # an attack still waiting in this round holds the panel (✖ calls it off); one
        # from a round or a fight that is over lapses and the new one takes its place
        return view.busy_text(state.attacker.name)
    history = _history(state) if state is not None else ()
    # Desperate defence lasts the turn it was taken in (§B.4), across the round's attacks.
    held = state.desperate if state is not None and state.round_no == current.number else ()
    if any(d.key == key for d in held):
        return view.desperate_busy_text(name)
    kits = state.kits if state is not None else ()
    return _with_kit(fresh, kits).model_copy(update={"history": history, "desperate": held})


def _with_kit(fresh: AttackFlow, kits: tuple[Kit, ...]) -> AttackFlow:
    """The attacker's last manoeuvre and weapon, remembered across the fight's attacks."""
    ready = fresh.model_copy(update={"kits": kits})
    kit = ready.kit_of(fresh.attacker.key)
    if kit is None:
        return ready
    return ready.model_copy(
        update={
            "reach": kit.reach,
            "manoeuvre": kit.manoeuvre,
            "ability": kit.ability,
            "weapon": kit.weapon,
        }
    )


def _remember(state: AttackFlow) -> AttackFlow:
    """The attack is rolled: its manoeuvre and weapon become the attacker's next default."""
    kits = tuple(k for k in state.kits if k.key != state.attacker.key)
    return state.model_copy(update={"kits": (*kits, state.kit())[-MAX_FIGHTERS:]})


def _history(state: AttackFlow) -> tuple[Past, ...]:
    """The finished attack joins the lines above the next one (the last few only)."""
    target = state.chosen_target()
    if state.stage is not Stage.DONE or target is None:
        return state.history[-HISTORY_KEPT:]
    past = Past(
        attacker=state.attacker.name,
        target=target.name,
        manoeuvre=state.manoeuvre,
        hit=state.net > 0,
        levels=state.levels,
        kind=state.damage_kind,
        target_key=target.key,
        round_no=state.round_no,
    )
    return (*state.history, past)[-HISTORY_KEPT:]
