"""Several actions in one message, rolled in the declared order (§A.9)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import render, table_text
from bot.store import Flow
from handlers.multi.callbacks import MultiAction, MultiCallback
from handlers.multi.flow import MultiFlow
from rules.profiles import Profile


def multi_text(state: MultiFlow, profile: Profile) -> str:
    """Each action's pool after the §A.9 reduction, its result once rolled; where a pool's
    dice came from (the sheet's traits, the dice added, the wounds) before it."""
    roller, declared, pools, split_of = state.roller, state.declared, state.pools, state.split_of
    difficulties, results, stopped = state.difficulties, state.results, state.stopped
    sources, read_as, thresholds = state.sources, state.read_as, state.thresholds
    head = "🔀 <b>" + _("Multiple actions") + f"</b> — {escape(roller)}"
    if split_of is not None:
        head += " · " + _("{n} dice split between the actions").format(n=split_of)
        if sources and sources[0]:
            head += f" ({sources[0]})"
    lost = [base - pool.dice for base, pool in zip(declared, pools, strict=True)]
    if split_of is None and any(lost):
        # §A.9: each of several actions loses dice; the numbers, in the declared order.
        head += " · " + _("dice lost to the actions: {list}").format(
            list=", ".join(f"−{n}" for n in lost)
        )
    lines = [head]
    if read_as is not None:
        lines.append(read_as_text(read_as, difficulties))
    for k, (base, pool, difficulty, result) in enumerate(
        zip(declared, pools, difficulties, results, strict=True), start=1
    ):
        line = f"{k}. "
        source = sources[k - 1] if split_of is None and k <= len(sources) else None
        if source:
            line += f"{source}: "
        if split_of is None:
            line += f"{base} → "
        if not pool.rollable:
            line += _("{n}d10: impossible").format(n=max(0, pool.dice))
        else:
            threshold = thresholds[k - 1] if k <= len(thresholds) else 0
            line += render.conditions(pool.dice, difficulty, threshold, False, profile)
            if result is not None:
                line += "\n" + table_text.roll_summary(result)
        lines.append(line)
    if stopped:
        lines.append("⏹ " + table_text.stopped_text())
    elif all(r is not None or not p.rollable for r, p in zip(results, pools, strict=True)):
        lines.append("✅ " + _("All actions are rolled."))
    return "\n".join(lines)


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
