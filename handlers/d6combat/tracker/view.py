"""The d6 tracker on screen (docs/rules.md §D.7–§D.9): each participant's dice left and set aside,
who is up by the die-spending order, who holds, and the buttons of a step."""

from __future__ import annotations

from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import house_rules, render, table_text
from bot.i18n import drawing
from handlers.d6combat.tracker.callbacks import D6InitAction, D6InitCallback
from handlers.d6combat.tracker.flow import D6InitFlow, Panel
from rules.d6.initiative import Fighter, Round, StepKind
from rules.profiles import Profile
from table.store import Flow

Drawn = tuple[str, InlineKeyboardMarkup | None]


def _name(state: D6InitFlow, key: str) -> str:
    return escape(_label(state, key))


def _label(state: D6InitFlow, key: str) -> str:
    """A fighter's name on a button: Telegram shows a label as plain text, never escaped."""
    member = state.members.get(key)
    return member.name if member is not None else key


def _plain_name(state: D6InitFlow, key: str) -> str:
    """A name on a button: plain text, never HTML."""
    member = state.members.get(key)
    return member.name if member is not None else key


def _line(state: D6InitFlow, fighter: Fighter, up: str | None) -> str:
    key = fighter.sheet.id
    mark = "▶ " if key == up else ""
    dice = " ".join(str(d) for d in fighter.remaining) or "—"
    text = f"{mark}<b>{_name(state, key)}</b>: 🎲 {dice}"
    if fighter.aside:
        text += " · " + _("set aside: {dice}").format(dice=" ".join(map(str, fighter.aside)))
    if fighter.holding:
        text += " · ⏸ " + _("holding")
    if key in state.on_edge:
        text += " · " + _("on edge −{n}").format(n=state.on_edge[key])
    return text


def tracker_text(state: D6InitFlow) -> str:
    current = state.round
    if current is None:
        return _open_text(state)
    head = "⚔️ " + _("Round {n} · d6 initiative").format(n=current.number)
    if state.ended:
        head = "🏁 " + _("The fight is over (round {n}).").format(n=current.number)
    lines = [head]
    up = current.up.actor if current.up is not None else None
    for fighter in current.fighters:
        lines.append(_line(state, fighter, up))
    if state.ended:
        return "\n".join(lines)
    lines.append(_turn_line(state, current))
    if current.waiting_forbidden:
        lines.append(_("Nobody may hold this round (everyone waited in the last one)."))
    if state.note:
        lines.append(state.note)
    prompt = _panel_prompt(state, current)
    if prompt is not None:
        lines.append(prompt)
    return "\n".join(lines)


def _open_text(state: D6InitFlow) -> str:
    """The tracker before anyone joined (or once all left an ended fight)."""
    if state.ended:
        return _("The fight has no participants.")
    lines = ["⚔️ " + _("The fight is open; nobody is in it yet.")]
    if state.note:
        lines.append(state.note)
    lines.append(_("Players join with /init or «Join»; the GM adds NPCs: /init npc Ghoul 2 x3"))
    return "\n".join(lines)


def _turn_line(state: D6InitFlow, current: Round) -> str:
    """Who acts now, or why nobody is up."""
    if current.up is not None:
        turn = _("Now acts: {name} (die {value})").format(
            name=_name(state, current.up.actor), value=current.up.value
        )
        if current.up.coin_flip:
            turn += " · " + _("the tie was settled by a coin")
        return turn
    if any(f.holding and f.remaining for f in current.fighters):
        return _("Nobody is up: those holding may act, or start a new round.")
    return _("Every die is spent: start a new round.")


def _panel_prompt(state: D6InitFlow, current: Round) -> str | None:
    """The question the open picker asks under the tracker, if any."""
    if state.panel is Panel.GUARD:
        by = _name(state, state.guard_by) if state.guard_by is not None else None
        return "🤝 " + guard_prompt(by)
    if state.panel is Panel.GUARD_BY:
        return "🤝 " + _("Who protects a teammate? Press the name.")
    if state.panel is Panel.REMOVE:
        return "➖ " + _("Who leaves the fight? Press the name.")
    if state.panel is Panel.TARGET and current.up is not None:
        return "⚔️ " + _("Whom does {name} attack? Press the name.").format(
            name=_name(state, current.up.actor)
        )
    return None


def _button(
    flow: Flow, text: str, action: D6InitAction, x: int = 0, y: int = -1
) -> InlineKeyboardButton:
    return table_text.button(text, D6InitCallback(f=flow.id, v=flow.version, a=action, x=x, y=y))


def last_actor(state: D6InitFlow) -> str | None:
    """Who took the action a defence answers: the latest «Действовать» of the round."""
    current = state.round
    if current is None:
        return None
    return next((s.actor for s in reversed(current.log) if s.kind is StepKind.ACT), None)


def tracker_keyboard(flow: Flow, state: D6InitFlow) -> InlineKeyboardMarkup | None:
    current = state.round
    if state.ended:
        return None
    if current is None:  # the scenarist opened the fight; nobody is in it yet
        return InlineKeyboardMarkup(
            inline_keyboard=[
                [
                    _button(flow, "🎲 " + _("Join"), D6InitAction.JOIN),
                    _button(flow, "🏁 " + _("End fight"), D6InitAction.END),
                ]
            ]
        )
    if state.panel is not Panel.NONE:
        return _picker(flow, state, current)
    steps = len(current.log)
    rows: list[list[InlineKeyboardButton]] = []
    if current.up is not None:
        rows.append(_turn_row(flow, current, steps))
    second = _answer_row(flow, current, steps)
    if second:
        rows.append(second)
    rows.append(
        [
            _button(flow, "🎲 " + _("Join"), D6InitAction.JOIN),
            _button(flow, "➖ " + _("Remove"), D6InitAction.REMOVE),
        ]
    )
    rows.append(
        [
            _button(flow, "🔄 " + _("New round"), D6InitAction.NEW_ROUND, steps),
            _button(flow, "🏁 " + _("End fight"), D6InitAction.END),
        ]
    )
    return InlineKeyboardMarkup(inline_keyboard=rows)


def _turn_row(flow: Flow, current: Round, steps: int) -> list[InlineKeyboardButton]:
    """What the one who is up may do: attack (with someone to attack), act, hold back."""
    first = [_button(flow, "⚔️ " + _("Attack"), D6InitAction.ATTACK, steps)]
    if len(current.fighters) < 2:
        first = []
    first.append(_button(flow, "▶ " + _("Act"), D6InitAction.ACT, steps))
    if not current.waiting_forbidden:
        first.append(_button(flow, "⏸ " + _("Hold back"), D6InitAction.HOLD, steps))
    return first


def _answer_row(flow: Flow, current: Round, steps: int) -> list[InlineKeyboardButton]:
    """What the others may do out of turn: defend against an action, protect a teammate,
    act from hold."""
    second: list[InlineKeyboardButton] = []
    if any(s.kind is StepKind.ACT for s in current.log):
        second.append(_button(flow, "🛡 " + _("Defend"), D6InitAction.DEFEND, steps))
        if len(current.fighters) > 2:  # someone besides the attacker and the defender
            second.append(_button(flow, "🤝 " + _("Protect another"), D6InitAction.GUARD, steps))
    if any(f.holding and f.remaining for f in current.fighters):
        second.append(_button(flow, "⚡ " + _("Act from hold"), D6InitAction.CUT_IN, steps))
    return second


_NPC_PICKERS = {
    Panel.CUT_IN: D6InitAction.CUT_IN,
    Panel.DEFEND: D6InitAction.DEFEND,
    Panel.GUARD_BY: D6InitAction.GUARD_BY,
}


def _picker(flow: Flow, state: D6InitFlow, current: Round) -> InlineKeyboardMarkup:
    """An open picker: a button per fighter it may name, and «Back»."""
    steps = len(current.log)
    fighters = list(enumerate(current.fighters))
    if state.panel is Panel.REMOVE:
        buttons = [
            _button(flow, "✖ " + _plain_name(state, f.sheet.id), D6InitAction.REMOVE, steps, i)
            for i, f in fighters
        ]
        columns = 2
    elif state.panel is Panel.TARGET and current.up is not None:
        actor = current.up.actor
        buttons = [
            _button(flow, "🎯 " + _plain_name(state, f.sheet.id), D6InitAction.ATTACK, steps, i)
            for i, f in fighters
            if f.sheet.id != actor
        ]
        columns = 2
    elif state.panel is Panel.GUARD:
        attacker = last_actor(state)
        buttons = [
            _button(flow, _label(state, f.sheet.id), D6InitAction.GUARD, steps, i)
            for i, f in fighters
            if f.sheet.id != attacker
        ]
        columns = 3
    else:  # the Storyteller picks one of their NPCs with dice left
        action = _NPC_PICKERS[state.panel]
        buttons = [
            _button(flow, _label(state, f.sheet.id), action, steps, i)
            for i, f in fighters
            if state.members.get(f.sheet.id, None) is not None
            and state.members[f.sheet.id].user_id is None
            and f.remaining
        ]
        columns = 3
    picker = render.rows(buttons, columns)
    picker.append([_button(flow, "↩ " + _("Back"), D6InitAction.PANEL, 0)])
    return InlineKeyboardMarkup(inline_keyboard=picker)


# The d6 tracker's own house rules (§D.7–§D.9): preparation, a slow defence of a teammate,
# a round of waiting.
TRACKER_RULES = (
    "d6.preparation_split",
    "d6.slow_defence_of_others",
    "d6.no_weakness_penalty",
    "d6.inactivity_wound_supporting",
)


def draw(flow: Flow, state: D6InitFlow, profile: Profile) -> Drawn:
    with drawing(flow):  # the chat's shared message keeps its language (bot/i18n.py)
        text = tracker_text(state)
        tag = house_rules.house_tag(profile, dice=False, keys=TRACKER_RULES)
        if tag is not None:
            text += "\n" + escape(tag, quote=False)
        return text, tracker_keyboard(flow, state)


# ----- what a step says -------------------------------------------------------------------------


def acted_note(name: str, value: int) -> str:
    return _("{name} acts and sets aside a {value}.").format(name=escape(name), value=value)


def attack_note(name: str, target: str, value: int) -> str:
    """«⚔️ Атака» from the tracker: the attack is an action, its die set aside whatever the
    result (§D.9); the attack itself is rolled on its own message."""
    return _("{name} attacks {target} and sets aside a {value}.").format(
        name=escape(name), target=escape(target), value=value
    )


def held_note(name: str) -> str:
    return _("{name} holds their dice for later.").format(name=escape(name))


def cut_in_note(name: str, value: int) -> str:
    return _("{name} acts from hold and sets aside a {value}.").format(
        name=escape(name), value=value
    )


def defended_note(name: str, die: int, slowness: int) -> str:
    text = _("{name} defends and sets aside a {value}.").format(name=escape(name), value=die)
    if slowness:
        text += " " + _("Slow: −{n} to the defence.").format(n=slowness)
    return text


def guarded_note(name: str, protected: str, die: int, slowness: int) -> str:
    """S3 «защищать себя или товарища»: the defender sets aside their highest die; slow
    when it is below the attacker's (§D.9)."""
    text = _("{name} protects a teammate, {protected}, and sets aside a {value}.").format(
        name=escape(name), protected=escape(protected), value=die
    )
    if slowness:
        text += " " + _("Slow: −{n} to the defence.").format(n=slowness)
    return text


def slow_guard_refused_text(profile: Profile) -> str:
    """AMB-D8 with the switch off: the refusal owns up to the house rule."""
    text = refused_text("slow defence of others")
    tag = house_rules.house_tag(profile, dice=False, keys=("d6.slow_defence_of_others",))
    return text + ("\n" + tag if tag is not None else "")


def guard_prompt(by: str | None = None) -> str:
    """``by``: the NPC the Storyteller picked (escaped), None for the presser's character."""
    if by is not None:
        return _("Whom does {name} protect? Press the name.").format(name=by)
    return _("Whom does your character protect? Press the name.")


def on_edge_note(names: list[str]) -> str:
    return _("Nobody acted last round: on edge — {names}.").format(names=", ".join(names))


def removed_note(name: str) -> str:
    return _("{name} leaves the fight.").format(name=escape(name))


def joined_note(name: str, dice: int) -> str:
    return _("{name} joins the fight with {n} dice.").format(name=escape(name), n=dice)


def prepared_note(name: str, gain: int, wasted: int) -> str:
    text = _("{name} prepared: +{n} on the dice.").format(name=escape(name), n=gain)
    if wasted:
        text += " " + _("{n} lost above 6.").format(n=wasted)
    return text


# ----- refusals and help ------------------------------------------------------------------------


def usage_text() -> str:
    return _(
        "Example: /init — your Alacrity dice from the sheet (3 without one); /init 3 — three "
        "dice; /init npc Ghoul 2 x3 — three NPCs; /init prep 2 — a preparation gain of 2 "
        "on your dice"
    )


def storyteller_only_text() -> str:
    return _("Only the GM does this.")


def not_your_turn_text(name: str) -> str:
    return _("Now it is {name}'s turn; they or the GM press this.").format(name=escape(name))


def not_in_fight_text() -> str:
    return _("You are not in this fight: /init joins it.")


def changed_text() -> str:
    return _("The tracker has just changed; press again.")


def already_in_text() -> str:
    return _("You are already in this fight.")


def no_npc_dice_text(name: str) -> str:
    return _("How many dice does {name} roll? /init npc {name} 2").format(name=escape(name))


def refused_text(reason: str) -> str:
    """The rules' refusals of a step, in the table's words (§D.7–§D.9)."""
    texts = {
        "no initiative dice left": _("No initiative dice left."),
        "not this fighter's turn": _("It is not your turn."),
        "the holder's initiative is lower": _(
            "The one up has a higher die; those holding cut in only with a die as high."
        ),
        "a holder cuts in only to attack": _("Those holding cut in only to attack or defend."),
        "holding is forbidden this round": _("Nobody may hold this round."),
        "cannot defend against oneself": _("Nobody defends against their own action."),
        "one response per attack": _("One response per attack."),
        "slow defence of others": _(
            "A slow defender protects only themself here: a teammate is protected only "
            "with a die no lower than the attacker's."
        ),
        "no action to respond to": _("There is no action to respond to yet."),
        "preparation comes before the first step": _(
            "Preparation comes before anyone has acted this round."
        ),
    }
    return texts.get(reason, _("This step is not possible now."))


def no_fight_text() -> str:
    return _("No fight is running here: /init starts one.")


def help_line(_profile: object) -> str:
    return _("/init — initiative dice (Alacrity) and the round tracker; /init prep 2 — preparation")
