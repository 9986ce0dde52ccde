"""The extended action's one message: progress, the latest rolls, «Бросить» and «Стоп» (§A.11)."""

from __future__ import annotations

from html import escape

from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import render, table_text
from handlers.extended.callbacks import ExtAction, ExtCallback
from handlers.extended.flow import ExtendedFlow, finished
from rules.actions import ExtendedStatus
from rules.profiles import ExtendedBotch, Profile
from table.store import Flow


def extended_text(state: ExtendedFlow, profile: Profile, *, stopped: bool = False) -> str:
    """``state.history`` is the latest rolls (at most :data:`table_text.HISTORY_SHOWN`),
    ending with roll number ``state.rolls_made``."""
    roller, pool, difficulty, target = state.roller, state.pool, state.difficulty, state.target
    max_rolls, accumulated, rolls_made = state.max_rolls, state.accumulated, state.rolls_made
    status, history, source, threshold = state.status, state.history, state.source, state.threshold
    head = "⏳ <b>" + _("Extended action") + f"</b> — {escape(roller)}"
    terms = (source + " → " if source else "") + render.conditions(
        pool, difficulty, threshold, False, profile
    )
    terms += " · " + _("target {n}").format(n=target)
    if max_rolls is not None:
        terms += " · " + _("rolls left: {n}").format(n=max(0, max_rolls - rolls_made))
    lines = [head, terms, table_text.progress_bar(accumulated, target)]
    shown = history[-table_text.HISTORY_SHOWN :]
    for number, result in enumerate(shown, start=rolls_made - len(shown) + 1):
        lines.append(f"{number}. " + table_text.roll_summary(result))
    rolls = _("in {n} roll", "in {n} rolls", n=rolls_made).format(n=rolls_made)
    if status is ExtendedStatus.COMPLETE:
        lines.append(
            "✅ <b>"
            + _("Done!")
            + "</b> "
            + _("{got} of {target} successes").format(got=accumulated, target=target)
            + " "
            + rolls
        )
    elif status is ExtendedStatus.OUT_OF_TIME:
        lines.append(
            "⌛ <b>"
            + _("Out of time:")
            + "</b> "
            + _("{got} of {target} successes").format(got=accumulated, target=target)
            + " "
            + rolls
        )
    elif status is ExtendedStatus.BOTCHED:
        if profile.extended_botch is ExtendedBotch.LOSE_ALL:
            lines.append("💥 " + _("A botch: every success gathered so far is lost."))
        else:
            lines.append("💥 " + _("A botch: the successes gathered so far are kept."))
        if max_rolls is not None and rolls_made >= max_rolls:
            lines.append("⌛ " + _("That was the last roll: there is no time to start over."))
        elif not stopped:
            lines.append(_("The Storyteller decides whether the work can go on."))
    if stopped:
        lines.append("⏹ " + table_text.stopped_text())
    return "\n".join(lines)


def extended_keyboard(
    flow_id: str, version: int, *, next_roll: int, botched: bool
) -> InlineKeyboardMarkup:
    """The button names the roll it makes by its number, as the rolls above are numbered;
    «№» keeps it from reading as the rolls left, which the terms line counts."""
    label = _("Start over") if botched else _("Roll #{n}").format(n=next_roll)
    return InlineKeyboardMarkup(
        inline_keyboard=[
            [
                table_text.button(
                    "🎲 " + label, ExtCallback(f=flow_id, v=version, a=ExtAction.ROLL)
                ),
                table_text.button(
                    "⏹ " + _("Stop"), ExtCallback(f=flow_id, v=version, a=ExtAction.STOP)
                ),
            ]
        ]
    )


def usage_text() -> str:
    """One correct line for the command, shown under every problem (docs/product.md §5)."""
    return _(
        "Example: /ext 7 6 10 — 7 dice at difficulty 6 until 10 successes; "
        "/ext 7 6 10 5 — at most 5 rolls"
    )


def draw(
    flow: Flow, state: ExtendedFlow, profile: Profile, *, stopped: bool = False
) -> tuple[str, InlineKeyboardMarkup | None]:
    text = extended_text(state, profile, stopped=stopped)
    text = table_text.with_house_tag(text, profile)
    if stopped or finished(state):
        return text, None
    markup = extended_keyboard(
        flow.id,
        flow.version,
        next_roll=state.rolls_made + 1,
        botched=state.status is ExtendedStatus.BOTCHED,
    )
    return text, markup


def help_line(profile: Profile) -> str:
    return _("/ext 7 6 10 extended")
