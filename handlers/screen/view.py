"""The Storyteller's screen (ширма) as one message per campaign: every character's line, the
fight's NPCs and turn, and the buttons of the open panel (docs/product.md §2b)."""

from __future__ import annotations

from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import render, sheet_text
from handlers.screen.callbacks import ScreenAction, ScreenCallback
from handlers.screen.flow import Did, Panel, ScreenFlow
from handlers.screen.table import Campaign, Character, Fight
from rules.actions import PoolStatus
from rules.combat.tracker import Phase
from rules.health import DamageType
from rules.profiles import GameSystem, Profile
from rules.sheet import Ability, Attribute, SheetSystem, Stat, TraitCode, system_of
from table.store import Flow
from table.traits import display_name

# The pools a secret roll offers in one tap: the ones a Storyteller asks for most.
POOLS: tuple[tuple[TraitCode, ...], ...] = (
    (Attribute.PERCEPTION, Ability.ALERTNESS),
    (Attribute.WITS, Ability.ALERTNESS),
    (Attribute.PERCEPTION, Ability.AWARENESS),
    (Attribute.DEXTERITY, Ability.STEALTH),
    (Attribute.DEXTERITY, Ability.BRAWL),
    (Attribute.DEXTERITY, Ability.MELEE),
    (Attribute.MANIPULATION, Ability.SUBTERFUGE),
    (Attribute.INTELLIGENCE, Ability.INVESTIGATION),
    (Stat.WILLPOWER,),
)
DIFFICULTIES = (4, 5, 6, 7, 8, 9)


def pool_traits(index: int) -> str:
    """The pool as the sheet's trait names are typed (``rolling.resolve_pool`` reads it)."""
    return "+".join(code.value for code in POOLS[index])


def pool_label(index: int, lang: str, system: SheetSystem) -> str:
    return "+".join(
        display_name(code, "en" if lang == "en" else "ru", system) for code in POOLS[index]
    )


def damage_word(kind: DamageType) -> str:
    if kind is DamageType.BASHING:
        return _("bashing")
    if kind is DamageType.LETHAL:
        return _("lethal")
    return _("aggravated")


def character_line(character: Character, profile: Profile) -> str:
    """«Аня — 🩸 Задета, −1 [X] · СВ 5/7 · Квинтэссенция 3, Парадокс 1 · оглушена»."""
    sheet = character.sheet
    bits: list[str] = []
    track = sheet.health if sheet is not None else character.health
    if track is not None:
        bits.append(sheet_text.health_tag(track) or "💚 " + _("unhurt"))
    if sheet is not None:
        if sheet.willpower is not None:
            now = sheet.willpower_current if sheet.willpower_current is not None else "?"
            bits.append(_("WP {now}/{of}").format(now=now, of=sheet.willpower))
        if sheet.arete is not None or sheet.quintessence or sheet.paradox:
            bits.append(_("Q {q} · P {p}").format(q=sheet.quintessence, p=sheet.paradox))
        if sheet.blood is not None:
            bits.append(_("blood {n}").format(n=sheet.blood))
        if sheet.luck:
            bits.append(_("luck {n}").format(n=sheet.luck))
        if sheet.wounds:
            bits.append(_("wounds: {n}").format(n=len(sheet.wounds)))
        bits += [sheet_text.condition_name(c) for c in sheet.conditions]
    else:
        bits.append(_("no sheet"))
    if character.stunned:
        bits.append("💫 " + _("stunned"))
    return f"<b>{escape(character.name)}</b> — " + " · ".join(bits)


def fight_line(fight: Fight) -> str:
    line = "⚔️ " + _("Fight: round {n}").format(n=fight.number)
    if fight.phase is Phase.GATHER:
        line += " · " + _("gathering")
    elif fight.turn is not None:
        if fight.phase is Phase.DECLARE:
            line += " · " + _("declares: {name}").format(name=escape(fight.turn))
        else:
            line += " · " + _("acts: {name}").format(name=escape(fight.turn))
    return line


def did_line(state: ScreenFlow, lang: str, system: SheetSystem) -> str | None:
    if state.did is None:
        return None
    who = escape(state.did_to or "?")
    if state.did is Did.DAMAGE:
        try:
            kind = DamageType(state.did_what or "")
        except ValueError:
            return None
        return "✅ " + _("{name}: +1 {kind} level").format(name=who, kind=damage_word(kind))
    if state.did is Did.HEAL:
        return "✅ " + _("{name}: one level healed").format(name=who)
    if state.did is Did.WILLPOWER:
        return "✅ " + _("{name}: a Willpower point spent").format(name=who)
    if state.did is Did.QUINTESSENCE:
        return "✅ " + _("{name}: a point of Quintessence spent").format(name=who)
    if state.did is Did.BLOOD:
        return "✅ " + _("{name}: a blood point spent").format(name=who)
    if state.did is Did.REQUEST:
        return None  # the request's own line tells it
    return "🤫 " + _(
        "{name}: a secret roll; the result is below, the commitment in the group"
    ).format(name=who)


def requested_line(state: ScreenFlow, campaign: Campaign, lang: str) -> str | None:
    """«📣 Аня: Восприятие+Бдительность, сложность 6 — ждём броска», then its result."""
    requested = campaign.requested
    if requested is None or state.request_pool is None or state.request_difficulty is None:
        return None
    if not 0 <= state.request_pool < len(POOLS):
        return None
    label = pool_label(state.request_pool, lang, _system(campaign.profile))
    line = "📣 " + _("{name}: {pool}, difficulty {difficulty}").format(
        name=escape(requested.name), pool=escape(label), difficulty=state.request_difficulty
    )
    answer = requested.answer
    if answer is None:
        waiting = _("the request is closed") if requested.closed else _("waiting for the roll")
        return f"{line} — {waiting}"
    if answer.result is None:
        if answer.status is PoolStatus.AUTO_FAILURE:
            return f"{line} — <b>" + _("Failure") + "</b> — " + _("0 in the Ability")
        return f"{line} — " + _("no roll: the pool is empty")
    result = answer.result
    outcome = f"<b>{render.outcome_label(result.outcome)}</b>"
    if result.successes:
        outcome += ": " + render.successes_text(result.successes)
    return f"{line}: {render.faces_html(result)} — {outcome}"


def screen_text(state: ScreenFlow, campaign: Campaign, lang: str) -> str:
    profile = campaign.profile
    lines = ["🎭 <b>" + _("Screen: {title}").format(title=escape(campaign.title)) + "</b>"]
    if campaign.fight is not None:
        lines.append(fight_line(campaign.fight))
    lines.append("")
    if campaign.players:
        lines += [character_line(c, profile) for c in campaign.players]
    else:
        lines.append(_("No player has a sheet in this campaign yet."))
    if campaign.npcs:
        lines += ["", "<b>" + _("NPCs of the fight") + "</b>"]
        lines += [character_line(c, profile) for c in campaign.npcs]
    target = campaign.find(state.target)
    if state.panel is not Panel.MAIN and target is not None:
        lines += ["", "👉 <b>" + escape(target.name) + "</b>"]
        asking = panel_question(state, lang, profile)
        if asking:
            lines.append(asking)
    done = [
        line
        for line in (did_line(state, lang, _system(profile)), requested_line(state, campaign, lang))
        if line
    ]
    if done:
        lines += ["", *done]
    return "\n".join(lines)


def panel_question(state: ScreenFlow, lang: str, profile: Profile) -> str | None:
    """What the open pool or difficulty panel asks: of a secret roll, or of a request."""
    if state.panel is Panel.POOL:
        return (
            _("A roll asked in the group: which pool?")
            if state.asking
            else _("A secret roll: which pool?")
        )
    if state.panel is not Panel.DIFFICULTY or state.pool is None:
        return None
    label = escape(pool_label(state.pool, lang, _system(profile)))
    if state.asking:
        return _("A roll of {pool} asked in the group: which difficulty?").format(pool=label)
    return _("A secret roll of {pool}: which difficulty?").format(pool=label)


def _system(profile: Profile) -> SheetSystem:
    return system_of(profile)


def _button(text: str, flow: Flow, action: ScreenAction, index: int = 0) -> InlineKeyboardButton:
    data = ScreenCallback(f=flow.id, v=flow.version, a=action, i=index).pack()
    return InlineKeyboardButton(text=text, callback_data=data)


def _rows(buttons: list[InlineKeyboardButton], width: int) -> list[list[InlineKeyboardButton]]:
    return [buttons[i : i + width] for i in range(0, len(buttons), width)]


def screen_keyboard(
    flow: Flow, state: ScreenFlow, campaign: Campaign, lang: str
) -> InlineKeyboardMarkup:
    refresh = _button("🔄 " + _("Refresh"), flow, ScreenAction.REFRESH)
    back = _button("⬅ " + _("Back"), flow, ScreenAction.BACK)
    target = campaign.find(state.target)
    if state.panel is Panel.MAIN or target is None:
        people = []
        for i, key in enumerate(state.roster):
            found = campaign.find(key)
            if found is not None:
                mark = "👤 " if found.npc is None else "👹 "
                people.append(_button(mark + found.name, flow, ScreenAction.CHOOSE, i))
        return InlineKeyboardMarkup(inline_keyboard=[*_rows(people, 2), [refresh]])
    if state.panel is Panel.POOL:
        system = _system(campaign.profile)
        pools = [
            _button(pool_label(i, lang, system), flow, ScreenAction.POOL, i)
            for i in range(len(POOLS))
        ]
        return InlineKeyboardMarkup(inline_keyboard=[*_rows(pools, 2), [back]])
    if state.panel is Panel.DIFFICULTY:
        row = [
            _button(str(d), flow, ScreenAction.DIFFICULTY, i) for i, d in enumerate(DIFFICULTIES)
        ]
        return InlineKeyboardMarkup(inline_keyboard=[row, [back]])
    rows = [
        [
            _button("+" + damage_word(DamageType.BASHING), flow, ScreenAction.BASHING),
            _button("+" + damage_word(DamageType.LETHAL), flow, ScreenAction.LETHAL),
            _button("+" + damage_word(DamageType.AGGRAVATED), flow, ScreenAction.AGGRAVATED),
        ]
    ]
    spends = [_button("💚 " + _("Heal 1"), flow, ScreenAction.HEAL)]
    sheet = target.working
    if sheet is not None and sheet.willpower is not None:
        spends.append(_button(_("WP −1"), flow, ScreenAction.WILLPOWER))
    if sheet is not None and (sheet.arete is not None or sheet.quintessence):
        spends.append(_button(_("Q −1"), flow, ScreenAction.QUINTESSENCE))
    if sheet is not None and sheet.blood is not None:
        spends.append(_button(_("blood −1"), flow, ScreenAction.BLOOD))
    rows.append(spends)
    rolls = [_button("🤫 " + _("Secret roll"), flow, ScreenAction.SECRET)]
    if target.user_id is not None and campaign.profile.system is GameSystem.D10:
        rolls.append(_button("📣 " + _("Ask for a roll"), flow, ScreenAction.REQUEST))
    rows.append(rolls)
    rows.append([back, refresh])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def draw(
    flow: Flow, state: ScreenFlow, campaign: Campaign, lang: str
) -> tuple[str, InlineKeyboardMarkup | None]:
    return screen_text(state, campaign, lang), screen_keyboard(flow, state, campaign, lang)


def told_damage_text(kind: DamageType) -> str:
    return _("The Storyteller marked one {kind} level on your health.").format(
        kind=damage_word(kind)
    )


def event_damage_text(kind: DamageType) -> str:
    return _("+1 {kind} level").format(kind=damage_word(kind))


def told_heal_text() -> str:
    return _("The Storyteller healed one level of your health.")


def event_heal_text() -> str:
    return _("one level healed")


def told_spend_text(did: Did) -> str:
    if did is Did.WILLPOWER:
        return _("The Storyteller spent a Willpower point of yours.")
    if did is Did.QUINTESSENCE:
        return _("The Storyteller spent a point of your Quintessence.")
    return _("The Storyteller spent a point of your blood.")


def event_spend_text(did: Did) -> str:
    if did is Did.WILLPOWER:
        return _("a Willpower point spent")
    if did is Did.QUINTESSENCE:
        return _("a point of Quintessence spent")
    return _("a blood point spent")


def no_campaign_text() -> str:
    return _(
        "You run no campaign yet. In a group, an administrator becomes its Storyteller with "
        "/st; then /screen here shows it."
    )


def private_only_text() -> str:
    return _("The screen is the Storyteller's alone: send /screen in your private chat with me.")


def not_storyteller_text() -> str:
    return _("You no longer run this campaign.")


def gone_text() -> str:
    return _("This character is no longer in the campaign: the screen is redrawn.")


def refreshed_text() -> str:
    return _("Redrawn.")


def only_players_asked_text() -> str:
    return _("A roll is asked of a player's character; roll for an NPC in secret.")


def requested_text() -> str:
    return _("Asked in the group: the result shows here once the player rolls.")


def refused_text() -> str:
    return _("Not possible now: the sheet does not have it.")


def help_line(profile: Profile) -> str:
    return _("/screen — the Storyteller's screen (private chat); /notify off — no private notices")


def d6_help_line(profile: Profile) -> str:
    return _("/screen — the GM's screen (private chat); /notify off — no private notices")
