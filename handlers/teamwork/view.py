"""The team's one message: each helper's roll and the pooled successes (§A.13)."""

from __future__ import annotations

from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import render, table_text
from bot.i18n import drawing
from handlers.teamwork.callbacks import TeamAction, TeamCallback
from handlers.teamwork.flow import TeamFlow
from rules import d10
from rules.contests import teamwork
from rules.profiles import Profile, TeamBotch
from table.store import Flow


def team_text(state: TeamFlow, profile: Profile) -> str:
    """Each helper's roll on its own line (each succeeds or botches alone, §A.13) and the
    pooled successes."""
    pooled = teamwork([m.result for m in state.members], profile, state.target)
    ruined = profile.team_botch is TeamBotch.RUINS_ALL and any(
        m.result.outcome is d10.Outcome.BOTCH for m in state.members
    )
    leader, difficulty, target, closed = state.leader, state.difficulty, state.target, state.closed
    members = [(m.name, m.pool, m.result, m.source) for m in state.members]
    pending = [name for _uid, name in state.pending]
    total, reached = pooled.total, pooled.reached
    head = "🤝 <b>" + _("Teamwork") + f"</b> — {escape(leader)} · "
    head += _("difficulty {d}").format(d=difficulty)
    if target is not None:
        head += " · " + _("target {n}").format(n=target)
    lines = [head]
    for name, pool, result, source in members:
        head = f"{escape(name)}: " + (f"{source} → " if source else "")
        lines.append(head + _("{n}d10").format(n=pool) + " · " + table_text.roll_summary(result))
    if pending and not closed:
        names = ", ".join(escape(n) for n in pending)
        lines.append("⏳ " + _("{names}: choose your pool below.").format(names=names))
    if target is not None:
        lines.append(table_text.progress_bar(total, target))
    together = _("Together: {successes}").format(successes=render.successes_text(total))
    lines.append(("<b>" + together + "</b>") if closed else together)
    if ruined:
        lines.append("💥 " + _("A botch ruins the whole team's effort."))
    if target is not None and reached:
        lines.append("✅ " + _("The team reached its target."))
    if closed:
        lines.append("⏹ " + _("Closed by the leader."))
    return "\n".join(lines)


def team_keyboard(flow_id: str, version: int, *, choosing: bool) -> InlineKeyboardMarkup:
    def button(text: str, action: TeamAction, x: int = 0) -> InlineKeyboardButton:
        return table_text.button(text, TeamCallback(f=flow_id, v=version, a=action, x=x))

    rows: list[list[InlineKeyboardButton]] = [[button("🤝 " + _("Help"), TeamAction.JOIN)]]
    if choosing:
        rows += render.rows([button(str(n), TeamAction.POOL, n) for n in table_text.TABLE_POOLS], 5)
    rows.append([button("✅ " + _("Finish"), TeamAction.FINISH)])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def team_already_text() -> str:
    return _("You have already rolled for the team.")


def team_full_text(cap: int) -> str:
    return _("The team is full: {n} people at most.").format(n=cap)


def team_press_help_text() -> str:
    return _("Press «Help» first, then choose your pool.")


def team_leader_only_text() -> str:
    return _("Only the leader closes the teamwork.")


def usage_text() -> str:
    """One correct line for the command, shown under every problem (docs/product.md §5)."""
    return _("Example: /team 7 6 target 5 — you roll 7 dice at difficulty 6, the team needs 5")


def draw(flow: Flow, state: TeamFlow, profile: Profile) -> tuple[str, InlineKeyboardMarkup | None]:
    """The shared message in its own language (bot/i18n.py), whoever's step drew it."""
    with drawing(flow):
        return _draw(flow, state, profile)


def _draw(flow: Flow, state: TeamFlow, profile: Profile) -> tuple[str, InlineKeyboardMarkup | None]:
    text = team_text(state, profile)
    text = table_text.with_house_tag(text, profile)
    if state.closed:
        return text, None
    return text, team_keyboard(flow.id, flow.version, choosing=bool(state.pending))


def help_line(profile: Profile) -> str:
    return _("/team 7 6 teamwork")
