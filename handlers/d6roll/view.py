"""A d6 roll on screen (docs/rules.md §D.2–§D.4): the wizard with its live chances, the result
with its measures and fiasco hints, and the special effort's prices."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import render, table_text
from bot.house_rules import house_tag
from handlers.d6roll.callbacks import MODIFIER_SHIFT, D6Action, D6Callback
from handlers.d6roll.flow import D6RollState
from rules.d6 import probability
from rules.d6.chance import options
from rules.d6.combat import aim
from rules.d6.combat import escape as escape_roll
from rules.d6.roll import (
    MEASURE_FACE,
    D6Outcome,
    D6Result,
    EffortFuel,
    fiasco_penalty,
    gain_value,
)
from rules.profiles import Profile
from rules.sheet import Sheet

WIZARD_CHANCES = range(1, 13)
NO_POWER = 0  # the chance button of an action no power fits: help and luck alone (§D.2)
WIZARD_REQUIRED = range(1, 5)
WIZARD_MODIFIERS = range(-3, 4)
WIZARD_LUCK_SHOWN = 5

# The effort's prices as button numbers (0 opens the choice).
EFFORT_PRICES: dict[int, EffortFuel] = {
    1: EffortFuel.PHYSICAL,
    2: EffortFuel.MENTAL,
    3: EffortFuel.MEMORY,
}


def _data(flow_id: str, version: int, action: D6Action, x: int = 0) -> D6Callback:
    return D6Callback(f=flow_id, v=version, a=action, x=x)


def hint_text() -> str:
    return _(
        "The d6 game: /r 4 rolls a chance of 4 dice; /r 4 2 needs 2 measures of success; "
        "/r strength+agility luck 1 weak -1 builds the chance from your sheet's powers; "
        "/r alone opens the buttons. Fives and sixes are measures. Tricks that wait for a "
        "later roll, one per roll: /r 3 aim 1, /r 3 charge, /r 3 defence, /r 3 escape."
    )


def help_lines(profile: Profile) -> str:
    return "\n".join(
        [
            _("/r 4 — a chance of 4 dice: every 5 or 6 is a measure of success"),
            _("/r strength+agility 2 luck 1 — powers from your sheet, 2 measures, a luck die"),
            _("/r — buttons: powers, weakness, luck, the odds; then «Special effort»"),
            _("/r 3 charge · defence · aim 1 · escape — a trick for the next attack or defence"),
            _("/r 0 +1 luck 1 — no fitting power: help and luck alone; /r auto — no roll needed"),
        ]
    )


def effort_name(fuel: EffortFuel) -> str:
    if fuel is EffortFuel.PHYSICAL:
        return _("a physical wound 1")
    if fuel is EffortFuel.MENTAL:
        return _("a mental wound 3")
    return _("a memory")


# ----- the wizard -----------------------------------------------------------------------------


def chances_line(dice: int, required: int, profile: Profile | None = None) -> str:
    """The exact odds before «Бросить»: the success, the fiasco (as the chat's house rules
    read it), and the success when a special effort is spent whenever it is needed (§D.4)."""
    success = probability.p_success(dice, required)
    fiasco = probability.p_fiasco_of(dice, required, profile)
    effort = probability.p_success(dice, required, special_effort=True)
    return _("Success {success} · fiasco {fiasco} · with a special effort {effort}").format(
        success=render.percent(float(success)),
        fiasco=render.percent(float(fiasco)),
        effort=render.percent(float(effort)),
    )


def wizard_text(
    state: D6RollState,
    dice: int | None,
    problem: str | None,
    *,
    powers: bool = False,
    profile: Profile | None = None,
) -> str:
    lines = [f"🎲 <b>{escape(state.roller)}</b> — " + _("a d6 roll")]
    if dice is None and problem is None:
        lines.append(
            _("Pick the powers the action uses.")
            if powers
            else _("Pick the powers the action uses, or a chance.")
        )
    elif problem is not None:
        lines.append(problem)
    else:
        lines.append(_("Chance: {label} = {n}").format(label=state.label, n=dice))
        lines.append(_("Measures needed: {n}").format(n=state.required))
        assert dice is not None
        lines.append(chances_line(dice, state.required, profile))
    return "\n".join(lines)


def wizard_keyboard(
    flow_id: str, version: int, state: D6RollState, sheet: Sheet | None, ready: bool
) -> InlineKeyboardMarkup:
    def make(text: str, action: D6Action, x: int = 0) -> InlineKeyboardButton:
        return table_text.button(text, _data(flow_id, version, action, x))

    rows = _chance_rows(make, state, sheet)
    extras = _extras(make, state, sheet)
    if extras:
        rows += render.rows(extras, 6)
    rows.append(
        [
            make(
                ("✅" if state.modifier == m else "") + (f"{m:+d}" if m else "±0"),
                D6Action.MODIFIER,
                m + MODIFIER_SHIFT,
            )
            for m in WIZARD_MODIFIERS
        ]
    )
    rows.append(
        [
            make(
                ("✅ " if state.required == n else "")
                + _("{n} measure", "{n} measures", n=n).format(n=n),
                D6Action.REQUIRED,
                n,
            )
            for n in WIZARD_REQUIRED
        ]
    )
    if ready:
        rows.append([make("🎲 " + _("Roll!"), D6Action.ROLL)])
    return InlineKeyboardMarkup(inline_keyboard=rows)


_Make = Callable[[str, D6Action, int], InlineKeyboardButton]


def _chance_rows(
    make: _Make, state: D6RollState, sheet: Sheet | None
) -> list[list[InlineKeyboardButton]]:
    """The sheet's powers to pick, or the chances to pick without a sheet's powers."""
    powers = sheet.powers if sheet is not None else ()
    if powers:
        chosen = set(state.powers)
        return render.rows(
            [
                make(("✅ " if p.name in chosen else "") + f"{p.name} {p.level}", D6Action.POWER, i)
                for i, p in enumerate(powers)
            ],
            3,
        )
    return render.rows(
        [
            make(("✅" if state.chance == n else "") + str(n), D6Action.CHANCE, n)
            for n in WIZARD_CHANCES
        ],
        6,
    )


def _extras(make: _Make, state: D6RollState, sheet: Sheet | None) -> list[InlineKeyboardButton]:
    """«No power», and the sheet's weakness and luck dice when it has them."""
    extras: list[InlineKeyboardButton] = [
        make(
            ("✅ " if state.chance == NO_POWER else "") + "🚫 " + _("No power"),
            D6Action.CHANCE,
            0,
        )
    ]
    if sheet is not None and sheet.weakness is not None:
        mark = "✅ " if state.weakness else ""
        extras.append(
            make(mark + _("Weakness −{n}").format(n=sheet.weakness), D6Action.WEAKNESS, 0)
        )
    if sheet is not None and sheet.luck:
        for n in range(0, min(sheet.luck, WIZARD_LUCK_SHOWN) + 1):
            mark = "✅" if state.luck == n else ""
            extras.append(make(f"{mark}🍀{n}", D6Action.LUCK, n))
    return extras


# ----- the result -----------------------------------------------------------------------------


def result_text(state: D6RollState, weakness: int | None, profile: Profile) -> str:
    result = state.result
    assert result is not None
    if result.outcome is D6Outcome.AUTO_SUCCESS:
        return auto_success_text(state, profile)
    head = f"🎲 {escape(state.roller)}: " + _("chance {n}d6").format(n=len(result.faces))
    if state.label and state.label != str(len(result.faces)):
        head += f" ({state.label})"
    if result.required > 1:
        head += ", " + _("measures needed: {n}").format(n=result.required)
    lines = [head, render.d6_faces_text(result), render.d6_outcome_line(result)]
    if state.aim is not None:
        lines.append(aim_line(state.aim, result.measures))
    if state.escape:
        lines.append(escape_line(state.roller, result.measures))
    if state.charge:
        lines.append(charge_line(result.measures))
    if state.full_defence:
        lines.append(full_defence_line(result.measures))
    if state.left:
        lines.append("⏳ " + waiting_line(state))
    tag = house_tag(profile)
    if tag is not None:
        lines.append(escape(tag, quote=False))
    if result.outcome is D6Outcome.FIASCO:
        lines.append(fiasco_hint(fiasco_penalty(weakness, profile)))
    if state.choosing and not _to_reroll(result):
        lines.append("⚠️ " + effort_noop_warning())
    if state.price is not None:
        lines.append(effort_line(state.price, len(result.rerolled)))
        if state.price is not EffortFuel.MEMORY:
            lines.append(
                _("The wound is on the sheet and is felt from the next action.")
                if state.wound_written
                else _("No sheet here to write the wound on: the GM keeps it.")
            )
    return "\n".join(lines)


def auto_success_text(state: D6RollState, profile: Profile) -> str:
    """S2 «бросать кубики не нужно — у тебя и так всё получится»: no faces, no fiasco, no
    effort; where a number is needed the gain is the chat's ``d6.auto_success_gain`` (AMB-D2)."""
    result = state.result
    assert result is not None
    head = f"✅ {escape(state.roller)}: " + _("no roll needed")
    if state.label:
        head += f" ({state.label})"
    gain = gain_value(result, profile)
    lines = [
        head,
        f"<b>{render.d6_outcome_name(result.outcome)}</b>: "
        + _("the gain counts as {n}").format(n=gain),
    ]
    tag = house_tag(profile, keys=("d6.auto_success_gain",))
    if tag is not None:
        lines.append(escape(tag, quote=False))
    return "\n".join(lines)


def aim_line(difficulty: int, measures: int) -> str:
    """§D.12 Прицеливание (G-D17): the measures cancel the target's difficulty first, the rest
    is an advantage on the next turn; after the attack one aims again."""
    aimed = aim(difficulty, measures)
    parts = [_("Aiming:")]
    if difficulty and aimed.difficulty_left:
        parts.append(
            _("the target's difficulty {d} is down to {left}.").format(
                d=difficulty, left=aimed.difficulty_left
            )
        )
    elif difficulty:
        parts.append(_("the target's difficulty {d} is cancelled.").format(d=difficulty))
    if aimed.advantage is not None:
        parts.append(
            _("+{n} on the next turn; aim again after the attack.").format(
                n=aimed.advantage.magnitude
            )
        )
    elif not aimed.difficulty_left:
        parts.append(_("nothing left over for the next turn."))
    return "🎯 " + " ".join(parts)


def escape_line(name: str, measures: int) -> str:
    """§D.12 Побег: S3 «все твои меры успеха станут трудностью для тех, кто попытается тебя
    атаковать»; the pursuers shake it off as a project of that scope."""
    pursuit, _project = escape_roll(measures)
    if pursuit is None:
        return "🏃 " + _("{name} does not get away from the pursuers.").format(name=escape(name))
    return "🏃 " + _(
        "{name} gets away: the pursuers' attacks have a difficulty −{n}; to catch up is a "
        "project of scope {n}."
    ).format(name=escape(name), n=pursuit.magnitude)


def waiting_line(state: D6RollState) -> str:
    """Where the trick's effect waits and which roll will count it (§D.12)."""
    if state.escape:
        return _("Written on the sheet: an /atk in reply to the escapee's message counts it.")
    if state.charge:
        return _("Written on the sheet: the next attack (/atk) counts it.")
    if state.full_defence:
        return _("Written on the sheet: the next defence (🛡 under an attack) counts it.")
    return _("Written on the sheet: the next attack (/atk) or roll (/r) counts it.")


def charge_line(measures: int) -> str:
    """§D.12 Атака с разгона: S3 «он вправе получить преимущество для следующего действия,
    если этим действием будет атаковать противника» — lost on any other action."""
    if not measures:
        return "🐎 " + _("Run-up: no advantage.")
    return "🐎 " + _(
        "Run-up: +{n} to the next action if it is an attack; any other action loses it."
    ).format(n=measures)


def full_defence_line(measures: int) -> str:
    """§D.12 Глухая оборона: the advantage serves only a next action that is a defence."""
    if not measures:
        return "🛡 " + _("Full defence: no advantage.")
    return "🛡 " + _(
        "Full defence: +{n} to the next action if it is a defence; any other action loses it."
    ).format(n=measures)


def effort_line(fuel: EffortFuel, rerolled: int) -> str:
    if fuel is EffortFuel.PHYSICAL:
        head = _("Special effort for a physical wound 1")
    elif fuel is EffortFuel.MENTAL:
        head = _("Special effort for a mental wound 3")
    else:
        head = _("Special effort for a memory")
    if not rerolled:  # AMB-D14: allowed by the chat, and the price is paid all the same
        return "💪 " + head + " · " + _("nothing to reroll: the price is paid, the dice stay")
    return "💪 " + head + " · " + _("dice rerolled: {n}").format(n=rerolled)


def effort_noop_warning() -> str:
    """AMB-D14: the player is warned before paying for an effort that rerolls nothing."""
    return _(
        "Every die already shows a measure of success: the effort rerolls nothing, "
        "but its price is paid all the same."
    )


def fiasco_hint(penalty: int) -> str:
    """§D.3: S2 «фиаско — не всегда провал самого действия, но всегда осложнение»; the
    default hints when the scenarist has no better idea."""
    return _(
        "A complication: a wound of severity {n}, an item's quality −{n}, "
        "or a project's readiness −{n}."
    ).format(n=penalty)


def _to_reroll(result: D6Result) -> bool:
    return any(f < MEASURE_FACE for f in result.faces)


def effort_offered(result: D6Result, profile: Profile | None = None) -> bool:
    """§D.4: once per action, never on armour nor without dice; while every die already shows
    a measure, only if the chat allows an effort that rerolls nothing (AMB-D14,
    ``d6.special_effort_noop_allowed``)."""
    if result.special_effort or result.armour or not result.faces:
        return False
    return _to_reroll(result) or options(profile).special_effort_noop_allowed


def result_keyboard(
    flow_id: str, version: int, state: D6RollState, profile: Profile | None = None
) -> InlineKeyboardMarkup | None:
    result = state.result
    if result is None or not effort_offered(result, profile):
        return None
    if not state.choosing:
        return InlineKeyboardMarkup(
            inline_keyboard=[
                [
                    table_text.button(
                        "💪 " + _("Special effort"), _data(flow_id, version, D6Action.EFFORT)
                    )
                ]
            ]
        )
    prices = [
        table_text.button(
            effort_name(fuel).capitalize(), _data(flow_id, version, D6Action.EFFORT, n)
        )
        for n, fuel in EFFORT_PRICES.items()
    ]
    back = table_text.button("↩ " + _("Back"), _data(flow_id, version, D6Action.BACK))
    return InlineKeyboardMarkup(inline_keyboard=[prices, [back]])


def not_yours_text() -> str:
    return _("Only the player who rolled decides on a special effort.")


def effort_refused_text() -> str:
    return _("No special effort here: it is made once per action, and only after a roll of dice.")


def effort_noop_refused_text(profile: Profile) -> str:
    """AMB-D14 with the switch off: an effort must have a die to reroll."""
    text = _("Every die already shows a measure of success: there is nothing to reroll.")
    tag = house_tag(profile)
    return text + ("\n" + tag if tag is not None else "")
