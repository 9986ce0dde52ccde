"""The round tracker on screen: one line per participant and the buttons of the phase."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import house_rules, render, sheet_text, table_text
from bot.i18n import drawing
from handlers.combat.tracker.callbacks import PANELS, InitAction, InitCallback, Panel
from handlers.combat.tracker.flow import InitFlow, Note, NoteKind
from rules.combat.damage import DiceTally
from rules.combat.situation import Condition
from rules.combat.tracker import Fighter, Phase, Round
from rules.d10 import D10Result
from rules.health import HealthTrack
from rules.profiles import Profile
from table.store import Flow

BASES = tuple(range(2, 12))  # the Dexterity + Wits buttons: two dots each up to five and one
NPC_BASES = tuple(range(1, 11))


def phase_name(phase: Phase) -> str:
    if phase is Phase.GATHER:
        return _("initiative")
    if phase is Phase.DECLARE:
        return _("declarations")
    if phase is Phase.RESOLVE:
        return _("actions")
    return _("round over")


def _line(
    place: str,
    fighter: Fighter,
    mark: str,
    track: HealthTrack | None,
    actions: int,
    current: Round | None = None,
) -> str:
    score = f"<b>{fighter.score}</b>"
    parts = f"{fighter.dex_wits}+🎲{fighter.die}"
    if fighter.modifier:
        parts += f"{fighter.modifier:+d}".replace("-", "−")
    line = f"{place}{mark}{escape(fighter.name)} — {score} ({parts})"
    if actions > 1:
        line += " · " + _("{n} action", "{n} actions", n=actions).format(n=actions)
    extras = [sheet_text.condition_name(c) for c in fighter.conditions]
    if current is not None:
        extras += _round_marks(current, fighter)
    if track is not None:
        tag = sheet_text.health_tag(track, vampire=fighter.vampire)
        if tag:
            extras.insert(0, tag)
    if extras:
        line += " · " + ", ".join(extras)
    return line


def _round_marks(current: Round, fighter: Fighter) -> list[str]:
    """A stun the tracker counts (§B.11: this round and the next) and a declared defence
    not yet used (§B.3 step 2)."""
    marks: list[str] = []
    if current.stunned(fighter.key) and Condition.STUNNED not in fighter.conditions:
        marks.append("💫 " + sheet_text.condition_name(Condition.STUNNED))
    if current.has_defence(fighter.key) and current.phase in (Phase.RESOLVE, Phase.DECLARE):
        marks.append("🛡 " + _("defence declared"))
    if fighter.torpor:
        marks.append(_("passed over"))
    if fighter.hastened and current.phase in (Phase.DECLARE, Phase.RESOLVE):
        marks.append("⚡ " + _("Celerity +{n}").format(n=fighter.hastened))
    return marks


def _fighter_mark(current: Round, fighter: Fighter, declared: set[str], acted: set[str]) -> str:
    """Who writes a declaration now, who acts now, and who is already done this phase."""
    actor = current.actor()
    if fighter.key == current.declarer():
        return "✍️ "
    if actor is not None and fighter.key == actor[0]:
        return "▶️ "
    if fighter.key in (declared if current.phase is Phase.DECLARE else acted):
        return "✓ "
    return ""


def _shown_actions(current: Round, fighter: Fighter, declared: set[str]) -> int:
    """The count of actions is shown once a fighter has declared them, not before."""
    if current.phase in (Phase.RESOLVE, Phase.DONE):
        return fighter.actions
    if current.phase is Phase.DECLARE and fighter.key in declared | {current.declarer()}:
        return fighter.actions
    return 1


def _fighter_lines(current: Round, tracks: Mapping[str, HealthTrack]) -> list[str]:
    acted = {key for key, _n in current.schedule[: current.step]}
    declared = set(reversed(current.order[len(current.order) - current.declared :]))
    lines: list[str] = []
    waiting: list[Fighter] = []
    place = 0
    for fighter in current.ranked():
        if fighter.waiting:
            waiting.append(fighter)
            continue
        place += 1
        mark = _fighter_mark(current, fighter, declared, acted)
        shown = _shown_actions(current, fighter, declared)
        lines.append(_line(f"{place}. ", fighter, mark, tracks.get(fighter.key), shown, current))
    for fighter in waiting:
        line = _line("⏳ ", fighter, "", tracks.get(fighter.key), 1)
        lines.append(line + " — " + _("from the next round"))
    if not current.fighters:
        lines.append(_("Nobody has rolled yet."))
    return lines


def _footer_lines(state: InitFlow) -> list[str]:
    """The last roll's note, the phase hint and what the open panel asks for."""
    lines: list[str] = []
    if state.note is not None and not state.ended:
        lines.append(note_text(state.note))
    lines.append(_phase_hint(state))
    if state.ended:
        return lines
    if state.panel is Panel.NPC:
        lines.append(
            "➕ " + _("A new NPC: choose its Dexterity + Wits. With a name: /init npc Ghoul 6 x3")
        )
    if state.pending:
        names = ", ".join(escape(name) for _uid, name in state.pending)
        lines.append(
            "⏳ "
            + _("{names}: no Dexterity + Wits on the sheet; choose it below.").format(names=names)
        )
    return lines


def tracker_text(state: InitFlow, tracks: Mapping[str, HealthTrack]) -> str:
    current = state.round
    head = "⚔️ <b>" + _("Combat") + "</b> · " + _("round {n}").format(n=current.number)
    lines = [head + " · " + phase_name(current.phase)]
    lines += _fighter_lines(current, tracks)
    lines.append("")
    lines += _footer_lines(state)
    return "\n".join(lines)


def _faces(result: D10Result) -> str:
    return render.faces_html(result) + " — " + render.successes_text(max(result.successes, 0))


def _tally(tally: DiceTally) -> str:
    faces = " ".join(
        f"<b>{f}</b>" if f >= tally.difficulty else str(f)
        for f in sorted(tally.faces, reverse=True)
    )
    return (faces or "—") + " — " + render.successes_text(tally.successes)


def note_text(note: Note) -> str:
    """What the last Interruption or stand-up rolled, and what it means for the round."""
    name = escape(note.name)
    if note.kind is NoteKind.CELERITY:
        text = "⚡ " + _("{name} spends a point of blood on Celerity: one more action.").format(
            name=name
        )
        if note.blood_left is not None:
            text += " " + _("Blood left: {n}").format(n=note.blood_left)
        return text
    if note.kind is NoteKind.INTERRUPT:
        if note.roll is None:
            head = "✋ " + _("Interruption: {name} spends a point of Willpower.").format(name=name)
            if note.willpower_left is not None:
                head += " " + _("Willpower left: {current} of {permanent}").format(
                    current=note.willpower_left[0], permanent=note.willpower_left[1]
                )
        else:
            head = "✋ " + _("Interruption: {name} rolls Willpower: {roll}").format(
                name=name, roll=_faces(note.roll)
            )
        if note.ok:
            return (
                head
                + "\n"
                + _(
                    "{name} interrupts: the declared actions are dropped for a defensive "
                    "manoeuvre now."
                ).format(name=name)
            )
        return head + "\n" + _("The interruption fails: {name} acts as declared.").format(name=name)
    assert note.roll is not None
    lines = [
        "🧍 "
        + _("Standing up: {name}, Dexterity + Athletics: {roll}").format(
            name=name, roll=_faces(note.roll)
        )
    ]
    if note.ok:
        lines.append(
            _("{name} is up at once and keeps the action, at −2 initiative.").format(name=name)
        )
        return "\n".join(lines)
    lines.append(_("{name} gets up, but it takes the whole action.").format(name=name))
    bashing = _("{n} level of bashing", "{n} levels of bashing", n=note.levels)
    damage = bashing.format(n=note.levels)
    if note.bashing and note.soak is None:
        lines.append(
            "💥 "
            + _("A botch: {name} takes {damage}, not soaked.").format(name=name, damage=damage)
        )
    elif note.bashing and note.soak is not None:
        lines.append(
            "💥 " + _("A botch: a level of bashing; soak: {roll}").format(roll=_tally(note.soak))
        )
        if note.levels:
            lines.append(_("{name} takes {damage}.").format(name=name, damage=damage))
        else:
            lines.append("🛡 " + _("The damage is fully soaked."))
    return "\n".join(lines)


def _name(current: Round, key: str | None) -> str:
    fighter = current.fighter(key) if key is not None else None
    return escape(fighter.name) if fighter is not None else "?"


def _phase_hint(state: InitFlow) -> str:
    current = state.round
    if state.ended:
        return "⏹ " + _("The fight is over.")
    if current.phase is Phase.GATHER:
        return _(
            "Roll initiative: /init or the button (Dexterity + Wits + 1d10). "
            "The Storyteller starts the declarations."
        )
    if current.phase is Phase.DECLARE:
        return (
            "✍️ "
            + _(
                "{name} declares (lowest initiative first). Willpower and Quintessence "
                "are declared before any roll."
            ).format(name=_name(current, current.declarer()))
            + "\n🛡 "
            + _(
                "A dodge or a block is declared with «🛡 Defence»; one not declared takes an "
                "Interruption when the attack comes."
            )
        )
    actor = current.actor()
    if actor is not None:
        key, number = actor
        text = "▶️ " + _("{name} acts.").format(name=_name(current, key))
        if current.hastened_action(actor):
            text += " ⚡ " + _("An extra action of Celerity, its pool whole.")
        elif number > 1:
            text += " " + _("Action {n}.").format(n=number)
        return text
    return "🏁 " + _("The round is over: a new round, or the end of the fight.")


def draw(
    flow: Flow, state: InitFlow, profile: Profile | None = None
) -> tuple[str, InlineKeyboardMarkup | None]:
    with drawing(flow):  # the chat's shared message keeps its language (bot/i18n.py)
        text = tracker_text(state, state.health)
        spend = profile.combat.interruption_by_wp_spend if profile is not None else True
        if state.panel is Panel.INTERRUPT and not state.ended:
            difficulty = profile.combat.interruption_difficulty if profile is not None else 6
            text += "\n" + interrupt_hint(difficulty, spend=spend)
        if state.panel is Panel.AMBUSH and not state.ended:
            text += "\n" + ambush_hint()
        tag = (
            house_rules.house_tag(profile, house_rules.Group.COMBAT, dice=False)
            if profile
            else None
        )
        if tag is not None:  # the fight's own house rules (ties, wounds on initiative, …)
            text += "\n" + escape(tag, quote=False)
        if state.ended:
            return text, None
        return text, keyboard(flow.id, flow.version, state, spend=spend)


def ambush_hint() -> str:
    """§B.7: whom the presser's character ambushes; the Storyteller's NPCs by command."""
    return "🥷 " + _(
        "Ambush before the fight: press the victim, and your character rolls Dexterity + "
        "Stealth against their Perception + Alertness. The Storyteller for an NPC: /ambush "
        "NPC VICTIM."
    )


def interrupt_hint(difficulty: int, *, spend: bool) -> str:
    """S4 «Прерывание - отмена не разыгранных действий в обмен на любой защитный манёвр
    (бросок Силы Воли или трата 1 Силы Воли)», with the table's difficulty (AMB-B4)."""
    if spend:
        return "✋ " + _(
            "Interruption: whoever has not acted yet drops their declared actions for a "
            "defensive manoeuvre now. A Willpower roll at difficulty {d} (one success is "
            "enough) or a point of Willpower spent."
        ).format(d=difficulty)
    return "✋ " + _(
        "Interruption: whoever has not acted yet drops their declared actions for a "
        "defensive manoeuvre now. Only by a Willpower roll at difficulty {d} (one success "
        "is enough)."
    ).format(d=difficulty)


_Button = Callable[..., InlineKeyboardButton]


def _condition_rows(state: InitFlow, button: _Button) -> list[list[InlineKeyboardButton]]:
    """First whom to mark, then that fighter's conditions to toggle."""
    current = state.round
    picked = current.fighter(state.picked) if state.picked is not None else None
    if picked is None:
        return render.rows(
            [button(f.name, InitAction.PICK, i) for i, f in enumerate(current.fighters)], 3
        )
    return render.rows(
        [
            button(
                render.marked(
                    f"{picked.name}: {sheet_text.condition_name(c)}", c in picked.conditions
                ),
                InitAction.CONDITION,
                i,
            )
            for i, c in enumerate(Condition)
        ],
        2,
    )


def _interrupt_rows(
    current: Round, button: _Button, spend: bool
) -> list[list[InlineKeyboardButton]]:
    rows: list[list[InlineKeyboardButton]] = []
    for i, f in enumerate(current.fighters):
        if not current.can_interrupt(f.key):
            continue
        row = [
            button(
                "🎲 " + _("{name}: Willpower roll").format(name=f.name),
                InitAction.INTERRUPT,
                i,
            )
        ]
        if spend:
            row.append(
                button(
                    "✨ " + _("{name}: −1 Willpower").format(name=f.name),
                    InitAction.INTERRUPT_SPEND,
                    i,
                )
            )
        rows.append(row)
    return rows


def _panel_rows(state: InitFlow, button: _Button, spend: bool) -> list[list[InlineKeyboardButton]]:
    """The buttons of the open panel, if any."""
    current = state.round
    if state.panel is Panel.NPC:
        return render.rows([button(str(n), InitAction.NPC_ADD, n) for n in NPC_BASES], 5)
    if state.panel is Panel.REMOVE:
        return render.rows(
            [button("✖ " + f.name, InitAction.REMOVE, i) for i, f in enumerate(current.fighters)],
            2,
        )
    if state.panel is Panel.CONDITIONS:
        return _condition_rows(state, button)
    if state.panel is Panel.INTERRUPT:
        return _interrupt_rows(current, button, spend)
    if state.panel is Panel.AMBUSH:
        victims = [
            button("🥷 " + f.name, InitAction.AMBUSH, i) for i, f in enumerate(current.fighters)
        ]
        return render.rows(victims, 2)
    return []


def _resolve_rows(current: Round, button: _Button) -> list[list[InlineKeyboardButton]]:
    """Attack, next and delay for whoever acts; stand up and interruption when they apply."""
    row = [button("⏭ " + _("Next"), InitAction.NEXT, current.step)]
    row.insert(0, button("⚔️ " + _("Attack"), InitAction.ATTACK, current.step))
    if current.can_delay():
        row.append(button("⏸ " + _("Delay"), InitAction.DELAY, current.step))
    rows = [row]
    more: list[InlineKeyboardButton] = []
    actor = current.actor()
    acting = current.fighter(actor[0]) if actor is not None else None
    if acting is not None and Condition.PRONE in acting.conditions:
        more.append(button("🧍 " + _("Stand up"), InitAction.STAND_UP, current.step))
    if any(current.can_interrupt(f.key) for f in current.fighters):
        more.append(
            button("✋ " + _("Interruption"), InitAction.PANEL, PANELS.index(Panel.INTERRUPT))
        )
    if more:
        rows.append(more)
    return rows


def _phase_rows(current: Round, button: _Button) -> list[list[InlineKeyboardButton]]:
    if current.phase is Phase.GATHER:
        return [
            [button("🎲 " + _("Roll initiative"), InitAction.ROLL)],
            [button("▶️ " + _("Declarations"), InitAction.START, 0)],
            [button("🥷 " + _("Ambush"), InitAction.PANEL, PANELS.index(Panel.AMBUSH))],
        ]
    if current.phase is Phase.DECLARE:
        rows = [
            [
                button("✅ " + _("Declared"), InitAction.DECLARED, current.declared),
                button("🛡 " + _("Defence"), InitAction.DECLARED_DEFENCE, current.declared),
                button("➕ " + _("One more action"), InitAction.MORE, current.declared),
            ]
        ]
        key = current.declarer()
        declarer = current.fighter(key) if key is not None else None
        if declarer is not None and declarer.celerity > declarer.hastened:
            label = "⚡ " + _("Celerity: +1 action for 1 blood")
            rows.append([button(label, InitAction.HASTEN, current.declared)])
        return rows
    if current.phase is Phase.RESOLVE:
        return _resolve_rows(current, button)
    return [[button("🔄 " + _("New round"), InitAction.NEW_ROUND, current.number)]]


def keyboard(
    flow_id: str, version: int, state: InitFlow, *, spend: bool = True
) -> InlineKeyboardMarkup:
    def button(text: str, action: InitAction, x: int = 0) -> InlineKeyboardButton:
        return table_text.button(text, InitCallback(f=flow_id, v=version, a=action, x=x))

    current = state.round
    rows: list[list[InlineKeyboardButton]] = []
    if state.pending:
        rows += render.rows([button(str(n), InitAction.BASE, n) for n in BASES], 5)
    rows += _panel_rows(state, button, spend)
    if state.panel is not Panel.NONE:
        rows.append([button("↩ " + _("Back"), InitAction.PANEL, 0)])
        return InlineKeyboardMarkup(inline_keyboard=rows)
    rows += _phase_rows(current, button)
    if current.phase is not Phase.GATHER:
        rows.append([button("🎲 " + _("Roll initiative"), InitAction.ROLL)])
    rows.append(
        [
            button("➕ " + _("NPC"), InitAction.PANEL, PANELS.index(Panel.NPC)),
            button("➖ " + _("Remove"), InitAction.PANEL, PANELS.index(Panel.REMOVE)),
            button("⚠️ " + _("Conditions"), InitAction.PANEL, PANELS.index(Panel.CONDITIONS)),
        ]
    )
    rows.append([button("⏹ " + _("End the fight"), InitAction.END)])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def npc_name(n: int) -> str:
    return _("NPC {n}").format(n=n)


def choose_base_text() -> str:
    return _("Choose your Dexterity + Wits below.")


def press_roll_first_text() -> str:
    return _("Press «Roll initiative» first.")


def joined_late_text() -> str:
    return _("You join from the next round: this one's order is already set.")


def already_in_text() -> str:
    return _("You are already in this fight.")


def storyteller_only_text() -> str:
    return _("Only the Storyteller does this.")


def no_celerity_text(name: str) -> str:
    return _("{name} has no Celerity on the sheet.").format(name=escape(name))


def no_blood_text(name: str) -> str:
    return _("{name} has no blood left for Celerity.").format(name=escape(name))


def celerity_dots_text(name: str, dots: int) -> str:
    return _("{name}: Celerity {n} gives at most {n} extra actions a turn.").format(
        name=escape(name), n=dots
    )


def celerity_turn_limit_text(name: str, limit: int) -> str:
    return _(
        "{name}: the Generation lets a turn spend at most {n} blood, Celerity included."
    ).format(name=escape(name), n=limit)


def willpower_spent_text(name: str) -> str:
    return _("{name} has already spent Willpower this turn: a point only once a turn.").format(
        name=escape(name)
    )


def cannot_interrupt_text(name: str) -> str:
    return _(
        "{name} cannot interrupt now: only someone who has not acted yet this turn, while "
        "another acts."
    ).format(name=escape(name))


def no_willpower_rating_text(name: str) -> str:
    return _("{name} has no Willpower on the sheet: there is nothing to roll.").format(
        name=escape(name)
    )


def no_interrupt_spend_text() -> str:
    return _("At this table an interruption takes a Willpower roll: spending a point is off.")


def cannot_stand_text(name: str) -> str:
    return _("{name} has no Dexterity + Athletics dice: no getting up at once.").format(
        name=escape(name)
    )


def not_your_turn_text(name: str) -> str:
    return _("Now it is {name}'s turn; they or the Storyteller press this.").format(
        name=escape(name)
    )


def no_base_text() -> str:
    return _(
        "Your sheet has no Dexterity and Wits. Type /init 7 with their sum, or press "
        "«Roll initiative» and choose it."
    )


def no_sheet_base_text() -> str:
    return _(
        "Your sheet has no Dexterity and Wits. Type their sum, /init 7, or fill them in: "
        "/set dexterity 3 wits 2."
    )


def no_npc_base_text(name: str) -> str:
    return _(
        "{name} has no Dexterity and Wits on a sheet: type the sum, /init npc {name} 6"
    ).format(name=sheet_text.echoed(name))


def too_many_text() -> str:
    return _("The tracker is full: remove someone first.")


def nobody_text() -> str:
    return _("Nobody has rolled initiative yet.")


def no_delay_text() -> str:
    return _("Nobody acts after this in the pass: there is nothing to delay for.")


def too_many_actions_text() -> str:
    return _("Five actions is the limit.")


def changed_text() -> str:
    return _("The tracker has just changed; press again.")


def usage_text() -> str:
    return _(
        "Example: /init — from your sheet; /init 7 — Dexterity + Wits 7; "
        "/init npc Ghoul 6 x3 — three NPCs"
    )


def d10_only_text() -> str:
    return _("This initiative tracker is for the d10 games; the d6 game counts its dice itself.")


def help_line(profile: Profile) -> str:
    return _("/init initiative and the round tracker")
