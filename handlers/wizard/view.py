"""The wizard's one message: the choices so far, the odds of one roll, and the buttons."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import render, table_text
from bot.wizard import WizardMode, WizardTarget
from handlers.wizard.callbacks import SetupAction, SetupCallback
from handlers.wizard.flow import SetupState
from rules import probability
from rules.actions import Pool, multiple_action_pools
from rules.profiles import Profile
from table.store import Flow


def draw(
    flow: Flow, state: SetupState, target: WizardTarget, profile: Profile
) -> tuple[str, InlineKeyboardMarkup | None]:
    if state.cancelled:
        return target.title() + f" — {escape(state.roller)}\n✖ " + _("Cancelled."), None
    if state.mode is WizardMode.DECLARE:
        return _declare_view(flow, state, target, profile)
    text = setup_text(state, target, profile)
    markup = setup_keyboard(flow, state, target, profile)
    return text, markup


def _declare_view(
    flow: Flow, state: SetupState, target: WizardTarget, profile: Profile
) -> tuple[str, InlineKeyboardMarkup]:
    """Declaring actions one pool at a time, each shown already reduced (§A.9)."""
    reduced = multiple_action_pools(state.pools, profile) if len(state.pools) >= 2 else ()
    text = multi_setup_text(
        title=target.title(),
        roller=state.roller,
        declared=state.pools,
        reduced=reduced,
        difficulty=state.difficulty,
        difficulties=state.difficulties,
    )
    markup = multi_setup_keyboard(
        flow.id,
        flow.version,
        difficulty=state.difficulty,
        difficulties=range(profile.difficulty_min, profile.difficulty_max + 1),
        declared=len(state.pools),
        full=len(state.pools) >= profile.max_declared_actions,
        ready=state.ready(target),
    )
    return text, markup


def setup_text(state: SetupState, target: WizardTarget, profile: Profile) -> str:
    """The choices so far and the odds of one roll of the chosen pool."""
    title, roller, pool, opponent = target.title(), state.roller, state.pool, state.opponent
    difficulty, goal, target_required = state.difficulty, state.target, target.target_required
    chances = None
    if pool is not None:
        chances = probability.d10(pool=pool, difficulty=difficulty, profile=profile)
    head = title + f" — {escape(roller)}"
    if opponent is not None:
        head += f" — {escape(opponent)}"
    lines = [head]
    if pool is None:
        lines.append(_("Choose the pool (number of dice)."))
    else:
        lines.append(render.conditions(pool, difficulty, 0, False, profile))
    if target_required and goal is None:
        lines.append(table_text.extend_prompt_text())
    elif goal is not None:
        lines.append(_("target {n}").format(n=goal))
    if chances is not None:
        lines.append(render.chances_line(chances))
    return "\n".join(lines)


def setup_keyboard(
    flow: Flow, state: SetupState, target: WizardTarget, profile: Profile
) -> InlineKeyboardMarkup:
    flow_id, version, pool, difficulty = flow.id, flow.version, state.pool, state.difficulty
    pools = table_text.TABLE_POOLS
    difficulties = range(profile.difficulty_min, profile.difficulty_max + 1)
    targets = table_text.EXTEND_TARGETS if target.targets else ()
    chosen, ready = state.target, state.ready(target)

    def button(text: str, action: SetupAction, x: int = 0) -> InlineKeyboardButton:
        return table_text.button(text, SetupCallback(f=flow_id, v=version, a=action, x=x))

    choices = [button(render.marked(str(n), n == pool), SetupAction.POOL, n) for n in pools]
    diffs = [
        button(render.marked(f"🎯{d}", d == difficulty), SetupAction.DIFFICULTY, d)
        for d in difficulties
    ]
    goals = [button(render.marked(f"🏁{t}", t == chosen), SetupAction.TARGET, t) for t in targets]
    rows = render.rows(choices, 5) + render.rows(diffs, 5) + render.rows(goals, 6)
    last = [cancel_button(flow_id, version)]
    if ready:
        last.append(button("🎲 " + _("Roll!"), SetupAction.GO))
    rows.append(last)
    return InlineKeyboardMarkup(inline_keyboard=rows)


def cancel_button(flow_id: str, version: int) -> InlineKeyboardButton:
    """Every wizard can be walked away from, so no half-chosen roll is left waiting."""
    return table_text.button(
        "✖ " + _("Cancel"), SetupCallback(f=flow_id, v=version, a=SetupAction.CANCEL)
    )


def multi_setup_text(
    *,
    title: str,
    roller: str,
    declared: Sequence[int],
    reduced: Sequence[Pool],
    difficulty: int,
    difficulties: Sequence[int] = (),
) -> str:
    """/multi without numbers: the pools declared so far and what each becomes (§A.9), each
    at the difficulty chosen before its pool was tapped."""
    lines = [title + f" — {escape(roller)}"]
    lines.append(
        _(
            "Tap each action's pool in order; a difficulty applies to the pools tapped after "
            "it. Then «Roll!»."
        )
    )
    for k, base in enumerate(declared, start=1):
        line = f"{k}. {base}"
        if reduced:
            dice = reduced[k - 1].dice
            line += " → " + (
                _("{n}d10: impossible").format(n=max(0, dice))
                if not reduced[k - 1].rollable
                else _("{n}d10").format(n=dice)
            )
        if k <= len(difficulties):
            line += ", " + _("difficulty {d}").format(d=difficulties[k - 1])
        lines.append(line)
    lines.append(_("Next action: difficulty {d}").format(d=difficulty))
    return "\n".join(lines)


def multi_setup_keyboard(
    flow_id: str,
    version: int,
    *,
    difficulty: int,
    difficulties: Iterable[int],
    declared: int,
    full: bool,
    ready: bool,
) -> InlineKeyboardMarkup:
    def button(text: str, action: SetupAction, x: int = 0) -> InlineKeyboardButton:
        return table_text.button(text, SetupCallback(f=flow_id, v=version, a=action, x=x))

    rows: list[list[InlineKeyboardButton]] = []
    if not full:
        rows += render.rows(
            [button(f"+{n}", SetupAction.POOL, n) for n in table_text.TABLE_POOLS], 5
        )
    diffs = [
        button(render.marked(f"🎯{d}", d == difficulty), SetupAction.DIFFICULTY, d)
        for d in difficulties
    ]
    rows += render.rows(diffs, 5)
    last = [cancel_button(flow_id, version)]
    if declared:
        last.append(button("↩", SetupAction.UNDO))
    if ready:
        last.append(button("🎲 " + _("Roll!"), SetupAction.GO))
    if last:
        rows.append(last)
    return InlineKeyboardMarkup(inline_keyboard=rows)
