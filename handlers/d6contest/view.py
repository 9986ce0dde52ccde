"""A d6 contest on screen (docs/rules.md §D.5): each side's faces and measures, then who won and
by what gain, ties and fiascoes in the text's words."""

from __future__ import annotations

from html import escape

from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import render, table_text
from handlers.d6contest.callbacks import ContestAction, ContestCallback
from handlers.d6contest.flow import SIDES_MAX, ContestFlow, Side
from rules.d6.roll import MEASURE_FACE
from table.store import Flow

JOIN_CHANCES = range(1, 9)


def _faces(side: Side) -> str:
    return " ".join(
        f"<b>{f}</b>" if f >= MEASURE_FACE else str(f) for f in sorted(side.faces, reverse=True)
    )


def _throws(side: Side) -> str:
    """A challenge's rolls one after another, each sorted, « · » between them."""
    size = len(side.faces) // len(side.rolls)
    parts = [
        _faces(side.model_copy(update={"faces": side.faces[n * size : (n + 1) * size]}))
        for n in range(len(side.rolls))
    ]
    return " · ".join(parts)


def _side_line(side: Side) -> str:
    measures = _("{n} measure", "{n} measures", n=side.measures).format(n=side.measures)
    if side.rolls:
        each = " + ".join(str(m) for m in side.rolls)
        return f"<b>{escape(side.name)}</b> ({side.label}): {_throws(side)} — {measures} ({each})"
    return f"<b>{escape(side.name)}</b> ({side.label}): {_faces(side)} — {measures}"


def contest_text(state: ContestFlow, room: int = SIDES_MAX) -> str:
    """The contest so far; ``room`` is how many sides the table's rules let in (two unless
    contests of many sides are on), so no line invites a side that could not join."""
    head = "⚔️ " + _("A d6 contest")
    n = state.actions
    if n > 1:
        each = _("a challenge, {n} action each", "a challenge, {n} actions each", n=n)
        head += " — " + each.format(n=n) + ": " + _("the larger total wins")
    lines = [head]
    lines += [_side_line(s) for s in state.sides]
    outcome = state.outcome
    if outcome is None:
        if len(state.sides) < 2:
            lines.append(_("Who opposes? Press your chance to roll."))
        elif len(state.sides) < room:
            lines.append(_("More sides may join; «Result» calls it."))
        else:
            lines.append(_("«Result» calls it."))
        return "\n".join(lines)
    names = {s.key: escape(s.name) for s in state.sides}
    if outcome.tie:
        tied = ", ".join(names[k] for k in outcome.tied)
        lines.append("🤝 " + _("A tie: {names}.").format(names=tied))
    else:
        assert outcome.winner is not None
        lines.append(
            "🏆 " + _("{name} wins, gain {n}.").format(name=names[outcome.winner], n=outcome.gain)
        )
    if outcome.fiasco:
        lines.append(
            _("Fiasco: {names} (a complication, whoever won).").format(
                names=", ".join(names[k] for k in outcome.fiasco)
            )
        )
    return "\n".join(lines)


def contest_keyboard(
    flow: Flow, state: ContestFlow, room: int = SIDES_MAX
) -> InlineKeyboardMarkup | None:
    if state.outcome is not None:
        return None

    def data(action: ContestAction, x: int = 0) -> ContestCallback:
        return ContestCallback(f=flow.id, v=flow.version, a=action, x=x)

    rows = []
    if len(state.sides) < room:
        rows += render.rows(
            [table_text.button(f"🎲{n}", data(ContestAction.JOIN, n)) for n in JOIN_CHANCES], 8
        )
    if len(state.sides) >= 2:
        rows.append([table_text.button("🏁 " + _("Result"), data(ContestAction.RESOLVE))])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def draw(
    flow: Flow, state: ContestFlow, room: int = SIDES_MAX
) -> tuple[str, InlineKeyboardMarkup | None]:
    return contest_text(state, room), contest_keyboard(flow, state, room)


def usage_text() -> str:
    return _(
        "A d6 contest: /vs 4 — your chance of 4, the others join by buttons; /vs 4 3 — against "
        "an opponent's 3 at once; /vs strength+agility luck 1 — from your sheet; "
        "/vs 4 3 actions 3 — a challenge, three rolls each and the larger total wins."
    )


def opponent_name(n: int) -> str:
    return _("Opponent {n}").format(n=n)


def already_in_text() -> str:
    return _("You already rolled in this contest.")


def only_opener_text() -> str:
    return _("The one who started the contest or the GM calls it.")


def help_line(_profile: object) -> str:
    return _("/vs 4 — a contest: the others join with their chance, the most measures win")


def two_sides_text() -> str:
    return _("At this table a contest has two sides only: /vs 4 3.")


def full_text(sides: int) -> str:
    return _("The contest already has {n} sides: there is no room for more.").format(n=sides)
