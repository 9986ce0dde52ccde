"""Hidden rolls (скрытый бросок): ``/h``, ``/reveal`` and the campaign choice.

The group sees only that the Storyteller rolled in secret, the roll's number and a SHA-256
commitment (``table.commitment``); the full result goes to the Storyteller's private chat.
``/reveal`` (or «Раскрыть» under the private result) later publishes the roll with its
nonce and the exact line to paste into ``sha256sum``.

Decisions:

- The private message is sent first. If Telegram refuses it (403: the Storyteller never
  opened a private chat with the bot, or blocked it), the roll is void: nothing is stored,
  the group gets only a deep-link button (``t.me/<bot>?start=st``) and the Storyteller sends
  ``/h`` again once the chat is open. No one saw those dice, so throwing them away favours
  nobody; the roll's number is spent, which is why a number may be skipped.
- Only after the private delivery is the roll stored (with the nonce) and the commitment
  posted, so no commitment ever stands for a roll its Storyteller did not receive.
- The nonce is fixed with the dice, by the update's journal (``update_secret``): a roll run
  again after its group notice failed shows the same commitment in both chats, and
  ``/reveal`` opens it.
- The roll log gets a marker without the result; ``/log`` and ``/stats`` show the result
  only once it is revealed (``bot.hidden_rolls.merge_history``).
- A Storyteller may also roll from the private chat for any campaign they run, chosen once
  from a button list; that is also how an anonymous administrator rolls, since their
  messages in the group cannot be told apart from the group's.
- In the group the bot tries to delete the ``/h`` command itself, which names the pool: it
  can when it is an administrator. Rolling from the private chat hides even that.
"""

from __future__ import annotations

from contextlib import suppress

from aiogram import Bot, F, Router
from aiogram.enums import ChatType
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import Message, User

from bot import hidden_rolls, render, rolling, runner
from bot.access import is_anonymous, is_storyteller
from bot.hidden_rolls import HiddenResult
from bot.middlewares import chat_profile
from handlers.hidden import view
from handlers.hidden.callbacks import CampaignCallback, RevealCallback
from rules import magick
from rules.d6.roll import D6Result
from rules.dice import Rng
from rules.difficulty import check_base
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile
from table import commitment, fairness, vocabulary
from table.parsing import (
    ArgumentsError,
    Problem,
    RollArguments,
    parse_d6_arguments,
    parse_magick_arguments,
    parse_roll_arguments,
)
from table.scope import Campaign
from table.store import ChatSettings, HiddenRecord, Store, update_secret


def make_router() -> Router:
    router = Router(name="hidden")
    router.message.register(
        ready_for_hidden,
        CommandStart(deep_link=True, magic=F.args == view.START_PAYLOAD),
        F.chat.type == ChatType.PRIVATE,
    )
    router.message.register(hidden_command, Command("h", "hidden"))
    router.message.register(reveal_command, Command("reveal"))
    runner.register(router, REVEAL_TAP)
    runner.register(router, CAMPAIGN_TAP)
    return router


async def ready_for_hidden(message: Message) -> None:
    """The deep link from the group: the private chat now exists, so ``/h`` can deliver."""
    await message.answer(view.private_ready_text())


async def hidden_command(
    message: Message,
    command: CommandObject,
    bot: Bot,
    store: Store,
    chat_settings: ChatSettings,
    profile: Profile,
    rng: Rng | None = None,
) -> None:
    store.scope.hush()  # a line read otherwise than typed is not said where the group reads it
    rng = fairness.kept_secret(rng, store.scope.journal)
    if message.chat.type == ChatType.PRIVATE:
        await _hidden_from_private(message, command, bot, store, rng)
        return
    if is_anonymous(message):
        await message.answer(view.anonymous_hidden_text())
        return
    user = message.from_user
    if user is None or not is_storyteller(chat_settings, user):
        await message.answer(render.storyteller_only_text(d6=profile.system is GameSystem.D6))
        return
    with suppress(TelegramBadRequest, TelegramForbiddenError):
        await message.delete()
    rolled = await _prepare(message, command, profile, rng, store, message.chat.id)
    if rolled is None:
        return
    title = store.at(message.chat.id).titled(message.chat.title or "")
    delivered = await roll_hidden(bot, store, message.chat.id, title, user, rolled, profile)
    if not delivered:
        me = await bot.me()
        await message.answer(
            view.no_private_chat_text(user.first_name),
            reply_markup=view.open_private_keyboard(me.username or ""),
        )


async def _campaign(store: Store, user: User) -> tuple[Campaign, str, ChatSettings] | None:
    """The Storyteller's chosen campaign, if they still run it: id, title, its settings. One
    who runs a single campaign has nothing to choose: that one, remembered for next time."""
    chosen, runs = await store.campaigns(user.id)
    if (chosen is None or chosen not in runs) and len(runs) == 1:
        chosen = next(iter(runs))
        await store.choose_campaign(user.id, chosen)
    if chosen is None or chosen not in runs:
        return None
    settings = await store.load_chat(chosen)
    if settings.storyteller_id != user.id:
        return None
    return chosen, runs[chosen], settings


async def _offer_campaigns(message: Message, store: Store, user: User) -> None:
    chosen, runs = await store.campaigns(user.id)
    markup = view.campaigns_keyboard(runs, chosen) if runs else None
    await message.answer(view.choose_campaign_text(bool(runs)), reply_markup=markup)


async def _hidden_from_private(
    message: Message, command: CommandObject, bot: Bot, store: Store, rng: Rng | None
) -> None:
    """``/h`` alone shows the campaign buttons; ``/h 7 6`` rolls for the chosen campaign."""
    user = message.from_user
    if user is None:
        return
    campaign = None if not (command.args or "").strip() else await _campaign(store, user)
    if campaign is None:
        await _offer_campaigns(message, store, user)
        return
    chat_id, title, settings = campaign
    profile = chat_profile(settings)
    rolled = await _prepare(message, command, profile, rng, store, chat_id)
    if rolled is None:
        return
    await roll_hidden(bot, store, chat_id, title, user, rolled, profile, settings.session)


Rolled = tuple[int, HiddenResult, str | None]  # the pool (d6: the chance), the roll, a note


async def _prepare(
    message: Message,
    command: CommandObject,
    profile: Profile,
    rng: Rng | None,
    store: Store,
    chat_id: int | Campaign,
) -> Rolled | None:
    """The same line as ``/r`` (pool, difficulty, wp, threshold), rolled; a problem is
    answered instead, with a correct example, and nothing is stored. ``/h m …`` is an NPC's
    Effect: its Arete at the Effect's difficulty (§C.4), with the Paradox it earns noted for
    the Storyteller's eyes (the NPC has no wheel to put it on)."""
    if profile.system is GameSystem.D6:
        return await _prepare_d6(message, command.args, profile, rng)
    words = (command.args or "").split(maxsplit=1)
    if words and words[0].casefold() in vocabulary.MAGICK:
        return await _prepare_effect(message, words[1] if len(words) > 1 else "", profile, rng)
    try:
        npc = await rolling.npc_named(store, chat_id, profile, command.args or "")
    except rolling.PoolRefused as refused:
        await message.answer(refused.text)
        return None
    if npc is not None:
        return await _prepare_npc(message, npc, profile, rng, store, chat_id)
    try:
        arguments = parse_roll_arguments(command.args).with_dice_in_pool()
    except ArgumentsError as problem:
        await message.answer(
            render.parse_problem_text(problem.problem, problem.token, profile, command="h")
        )
        return None
    base = profile.default_difficulty if arguments.difficulty is None else arguments.difficulty
    try:
        check_base(base, profile)
        result = rolling.roll_d10(
            arguments.pool,
            base,
            profile,
            willpower=arguments.willpower,
            threshold=arguments.threshold,
            rng=rng,
        )
    except RulesInputError as error:
        await message.answer(render.range_problem_text(error.field, profile, command="h"))
        return None
    return arguments.pool, result, None


async def _prepare_npc(
    message: Message,
    npc: tuple[str, str],
    profile: Profile,
    rng: Rng | None,
    store: Store,
    chat_id: int | Campaign,
) -> Rolled | None:
    """``/h Страж восп+бдит 7``: the NPC's own sheet gives the pool (§A.2, its wounds §B.9),
    rolled in secret like any hidden roll; the note names whose dice they were."""
    name, line = npc
    try:
        args = parse_roll_arguments(line, allow_traits=True)
    except ArgumentsError as problem:
        await message.answer(
            render.parse_problem_text(problem.problem, problem.token, profile, command="h")
        )
        return None
    who = rolling.Roller(chat_id, 0, name, npc=name)
    try:
        resolved = await rolling.resolve_pool(
            store,
            who,
            profile,
            dice=args.pool if args.traits is None else None,
            traits=args.traits,
            modifier=args.dice,
        )
        base = profile.default_difficulty if args.difficulty is None else args.difficulty
        check_base(base, profile)
        harder = resolved.difficulty(base, profile, args.threshold)
        result = rolling.roll_d10(
            resolved.dice,
            harder.difficulty,
            profile,
            willpower=args.willpower,
            threshold=harder.threshold,
            rng=rng,
        )
    except rolling.PoolRefused as refused:
        await message.answer(refused.text)
        return None
    except RulesInputError as error:
        await message.answer(render.range_problem_text(error.field, profile, command="h"))
        return None
    return resolved.dice, result, view.hidden_npc_note(name, resolved.source)


async def _prepare_d6(
    message: Message, line: str | None, profile: Profile, rng: Rng | None
) -> Rolled | None:
    """``/h 4`` or ``/h 4 2`` in a d6 chat: an NPC's chance (and the measures it needs), rolled
    in secret like any hidden roll (§D.3)."""
    try:
        args = parse_d6_arguments(line)
        if args.chance is None or args.powers or args.luck or args.weakness or args.auto:
            raise ArgumentsError(Problem.POOL_MISSING)
        chance = args.chance + args.modifier
        if chance < 1:
            raise ArgumentsError(Problem.NOT_A_NUMBER)
        result = rolling.roll_d6(chance, required=args.required, rng=rng, profile=profile)
    except ArgumentsError:
        await message.answer(view.hidden_d6_text())
        return None
    return chance, result, None


async def _prepare_effect(
    message: Message, line: str, profile: Profile, rng: Rng | None
) -> Rolled | None:
    try:
        args = parse_magick_arguments(line)
        if args.arete is None or args.level is None:
            raise ArgumentsError(Problem.POOL_MISSING, line)
        found = magick.effect_difficulty(
            args.level,
            args.vulgar,
            args.witnesses,
            [args.modifier] if args.modifier else [],
            min(args.quintessence, profile.magick.quintessence_max_per_roll),
            profile=profile,
        )
        result = rolling.roll_d10(
            args.arete,
            found.difficulty,
            profile,
            willpower=args.willpower,
            threshold=found.threshold,
            rng=rng,
        )
    except (ArgumentsError, RulesInputError):
        await message.answer(view.hidden_effect_usage_text())
        return None
    gain = magick.paradox_gain(
        args.level, args.vulgar, args.witnesses, result.outcome, profile=profile
    )
    arguments = RollArguments(
        pool=args.arete,
        difficulty=found.difficulty,
        willpower=args.willpower,
        threshold=found.threshold,
    )
    return arguments.pool, result, view.hidden_effect_note(args.level, gain)


async def roll_hidden(
    bot: Bot,
    store: Store,
    chat_id: int | Campaign,
    title: str,
    user: User,
    rolled: Rolled,
    profile: Profile,
    session: int | None = None,
) -> bool:
    """Commit, deliver privately, then store and post the commitment; False if the
    Storyteller's private chat refused the result (then nothing was stored or posted).
    ``session``: the campaign's running session, for a roll made from the private chat (one
    made in the group is marked by its own update, table/fairness.py)."""
    pool, result, note = rolled
    campaign = store.at(chat_id)
    seq = await store.next_hidden_seq(campaign)
    if isinstance(result, D6Result):  # the d6 roll binds the measures it needs as difficulty
        difficulty, threshold, willpower = result.required, 0, False
    else:
        difficulty, threshold, willpower = result.difficulty, result.threshold, result.willpower
    payload = commitment.hidden_roll(
        chat_id=campaign.chat_id,
        seq=seq,
        profile=profile.name,
        pool=pool,
        difficulty=difficulty,
        threshold=threshold,
        willpower=willpower,
        faces=result.faces,
    ).payload()
    # The nonce is the update's, like its dice: a re-run after the group's notice failed
    # commits to the same line, so /reveal matches whichever notice the group saw.
    commitment_hex, nonce = commitment.commit(
        payload, update_secret(store.scope, f"hidden:{campaign.key}:{seq}", commitment.NONCE_BYTES)
    )
    record = HiddenRecord(
        seq=seq,
        chat_id=campaign.chat_id,
        thread_id=campaign.thread_id,
        owner_id=user.id,
        name=user.first_name,
        profile=profile.name,
        pool=pool,
        payload=payload,
        nonce=nonce,
        commitment=commitment_hex,
        result=result.model_dump(mode="json"),
    )
    try:
        await bot.send_message(
            user.id,
            view.hidden_private_text(record, result, title, profile, note),
            reply_markup=view.reveal_keyboard(campaign, seq),
        )
    except (TelegramForbiddenError, TelegramBadRequest):
        return False
    marker = hidden_rolls.hidden_log_entry(record)
    if session is not None:
        marker = marker.model_copy(update={"ses": session})
    await store.save_hidden(record, marker)
    await bot.send_message(
        campaign.chat_id,
        view.hidden_group_text(user.first_name, seq, commitment_hex),
        message_thread_id=campaign.thread_id,
    )
    return True


async def reveal_command(
    message: Message,
    command: CommandObject,
    bot: Bot,
    store: Store,
    chat_settings: ChatSettings,
    profile: Profile,
) -> None:
    user = message.from_user
    if message.chat.type == ChatType.PRIVATE:
        if user is None:
            return
        campaign = await _campaign(store, user)
        if campaign is None:
            await _offer_campaigns(message, store, user)
            return
        chat_id, _title, settings = campaign
        profile = chat_profile(settings)
    elif is_anonymous(message):
        await message.answer(view.anonymous_reveal_text())
        return
    elif not is_storyteller(chat_settings, user):
        await message.answer(render.storyteller_only_text(d6=profile.system is GameSystem.D6))
        return
    else:
        chat_id = store.at(message.chat.id)
    text = (command.args or "").strip()
    if text and not (text.isascii() and text.isdigit() and len(text) <= 9):
        await message.answer(view.reveal_usage_text())
        return
    if text:
        record = await store.load_hidden(chat_id, int(text))
    else:
        waiting = [r for r in (await store.hidden_rolls(chat_id)).values() if not r.revealed]
        record = max(waiting, key=lambda r: r.seq, default=None)
    if record is None:
        await message.answer(view.no_hidden_roll_text(int(text) if text else None))
        return
    # A number names the roll on purpose: a revealed one is posted again (nothing new is
    # disclosed), which also recovers a reveal whose message Telegram failed to deliver.
    problem = await _publish(bot, store, record, profile, again=bool(text))
    if problem is not None:
        await message.answer(problem)
    elif message.chat.id != chat_id.chat_id:
        await message.answer(view.reveal_done_text())


async def _publish(
    bot: Bot, store: Store, record: HiddenRecord, profile: Profile, *, again: bool = False
) -> str | None:
    """Mark the roll revealed (once, atomically) and post it in its group; or why not.

    The mark comes first so two taps cannot both post; ``again`` re-posts a roll that is
    already revealed.
    """
    result = hidden_rolls.record_result(record)
    if result is None:
        return render.invalid_button_text()
    done = await store.reveal_hidden(
        record.campaign, record.seq, hidden_rolls.revealed_entry(record)
    )
    if done is None:
        return view.no_hidden_roll_text(record.seq)
    if not done and not again:
        return view.already_revealed_text(record.seq)
    await bot.send_message(
        record.chat_id,
        view.reveal_text(record, result, hidden_rolls.record_profile(record, profile)),
        message_thread_id=record.thread_id,
    )
    return None


async def load_roll(pressed: runner.Pressed[RevealCallback]) -> HiddenRecord | runner.Refuse:
    data = pressed.data
    campaign = Campaign.from_button(data.c)
    record = await pressed.store.load_hidden(campaign, data.s) if campaign is not None else None
    if record is None:
        return runner.refuse(lambda: view.no_hidden_roll_text(data.s))
    return record


async def read_its_chat(
    pressed: runner.Pressed[RevealCallback], record: HiddenRecord
) -> ChatSettings:
    """The settings of the roll's group: whose Storyteller may reveal it, in which game."""
    return await pressed.store.load_chat(record.campaign)


def reveal_step(
    record: HiddenRecord,
    data: RevealCallback,
    actor: runner.Actor,
    seen: runner.Seen[ChatSettings],
) -> runner.Deed[HiddenRecord]:
    """«Раскрыть» in the private chat: the roller or the chat's current Storyteller only; a
    roll is revealed once (a second press takes the button off and says so)."""
    settings = seen.read
    if actor.id not in (record.owner_id, settings.storyteller_id):
        d6 = chat_profile(settings).system is GameSystem.D6
        return runner.refuse(lambda: render.storyteller_only_text(d6=d6))
    if hidden_rolls.record_result(record) is None:
        return runner.Refuse(render.invalid_button_text, heal=True)
    if record.revealed:
        return runner.Refuse(lambda: view.already_revealed_text(record.seq), heal=True)
    revealed = record.model_copy(update={"revealed": True})
    return runner.Change(revealed, answer=view.reveal_done_text, alert=False)


async def mark_revealed(
    pressed: runner.Pressed[RevealCallback], before: HiddenRecord, after: HiddenRecord
) -> HiddenRecord | None:
    """The mark, once and atomically, with the roll counted in its chat's statistics: of two
    presses only one marks it (the other runs again and finds it revealed)."""
    done = await pressed.store.reveal_hidden(
        before.campaign, before.seq, hidden_rolls.revealed_entry(before)
    )
    return after if done else None


async def post_revealed(pressed: runner.Pressed[RevealCallback], record: HiddenRecord) -> None:
    """The roll, its nonce and the line to check it, posted in its group."""
    result = hidden_rolls.record_result(record)
    bot = pressed.context.bot
    if result is None or bot is None:
        return
    profile = chat_profile(await pressed.store.load_chat(record.campaign))
    shown = hidden_rolls.record_profile(record, profile)
    await bot.send_message(
        record.chat_id,
        view.reveal_text(record, result, shown),
        message_thread_id=record.thread_id,
    )


REVEAL_TAP: runner.RecordTap[HiddenRecord, RevealCallback, ChatSettings] = runner.RecordTap(
    name="reveal",
    callback=RevealCallback,
    load=load_roll,
    read=read_its_chat,
    step=reveal_step,
    view=None,  # the result stays as it is; only «Раскрыть» goes
    swap=mark_revealed,
    effect=post_revealed,
)


async def load_campaign(
    pressed: runner.Pressed[CampaignCallback],
) -> ChatSettings | runner.Refuse:
    """The campaign's group as it is now: whose Storyteller the presser must still be."""
    campaign = Campaign.from_button(pressed.data.c)
    if campaign is None:
        return runner.refuse(render.invalid_button_text)
    return await pressed.store.load_chat(campaign)


async def read_titles(
    pressed: runner.Pressed[CampaignCallback], settings: ChatSettings
) -> dict[Campaign, str]:
    _chosen, runs = await pressed.store.campaigns(pressed.presser.id)
    return runs


def campaign_step(
    settings: ChatSettings,
    data: CampaignCallback,
    actor: runner.Actor,
    seen: runner.Seen[dict[Campaign, str]],
) -> runner.Deed[ChatSettings]:
    """A campaign button: only for a chat whose Storyteller the presser still is."""
    if settings.storyteller_id != actor.id:
        d6 = chat_profile(settings).system is GameSystem.D6
        return runner.refuse(lambda: render.storyteller_only_text(d6=d6))
    return runner.Change(settings)


async def choose(
    pressed: runner.Pressed[CampaignCallback], before: ChatSettings, after: ChatSettings
) -> ChatSettings:
    """The presser's choice, the one thing a press writes (a second press writes it again)."""
    campaign = Campaign.from_button(pressed.data.c)
    if campaign is not None:  # load_campaign refused any other
        await pressed.store.choose_campaign(pressed.presser.id, campaign)
    return after


def campaign_view(
    settings: ChatSettings, data: CampaignCallback, seen: runner.Seen[dict[Campaign, str]]
) -> runner.Drawn:
    campaign = Campaign.from_button(data.c)
    title = seen.read.get(campaign, data.c) if campaign is not None else data.c
    return view.campaign_chosen_text(title), None


CAMPAIGN_TAP: runner.RecordTap[ChatSettings, CampaignCallback, dict[Campaign, str]] = (
    runner.RecordTap(
        name="hidden_campaign",
        callback=CampaignCallback,
        load=load_campaign,
        read=read_titles,
        step=campaign_step,
        view=campaign_view,
        swap=choose,
    )
)
