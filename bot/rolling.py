"""The one road every dice roll of a character takes (ARCHITECTURE.md "The road of a roll").

Whatever feature rolls — ``/r``, an extended or opposed roll, teamwork, several actions, a
roll request, a hidden roll — the same four steps happen here, so a rule about pools or
spends is written once:

1. :func:`resolve_pool`: the dice from a typed number or from trait names on the sheet
   (``ловк+драка``, §A.2), and the character's wound penalty applied to both (§B.9: a typed
   pool is the character's action too). Soak, damage, Backlash and Willpower rolls are not
   actions and keep their dice (:class:`rules.health.PoolKind`). A wounded character who
   cannot act, or a pool brought to nothing, is refused with the reason.
2. :func:`roll_d10`: the dice, from the injected random source (``rng``, the OS by default).
3. :func:`log_entry`: the typed line the chat's log and ``/stats`` keep.
4. :func:`spend`: what the roll costs (Willpower, §A.7; more resources join here), handed to
   the Store with the flow step and the log line so that all of it is one transaction: a
   point never leaves the sheet unless the result is stored, and never twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from html import escape

from aiogram.types import Message
from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n.context import get_i18n

from bot import house_rules, render, retype, sheet_text
from rules import d10
from rules.actions import PoolStatus
from rules.combat.situation import Condition, own_action
from rules.d6.chance import ImpossibleReason as D6Impossible
from rules.d6.chance import chance as d6_chance
from rules.d6.chance import difficulty_total
from rules.d6.chance import helpless as d6_helpless_rule
from rules.d6.combat import ActionKind, Edge, Trick, after_action, edge_modifier
from rules.d6.projects import unfinished_relief
from rules.d6.roll import D6Result
from rules.d6.roll import roll as d6_roll
from rules.dice import Rng
from rules.difficulty import Difficulty, check_base, effective_difficulty
from rules.errors import ErrorCode, RulesInputError, check_int
from rules.health import ImpossibleReason, PoolKind, penalised_pool
from rules.profiles import GameSystem, Profile
from rules.sheet import (
    Ability,
    Sheet,
    SheetSystem,
    TraitCode,
    pool_from_traits,
    set_edges,
    spend_luck,
    spend_willpower,
    system_of,
)
from table import npcs
from table.parsing import D6_CHANCE_MAX, D6Arguments, Problem
from table.scope import Campaign, Scope
from table.store import Flow, FlowState, LogEntry, SheetSpend, Store
from table.traits import (
    NameProblem,
    PowerNameError,
    TraitNameError,
    corrected,
    parse_pool_expression,
    resolve,
    resolve_power,
    said_name,
)

EXPRESSION_MAX = 80  # two trait names and a «+»; anything longer is not a pool


class PoolRefused(Exception):
    """A pool that cannot be rolled; ``text`` says why, ready to send (HTML). A name the bot
    was unsure of carries what was ``typed`` and the ``names`` it may mean, for the answer to
    offer each as a button (bot/retype.py); ``one_word``: a trait's, held by «_» in a pool."""

    def __init__(
        self, text: str, typed: str = "", names: Sequence[str] = (), *, one_word: bool = True
    ) -> None:
        super().__init__(text)
        self.text = text
        self.typed = typed
        self.names = tuple(names)
        self.one_word = one_word

    def choices(self, line: str) -> list[tuple[str, str]]:
        """Each name the player may have meant and ``line`` with it in place of the word."""
        return [
            (name, retype.replaced(line, self.typed, name, one_word=self.one_word))
            for name in self.names
        ]

    def with_example(self, example: str) -> str:
        """The reason, then the command's one example of a correct line."""
        return self.text + "\n" + example


@dataclass(frozen=True)
class Roller:
    """Whose dice: a player (by Telegram id) or the Storyteller's NPC (by name) in a chat.

    ``name`` is how the result names them (escaped by the views, never here)."""

    chat_id: int | Campaign  # the chat, or a campaign named from another chat (a forum topic)
    user_id: int
    name: str
    npc: str | None = None


@dataclass(frozen=True)
class Pool:
    """The dice to roll and where they came from.

    ``typed`` is the number the player typed (None for a pool from the sheet); ``label`` the
    escaped «Ловкость 3 + Драка 2» of a sheet pool; ``wound_penalty`` the §B.9 dice taken
    (≤ 0), already out of ``dice``; ``sheet`` the character's sheet as read, if any."""

    dice: int
    typed: int | None = None
    label: str | None = None
    wound_penalty: int = 0
    sheet: Sheet | None = None
    difficulty_mod: int = 0  # what the character's §B.8 conditions add to the difficulty
    conditions: tuple[Condition, ...] = ()
    traits: str | None = None  # the sheet's trait codes the pool came from, «dexterity+brawl»

    @property
    def source(self) -> str | None:
        """What the result shows about the dice: the sheet's traits, or the wounds that
        shrank a typed pool («6 -1 за раны → 5к10»), and the conditions that make it harder;
        None for a plain typed pool."""
        shown = self.label
        if shown is None and self.wound_penalty and self.typed is not None:
            shown = typed_label(self.typed, self.wound_penalty)
        if self.difficulty_mod:
            tag = conditions_tag(self.conditions, self.difficulty_mod)
            shown = tag if shown is None else f"{shown}, {tag}"
        return shown

    def difficulty(self, base: int, profile: Profile, threshold: int = 0) -> Difficulty:
        """The roll's difficulty with the conditions' part (§B.8), the surplus above 10 as
        threshold (§A.8): every roll of the character, table rolls too, keeps it."""
        if not self.difficulty_mod:
            return Difficulty(difficulty=base, threshold=threshold)
        return effective_difficulty(
            base, [self.difficulty_mod], profile, explicit_threshold=threshold
        )


async def npc_named(
    store: Store, chat_id: int | Campaign, profile: Profile, text: str
) -> tuple[str, str] | None:
    """``Страж вын 6`` → (``Страж``, ``вын 6``) when the line starts with the name of one of
    the chat's NPCs (the longest that fits, any case): the Storyteller rolls an NPC's sheet by
    its name. A line that starts with a number is a pool and never an NPC (no read at all);
    any other costs no round-trip of its own (``Store.npc_at_start``). Else a part of a name
    will do («гуго» for «Епископ Гуго», ``table.npcs.npc_by_part``) when the line's first word is
    no trait; a part that several names share raises :class:`PoolRefused` naming them."""
    words = text.split()
    system = system_of(profile)
    found = await store.npc_at_start(chat_id, system, words)
    if found is None:
        try:
            return await npcs.npc_by_part(store, chat_id, system, text)
        except npcs.AmbiguousName as ambiguous:
            text = ambiguous_npc_text(ambiguous.typed, ambiguous.names)
            raise PoolRefused(text, ambiguous.typed, ambiguous.names, one_word=False) from None
    name, taken = found
    return name, " ".join(words[taken:])


def ambiguous_npc_text(typed: str, names: Sequence[str]) -> str:
    return _("«{part}» is in the names of several NPCs: {names}. Type more of the name.").format(
        part=sheet_text.echoed(typed), names=", ".join(f"«{escape(n)}»" for n in names)
    )


async def load_sheet(store: Store, roller: Roller, profile: Profile) -> Sheet | None:
    system = system_of(profile)
    if roller.npc is not None:
        return await store.load_npc(roller.chat_id, system, roller.npc)
    return await store.load_sheet(roller.chat_id, roller.user_id, system)


async def resolve_pool(
    store: Store,
    roller: Roller,
    profile: Profile,
    *,
    dice: int | None = None,
    traits: str | None = None,
    kind: PoolKind = PoolKind.ACTION,
    modifier: int = 0,
) -> Pool:
    """The pool of a typed number (``dice``) or of trait names (``traits``), after wounds:
    :func:`pool_of` on the roller's sheet as stored.

    Names are resolved before the sheet is read, so an unknown or ambiguous name answers
    with the candidates even before the player has a sheet; a pool named by traits needs a
    sheet, a typed one does not (an unwounded stranger rolls what they typed).
    """
    if traits is None:
        if dice is None:
            raise ValueError("a pool is a number or trait names")
        sheet = await load_sheet(store, roller, profile)
        return pool_of(sheet, roller, profile, PoolAsk(dice=dice, kind=kind, modifier=modifier))
    ask = PoolAsk(traits=traits, kind=kind, modifier=modifier)
    _trait_codes(traits, profile, None)  # a name that means nothing is answered before any read
    return pool_of(await load_sheet(store, roller, profile), roller, profile, ask, store.scope)


@dataclass(frozen=True)
class PoolAsk:
    """What a pool is asked as: a typed number (``dice``) or trait names (``traits``), with
    the dice added or taken (``modifier``) and what the roll is for (``kind``)."""

    dice: int | None = None
    traits: str | None = None
    kind: PoolKind = PoolKind.ACTION
    modifier: int = 0


def pool_of(
    sheet: Sheet | None,
    roller: Roller,
    profile: Profile,
    ask: PoolAsk,
    scope: Scope | None = None,
) -> Pool:
    """:func:`resolve_pool` on a sheet already read (None: the roller has none): pure, so a
    tap's step reads the sheet first and asks for the pool without a round-trip. A name read
    as the trait it certainly means is said in ``scope``'s first answer (None: nowhere, as for
    names picked from buttons)."""
    if ask.traits is not None:
        return _sheet_pool(sheet, roller, profile, ask.traits, ask.modifier, scope)
    if ask.dice is None:
        raise ValueError("a pool is a number or trait names")
    dice, modifier, kind = ask.dice, ask.modifier, ask.kind
    if not modifier:
        return typed_pool(dice, sheet, profile, kind)
    label = escape(str(dice)) + modifier_text(modifier)
    if dice >= 1 and dice + modifier < 1:  # S0: a pool brought to nothing
        raise PoolRefused(pool_impossible_text(label))
    pool = typed_pool(dice + modifier, sheet, profile, kind)
    if pool.wound_penalty:
        label += " " + wounds_text(pool.wound_penalty)
    return replace(pool, label=label)


def typed_pool(dice: int, sheet: Sheet | None, profile: Profile, kind: PoolKind) -> Pool:
    """A typed number of dice, less the wound penalty of the sheet (§B.9)."""
    out_of_range = not 1 <= dice <= profile.pool_sanity_max
    if (
        out_of_range  # the roll's own range check answers it in the usual words
        or sheet is None
        or sheet.system is SheetSystem.D6
        or profile.system is not GameSystem.D10
    ):
        return Pool(dice, typed=dice, sheet=sheet)
    after = penalised_pool(sheet.health, dice, profile.magick, kind)
    if after.reason is not None:
        label = typed_label(dice, after.penalty)
        if after.reason is ImpossibleReason.POOL_EMPTY:
            raise PoolRefused(pool_impossible_text(label))
        raise PoolRefused(cannot_act_text(after.reason))
    mod = conditions_difficulty(sheet, (), kind)
    return Pool(
        after.dice,
        typed=dice,
        wound_penalty=after.penalty,
        sheet=sheet,
        difficulty_mod=mod,
        conditions=sheet.conditions,
    )


def conditions_difficulty(
    sheet: Sheet, codes: Sequence[TraitCode], kind: PoolKind = PoolKind.ACTION
) -> int:
    """§B.8 on the character's own action: refused while stunned, else the difficulty the
    conditions add (blinded; prone with Brawl or Melee). Not an action: nothing."""
    if not sheet.conditions or kind is not PoolKind.ACTION:
        return 0
    close = [c.value for c in codes if c in (Ability.BRAWL, Ability.MELEE)]
    effect = own_action(sheet.conditions, close)
    if not effect.can_act:
        raise PoolRefused(stunned_text())
    return effect.difficulty


def _trait_codes(
    expression: str, profile: Profile, chat_id: int | None, scope: Scope | None = None
) -> list[TraitCode]:
    """The traits a pool names, or why the names mean nothing (before any sheet is read).
    A name one slip away from one trait only is read as that trait, and the answer says so
    (``table.traits.corrected``) in ``chat_id``'s answer, through the update's ``scope`` (None:
    said by a later reading)."""
    if len(expression) > EXPRESSION_MAX:
        raise PoolRefused(render.problem_sentence(Problem.NOT_A_NUMBER, expression, profile))
    system = system_of(profile)
    lang = sheet_text.lang_of(get_i18n().current_locale)
    try:
        return parse_pool_expression(expression, system, max_traits=profile.max_traits_per_pool)
    except TraitNameError as error:
        fixed = _corrected_codes(expression, profile, chat_id, scope)
        if fixed is not None:
            return fixed
        text = sheet_text.name_problem_text(error, lang, system)
        names = [sheet_text.trait_name(c, lang, system) for c in error.candidates]
        if error.problem is NameProblem.NOT_ON_SHEET:
            names = []
        raise PoolRefused(text, error.text, names) from None
    except RulesInputError:
        raise PoolRefused(too_many_traits_text(profile.max_traits_per_pool)) from None


def _corrected_codes(
    expression: str, profile: Profile, chat_id: int | None, scope: Scope | None
) -> list[TraitCode] | None:
    """The pool with each mistyped name read as the one trait it certainly means, noted for
    the answer; None when a name is wrong past that certainty."""
    system = system_of(profile)
    lang = sheet_text.lang_of(get_i18n().current_locale)
    codes: list[TraitCode] = []
    notes: list[str] = []
    for part in expression.split("+"):
        try:
            codes.append(resolve(part, system))
            continue
        except TraitNameError:
            fixed = corrected(part, system)
        if fixed is None:
            return None
        codes.append(fixed)
        name = escape(sheet_text.trait_name(fixed, lang, system))
        notes.append(render.understood_name_text(part.replace("_", " "), name))
    if chat_id is not None and scope is not None:  # the count was checked before the names
        for note in notes:
            scope.note_understood(chat_id, note)
    return codes


def _sheet_pool(
    sheet: Sheet | None,
    roller: Roller,
    profile: Profile,
    expression: str,
    modifier: int = 0,
    scope: Scope | None = None,
) -> Pool:
    chat = roller.chat_id
    codes = _trait_codes(
        expression, profile, chat.chat_id if isinstance(chat, Campaign) else chat, scope
    )
    system = system_of(profile)
    lang = sheet_text.lang_of(get_i18n().current_locale)
    if sheet is None:
        raise PoolRefused(sheet_text.no_sheet_text(roller.name))
    try:
        pool = pool_from_traits(
            sheet,
            codes,
            profile,
            bonuses=[modifier] if modifier > 0 else (),
            penalties=[-modifier] if modifier < 0 else (),
        )
    except RulesInputError as error:
        if error.field == "pool":
            raise PoolRefused(render.range_sentence("pool", profile)) from None
        raise PoolRefused(trait_not_rolled_text()) from None
    typed = expression.split("+")  # one part per code, in order (parse_pool_expression)
    label = sheet_pool_label(
        [
            escape(said_name(code, part, lang, system))
            for code, part in zip(pool.codes, typed, strict=True)
        ],
        pool.ratings,
        [code in pool.missing for code in pool.codes],
        pool.wound_penalty,
        modifier,
    )
    if pool.status is PoolStatus.AUTO_FAILURE:
        raise PoolRefused(pool_auto_failure_text(label))
    if not pool.rollable:
        if pool.reason in (ImpossibleReason.DEAD, ImpossibleReason.INCAPACITATED):
            raise PoolRefused(cannot_act_text(pool.reason))
        raise PoolRefused(pool_impossible_text(label))
    mod = conditions_difficulty(sheet, pool.codes, PoolKind.ACTION)
    return Pool(
        pool.dice,
        label=label,
        wound_penalty=pool.wound_penalty,
        sheet=sheet,
        difficulty_mod=mod,
        conditions=sheet.conditions,
        traits="+".join(code.value for code in pool.codes),
    )


def roll_d10(
    pool: Pool | int,
    difficulty: int,
    profile: Profile,
    *,
    willpower: bool = False,
    threshold: int = 0,
    rng: Rng | None = None,
) -> d10.D10Result:
    """§A.3–A.8 for the pool; a ``RulesInputError`` names the field out of range."""
    dice = pool.dice if isinstance(pool, Pool) else pool
    return d10.roll(dice, difficulty, profile, willpower=willpower, threshold=threshold, rng=rng)


def roll_d6(
    dice: int,
    *,
    required: int = 1,
    rng: Rng | None = None,
    profile: Profile | None = None,
    armour: bool = False,
) -> D6Result:
    """§D.3 for the d6 game: the same road, its own dice (an armour roll, §D.10, has no
    fiasco and takes no special effort)."""
    return d6_roll(dice, required=required, rng=rng, profile=profile, armour=armour)


# ----- the d6 chance (§D.2) -------------------------------------------------------------------


@dataclass(frozen=True)
class D6Pool:
    """The dice of a d6 action and how the chance was made (``label``, escaped): «Сила 2 +
    Ловкость 1 − слабость 2 + удача 1 − раны 1». ``luck`` is what the roll spends (§D.2:
    single-use whatever the result)."""

    dice: int
    label: str
    luck: int = 0
    sheet: Sheet | None = None
    action: ActionKind | None = None  # what the roll is to the tricks waiting (§D.12)


@dataclass(frozen=True)
class D6Ask:
    """What a d6 action asks its chance to be made of (§D.2): a typed ``chance`` or the
    sheet's ``powers``, the weakness, the difficulties and advantages (``modifier``), luck dice
    to spend and an unfinished project's ``relief`` (§D.6); ``action`` says what the roll is to
    the tricks waiting on the sheet (§D.12: a run-up helps the next attack, full defence the
    next defence, an aim the next turn's roll; None: the roll leaves them be), ``pursuit`` is
    the target's escape, a difficulty for their attacker."""

    chance: int | None = None
    powers: Sequence[str] = ()
    weakness: bool = False
    modifier: int = 0
    luck: int = 0
    relief: int = 0
    action: ActionKind | None = None
    pursuit: int = 0

    @classmethod
    def typed(cls, args: D6Arguments, action: ActionKind | None = None, pursuit: int = 0) -> D6Ask:
        """What a typed d6 line asks (``/r сила+ловкость удача 1 слаб -1``)."""
        return cls(
            chance=args.chance,
            powers=args.powers,
            weakness=args.weakness,
            modifier=args.modifier,
            luck=args.luck,
            relief=args.relief,
            action=action,
            pursuit=pursuit,
        )


async def d6_pool(store: Store, roller: Roller, profile: Profile, ask: D6Ask) -> D6Pool:
    """:func:`d6_pool_of` on the roller's sheet as stored now."""
    sheet = await load_sheet(store, roller, profile)
    return d6_pool_of(sheet, roller.name, profile, ask)


def d6_pool_of(sheet: Sheet | None, owner: str, profile: Profile, ask: D6Ask) -> D6Pool:
    """S2 «Сумма всех ступеней задействованных сил — это твой шанс на успех», less the
    weakness when it hinders, less the difficulties, plus advantages and luck dice; the
    relief eases the typed difficulty (§D.6, G-D19).

    Powers named come from the sheet, and then its wounds count (physical ones add up, only
    the strongest mental one, AMB-D1). A typed chance is the player's own sum (S2 has the
    player count it), so the sheet adds nothing to it but the weakness and luck asked for.
    A typed 0 is an action with no fitting power: S2 «помощь друзей и удача позволяют
    изменить ситуацию, если шанс станет выше нуля», unless the chat's house rule
    ``d6.no_power_impossible`` says «даже пробовать не стоит» (:func:`rules.d6.chance.chance`).
    """
    if (ask.powers or ask.weakness or ask.luck) and sheet is None:
        raise PoolRefused(sheet_text.no_sheet_text(owner, d6=True))
    levels, label = _d6_powers(sheet, ask)
    weak = _d6_weakness(sheet, ask)
    if ask.weakness:
        label += " − " + _("weakness {n}").format(n=weak)
    if sheet is not None and ask.luck > sheet.luck:
        raise PoolRefused(no_luck_text(sheet.luck))
    modifier, eased = _d6_relief(ask.modifier, ask.relief)
    label += eased
    if ask.luck:
        label += " + " + _("luck {n}").format(n=ask.luck)
    wounds = 0
    if levels and sheet is not None and sheet.wounds:
        wounds = difficulty_total(sheet.wounds, profile)
        label += " − " + _("wounds {n}").format(n=wounds)
    tricks, edges = _d6_edges(sheet, ask)
    label += edges
    if ask.pursuit:
        label += " − " + _("escape {n}").format(n=ask.pursuit)
    value = (ask.chance or 0) + sum(levels.values()) - weak + modifier + ask.luck - wounds
    value += tricks - ask.pursuit
    _check_d6_chance(value, label, sheet, profile, no_power=ask.chance == 0 and not levels)
    return D6Pool(dice=value, label=label, luck=ask.luck, sheet=sheet, action=ask.action)


def _d6_weakness(sheet: Sheet | None, ask: D6Ask) -> int:
    """The weakness the player asked to count against the roll (0 when not asked); asking
    for one the sheet has not written is refused rather than rolled without it."""
    if not ask.weakness:
        return 0
    if sheet is None or sheet.weakness is None:
        raise PoolRefused(no_weakness_text())
    return sheet.weakness


def _d6_edges(sheet: Sheet | None, ask: D6Ask) -> tuple[int, str]:
    """What the sheet's edges add to the named action, and their part of the label: only an
    action the player named can be helped by an edge."""
    if ask.action is None or sheet is None or not sheet.edges:
        return 0, ""
    tricks, helping = edge_modifier(sheet.edges, ask.action)
    return tricks, "".join(edge_label(edge) for edge in helping)


def _d6_powers(sheet: Sheet | None, ask: D6Ask) -> tuple[dict[str, int], str]:
    """The powers' levels off the sheet (each once) and the label's start: «Сила 2 +
    Ловкость 1», the typed chance, or «no power» for a typed 0."""
    levels: dict[str, int] = {}
    parts: list[str] = []
    if ask.chance == 0 and not ask.powers:
        parts.append(_("no power"))
    elif ask.chance is not None:
        parts.append(str(ask.chance))
    if sheet is not None and ask.powers:
        names = [p.name for p in sheet.powers]
        for typed in ask.powers:
            try:
                name = resolve_power(typed, names)
            except PowerNameError as error:
                raise PoolRefused(unknown_power_text(typed, error.power_candidates)) from None
            power = sheet.power(name)
            if power is not None and name not in levels:
                levels[name] = power.level
                parts.append(f"{escape(name)} {power.level}")
    return levels, " + ".join(parts)


def _d6_relief(modifier: int, relief: int) -> tuple[int, str]:
    """The difficulty an unfinished project's readiness leaves (§D.6), and its words."""
    if relief and modifier < 0:
        eased = -unfinished_relief(-modifier, relief)
        if eased:
            said = _("(an unfinished project {r} eases −{m} to −{e})").format(
                r=relief, m=-modifier, e=-eased
            )
        else:
            said = _("(an unfinished project {r} lifts −{m})").format(r=relief, m=-modifier)
        return eased, modifier_text(eased) + " " + said
    text = modifier_text(modifier)
    if relief:
        text += " " + _("(an unfinished project {r}: no difficulty typed to ease)").format(r=relief)
    return modifier, text


def _check_d6_chance(
    value: int, label: str, sheet: Sheet | None, profile: Profile, *, no_power: bool
) -> None:
    """Refuse a chance the action cannot have: no fitting power under the house rule, 0 or
    less (S2), or more dice than a chat shows."""
    if no_power:
        verdict = d6_chance((), profile=profile)
        if verdict.reason is D6Impossible.NO_POWER:
            raise PoolRefused(d6_no_power_text(label, profile))
    if value < 1:
        refused = d6_impossible_text(label)
        if sheet is not None and d6_helpless(sheet, profile):  # §D.11, G-D20
            refused += "\n" + render.helpless_text()
        raise PoolRefused(refused)
    if value > D6_CHANCE_MAX:
        raise PoolRefused(d6_too_many_text(value))


def edge_label(edge: Edge) -> str:
    """A waiting trick as a part of the chance's sum: «+ разгон 2», «+ прицел 1 − цель 2»."""
    names = {
        Trick.CHARGE: _("run-up {n}"),
        Trick.FULL_DEFENCE: _("full defence {n}"),
        Trick.AIM: _("aim {n}"),
    }
    text = ""
    if edge.advantage and edge.trick in names:
        text += " + " + names[edge.trick].format(n=edge.advantage)
    if edge.difficulty and edge.trick is Trick.AIM:
        text += " − " + _("the target {n} after aiming").format(n=edge.difficulty)
    return text


async def create_d6_flow(
    store: Store,
    state: FlowState,
    roller: Roller,
    pool: D6Pool,
    entries: Sequence[LogEntry],
    declared: Edge | None = None,
) -> Flow | None:
    """A d6 roll's flow with its log lines, and in the same transaction the luck dice it used
    off the sheet and the tricks it spent, lost or declared (§D.12); None when the luck left
    the sheet since it was read (nothing written)."""
    spend = d6_spend(roller, pool, declared)
    if spend is None:
        return await store.create_flow(state, roller.chat_id, roller.user_id, entries=entries)
    try:
        flow, _sheet = await store.create_flow_spending(
            state, roller.chat_id, roller.user_id, spend, entries=entries
        )
    except RulesInputError:
        return None
    return flow


def luck_spend(roller: Roller, luck: int) -> SheetSpend | None:
    """The luck dice a d6 roll uses leave the sheet with it (S2 «кубики удачи одноразовые»)."""
    if not luck:
        return None
    return SheetSpend(
        roller.user_id, SheetSystem.D6, lambda sheet: spend_luck(sheet, luck), npc=roller.npc
    )


def d6_spend(roller: Roller, pool: D6Pool, declared: Edge | None = None) -> SheetSpend | None:
    """What a d6 action takes off the sheet with its roll: the luck dice it used, and the tricks
    waiting on the character — spent if they helped, lost if not (§D.12,
    :func:`rules.d6.combat.after_action`), replaced by the one this roll ``declared``. A roll
    that is no action to the tricks (``pool.action`` None) leaves them be."""
    action = pool.action
    waiting = pool.sheet is not None and bool(pool.sheet.edges)
    if action is None or (not waiting and declared is None):
        return luck_spend(roller, pool.luck)
    luck = pool.luck

    def change(sheet: Sheet) -> Sheet:
        spent = spend_luck(sheet, luck) if luck else sheet
        return set_edges(spent, after_action(spent.edges, action, declared))

    return SheetSpend(roller.user_id, SheetSystem.D6, change, npc=roller.npc)


async def ensure_d6_sheet(store: Store, roller: Roller) -> None:
    """An empty d6 sheet for a player who has none, so a trick they declare has a place to
    wait (the same as a wound landing on them)."""
    if roller.npc is not None:
        return
    if await store.load_sheet(roller.chat_id, roller.user_id, SheetSystem.D6) is None:
        await store.update_sheet(roller.chat_id, roller.user_id, SheetSystem.D6, lambda s: s)


def d6_impossible_text(label: str) -> str:
    """S2 «…шанс становится равным нулю или даже отрицательным, ты не способен предпринять
    это действие»."""
    return _("{label}: the chance is 0 or less, the character cannot take this action.").format(
        label=label
    )


def d6_no_power_text(label: str, profile: Profile) -> str:
    """S2 «сценарист сразу скажет, что при отсутствии уместных сил тебе не удастся
    задуманное, так что даже пробовать не стоит»: the chat's house rule, owned up to."""
    text = _(
        "{label}: without a fitting power this cannot be done, not even with help or luck."
    ).format(label=label)
    tag = house_rules.house_tag(profile)
    return text + ("\n" + escape(tag, quote=False) if tag is not None else "")


def d6_too_many_text(value: int) -> str:
    return _("A chance of {n} dice is more than the bot rolls at once ({max}).").format(
        n=value, max=D6_CHANCE_MAX
    )


def no_weakness_text() -> str:
    return _("Your sheet has no weakness to apply: /set weakness 2 writes one.")


def no_luck_text(held: int) -> str:
    return _("Your sheet holds {n} luck dice.").format(n=held)


def unknown_power_text(typed: str, candidates: Sequence[str]) -> str:
    text = _("Your sheet has no power «{name}».").format(name=sheet_text.echoed(typed))
    if candidates:
        text += " " + _("Did you mean: {names}?").format(
            names=", ".join(escape(c) for c in candidates)
        )
    return text


def check_pool(pool: int, profile: Profile, field: str = "pool") -> int:
    return check_int(pool, field, 1, profile.pool_sanity_max)


def check_difficulty(difficulty: int | None, profile: Profile) -> int:
    """The typed difficulty, or the game's default one (§A.4)."""
    return check_base(profile.default_difficulty if difficulty is None else difficulty, profile)


async def command_pool(
    store: Store,
    message: Message,
    owner: str,
    pool: int,
    traits: str | None,
    profile: Profile,
    modifier: int = 0,
    *,
    npc: str | None = None,
) -> Pool:
    """The pool a command names, through :func:`resolve_pool`: the typed number or the
    sheet's dice for ``traits``, after wounds and with the conditions' difficulty, its
    ``source`` saying where they came from; raises :class:`PoolRefused`. A typed pool below
    1 is left for the range check. ``npc``: the Storyteller rolls that NPC's sheet."""
    user = message.from_user
    roller = Roller(message.chat.id, user.id if user else 0, owner, npc=npc)
    if traits is None:
        if pool < 1:
            return Pool(pool, typed=pool)
        return await resolve_pool(store, roller, profile, dice=pool, modifier=modifier)
    return await resolve_pool(store, roller, profile, traits=traits, modifier=modifier)


async def willpower_on_sheet(
    store: Store, chat_id: int | Campaign, user_id: int, profile: Profile
) -> tuple[int, int] | None:
    """(current, permanent) Willpower on the player's sheet, or None when it is not tracked."""
    if profile.system is not GameSystem.D10:
        return None
    sheet = await store.load_sheet(chat_id, user_id, system_of(profile))
    return willpower_left(sheet)


def log_entry(
    user_id: int,
    name: str,
    pool: int,
    result: d10.D10Result,
    kind: str | None = None,
    *,
    attempt: int = 1,
    traits: str | None = None,
) -> LogEntry:
    """The line the chat's log keeps for one d10 roll (``/log``, ``/stats``); ``traits`` the
    sheet's pool it came from, which the /r wizard offers again as a recent pool."""
    return LogEntry(
        traits=traits,
        user_id=user_id,
        name=name,
        pool=pool,
        difficulty=result.difficulty,
        threshold=result.threshold,
        willpower=result.willpower,
        faces=tuple(result.faces),
        successes=result.successes,
        outcome=result.outcome.value,
        attempt=attempt,
        kind=kind,
    )


def d6_log_entry(user_id: int, name: str, chance: int, required: int, result: D6Result) -> LogEntry:
    """The log's line for a d6 roll (§D.3): its chance, the measures needed and got."""
    return LogEntry(
        user_id=user_id,
        name=name,
        system="d6",
        chance=chance,
        required=required,
        faces=tuple(result.faces),
        measures=result.measures,
        outcome=result.outcome.value,
    )


def auto_success_entry(
    user_id: int, name: str, pool: int, difficulty: int, successes: int
) -> LogEntry:
    """The log's line for an automatic success (§A.6): no dice were rolled."""
    return LogEntry(
        user_id=user_id,
        name=name,
        pool=pool,
        difficulty=difficulty,
        threshold=0,
        willpower=False,
        faces=(),
        successes=successes,
        outcome=d10.Outcome.AUTO_SUCCESS.value,
        attempt=1,
    )


def spend(roller: Roller, profile: Profile, *, willpower: bool = False) -> SheetSpend | None:
    """What a roll takes off the character's sheet, for the Store to apply in the same
    transaction as the flow step and the log line (§A.7); None when it costs nothing."""
    if not willpower or profile.system is not GameSystem.D10:
        return None
    return SheetSpend(
        user_id=roller.user_id, system=system_of(profile), change=_willpower, npc=roller.npc
    )


def _willpower(sheet: Sheet) -> Sheet | None:
    """§A.7: one point; a sheet that does not track Willpower rolls as before."""
    return None if sheet.willpower is None else spend_willpower(sheet)


def willpower_left(sheet: Sheet | None) -> tuple[int, int] | None:
    """(current, permanent) Willpower after a spend, or None when the sheet tracks none."""
    if sheet is None or sheet.willpower is None:
        return None
    return sheet.willpower_current or 0, sheet.willpower


def is_out_of_willpower(error: RulesInputError) -> bool:
    return error.code is ErrorCode.WP_UNAVAILABLE


def with_pool(pool: Pool, dice: int) -> Pool:
    """The same pool with another number of dice (a split or a reduced multiple action)."""
    return replace(pool, dice=dice)


# --- The words of the road: where the dice came from and why they cannot be rolled --------


def sheet_pool_label(
    names: Sequence[str],
    ratings: Sequence[int],
    missing: Sequence[bool],
    wound_penalty: int,
    modifier: int = 0,
) -> str:
    """«Ловкость 3 + Драка 2 − 1»: where the dice came from; an unset trait shows «—»
    (counted as 0), dice added or taken their number, a wound penalty its dice (§B.9).
    ``names`` are already escaped."""
    parts = [
        f"{name} {'—' if absent else rating}"
        for name, rating, absent in zip(names, ratings, missing, strict=True)
    ]
    label = " + ".join(parts) + modifier_text(modifier)
    if wound_penalty:
        label += " " + wounds_text(wound_penalty)
    return label


def modifier_text(modifier: int) -> str:
    """« + 2» or « − 1» after a pool's source; nothing for no modifier."""
    if not modifier:
        return ""
    return f" + {modifier}" if modifier > 0 else f" − {-modifier}"


def typed_label(dice: int, wound_penalty: int) -> str:
    label = escape(str(dice))
    if wound_penalty:
        label += " " + wounds_text(wound_penalty)
    return label


def wounds_text(wound_penalty: int) -> str:
    """«−1 за раны»: the one form of :func:`bot.sheet_text.wounds_text`."""
    return sheet_text.wounds_text(wound_penalty)


def conditions_tag(conditions: Sequence[Condition], difficulty: int) -> str:
    """«ослепление: +2 к сложности» under a roll the conditions made harder (§B.8)."""
    names = ", ".join(
        sheet_text.condition_name(c) for c in conditions if c is not Condition.STUNNED
    )
    return _("{conditions}: +{n} difficulty").format(conditions=names, n=difficulty)


def stunned_text() -> str:
    """§B.11: «пропускает текущий и следующий ход»."""
    return _("The character is stunned and cannot act this turn or the next.")


def too_many_traits_text(limit: int) -> str:
    return _("A pool is at most {n} traits: an Attribute + an Ability.").format(n=limit)


def trait_not_rolled_text() -> str:
    return _("These traits are not rolled as a pool (the same trait twice, or a Sphere).")


def pool_impossible_text(label: str) -> str:
    """S0 «Если набор кубиков уменьшается до нуля или ниже, то персонаж не может предпринять
    это действие» — or the wounds leave the character unable to act."""
    return _("{label}: no dice to roll, the character cannot take this action.").format(label=label)


def pool_auto_failure_text(label: str) -> str:
    """S4 «0 в Способности - автоматически [Неудача], если ГМ не решит иначе»."""
    return _("{label}: with 0 in the Ability the action fails without a roll.").format(label=label)


def cannot_act_text(reason: ImpossibleReason) -> str:
    """§B.9–B.11: Без Сознания and Мёртв take no actions at all."""
    if reason is ImpossibleReason.DEAD:
        return _("The character is dead and cannot act.")
    return _("The character is unconscious and cannot act.")


def no_willpower_text(permanent: int) -> str:
    return _("No Willpower left on your sheet (0 of {n}): this roll cannot spend it.").format(
        n=permanent
    )


def willpower_spent_text(name: str, round_no: int) -> str:
    """S0 «Вы можете сделать это только один раз за ход»: the fight's round is the turn."""
    return _(
        "{name} has already spent Willpower in turn {n} of this fight: a point only once a "
        "turn. The next turn frees it."
    ).format(name=escape(name), n=round_no)


def d6_helpless(sheet: Sheet, profile: Profile | None = None) -> bool:
    """S3 «Беспомощность» (§D.11, G-D20): no action of the character has a chance left — not
    even all their powers at once against the wounds they carry — and no luck dice. Which
    actions are relevant is the Storyteller's call; this is the sheet's own answer."""
    if sheet.system is not SheetSystem.D6 or not sheet.powers:
        return False  # a sheet with no powers yet: the player types the chance
    best = d6_chance([p.level for p in sheet.powers], difficulties=sheet.wounds, profile=profile)
    return d6_helpless_rule([best], sheet.luck)
