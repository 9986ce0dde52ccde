"""Several actions in one message, rolled in the declared order (§A.9)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import render, table_text
from handlers.multi.callbacks import MultiAction, MultiCallback
from handlers.multi.flow import MultiFlow
from rules.actions import Pool
from rules.d10 import D10Result
from rules.profiles import Profile
from table.store import Flow


def multi_text(state: MultiFlow, profile: Profile) -> str:
    """Each action's pool after the §A.9 reduction, its result once rolled; where a pool's
    dice came from (the sheet's traits, the dice added, the wounds) before it."""
    lines = [_multi_head(state)]
    if state.read_as is not None:
        lines.append(read_as_text(state.read_as, state.difficulties))
    rows = zip(state.declared, state.pools, state.difficulties, state.results, strict=True)
    for k, (base, pool, difficulty, result) in enumerate(rows, start=1):
        lines.append(_action_line(state, k, (base, pool, difficulty, result), profile))
    if state.stopped:
        lines.append("⏹ " + table_text.stopped_text())
    elif all(
        r is not None or not p.rollable for r, p in zip(state.results, state.pools, strict=True)
    ):
        lines.append("✅ " + _("All actions are rolled."))
    return "\n".join(lines)


def _multi_head(state: MultiFlow) -> str:
    """Who rolls, and how the pool was split or how many dice each action lost."""
    split_of, sources = state.split_of, state.sources
    head = "🔀 <b>" + _("Multiple actions") + f"</b> — {escape(state.roller)}"
    if split_of is not None:
        head += " · " + _("{n} dice split between the actions").format(n=split_of)
        if sources and sources[0]:
            head += f" ({sources[0]})"
        return head
    lost = [base - pool.dice for base, pool in zip(state.declared, state.pools, strict=True)]
    if any(lost):
        # §A.9: each of several actions loses dice; the numbers, in the declared order.
        head += " · " + _("dice lost to the actions: {list}").format(
            list=", ".join(f"−{n}" for n in lost)
        )
    return head


def _action_line(
    state: MultiFlow,
    k: int,
    action: tuple[int, Pool, int, D10Result | None],
    profile: Profile,
) -> str:
    """The k-th action (from 1): its pool's source and reduction, conditions and result."""
    split_of, sources, thresholds = state.split_of, state.sources, state.thresholds
    base, pool, difficulty, result = action
    line = f"{k}. "
    source = sources[k - 1] if split_of is None and k <= len(sources) else None
    if source:
        line += f"{source}: "
    if split_of is None:
        line += f"{base} → "
    if not pool.rollable:
        return line + _("{n}d10: impossible").format(n=max(0, pool.dice))
    threshold = thresholds[k - 1] if k <= len(thresholds) else 0
    line += render.conditions(pool.dice, difficulty, threshold, False, profile)
    if result is not None:
        line += "\n" + table_text.roll_summary(result)
    return line


def multi_keyboard(flow_id: str, version: int, *, action: int, dice: int) -> InlineKeyboardMarkup:
    """``action`` is the 0-based index of the next action to roll, in the declared order."""
    roll = MultiCallback(f=flow_id, v=version, a=MultiAction.ROLL, x=action)
    stop = MultiCallback(f=flow_id, v=version, a=MultiAction.STOP)
    label = _("Action {k}: {n}d10").format(k=action + 1, n=dice)
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [table_text.button("🎲 " + label, roll), table_text.button("⏹ " + _("Stop"), stop)]
        ]
    )


def read_as_text(expression: str, difficulties: Sequence[int]) -> str:
    """How a line of one sheet pool and bare numbers was read (docs/product.md §5: say it)."""
    shown = ", ".join(str(d) for d in difficulties)
    return "ℹ️ " + _("Read as «{pool}» once at each difficulty: {difficulties}.").format(
        pool=escape(expression.replace("_", " ")), difficulties=shown
    )


def split_prompt_text(
    roller: str, pool: int, difficulties: Sequence[int] = (), read_as: str | None = None
) -> str:
    text = (
        "🔀 <b>"
        + _("Multiple actions")
        + f"</b> — {escape(roller)}\n"
        + _(
            "In this game the pool is split between the actions. How do you split {n} dice "
            "between two actions? (For three or more: /multi {n} 3 2 2.)"
        ).format(n=pool)
    )
    if read_as is not None:
        text += "\n" + read_as_text(read_as, difficulties)
    return text


def split_keyboard(flow_id: str, version: int, pool: int) -> InlineKeyboardMarkup:
    buttons = [
        table_text.button(
            f"{first}+{pool - first}",
            MultiCallback(f=flow_id, v=version, a=MultiAction.SPLIT, x=first),
        )
        for first in range(1, pool)
    ]
    stop = table_text.button(
        "⏹ " + _("Stop"), MultiCallback(f=flow_id, v=version, a=MultiAction.STOP)
    )
    return InlineKeyboardMarkup(inline_keyboard=[*render.rows(buttons, 5), [stop]])


def not_in_order_text() -> str:
    return _("Actions are rolled in the declared order.")


def usage_text() -> str:
    """One correct line for the command, shown under every problem (docs/product.md §5)."""
    return _(
        "Example: /multi 6 7 7 — three actions from pools 6, 7 and 7; /multi 6/8 7 — "
        "the first at difficulty 8"
    )


def draw(flow: Flow, state: MultiFlow, profile: Profile) -> tuple[str, InlineKeyboardMarkup | None]:
    if not state.declared and state.split_of is not None:
        text = split_prompt_text(
            state.roller, state.split_of, state.part_difficulties, state.read_as
        )
        if state.stopped:
            return text + "\n⏹ " + table_text.stopped_text(), None
        return text, split_keyboard(flow.id, flow.version, state.split_of)
    text = multi_text(state, profile)
    text = table_text.with_house_tag(text, profile)
    nxt = state.next_action()
    if state.stopped or nxt is None:
        return text, None
    return text, multi_keyboard(flow.id, flow.version, action=nxt, dice=state.dice[nxt])


def help_line(profile: Profile) -> str:
    return _("/multi 6 7 7 several actions")
