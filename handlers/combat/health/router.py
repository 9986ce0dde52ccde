"""``/dmg``, ``/heal`` and ``/hp``: a character's health levels in chat (docs/rules.md §B.9–§B.12).

The track lives on the character's sheet, so the wound penalty reaches every later action
roll through :mod:`bot.rolling` by itself (§B.9). A player changes their own character; the
Storyteller (an admin until there is one) also changes the character of the player whose
message they reply to, and an NPC by name. A change is one atomic update of the sheet: two
``/dmg`` at once both land.

``/dmg`` takes the damage before soak (S4 «3. Урон 4. Поглощение»): the wound lands at once,
and when the character can soak it (§B.10, by the table's rules) a button rolls the soak and
puts the track back to the wound less what was soaked, in the same transaction as the step
and only while the sheet still shows that wound (docs/product.md "Health": soak roll button after
damage).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot import notices, runner, sheet_text
from bot.access import runs_game
from bot.names import roller_name
from bot.replies import concerns, replied_player
from handlers.combat.health import view
from handlers.combat.health.flow import WoundFlow
from handlers.combat.health.tap import TAP, fighter_key
from handlers.combat.tracker.steps import current_round, refresh, stun_fighter
from rules import combat
from rules.errors import RulesInputError
from rules.health import DamageType, HealthTrack, apply_damage, heal, is_stunned
from rules.profiles import GameSystem, Profile
from rules.sheet import (
    Attribute,
    Discipline,
    Sheet,
    is_vampire,
    new_sheet,
    set_health,
    spend_blood,
    spend_willpower,
    system_of,
)
from rules.vampire import (
    BLOOD_PER_LEVEL,
    BloodHealing,
    heal_aggravated_with_blood,
    heal_with_blood,
)
from table import npcs, vocabulary
from table.parsing import ArgumentsError, HealthArguments, NamedPlayer, parse_health_arguments
from table.store import ChatSettings, SheetOwner, Store


def make_router() -> Router:
    router = Router(name="health")
    router.message.register(dmg_command, Command("dmg", "damage"))
    router.message.register(heal_command, Command("heal"))
    router.message.register(hp_command, Command("hp", "health"))
    runner.register(router, TAP)
    return router


class _NothingToHeal(Exception):
    """No wound on the track: nothing is written."""


@dataclass(frozen=True)
class Whose:
    """The character a health command is about: a player's (by id) or an NPC (by name)."""

    name: str
    user_id: int | None = None
    npc: str | None = None
    username: str | None = None


async def _whose(
    message: Message, args: HealthArguments, bot: Bot, chat_settings: ChatSettings, store: Store
) -> Whose | None:
    """The sender's own character, or, for whoever runs the game, an NPC or the character of
    the player replied to (or whom the bot's replied message is about, bot/replies.py);
    None (answered) when the sender may not."""
    user = message.from_user
    named = args.player
    target = await replied_player(message, store) if args.npc is None and not named else None
    other = target is not None and user is not None and target.id != user.id
    if args.npc is not None or other or named is not None:
        if not await runs_game(bot, message.chat, chat_settings, user, message.sender_chat):
            await message.answer(view.storyteller_only_text())
            return None
        if args.npc is not None:
            concerns(store.scope, None)
            return Whose(name=args.npc, npc=args.npc)
        if named is not None:  # «/dmg Борис 2 л»: the player by the name their sheet shows
            concerns(store.scope, named.user_id, named.name, named.username)
            return Whose(name=named.name, user_id=named.user_id, username=named.username)
        assert target is not None
        concerns(store.scope, target.id, target.first_name, target.username)
        return Whose(name=target.first_name, user_id=target.id, username=target.username)
    if user is None or message.sender_chat is not None:
        await message.answer(view.storyteller_only_text())
        return None
    return Whose(name=roller_name(message, user), user_id=user.id, username=user.username)


async def _fighting_npcs(store: Store, chat_id: int) -> list[str]:
    """The NPCs of the open fight by name: a group with no sheet seats its copies without
    one («Гуль 1», «Гуль 2», table/npcs.py), and the Storyteller still names them."""
    current = await current_round(store, chat_id)
    if current is None:
        return []
    return [f.name for f in current.fighters if f.user_id is None]


def _with_groups(names: list[str]) -> list[str]:
    """The names and the groups they are numbered in («Гуль 2» → «Гуль»), for ``/hp Гуль``."""
    groups = [group for name in names if (group := npcs.group_of(name)) is not None]
    return [*names, *groups]


async def _change(
    store: Store,
    message: Message,
    whose: Whose,
    profile: Profile,
    change: Callable[[Sheet], Sheet],
    fighting: list[str],
) -> Sheet | None:
    system = system_of(profile)
    if whose.npc is not None:
        seated = whose.npc.casefold() in {name.casefold() for name in fighting}
        if not seated and await store.load_npc(message.chat.id, system, whose.npc) is None:
            await message.answer(view.no_npc_text(whose.npc))
            return None
        return await store.update_npc(message.chat.id, system, whose.npc, change)
    assert whose.user_id is not None
    owner = SheetOwner(user_id=whose.user_id, name=whose.name, username=whose.username)
    return await store.update_sheet(message.chat.id, whose.user_id, system, change, owner=owner)


async def _refresh_tracker(bot: Bot, store: Store, chat_id: int, profile: Profile) -> None:
    """The round tracker shows health too: redraw it when a fight is on (§B.9)."""
    await refresh(bot, store, chat_id, profile)


async def _arguments(
    message: Message,
    command: CommandObject,
    profile: Profile,
    store: Store,
    fighting: list[str],
    *,
    damage: bool,
) -> HealthArguments | None:
    if profile.system is not GameSystem.D10:
        await message.answer(view.d10_only_text())
        return None
    try:
        return parse_health_arguments(command.args, damage=damage)
    except ArgumentsError:
        named = await _npc_named(
            store, message.chat.id, profile, command.args, fighting, damage=damage
        )
        if named is not None:
            return named
        player = await _player_named(store, message.chat.id, profile, command.args, damage=damage)
        if player is not None:
            return player
        usage = view.dmg_usage_text() if damage else view.heal_usage_text()
        await message.answer(usage)
        return None


async def _npc_named(
    store: Store,
    chat_id: int,
    profile: Profile,
    text: str | None,
    fighting: list[str],
    *,
    damage: bool,
) -> HealthArguments | None:
    """``Охранник 2 л``, ``Гуль 3 у``: a line that starts with an NPC's name, as the
    Storyteller names one (the copy of a group by its number, docs/product.md "NPCs"; a
    copy in the open fight even without a sheet); one level when only the kind follows."""
    found = await npcs.npc_at_start(
        store, chat_id, system_of(profile), text or "", whole=True, also=_with_groups(fighting)
    )
    if found is None:
        return None
    name, rest = found
    for line in (rest, "1 " + rest):
        try:
            args = parse_health_arguments(line, damage=damage)
        except ArgumentsError:
            continue
        return args.model_copy(update={"npc": name})
    return None


async def _player_named(
    store: Store, chat_id: int, profile: Profile, text: str | None, *, damage: bool
) -> HealthArguments | None:
    """``Борис 2 л``: a line that starts with a player's name (or @username), as the
    Storyteller names one at the table; one level when only the kind follows."""
    found = await npcs.player_at_start(store, chat_id, system_of(profile), text or "")
    if found is None:
        return None
    owner, rest = found
    player = NamedPlayer(user_id=owner.user_id, name=owner.name, username=owner.username)
    for line in (rest, "1 " + rest):
        try:
            args = parse_health_arguments(line, damage=damage)
        except ArgumentsError:
            continue
        return args.model_copy(update={"player": player})
    return None


async def dmg_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
) -> None:
    fighting = await _fighting_npcs(store, message.chat.id)
    args = await _arguments(message, command, profile, store, fighting, damage=True)
    if args is None or args.kind is None or args.levels is None:
        return
    whose = await _whose(message, args, bot, chat_settings, store)
    if whose is None:
        return
    kind, levels = args.kind, args.levels
    before: list[HealthTrack] = []

    def hurt(sheet: Sheet) -> Sheet:
        before.append(sheet.health)
        hurt = apply_damage(sheet.health, kind, levels, profile.combat, undead=is_vampire(sheet))
        return set_health(sheet, hurt.track)

    try:
        sheet = await _change(store, message, whose, profile, hurt, fighting)
    except RulesInputError:
        await message.answer(view.dead_text(whose.name))
        return
    if sheet is None:
        return
    rated = sheet.rating(Attribute.STAMINA)  # None: not written down, so no stun is known
    stamina = rated or 0
    vampire = is_vampire(sheet)
    fortitude = (sheet.rating(Discipline.FORTITUDE) or 0) if vampire else 0
    soaker = combat.Target(stamina=stamina, track=before[-1], vampire=vampire, fortitude=fortitude)
    state = WoundFlow(
        name=whose.name,
        user_id=whose.user_id,
        npc=whose.npc,
        damage=kind,
        levels=levels,
        dice=combat.soak_pool(soaker, kind, profile.combat),
        stamina=rated,
        before=before[-1],
        after=sheet.health,
        vampire=vampire,
    )
    text = view.wound_text(state, sheet.health, profile)
    markup = None
    if state.dice:
        owner = message.from_user.id if message.from_user else 0
        flow = await store.create_flow(state, message.chat.id, owner)
        markup = view.wound_keyboard(flow.id, flow.version, state.dice)
    if whose.user_id is not None:  # the Storyteller's wound, told privately before the answer
        wounded = sheet.health
        await notices.storyteller_changed(
            bot,
            store,
            message,
            chat_settings,
            (whose.user_id, whose.name),
            lambda: notices.damage_words(kind, levels) + "\n" + sheet_text.health_line(wounded),
        )
    await message.answer(text, reply_markup=markup)
    stunned = rated is not None and is_stunned(levels, rated, profile.combat)
    await _stun_or_refresh(bot, store, message.chat.id, profile, whose, stunned)


async def _stun_or_refresh(
    bot: Bot,
    store: Store,
    chat_id: int,
    profile: Profile,
    whose: Whose,
    stunned: bool,
) -> None:
    """§B.11: more levels than Stamina stun the character for this round and the next; the
    tracker, if a fight is on, skips their actions (and a soak that saves them gives them
    back). Without a stun it only shows the new health."""
    key = fighter_key(whose.user_id, whose.npc)
    if key is not None:
        await stun_fighter(bot, store, chat_id, profile, key, stunned)
        return
    await _refresh_tracker(bot, store, chat_id, profile)


async def heal_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
) -> None:
    fighting = await _fighting_npcs(store, message.chat.id)
    args = await _arguments(message, command, profile, store, fighting, damage=False)
    if args is None:
        return
    whose = await _whose(message, args, bot, chat_settings, store)
    if whose is None:
        return
    levels = args.levels or 1
    healed: list[int] = []
    bled: list[BloodHealing] = []

    def mend(sheet: Sheet) -> Sheet:
        if not sheet.health.boxes or sheet.health.dead:
            raise _NothingToHeal
        if is_vampire(sheet):
            # §B.13: a vampire mends with blood, not with time and Medicine
            cure = _blood_cure(sheet, levels, profile)
            bled.append(cure)
            hurt = set_health(sheet, cure.track)
            if cure.willpower:
                hurt = spend_willpower(hurt, cure.willpower)
            return spend_blood(hurt, cure.blood)
        healed.append(min(levels, len(sheet.health.boxes)))
        return set_health(sheet, heal(sheet.health, min(levels, len(sheet.health.boxes))))

    try:
        sheet = await _change(store, message, whose, profile, mend, fighting)
    except _NothingToHeal:
        await message.answer(view.nothing_to_heal_text(whose.name))
        return
    except _NoBlood as refused:
        await message.answer(view.no_blood_text(whose.name, refused.need, refused.held))
        return
    except RulesInputError:  # the Willpower an aggravated level also asks for
        await message.answer(view.no_willpower_to_heal_text(whose.name))
        return
    if sheet is None:
        return
    if bled:
        text = view.blood_healed_text(whose.name, bled[-1], sheet, profile)
    else:
        text = view.healed_text(whose.name, healed[-1], sheet.health, profile)
    if whose.user_id is not None:  # told privately first: the answer stays the newest
        mended, track = (healed[-1] if healed else bled[-1].levels), sheet.health
        await notices.storyteller_changed(
            bot,
            store,
            message,
            chat_settings,
            (whose.user_id, whose.name),
            lambda: notices.healed_words(mended) + "\n" + sheet_text.health_line(track),
        )
    await message.answer(text)
    await _refresh_tracker(bot, store, message.chat.id, profile)


class _NoBlood(Exception):
    """Not enough blood in the pool for the next level: nothing is written."""

    def __init__(self, need: int, held: int) -> None:
        super().__init__(need)
        self.need = need
        self.held = held


def _blood_cure(sheet: Sheet, levels: int, profile: Profile) -> BloodHealing:
    """A turn's blood spent on wounds: bashing and lethal a point a level within the
    Generation's limit; once only aggravated wounds are left, one of them with the blood
    (and the Willpower) the table asks and a day's rest (§B.13)."""
    held = sheet.blood or 0
    cure = heal_with_blood(sheet.health, levels, held, sheet.generation)
    if cure.levels:
        return cure
    mendable = any(box is not DamageType.AGGRAVATED for box in sheet.health.boxes)
    if mendable:
        raise _NoBlood(BLOOD_PER_LEVEL, held)
    need = profile.vampire.aggravated_heal_blood
    if held < need:
        raise _NoBlood(need, held)
    return heal_aggravated_with_blood(
        sheet.health, held, profile.vampire, willpower=sheet.willpower_current
    )


async def hp_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
) -> None:
    """Anyone may look: health is what the table sees anyway."""
    if profile.system is not GameSystem.D10:
        await message.answer(view.d10_only_text())
        return
    if " ".join((command.args or "").split()).casefold() in _EVERYONE:
        await message.answer(await _everyone(store, message.chat.id, profile))
        return
    fighting = await _fighting_npcs(store, message.chat.id)
    try:
        args = parse_health_arguments(command.args, damage=False)
    except ArgumentsError:
        named = await _npc_named(
            store, message.chat.id, profile, command.args, fighting, damage=False
        )
        if named is None:
            await message.answer(view.heal_usage_text())
            return
        args = named
    system = system_of(profile)
    user = message.from_user
    target = await replied_player(message, store) if args.npc is None else None
    if args.npc is not None:
        # a group's copies, each with its own health, or the one NPC of that name
        shown = await npcs.group_sheets(store, message.chat.id, system, args.npc, fighting)
        if not shown:
            sheet = await store.load_npc(message.chat.id, system, args.npc)
            if sheet is None and args.npc.casefold() in {n.casefold() for n in fighting}:
                sheet = new_sheet(system)  # a copy seated without a sheet: untouched
            if sheet is None:
                await message.answer(view.no_npc_text(args.npc))
                return
            shown = [(args.npc, sheet)]
        lines = [view.hp_text(name, sheet.health, profile, sheet) for name, sheet in shown]
    else:
        who = target if target is not None else user
        name = roller_name(message, who) if who is user else (who.first_name if who else "?")
        loaded = await store.load_sheet(message.chat.id, who.id, system) if who else None
        track = loaded.health if loaded is not None else HealthTrack()
        await message.answer(view.hp_text(name, track, profile, loaded))
        return
    await message.answer("\n\n".join(lines))


# ``/hp все``: every fighter of the open round, as the tracker lists them.
_EVERYONE = vocabulary.EVERYONE


async def _everyone(store: Store, chat_id: int, profile: Profile) -> str:
    current = await current_round(store, chat_id)
    if current is None or not current.fighters:
        return view.no_fight_text()
    system = system_of(profile)
    fighters = current.ranked()
    users = [f.user_id for f in fighters if f.user_id is not None]
    npcs = [f.name for f in fighters if f.user_id is None]
    players, named = await store.load_many(chat_id, system, users, npcs)
    lines = []
    for fighter in fighters:
        sheet = players.get(fighter.user_id) if fighter.user_id is not None else None
        if fighter.user_id is None:
            sheet = named.get(fighter.name)
        shown = sheet if sheet is not None else new_sheet(system)
        lines.append(view.hp_text(fighter.name, shown.health, profile, shown))
    return "\n\n".join(lines)
