"""The challenge's one message: both sides, each round, the winner (§A.12, §A.14)."""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import render, table_text
from bot.i18n import drawing
from handlers.opposed.callbacks import VsAction, VsCallback
from handlers.opposed.flow import OpposedFlow, Party
from rules.contests import Side
from rules.profiles import Profile
from table.store import Flow


def opposed_text(state: OpposedFlow, profile: Profile) -> str:
    """``state.rounds`` are (successes A, successes B, total A, total B) of finished race
    rounds."""
    name_a, name_b, race_to = state.a.name, state.b.name, state.race_to
    terms_a = _terms(state.a, profile) or ""
    terms_b = None if state.choosing else _terms(state.b, profile)
    roll_a, roll_b, rounds = state.roll_a, state.roll_b, state.rounds
    finished, net, cancelled = state.finished, state.net, state.cancelled
    winner = (
        {Side.A: state.a.name, Side.B: state.b.name}.get(state.winner) if state.winner else None
    )
    a, b = escape(name_a), escape(name_b)
    head = "⚔️ <b>" + _("Opposed roll") + f"</b>: {a} — {b}"
    if race_to is not None:
        head += " · " + _("first to {n}").format(n=race_to)
    lines = [head]
    shown = rounds[-table_text.HISTORY_SHOWN :]  # a long race keeps its latest rounds on screen
    for number, (sa, sb, ta, tb) in enumerate(shown, start=len(rounds) - len(shown) + 1):
        lines.append(
            _("Round {k}: {a} {sa}, {b} {sb} · total {ta}:{tb}").format(
                k=number, a=a, sa=sa, b=b, sb=sb, ta=ta, tb=tb
            )
        )
    line_a = f"{a}: {terms_a}"
    if roll_a is not None:
        line_a += "\n" + table_text.roll_summary(roll_a)
    lines.append(line_a)
    if terms_b is None:
        lines.append(f"{b}: " + _("choose your pool and difficulty, then roll."))
    else:
        line_b = f"{b}: {terms_b}"
        if roll_b is not None:
            line_b += "\n" + table_text.roll_summary(roll_b)
        lines.append(line_b)
    if cancelled:
        lines.append("⏹ " + _("Cancelled."))
    elif finished:
        if winner is None:
            lines.append("🤝 <b>" + _("A tie") + "</b>")
        else:
            won = _("{name} wins by {n} success", "{name} wins by {n} successes", n=net)
            lines.append("🏆 <b>" + won.format(name=escape(winner), n=net) + "</b>")
    return "\n".join(lines)


def opposed_choice_keyboard(
    flow_id: str,
    version: int,
    *,
    pool: int | None,
    difficulty: int,
    difficulties: Iterable[int],
    name_b: str,
) -> InlineKeyboardMarkup:
    """The challenged player's own pool and difficulty, in the same message."""

    def button(text: str, action: VsAction, x: int = 0) -> InlineKeyboardButton:
        return table_text.button(text, VsCallback(f=flow_id, v=version, a=action, x=x))

    pools = [
        button(render.marked(str(n), n == pool), VsAction.POOL, n) for n in table_text.TABLE_POOLS
    ]
    diffs = [
        button(render.marked(f"🎯{d}", d == difficulty), VsAction.DIFFICULTY, d)
        for d in difficulties
    ]
    rows = render.rows(pools, 5) + render.rows(diffs, 5)
    last = [button("⏹ " + _("Cancel"), VsAction.CANCEL)]
    if pool is not None:
        last.insert(0, button("🎲 " + _("Roll: {name}").format(name=name_b), VsAction.ROLL_B))
    rows.append(last)
    return InlineKeyboardMarkup(inline_keyboard=rows)


def opposed_round_keyboard(
    flow_id: str, version: int, *, name_a: str | None, name_b: str | None
) -> InlineKeyboardMarkup:
    """A later round of a race: each side rolls with its own button (None: already rolled)."""

    def button(text: str, action: VsAction) -> InlineKeyboardButton:
        return table_text.button(text, VsCallback(f=flow_id, v=version, a=action))

    row = []
    if name_a is not None:
        row.append(button("🎲 " + _("Roll: {name}").format(name=name_a), VsAction.ROLL_A))
    if name_b is not None:
        row.append(button("🎲 " + _("Roll: {name}").format(name=name_b), VsAction.ROLL_B))
    return InlineKeyboardMarkup(
        inline_keyboard=[row, [button("⏹ " + _("Cancel"), VsAction.CANCEL)]]
    )


def opponent_missing_text() -> str:
    return _("Whom do you challenge? Reply to their message with /vs, or name them: /vs 6 7 @name.")


def storyteller_only_text() -> str:
    return _("Only the Storyteller plays an NPC (a chat administrator while nobody has /st).")


def not_your_side_text() -> str:
    return _("This challenge is not addressed to you.")


def already_rolled_text() -> str:
    return _("You have already rolled this round.")


def usage_text() -> str:
    """One correct line for the command, shown under every problem (docs/product.md §5)."""
    return _(
        "Example: reply to a player's message with /vs 6 7 (your 6 dice at difficulty 7), "
        "or /vs 6 7 @name; add «to 5» for first to 5 successes"
    )


def npc_name() -> str:
    return _("NPC")


def _terms(party: Party, profile: Profile) -> str | None:
    if party.pool is None:
        return None
    terms = render.conditions(party.pool, party.difficulty, party.threshold, False, profile)
    return f"{party.source} → {terms}" if party.source else terms


def draw(
    flow: Flow, state: OpposedFlow, profile: Profile
) -> tuple[str, InlineKeyboardMarkup | None]:
    """The shared message in its own language (bot/i18n.py), whoever's step drew it."""
    with drawing(flow):
        return _draw(flow, state, profile)


def _draw(
    flow: Flow, state: OpposedFlow, profile: Profile
) -> tuple[str, InlineKeyboardMarkup | None]:
    text = opposed_text(state, profile)
    text = table_text.with_house_tag(text, profile)
    if state.finished or state.cancelled:
        return text, None
    if state.choosing:
        return text, opposed_choice_keyboard(
            flow.id,
            flow.version,
            pool=state.b.pool,
            difficulty=state.b.difficulty,
            difficulties=range(profile.difficulty_min, profile.difficulty_max + 1),
            name_b=state.b.name,
        )
    return text, opposed_round_keyboard(
        flow.id,
        flow.version,
        name_a=state.a.name if state.roll_a is None else None,
        name_b=state.b.name if state.roll_b is None else None,
    )


def help_line(profile: Profile) -> str:
    return _("/vs 6 7 opposed")
