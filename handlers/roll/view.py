"""``/r`` on screen: the wizard, the result's buttons and the d6 result (docs/product.md §2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import house_rules, render, table_text
from handlers.roll.callbacks import MODIFIER_SHIFT, RollAction, RollCallback
from handlers.roll.flow import WizardState
from rules.d10 import Degree, Outcome
from rules.profiles import Profile
from table.store import Flow


def extend_targets_keyboard(flow_id: str, version: int) -> InlineKeyboardMarkup:
    """«Продлить»: how many successes the whole extended action needs."""
    buttons = [
        table_text.button(
            "🎯" + str(n),
            RollCallback(f=flow_id, v=version, a=RollAction.EXTEND, x=n),
        )
        for n in table_text.EXTEND_TARGETS
    ]
    return InlineKeyboardMarkup(inline_keyboard=render.rows(buttons, 6))


WIZARD_POOLS = range(1, 16)  # docs/product.md §2: pool buttons 1–15
WIZARD_MODIFIERS = range(-2, 4)  # dice added or taken on the sheet's pool
WIZARD_TRAITS_MAX = 15  # Attributes and the highest Abilities shown as buttons


@dataclass(frozen=True)
class TraitButton:
    index: int  # the trait's place in the sheet system's catalogue
    text: str  # «Ловкость 3»
    chosen: bool


def auto_success_text(
    *,
    pool: int,
    difficulty: int,
    roller: str,
    profile: Profile,
    degree: Degree,
    willpower_left: tuple[int, int] | None = None,
    source: str | None = None,
) -> str:
    """§A.6: no dice are rolled; the pool reaching the difficulty is worth one success, and
    under the table's variant a Willpower point (``willpower_left`` after it). ``source``: the
    sheet's traits the pool came from (escaped)."""
    head = f"🎲 {escape(roller)}: " + (f"{source} → " if source else "")
    head += render.conditions(pool, difficulty, 0, False, profile)
    lines = [head, render.outcome_line(Outcome.AUTO_SUCCESS, 1, degree, profile.labels)]
    tag = house_rules.house_tag(profile)
    if tag is not None:
        lines.append(escape(tag, quote=False))
    if willpower_left is not None:
        lines.append(
            _("Willpower left: {current} of {permanent}").format(
                current=willpower_left[0], permanent=willpower_left[1]
            )
        )
    return "\n".join(lines)


def retry_keyboard(flow_id: str, version: int) -> InlineKeyboardMarkup:
    """«Ещё раз»: the next attempt, harder by the rules of §A.10."""
    data = RollCallback(f=flow_id, v=version, a=RollAction.RETRY).pack()
    return InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text="🔁 " + _("Try again"), callback_data=data)]]
    )


def result_keyboard(flow_id: str, version: int, *, retry: bool) -> InlineKeyboardMarkup:
    """Under a d10 result: «Ещё раз» after a failure (§A.10), «Продлить» always (§A.11)."""
    row = []
    if retry:
        data = RollCallback(f=flow_id, v=version, a=RollAction.RETRY).pack()
        row.append(InlineKeyboardButton(text="🔁 " + _("Try again"), callback_data=data))
    extend = RollCallback(f=flow_id, v=version, a=RollAction.EXTEND).pack()
    row.append(InlineKeyboardButton(text="⏳ " + _("Extend"), callback_data=extend))
    return InlineKeyboardMarkup(inline_keyboard=[row])


def wizard_text(
    *,
    pool: int | None,
    difficulty: int,
    willpower: bool,
    profile: Profile,
    chances: render.D10Chances | None,
    source: str | None = None,
    problem: str | None = None,
    from_sheet: bool = False,
) -> str:
    """The one wizard message, redrawn after every tap: choices so far and the odds.
    ``source`` is where the dice came from («Ловкость 3 + Драка 2»), ``problem`` why the
    chosen traits give no pool."""
    lines = ["🎲 <b>" + _("Roll") + "</b>"]
    if problem is not None:
        lines.append(problem)
    elif pool is None:
        lines.append(
            _("Tap the traits below that make up your pool.")
            if from_sheet
            else _("Choose the pool (number of dice).")
        )
    else:
        head = render.conditions(pool, difficulty, 0, willpower, profile)
        lines.append(f"{source} → {head}" if source else head)
    if chances is not None:
        lines.append(render.chances_line(chances))
    return "\n".join(lines)


@dataclass(frozen=True)
class WizardExtras:
    """What the wizard's keyboard shows besides its choices: the sheet's trait buttons, the
    player's recent sheet pools, whether «Автоуспех» is offered, and whether a pool is
    ready to roll."""

    traits: Sequence[TraitButton] = ()
    recent: Sequence[str] = ()
    auto_success: bool = False
    ready: bool = False


def wizard_keyboard(
    flow: Flow, state: WizardState, profile: Profile, extras: WizardExtras
) -> InlineKeyboardMarkup:
    """The sheet's traits (when there is a sheet) with a row of dice to add or take, or pool
    1–15; difficulty within the profile's range, Willpower, «Бросить»/«Автоуспех».

    The Willpower toggle is gone when the player's sheet has no points left (§A.7)."""

    flow_id, version, pool, modifier = flow.id, flow.version, state.pool, state.modifier
    difficulty, willpower = state.difficulty, state.willpower
    difficulties = range(profile.difficulty_min, profile.difficulty_max + 1)
    traits, recent = extras.traits, extras.recent

    def button(text: str, action: RollAction, x: int = 0) -> InlineKeyboardButton:
        data = RollCallback(f=flow_id, v=version, a=action, x=x).pack()
        return InlineKeyboardButton(text=text, callback_data=data)

    keyboard: list[list[InlineKeyboardButton]] = [
        [button("⭐ " + text, RollAction.RECENT, i)] for i, text in enumerate(recent)
    ]
    if traits:
        keyboard += render.rows(
            [
                button(("✅ " if t.chosen else "") + t.text, RollAction.TRAIT, t.index)
                for t in traits
            ],
            3,
        )
        keyboard.append(
            [
                button(
                    render.marked(f"{m:+d}" if m else "±0", m == modifier),
                    RollAction.MODIFIER,
                    m + MODIFIER_SHIFT,
                )
                for m in WIZARD_MODIFIERS
            ]
        )
    else:
        pools = [button(render.marked(str(n), n == pool), RollAction.POOL, n) for n in WIZARD_POOLS]
        keyboard += render.rows(pools, 5)
    diffs = [
        # The target marks the difficulty row apart from the pool numbers above it.
        button(render.marked(f"🎯{d}", d == difficulty), RollAction.DIFFICULTY, d)
        for d in difficulties
    ]
    wp_text = ("✅ " if willpower else "▫️ ") + _("Willpower")
    keyboard += render.rows(diffs, 5)
    if state.willpower_offered:
        keyboard.append([button(wp_text, RollAction.WILLPOWER)])
    if extras.ready:
        last = [button("🎲 " + _("Roll!"), RollAction.ROLL)]
        if extras.auto_success:
            last.insert(0, button("✨ " + _("Automatic success"), RollAction.AUTO))
        keyboard.append(last)
    return InlineKeyboardMarkup(inline_keyboard=keyboard)


def example_text(command: str = "r") -> str:
    return render.example(command)


def help_lines(profile: Profile) -> str:
    """The roll's lines of /help in the chat's game (§A for the d10 games, §D.3 for d6)."""
    return "\n".join(
        [
            _("/r 7 — 7 dice at the default difficulty ({d})").format(d=profile.default_difficulty),
            _("/r 7 8 — 7 dice, difficulty 8; /r dex+brawl 8 — the pool from your sheet"),
            _("/r 7 8 wp — spend Willpower for one sure success"),
            _(
                "/r 7 8 t2 — threshold 2: the first two successes do not count; "
                "+2 or -1 adds or takes dice"
            ),
            _(
                "/r — buttons: your sheet's traits (or a pool), difficulty, Willpower, "
                "the odds before rolling"
            ),
        ]
    )
