"""A d6 attack on screen (docs/rules.md §D.9–§D.11): the attack, each response and the armour with
their faces, then the gain, the defenders' advantages, and the choices for the gain."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import house_rules, render, table_text
from handlers.d6combat.attack.callbacks import AttackAction, D6AttackCallback, GainChoice, ShareUse
from handlers.d6combat.attack.flow import ALLY, DEFENDERS_MAX, D6AttackFlow, Roll, Share
from rules.d6.chance import options as d6_options
from rules.d6.combat import GainUse, Manoeuvre, durability_loss
from rules.d6.roll import MEASURE_FACE, EffortFuel
from rules.profiles import Profile
from table.store import Flow

CHANCES = range(1, 7)
FROM_SHEET = 0  # «🛡 Защита»: the defender's chance from their sheet and the tracker
RESOLVE_INTO_WOUND = 1  # «Итог» that puts a hit's whole gain into a physical wound
# The special effort's prices as button numbers (§D.4).
EFFORT_PRICES: dict[int, EffortFuel] = {
    1: EffortFuel.PHYSICAL,
    2: EffortFuel.MENTAL,
    3: EffortFuel.MEMORY,
}


def effort_offered(roll: Roll, profile: Profile | None = None) -> bool:
    """§D.4: once per action, after dice were rolled, and only while a die shows no measure
    unless the chat allows an effort that rerolls nothing (AMB-D14)."""
    result = roll.result
    if result is None or result.special_effort or result.armour or not result.faces:
        return False
    to_reroll = any(f < MEASURE_FACE for f in result.faces)
    return to_reroll or d6_options(profile).special_effort_noop_allowed


def _effort_price(fuel: EffortFuel) -> str:
    if fuel is EffortFuel.PHYSICAL:
        return _("a physical wound 1")
    if fuel is EffortFuel.MENTAL:
        return _("a mental wound 3")
    return _("a memory")


def _effort_line(roll: Roll) -> str:
    if roll.effort is None:
        return ""
    if roll.effort is EffortFuel.PHYSICAL:
        head = _("Special effort for a physical wound 1")
    elif roll.effort is EffortFuel.MENTAL:
        head = _("Special effort for a mental wound 3")
    else:
        head = _("Special effort for a memory")
    if not roll.rerolled:
        return "\n💪 " + head + " · " + _("nothing to reroll: the price is paid, the dice stay")
    return "\n💪 " + head + " · " + _("dice rerolled: {n}").format(n=roll.rerolled)


def effort_refused_text() -> str:
    return _("No special effort here: it is made once per action, and only after a roll of dice.")


def _faces(roll: Roll) -> str:
    return " ".join(
        f"<b>{f}</b>" if f >= MEASURE_FACE else str(f) for f in sorted(roll.faces, reverse=True)
    )


def _measures(n: int) -> str:
    return _("{n} measure", "{n} measures", n=n).format(n=n)


def manoeuvre_name(manoeuvre: Manoeuvre) -> str:
    if manoeuvre is Manoeuvre.DIFFICULTY:
        return _("a manoeuvre for a difficulty")
    return _("a manoeuvre for an advantage")


def attack_text(state: D6AttackFlow) -> str:
    head = "🗡 " + _("{name} attacks").format(name=escape(state.attack.name))
    if state.target_name:
        head += " → " + escape(state.target_name)
    if state.manoeuvre is not None:
        head += " (" + manoeuvre_name(state.manoeuvre) + ")"
    if state.auto is not None:
        lines = [head, state.auto]
    else:
        lines = [
            head,
            f"{state.label}: {_faces(state.attack)} — {_measures(state.attack.measures)}"
            + _effort_line(state.attack),
        ]
    for d in state.defences:
        lines.append(
            "🛡 "
            + _("{name} defends").format(name=escape(d.name))
            + (f" ({d.label})" if d.label else "")
            + f": {_faces(d)} — {_measures(d.measures)}"
            + _effort_line(d)
        )
    if state.armour is not None:
        lines.append(
            "🪖 " + _("Armour") + f": {_faces(state.armour)} — {_measures(state.armour.measures)}"
        )
    outcome = state.outcome
    if outcome is None:
        lines.append(
            _("Defenders press their chance; the armour's roll after or instead; then «Result».")
        )
        return "\n".join(lines)
    if outcome.fiasco:
        lines.append("💥 " + _("Fiasco: the attack brings a complication."))
    elif outcome.hit:
        lines.append("⚔️ " + _("Hit: gain {n}.").format(n=outcome.gain))
    else:
        lines.append(_("No wound: the defence and the armour took it all (no fiasco)."))
    names = {d.key: d.name for d in state.defences}
    for key in outcome.defender_fiascoes:
        lines.append(
            "💥 "
            + _("{name}: the defence is a fiasco, it brings a complication.").format(
                name=escape(names.get(key, key))
            )
        )
    for key, advantage in outcome.defender_advantages.items():
        lines.append(
            _("{name} gains +{n} for the next action against the attacker.").format(
                name=escape(names.get(key, key)), n=advantage.magnitude
            )
        )
    if state.spent is not None:
        lines.append(spent_text(state))
    elif state.splitting:
        left = outcome.gain - len(state.split)
        lines.append(
            _("The gain is shared out, a measure a tap: {n} left.").format(n=left)
            + (" " + _("So far: {list}.").format(list=split_list(state)) if state.split else "")
        )
    elif outcome.hit:
        lines.append(_("The attacker spends the gain:"))
    return "\n".join(lines)


def spent_text(state: D6AttackFlow) -> str:
    assert state.outcome is not None
    gain = state.outcome.gain
    whom = escape(state.target_name or _("the target"))
    if state.spent == GainChoice.PHYSICAL:
        return _("All into wounds: {whom} takes a physical wound {n}.").format(whom=whom, n=gain)
    if state.spent == GainChoice.MENTAL:
        return _("All into wounds: {whom} takes a mental wound {n}.").format(whom=whom, n=gain)
    if state.spent == GainChoice.SHOVE:
        text = _("A shove: {whom} is knocked down (−1 until they get up).").format(whom=whom)
        if gain > 1:
            text += " " + _("Bruises: a physical wound {n}.").format(n=gain - 1)
        return text
    if state.spent == GainChoice.GRAPPLE:
        hold = max(1, state.hold)
        if hold == 1:
            text = _("A grapple: {whom} is held (−1 while held).").format(whom=whom)
        else:
            text = _("A grapple: {whom} is held (−{n} while held).").format(whom=whom, n=hold)
        if gain > hold:
            text += " " + _("Wounds: a physical wound {n}.").format(n=gain - hold)
        return text
    if state.spent == GainChoice.TAKE:
        return _("The item is taken from {whom}.").format(whom=whom)
    if state.spent == GainChoice.BREAK:
        loss = durability_loss(gain, state.threshold)
        return _(
            "Smash and break: an item of durability threshold {t} loses {n} of its durability."
        ).format(t=state.threshold, n=loss)
    if state.spent == GainChoice.SPLIT:
        return _("The gain shared out: {list}.").format(list=split_list(state))
    if state.spent == GainChoice.POISON:
        return _(
            "Poison: {whom} takes a physical wound {n}, and the poison is in the blood "
            "(the GM says what it does)."
        ).format(whom=whom, n=state.poison or gain)
    if state.manoeuvre is Manoeuvre.DIFFICULTY:
        return _("A cunning trick: {whom} gets a difficulty −{n}.").format(whom=whom, n=gain)
    return _("A cunning trick: an advantage +{n} for the attacker or an ally.").format(n=gain)


def _share_words(use: GainUse, n: int) -> str:
    if use is GainUse.PHYSICAL_WOUND:
        return _("a physical wound {n}").format(n=n)
    if use is GainUse.MENTAL_WOUND:
        return _("a mental wound {n}").format(n=n)
    if use is GainUse.DIFFICULTY:
        return _("a difficulty −{n}").format(n=n)
    return _("an advantage +{n} for the attacker or an ally").format(n=n)


def split_list(state: D6AttackFlow) -> str:
    """The split so far, foe by foe in the order of :meth:`D6AttackFlow.foes`: «Boris — a
    physical wound 2 and a mental wound 1; Vera — a difficulty −1»."""
    foes = state.foes()
    totals: dict[int, dict[GainUse, int]] = {}
    for share in state.split:
        per = totals.setdefault(share.foe, {})
        per[share.use] = per.get(share.use, 0) + 1
    parts = []
    for foe in sorted(totals, key=lambda k: (k == ALLY, k)):
        given = [_share_words(use, n) for use, n in totals[foe].items()]
        words = given[0]
        if len(given) > 1:
            words = _("{first} and {last}").format(first=", ".join(given[:-1]), last=given[-1])
        if foe == ALLY:
            parts.append(words)
        elif 0 <= foe < len(foes):
            parts.append(f"{escape(foes[foe][1])} — {words}")
    return "; ".join(parts)


def split_offered(state: D6AttackFlow) -> bool:
    """«Семерых одним ударом!» / «Уловка с подвохом!» (§D.11): a gain of 2 or more shared
    among the foes, the kinds of wounds, and the declared manoeuvre."""
    outcome = state.outcome
    return outcome is not None and outcome.hit and outcome.gain >= 2 and bool(state.foes())


def share_of(state: D6AttackFlow, index: int, code: str) -> Share | None:
    """The share a tap asks for, or None when that button cannot be (a foe who is not there, a
    manoeuvre not declared, nothing left to give)."""
    outcome = state.outcome
    if outcome is None or len(state.split) >= outcome.gain:
        return None
    try:
        use = ShareUse(code)
    except ValueError:
        return None
    if use is ShareUse.MANOEUVRE:
        if state.manoeuvre is Manoeuvre.ADVANTAGE:
            return Share(foe=ALLY, use=GainUse.ADVANTAGE) if index == ALLY else None
        if state.manoeuvre is None:
            return None
    if not 0 <= index < len(state.foes()):
        return None
    kind = {
        ShareUse.PHYSICAL: GainUse.PHYSICAL_WOUND,
        ShareUse.MENTAL: GainUse.MENTAL_WOUND,
        ShareUse.MANOEUVRE: GainUse.DIFFICULTY,
    }[use]
    return Share(foe=index, use=kind)


# An item's durability threshold offered for «Ломать и крушить!» (§D.11); the text names none,
# and most things a fight breaks are flimsy (0) to sturdy (3).
THRESHOLDS = (0, 1, 2, 3)
GRAPPLE_HOLD_MAX = 6  # the most of a gain a grapple button puts into the hold


# Makes one of the panel's buttons: its label, action, number and choice.
_Make = Callable[..., InlineKeyboardButton]


def keyboard(
    flow: Flow, state: D6AttackFlow, profile: Profile | None = None
) -> InlineKeyboardMarkup | None:
    """The panel's buttons at each stage: the defences and armour before the result, the
    shares of a split gain, or the ways to spend a hit's gain."""

    def make(text: str, action: AttackAction, x: int = 0, c: str = "") -> InlineKeyboardButton:
        data = D6AttackCallback(f=flow.id, v=flow.version, a=action, x=x, c=c)
        return table_text.button(text, data)

    outcome = state.outcome
    if outcome is None:
        return InlineKeyboardMarkup(inline_keyboard=_open_rows(state, profile, make))
    if not outcome.hit or state.spent is not None:
        return None
    if state.splitting:
        return InlineKeyboardMarkup(inline_keyboard=_split_rows(state, make))
    return InlineKeyboardMarkup(inline_keyboard=render.rows(_gain_choices(state, make), 2))


def _open_rows(
    state: D6AttackFlow, profile: Profile | None, make: _Make
) -> list[list[InlineKeyboardButton]]:
    """Before the result: defend (from the sheet or a chance), armour, an effort, the result."""
    rows: list[list[InlineKeyboardButton]] = []
    if len(state.defences) < DEFENDERS_MAX:
        rows.append([make("🛡 " + _("Defend"), AttackAction.DEFEND, FROM_SHEET)])
        rows.append([make(f"🛡{n}", AttackAction.DEFEND, n) for n in CHANCES])
    if state.armour is None:
        rows.append([make(f"🪖{n}", AttackAction.ARMOUR, n) for n in CHANCES])
    if any(effort_offered(r, profile) for r in (state.attack, *state.defences)):
        rows.append(
            [
                make("💪 " + _effort_price(fuel), AttackAction.EFFORT, n)
                for n, fuel in EFFORT_PRICES.items()
            ]
        )
    last = [make("🏁 " + _("Result"), AttackAction.RESOLVE)]
    if state.foes():
        last.append(
            make("🩸 " + _("Result: into a wound"), AttackAction.RESOLVE, RESOLVE_INTO_WOUND)
        )
    rows.append(last)
    return rows


def _split_rows(state: D6AttackFlow, make: _Make) -> list[list[InlineKeyboardButton]]:
    """A gain shared out: a point at a time to each foe's wounds (or the manoeuvre's
    difficulty), an ally's advantage, and a way back."""
    rows: list[list[InlineKeyboardButton]] = []
    for k, (_uid, name) in enumerate(state.foes()):
        row = [
            make(f"🩸 {name} +1", AttackAction.SHARE, x=k, c=ShareUse.PHYSICAL),
            make(f"🧠 {name} +1", AttackAction.SHARE, x=k, c=ShareUse.MENTAL),
        ]
        if state.manoeuvre is Manoeuvre.DIFFICULTY:
            row.append(make(f"⛓ {name} −1", AttackAction.SHARE, x=k, c=ShareUse.MANOEUVRE))
        rows.append(row)
    if state.manoeuvre is Manoeuvre.ADVANTAGE:
        rows.append(
            [make("✨ " + _("Advantage +1"), AttackAction.SHARE, x=ALLY, c=ShareUse.MANOEUVRE)]
        )
    rows.append([make("↩ " + (_("Take back") if state.split else _("Back")), AttackAction.UNDO)])
    return rows


def _gain_choices(state: D6AttackFlow, make: _Make) -> list[InlineKeyboardButton]:
    """What a hit's gain may buy: a wound, a shove, a grapple (with more of it in the hold),
    the item, poison, breaking a thing, sharing it out, the manoeuvre."""
    outcome = state.outcome
    assert outcome is not None
    choices = [
        make(
            _("Physical wound {n}").format(n=outcome.gain),
            AttackAction.SPEND,
            c=GainChoice.PHYSICAL,
        ),
        make(_("Mental wound {n}").format(n=outcome.gain), AttackAction.SPEND, c=GainChoice.MENTAL),
        make(_("Shove"), AttackAction.SPEND, c=GainChoice.SHOVE),
        make(_("Grapple"), AttackAction.SPEND, c=GainChoice.GRAPPLE),
        make(_("Take the item"), AttackAction.SPEND, c=GainChoice.TAKE),
        make("🧪 " + _("Poison"), AttackAction.SPEND, c=GainChoice.POISON),
    ]
    choices += [
        make(
            "🔨 " + _("Break (threshold {t})").format(t=t),
            AttackAction.SPEND,
            x=t,
            c=GainChoice.BREAK,
        )
        for t in THRESHOLDS
    ]
    # S3 «вправе распределить свой выигрыш между трудностью… и подходящими ранами»: «Захват»
    # holds −1 and wounds with the rest; these put more of the gain into the hold.
    for hold in range(2, min(outcome.gain, GRAPPLE_HOLD_MAX) + 1):
        label = "🤼 " + _("Grapple −{n}").format(n=hold)
        if outcome.gain > hold:
            label += " · " + _("wound {n}").format(n=outcome.gain - hold)
        choices.append(make(label, AttackAction.SPEND, x=hold, c=GainChoice.GRAPPLE))
    if split_offered(state):
        choices.append(make("⚔️ " + _("Share out the gain"), AttackAction.SPEND, c=GainChoice.SPLIT))
    if state.manoeuvre is not None:
        choices.append(
            make(
                _("Manoeuvre {n}").format(n=outcome.gain),
                AttackAction.SPEND,
                c=GainChoice.MANOEUVRE,
            )
        )
    return choices


def auto_line(label: str, gain: int, profile: Profile) -> str:
    """An attack with no roll: the gain is the chat's number for a success without one
    (AMB-D2, ``d6.auto_success_gain``), owned up to when the house rule changes it."""
    text = (
        "✅ "
        + (f"{label}: " if label else "")
        + _("no roll needed, the gain counts as {n}").format(n=gain)
    )
    tag = house_rules.house_tag(profile, dice=False, keys=("d6.auto_success_gain",))
    return text + ("\n" + escape(tag, quote=False) if tag is not None else "")


def draw(
    flow: Flow, state: D6AttackFlow, profile: Profile | None = None
) -> tuple[str, InlineKeyboardMarkup | None]:
    return attack_text(state), keyboard(flow, state, profile)


def usage_text() -> str:
    return (
        _(
            "A d6 attack: /atk 4 — a chance of 4, in reply to the target's message; /atk auto — "
            "no roll needed (a helpless target); /atk "
            "strength+agility luck 1; add «trick difficulty» or «trick advantage» to declare a "
            "manoeuvre before the roll. Defenders and armour answer by buttons. A run-up, an aim "
            "or full defence is an action of its own (/r 3 charge): the next attack or defence "
            "counts it, as an attack in reply to someone fleeing counts their escape."
        )
        + "\n"
        + npc_usage_text()
    )


def npc_usage_text() -> str:
    """The d6 texts call the one who runs the game the GM («сценарист»), in English too."""
    return _(
        "NPCs by name: /atk Bandit 4 attacks the GM's NPC; the GM's "
        "/atk Ataman sabre+strength attacks as it."
    )


def name_the_npc_text() -> str:
    return _(
        "Which NPC answers? The attacker names it first on the line: /atk Bandit 4, and the "
        "GM's buttons answer for it."
    )


def tracker_dice_label(n: int) -> str:
    """The chance of a fighter with no power on their sheet: their dice on the tracker."""
    return _("{n} by the initiative dice").format(n=n)


def no_power_text() -> str:
    return _("No power on the sheet to defend with: press the chance, 🛡1–🛡6.")


def once_text() -> str:
    return _("One response per attack.")


def attacker_only_text() -> str:
    return _("The attacker (or the GM) decides this.")


def not_the_attacker_text() -> str:
    return _("Nobody defends against their own attack.")


def help_line(_profile: object) -> str:
    return _("/atk 4 — an attack: defences, armour and the gain on buttons")
