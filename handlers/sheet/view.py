"""Character sheets into localised HTML: the view, the export, the editor's keyboards
(docs/product.md "Character sheet").

Trait names come from :mod:`table.traits` in the reader's language (Russian names follow the
seeds: S4 for Mage, S1 for Dark Ages); the words around them from the Babel catalogues. Only
what is on the sheet is listed, so a new player sees a short sheet and a hint, not forty
empty lines. Pure presentation: the handlers decide, this module says it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __
from babel.support import LazyProxy

from bot import render, rolling, table_text
from bot.sheet_text import (
    SHEET_MARK,
    candidates_text,
    echoed,
    empty_sheet_text,
    health_line,
    set_example,
    trait_name,
    wheel_track,
)
from handlers.sheet.callbacks import Category, RosterCallback, SheetAction, SheetCallback
from rules.d6.chance import DifficultyKind
from rules.d6.combat import Edge, Trick
from rules.errors import ErrorCode, RulesInputError
from rules.health import HealthTrack
from rules.profiles import GameSystem, Profile
from rules.sheet import (
    Ability,
    Attribute,
    D6Field,
    Discipline,
    Sheet,
    SheetSystem,
    Stat,
    TraitCode,
    Virtue,
    catalogue,
    is_vampire,
    system_of,
    trait_code,
    trait_range,
)
from rules.spheres import Sphere
from rules.vampire import blood_per_turn, blood_pool_max
from table.traits import (
    BlockEntry,
    BlockError,
    BlockProblem,
    Lang,
    display_name,
    export_sheet,
    said_name,
)

# NPC sheets are marked apart, so a reply to one never pastes into the replier's own sheet.
NPC_MARK = "🎭"
MESSAGE_LIMIT = 4000  # Telegram's 4096 with room for the entities
ERRORS_SHOWN = 10
WP_CURRENT = "wpc"  # the editor's key for the temporary Willpower points
# Value buttons shown at most; larger ratings (Quintessence 15) are typed: /set квинт 15.
VALUE_BUTTONS_MAX = 10

_PHYSICAL = (Attribute.STRENGTH, Attribute.DEXTERITY, Attribute.STAMINA)
_SOCIAL = (Attribute.CHARISMA, Attribute.MANIPULATION, Attribute.APPEARANCE)
_MENTAL = (Attribute.PERCEPTION, Attribute.INTELLIGENCE, Attribute.WITS)


def _rated(codes: Iterable[TraitCode], sheet: Sheet, lang: Lang) -> str:
    parts = []
    for code in codes:
        value = sheet.rating(code)
        if value is not None:
            parts.append(f"{trait_name(code, lang, sheet.system)} {value}")
    return " · ".join(parts)


def _wound_word(kind: DifficultyKind) -> str:
    if kind is DifficultyKind.PHYSICAL_WOUND:
        return _("physical wound")
    return _("mental wound")


def _game_title(sheet: Sheet, profile: Profile | None) -> str:
    """The chat's game when the sheet is of it (a Revised chat's sheet is not the house
    sheet's); a Mage sheet seen without the chat's game is just «Маг»."""
    if profile is not None and system_of(profile) is sheet.system:
        return render.profile_title(profile.name)
    if sheet.system is SheetSystem.MAGE:
        return _("Mage")
    return render.profile_title(sheet.system.value)


def sheet_text(
    sheet: Sheet, owner: str, lang: Lang, mark: str = SHEET_MARK, profile: Profile | None = None
) -> str:
    """The sheet as a player reads it at the table; Willpower as current/permanent (§A.7)."""
    head = f"{mark} <b>{escape(owner)}</b> — " + _("character sheet, {game}").format(
        game=_game_title(sheet, profile)
    )
    lines = [head]
    if sheet.system is SheetSystem.D6:
        lines.extend(_d6_lines(sheet, lang))
        if rolling.d6_helpless(sheet, profile):
            lines.append(render.helpless_text())
    else:
        lines.extend(_d10_lines(sheet, lang))
    if len(lines) == 1:
        lines.append(empty_sheet_text(d6=sheet.system is SheetSystem.D6))
    return "\n".join(lines)


def _d10_lines(sheet: Sheet, lang: Lang) -> list[str]:
    lines = _attribute_lines(sheet, lang)
    lines += _section(_("Abilities"), Ability, sheet, lang)
    if sheet.willpower is not None:
        lines.append(
            f"<b>{trait_name(Stat.WILLPOWER, lang, sheet.system)}</b>: "
            + _("{current} of {permanent}").format(
                current=sheet.willpower_current, permanent=sheet.willpower
            )
        )
    for stat in (Stat.ARETE, Stat.HUMANITY, Stat.GENERATION):
        value = sheet.rating(stat) if stat in catalogue(sheet.system) else None
        if value is not None:
            lines.append(f"<b>{trait_name(stat, lang, sheet.system)}</b>: {value}")
    lines += _section(_("Virtues"), Virtue, sheet, lang)
    lines += _blood_lines(sheet, lang)
    lines += _section(_("Disciplines"), Discipline, sheet, lang)
    lines += _section(_("Spheres"), Sphere, sheet, lang)
    lines += _mage_pool_lines(sheet, lang)
    if sheet.health != HealthTrack():
        lines.append(health_line(sheet.health, vampire=is_vampire(sheet)))
    return lines


def _attribute_lines(sheet: Sheet, lang: Lang) -> list[str]:
    groups = (
        (_("Physical"), _PHYSICAL),
        (_("Social"), _SOCIAL),
        (_("Mental"), _MENTAL),
    )
    attributes = [(title, _rated(codes, sheet, lang)) for title, codes in groups]
    if not any(text for _title, text in attributes):
        return []
    return ["<b>" + _("Attributes") + "</b>"] + [
        f"{title}: {text}" for title, text in attributes if text
    ]


def _section(title: str, kind: type, sheet: Sheet, lang: Lang) -> list[str]:
    """One line of the rated traits of a kind (abilities, virtues…), none when all are zero."""
    rated = _rated([c for c in catalogue(sheet.system) if isinstance(c, kind)], sheet, lang)
    return ["<b>" + title + f"</b>: {rated}"] if rated else []


def _blood_lines(sheet: Sheet, lang: Lang) -> list[str]:
    if sheet.blood is None:
        return []
    name = f"<b>{trait_name(Stat.BLOOD, lang, sheet.system)}</b>: "
    if sheet.generation is None:
        return [name + str(sheet.blood)]
    # the Generation's limits beside the pool (§B.13): what a turn may spend
    return [
        name
        + _("{current} of {permanent}").format(
            current=sheet.blood, permanent=blood_pool_max(sheet.generation)
        )
        + ", "
        + _("up to {n} a turn").format(n=blood_per_turn(sheet.generation))
    ]


def _mage_pool_lines(sheet: Sheet, lang: Lang) -> list[str]:
    """Quintessence and Paradox, with their shared wheel, once either is above zero."""
    if sheet.system is not SheetSystem.MAGE or not (sheet.quintessence or sheet.paradox):
        return []
    return [
        f"<b>{trait_name(Stat.QUINTESSENCE, lang, sheet.system)}</b> {sheet.quintessence}"
        f" · <b>{trait_name(Stat.PARADOX, lang, sheet.system)}</b> {sheet.paradox}",
        wheel_track(sheet.quintessence, sheet.paradox),
    ]


def _d6_lines(sheet: Sheet, lang: Lang) -> list[str]:
    lines: list[str] = []
    if sheet.powers:
        powers = " · ".join(f"{escape(p.name)} {p.level}" for p in sheet.powers)
        lines.append("<b>" + _("Powers") + f"</b>: {powers}")
    if sheet.weakness is not None:
        named = f"{escape(sheet.weakness_name)} " if sheet.weakness_name is not None else ""
        weakness = trait_name(D6Field.WEAKNESS, lang, sheet.system)
        lines.append(f"<b>{weakness}</b>: {named}{sheet.weakness}")
    if sheet.luck:
        lines.append(f"<b>{trait_name(D6Field.LUCK, lang, sheet.system)}</b>: {sheet.luck}")
    if sheet.alacrity is not None:
        name = trait_name(D6Field.ALACRITY, lang, sheet.system)
        lines.append(f"<b>{name}</b>: {sheet.alacrity}")
    if sheet.wounds:
        wounds = ", ".join(f"{_wound_word(w.kind)} −{w.magnitude}" for w in sheet.wounds)
        lines.append("<b>" + _("Wounds") + f"</b>: {wounds}")
    if sheet.edges:
        waiting = ", ".join(_edge_words(e) for e in sheet.edges)
        lines.append("<b>" + _("Waiting") + f"</b>: {waiting}")
    return lines


def _edge_words(edge: Edge) -> str:
    """A §D.12 trick waiting on the character, as the sheet shows it."""
    if edge.trick is Trick.CHARGE:
        return _("a run-up +{n} for the next attack").format(n=edge.advantage)
    if edge.trick is Trick.FULL_DEFENCE:
        return _("full defence +{n} for the next defence").format(n=edge.advantage)
    if edge.trick is Trick.ESCAPE:
        return _("an escape (−{n} to whoever attacks them)").format(n=edge.difficulty)
    parts = []
    if edge.advantage:
        parts.append(_("an aim +{n} for the next turn").format(n=edge.advantage))
    if edge.difficulty:
        parts.append(_("the target −{n} after aiming").format(n=edge.difficulty))
    return ", ".join(parts)


def export_text(sheet: Sheet, owner: str, lang: Lang) -> str:
    """The sheet as the lines ``/set`` and a reply read back (table.traits.export_sheet), in a
    block Telegram copies with one tap."""
    block = export_sheet(sheet, lang)
    head = f"{SHEET_MARK} <b>{escape(owner)}</b> — " + _(
        "export: copy, edit, and send back as a reply to this message"
    )
    if not block:
        return head + "\n" + empty_sheet_text(d6=sheet.system is SheetSystem.D6)
    return head + f"\n<pre>{escape(block)}</pre>"


def paste_prompt_text(lang: Lang, system: SheetSystem) -> str:
    """What ``/sheet set`` without lines answers: the format, by example, in the reader's
    language (the names are those the parser reads back)."""
    examples = _paste_examples(lang, system)
    return (
        f"{SHEET_MARK} "
        + _("Reply to this message with your traits, one per line or separated by commas:")
        + f"\n<pre>{escape(examples)}</pre>"
    )


def _paste_examples(lang: Lang, system: SheetSystem) -> str:
    if system is SheetSystem.D6:
        return "\n".join(
            [
                _("Fire 2"),
                f"{display_name(D6Field.WEAKNESS, lang, system)} 2",
                f"{display_name(D6Field.LUCK, lang, system)} 1",
            ]
        )
    return "\n".join(
        [
            f"{display_name(Attribute.DEXTERITY, lang, system)} 3",
            f"{display_name(Ability.BRAWL, lang, system)} 2",
            f"{display_name(Stat.WILLPOWER, lang, system)} 5/7",
        ]
    )


def saved_text(sheet: Sheet, owner: str, lang: Lang, entries: Sequence[BlockEntry]) -> str:
    """What was written, with the values now on the sheet (a d6 power by its own name)."""
    parts: list[str] = []
    for entry in entries:
        if entry.code is not None:
            parts.append(_rating_text(sheet, entry.code, lang, entry.name))
        elif entry.power is not None:
            power = sheet.power(entry.power)
            parts.append(f"{escape(entry.power)} {power.level if power else 0}")
    # A trait written twice shows once (it shows the sheet's value), and a paste of hundreds
    # of lines is cut to fit one message.
    shown: list[str] = []
    size = 0
    for part in dict.fromkeys(parts):
        size += len(part) + 3
        if size > MESSAGE_LIMIT // 2:
            shown.append("…")
            break
        shown.append(part)
    saved = "✅ " + _("{name}'s sheet: {changes}").format(
        name=escape(owner), changes=" · ".join(shown)
    )
    return "\n".join([*understood_lines(entries, lang, sheet.system), saved])


def understood_lines(entries: Sequence[BlockEntry], lang: Lang, system: SheetSystem) -> list[str]:
    """«Поняли «ловкасть» как «Ловкость»» for each name a slip away that was written as the
    one trait it certainly means, above what was written (as a typed command says it)."""
    lines: list[str] = []
    for entry in entries:
        if entry.typed is not None and entry.code is not None:
            name = escape(display_name(entry.code, lang, system))
            lines.append(render.understood_name_text(entry.typed, name))
    return list(dict.fromkeys(lines))


def _rating_text(sheet: Sheet, code: TraitCode, lang: Lang, typed: str = "") -> str:
    name = escape(said_name(code, typed, lang, sheet.system))
    if code is D6Field.WEAKNESS and sheet.weakness_name is not None:
        name += ": " + escape(sheet.weakness_name)
    if code is Stat.WILLPOWER:
        return f"{name} {sheet.willpower_current}/{sheet.willpower}"
    value = sheet.rating(code)
    return f"{name} {'—' if value is None else value}"


_REJECTIONS: dict[ErrorCode, LazyProxy] = {
    ErrorCode.RANGE: __("the value is out of range"),
    ErrorCode.NOT_ALLOWED: __("not on this game's sheet"),
    ErrorCode.QUINT_LIMIT: __("Quintessence and Paradox do not fit the wheel"),
    # §C.11: the wheel refuses Quintessence in the boxes Paradox holds.
    ErrorCode.STATE: __("Quintessence and Paradox do not fit the wheel"),
}


def block_error_text(error: BlockError, lang: Lang, system: SheetSystem) -> str:
    """One refused line of a paste or of ``/set``, with the candidates or the reason."""
    word = echoed(error.text)
    if error.problem in (BlockProblem.UNKNOWN_NAME, BlockProblem.AMBIGUOUS_NAME):
        names = candidates_text(error.candidates, lang, system)
        if error.problem is BlockProblem.AMBIGUOUS_NAME:
            return _("«{word}»: which one — {names}?").format(word=word, names=names)
        if names:
            return _("«{word}»: unknown trait; did you mean {names}?").format(
                word=word, names=names
            )
        return _("«{word}»: unknown trait.").format(word=word)
    if error.problem is BlockProblem.NOT_ON_SHEET:
        return _("«{word}»: this game's sheet has no {names}.").format(
            word=word, names=candidates_text(error.candidates, lang, system)
        )
    if error.problem is BlockProblem.MISSING_VALUE:
        return _("«{word}»: the value is missing.").format(word=word)
    if error.problem is BlockProblem.BAD_NUMBER:
        return _("«{word}»: the value must be a number.").format(word=word)
    code = error.error or ErrorCode.RANGE
    if code is ErrorCode.RANGE and error.candidates:
        try:
            low, high = trait_range(error.candidates[0])
        except RulesInputError:
            low = high = -1
        if high >= 0:
            return _("«{word}»: the value must be from {low} to {high}.").format(
                word=word, low=low, high=high
            )
    reason = _REJECTIONS.get(code, _REJECTIONS[ErrorCode.RANGE])
    return f"«{word}»: {reason}"


def block_errors_text(errors: Sequence[BlockError], lang: Lang, system: SheetSystem) -> str:
    lines = [_("Nothing was changed:")]
    lines.extend("• " + block_error_text(e, lang, system) for e in errors[:ERRORS_SHOWN])
    if len(errors) > ERRORS_SHOWN:
        lines.append(f"• … (+{len(errors) - ERRORS_SHOWN})")
    lines.append(set_example(d6=system is SheetSystem.D6))
    return "\n".join(lines)


def skipped_text(errors: Sequence[BlockError], lang: Lang, system: SheetSystem) -> str:
    """The lines of a paste that were not written, under what was (the rest of it stands):
    the first ones with the reason, every other one by what was typed, so the player knows
    each line to fix without a count to guess from."""
    lines = [_("Skipped:")]
    lines.extend("• " + block_error_text(e, lang, system) for e in errors[:ERRORS_SHOWN])
    typed: list[str] = []
    room = SKIPPED_MAX - sum(len(line) for line in lines)
    for error in errors[ERRORS_SHOWN:]:
        word = f"«{echoed(error.text)}»"
        room -= len(word) + 2
        typed.append(word if room > 0 else "…")
        if room <= 0:
            break
    if typed:
        lines.append("• " + _("also: {lines}").format(lines=", ".join(typed)))
    return "\n".join(lines)


SKIPPED_MAX = 3000  # under the saved sheet's lines, within Telegram's 4096


def empty_set_text(system: SheetSystem) -> str:
    return _("No traits found in that text.") + "\n" + set_example(d6=system is SheetSystem.D6)


ROSTER_PAGE = 3500  # a page's lines; the page mark and Telegram's entities fit beside them


def roster_page(
    entries: Sequence[tuple[str, Sheet]],
    lang: Lang,
    mark: str,
    npcs: Sequence[tuple[str, Sheet]] = (),
    *,
    page: int = 0,
    npc_only: bool = False,
    d6: bool = False,
) -> tuple[str, InlineKeyboardMarkup | None]:
    """Every sheet for the Storyteller: one line each, in the export's words, the players'
    first and then the NPCs' (🎭), a page at a time that fits one Telegram message, with
    «⬅»/«➡» to the others (docs/product.md §5: nothing cut off unseen)."""

    def line(mark: str, name: str, sheet: Sheet) -> str:
        traits = " · ".join(export_sheet(sheet, lang).splitlines()) or "—"
        shown = f"{mark} <b>{escape(name)}</b>: {escape(traits)}"
        # One sheet longer than a page (hundreds of d6 powers) is cut at a word.
        return shown if len(shown) <= ROSTER_PAGE else shown[:ROSTER_PAGE].rsplit(" ", 1)[0] + " …"

    lines = [line(mark, name, sheet) for name, sheet in entries]
    if not lines:
        lines.append(_("No sheets in this chat yet.") + "\n" + set_example(d6=d6))
    lines.extend(line(NPC_MARK, name, sheet) for name, sheet in npcs)
    pages: list[list[str]] = [[]]
    size = 0
    for text in lines:
        if pages[-1] and size + len(text) + 1 > ROSTER_PAGE:
            pages.append([])
            size = 0
        pages[-1].append(text)
        size += len(text) + 1
    page = min(max(page, 0), len(pages) - 1)
    text = "\n".join(pages[page])
    if len(pages) == 1:
        return text, None
    text += "\n" + _("Page {n} of {total}").format(n=page + 1, total=len(pages))
    flag = 1 if npc_only else 0
    row = []
    if page > 0:
        row.append(table_text.button("⬅ " + _("Back"), RosterCallback(p=page - 1, n=flag)))
    if page < len(pages) - 1:
        row.append(table_text.button(_("Next") + " ➡", RosterCallback(p=page + 1, n=flag)))
    return text, InlineKeyboardMarkup(inline_keyboard=[row])


def blood_other_game_text() -> str:
    return _("Only a Dark Ages vampire has a blood pool.")


def blood_usage_text() -> str:
    return _("/blood 2 — spend 2 blood points; /blood +3 — drink 3; /blood — the pool now.")


def blood_pool_text(owner: str, pool: int | None) -> str:
    if pool is None:
        return _("{name}'s sheet has no blood pool yet: /set blood 10").format(name=escape(owner))
    return "🩸 " + _("{name}'s blood pool: {n}").format(name=escape(owner), n=pool)


def blood_spent_text(owner: str, points: int, left: int) -> str:
    spent = _("{name} spends {n} blood point", "{name} spends {n} blood points", n=points)
    return (
        "🩸 "
        + spent.format(name=escape(owner), n=points)
        + " · "
        + _("left in the pool: {n}").format(n=left)
    )


def blood_gained_text(owner: str, points: int, now: int) -> str:
    drunk = _("{name} drinks {n} blood point", "{name} drinks {n} blood points", n=points)
    return (
        "🩸 "
        + drunk.format(name=escape(owner), n=points)
        + " · "
        + _("the pool now: {n}").format(n=now)
    )


def blood_refused_text(owner: str, points: int, held: int | None) -> str:
    """More than the pool holds: said with what it holds, and nothing was spent."""
    if held is None:
        return blood_pool_text(owner, None)
    return _(
        "{name} has only {held} blood in the pool, not enough to spend {n}. Nothing was spent."
    ).format(name=escape(owner), held=held, n=points)


def npc_usage_text(d6: bool = False) -> str:
    """The d6 texts call the one who runs the game «сценарист», and their sheets hold powers."""
    if d6:
        return _(
            "NPC sheets (the GM): /npc Bandit: sabre 2 strength 3 — set; /npc Bandit — show; "
            "/npc — the list."
        )
    return _(
        "NPC sheets (Storyteller): /npc Guard: dexterity 3 brawl 2 — set; /npc Guard — show; "
        "/npc — the list."
    )


def no_npc_text(name: str, d6: bool = False) -> str:
    if d6:
        text = _("There is no GM's NPC «{name}» in this chat.")
    else:
        text = _("There is no NPC «{name}» in this chat.")
    return text.format(name=escape(name)) + "\n" + npc_usage_text(d6)


def npc_saved_text(sheet: Sheet, name: str, lang: Lang, entries: Sequence[BlockEntry]) -> str:
    return NPC_MARK + " " + saved_text(sheet, name, lang, entries).removeprefix("✅ ")


def npc_only_storyteller_text(d6: bool = False) -> str:
    if d6:
        return _("Only the GM keeps NPC sheets.")
    return _("Only the Storyteller keeps NPC sheets.")


def help_line(profile: Profile) -> str:
    """One line in /help (it must stay one screen); ``/help sheet`` has the details."""
    if profile.system is GameSystem.D6:
        return "📜 " + _("/set, /sheet — character sheets: /help sheet")
    return "📜 " + _("/set dexterity 3, /sheet, /ask perc+alert 8 — character sheets: /help sheet")


def help_section(profile: Profile) -> str:
    """``/help sheet``: sheets and roll requests, in the words and examples of the chat's
    game (the d6 sheet holds powers, a weakness and luck; its texts say «сценарист»)."""
    if profile.system is GameSystem.D6:
        return "\n".join(
            [
                "<b>" + _("Character sheet") + "</b>",
                _("/set fire 2 weakness 3 luck 1 — powers, the weakness and luck dice"),
                _("/set — buttons: weakness, luck and the rest"),
                _("/sheet — your sheet; /sheet export — as text to copy"),
                _("/sheet set — paste many lines: reply to the bot's sheet message with them"),
                _("/ask strength+agility — the GM asks everyone for a roll from their sheets"),
                _("/sheet all — every player's sheet; /npc Bandit: sabre 2 — NPC sheets (the GM)"),
            ]
        )
    return "\n".join(
        [
            "<b>" + _("Character sheet") + "</b>",
            _("/set dexterity 3 brawl 2 — set traits (any case, short prefixes: /set dex 3)"),
            _("/set willpower 5/7 — Willpower: current/permanent"),
            _("/set — buttons: category, trait, value"),
            _("/sheet — your sheet; /sheet export — as text to copy"),
            _("/sheet set — paste many lines: reply to the bot's sheet message with them"),
            _("/ask perc+alert 8 — the Storyteller asks everyone for a roll from their sheets"),
            _("/sheet all — every player's sheet; /npc Guard: dex 3 — NPC sheets (Storyteller)"),
            *([blood_usage_text()] if profile.name == "dark-ages" else []),
        ]
    )


def not_storyteller_text(d6: bool = False) -> str:
    if d6:
        return _("Only the GM can see other players' sheets.")
    return _("Only the Storyteller can see other players' sheets.")


def unknown_player_text(who: str) -> str:
    return _("{who} has no sheet in this chat. Reply to their message with /sheet.").format(
        who=escape(who)
    )


def anonymous_text() -> str:
    return _("A post on behalf of the chat has no character sheet: write as yourself.")


def not_your_sheet_text() -> str:
    return _("This is not your sheet: open your own with /set.")


def sheet_usage_text(d6: bool = False) -> str:
    if d6:
        return _(
            "/sheet — your sheet; /sheet export — as text to copy; /sheet set — paste many "
            "traits; the GM: /sheet @name or /sheet as a reply."
        )
    return _(
        "/sheet — your sheet; /sheet export — as text to copy; /sheet set — paste many "
        "traits; the Storyteller: /sheet @name or /sheet as a reply."
    )


# ---------------------------------------------------------------------------------------------
# The editor: category → trait → value, in one message


_CATEGORY_TITLES: dict[Category, LazyProxy] = {
    Category.ATTRIBUTES: __("Attributes"),
    Category.ABILITIES: __("Abilities"),
    Category.SPHERES: __("Spheres"),
    Category.VIRTUES: __("Virtues"),
    Category.DISCIPLINES: __("Disciplines"),
    Category.ADVANTAGES: __("Willpower and more"),
    Category.D6: __("Weakness and luck"),
}


def category_of(code: TraitCode) -> Category:
    if isinstance(code, Attribute):
        return Category.ATTRIBUTES
    if isinstance(code, Ability):
        return Category.ABILITIES
    if isinstance(code, Sphere):
        return Category.SPHERES
    if isinstance(code, Virtue):
        return Category.VIRTUES
    if isinstance(code, Discipline):
        return Category.DISCIPLINES
    if isinstance(code, D6Field):
        return Category.D6
    return Category.ADVANTAGES


def categories(system: SheetSystem) -> list[Category]:
    found: list[Category] = []
    for code in catalogue(system):
        category = category_of(code)
        if category not in found:
            found.append(category)
    return found


def traits_in(category: Category, system: SheetSystem) -> list[TraitCode]:
    return [c for c in catalogue(system) if category_of(c) is category]


def editor_targets(category: Category, sheet: Sheet, lang: Lang) -> list[tuple[str, str]]:
    """The buttons of a category as (key, label): the traits, and in Advantages the temporary
    Willpower points (временная Сила Воли, §A.7) next to the permanent rating once it is set."""
    targets: list[tuple[str, str]] = []
    for code in traits_in(category, sheet.system):
        targets.append((code.value, display_name(code, lang, sheet.system)))
        if code is Stat.WILLPOWER and sheet.willpower is not None:
            targets.append((WP_CURRENT, _("{name} (current)").format(name=targets[-1][1])))
    return targets


def target_value(key: str, sheet: Sheet) -> int | None:
    if key == WP_CURRENT:
        return sheet.willpower_current
    return sheet.rating(trait_code(key, sheet.system))


def target_choices(key: str, sheet: Sheet) -> range:
    """The value buttons: the trait's range (at most 0–10), the current points 0–permanent."""
    if key == WP_CURRENT:
        return range(0, (sheet.willpower or 0) + 1)
    code = trait_code(key, sheet.system)
    low, high = trait_range(code, supernatural=sheet.supernatural)
    return range(low, min(high, VALUE_BUTTONS_MAX) + 1)


def target_name(key: str, sheet: Sheet, lang: Lang) -> str:
    name = trait_name(
        Stat.WILLPOWER if key == WP_CURRENT else trait_code(key, sheet.system), lang, sheet.system
    )
    return _("{name} (current)").format(name=name) if key == WP_CURRENT else name


def _button(
    text: str, flow_id: str, version: int, action: SheetAction, k: str = "", x: int = 0
) -> InlineKeyboardButton:
    data = SheetCallback(f=flow_id, v=version, a=action, k=k, x=x).pack()
    return InlineKeyboardButton(text=text, callback_data=data)


def editor_text(
    sheet: Sheet, owner: str, lang: Lang, category: Category | None, trait: str | None
) -> str:
    """The sheet as it is now, then what to choose next; ``trait`` is an editor key."""
    if trait is not None:
        current = target_value(trait, sheet)
        prompt = _("{name}: choose the value (now {value}).").format(
            name=target_name(trait, sheet, lang), value="—" if current is None else current
        )
    elif category is not None:
        prompt = _("{category}: choose a trait.").format(category=_CATEGORY_TITLES[category])
    else:
        prompt = _("Choose what to change.")
    return sheet_text(sheet, owner, lang) + "\n\n✏️ " + prompt


def editor_keyboard(
    flow_id: str,
    version: int,
    sheet: Sheet,
    lang: Lang,
    category: Category | None,
    trait: str | None,
) -> InlineKeyboardMarkup:
    rows: list[list[InlineKeyboardButton]]
    if trait is not None:
        current = target_value(trait, sheet)
        values = [
            _button(
                chosen_label(str(n), n == current), flow_id, version, SheetAction.VALUE, trait, n
            )
            for n in target_choices(trait, sheet)
        ]
        rows = render.rows(values, 6)
        rows.append([_button("⬅️ " + _("Back"), flow_id, version, SheetAction.BACK)])
    elif category is not None:
        names = [
            _button(label, flow_id, version, SheetAction.TRAIT, key)
            for key, label in editor_targets(category, sheet, lang)
        ]
        rows = render.rows(names, 3)
        rows.append([_button("⬅️ " + _("Back"), flow_id, version, SheetAction.BACK)])
    else:
        tabs = [
            _button(str(_CATEGORY_TITLES[c]), flow_id, version, SheetAction.CATEGORY, c.value)
            for c in categories(sheet.system)
        ]
        rows = render.rows(tabs, 2)
    rows.append([_button("✅ " + _("Done"), flow_id, version, SheetAction.DONE)])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def chosen_label(text: str, chosen: bool) -> str:
    return f"• {text} •" if chosen else text


def miniapp_button_text() -> str:
    return _("📜 Open the sheet")
