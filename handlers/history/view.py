"""``/log`` and ``/stats`` on screen: the recent rolls, the dice's fairness (docs/product.md §2)."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any, TypeGuard

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import render
from handlers.history.callbacks import LogCallback, SessionLogCallback
from rules.d10 import Outcome
from rules.profiles import Profile
from table.stats import ChatStats, Fairness, Verdict

LOG_LINES = 15


def _name(entry: Mapping[str, Any]) -> str:
    name = entry.get("name")
    return escape(name) if isinstance(name, str) and name else "?"


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _outcome_word(code: object) -> str | None:
    try:
        return render.outcome_label(Outcome(str(code)))
    except ValueError:
        return None


ABANDONED = "abandoned"  # a ritual given up: no dice, the Paradox its end earned


def abandoned_line(name: str, paradox: object) -> str:
    """«Аня: ритуал прерван → Парадокс +2»: the log's line of a ritual given up."""
    line = f"✋ {name}: " + _("ritual given up")
    if _is_int(paradox) and paradox > 0:
        line += " → " + _("Paradox +{n}").format(n=paradox)
    return line


def log_line(entry: Mapping[str, Any]) -> str:
    """One roll in a line; a field the bot does not know is left out, never guessed."""
    name = _name(entry)
    seq = entry.get("seq")
    if entry.get("hidden") is True and "faces" not in entry:
        return f"🤫 {name}: " + _("hidden roll #{seq}").format(seq=seq)
    if entry.get("kind") == ABANDONED:
        return abandoned_line(name, entry.get("paradox"))
    prefix = (
        ("📢 " + _("revealed #{seq}").format(seq=seq) + " ") if entry.get("hidden") is True else ""
    )
    if entry.get("sides") == 6 or entry.get("system") == "d6":
        chance = entry.get("chance")
        measures = entry.get("measures", entry.get("successes"))
        line = f"{prefix}{name}: " + _("chance {n}d6").format(n=chance if _is_int(chance) else "?")
        if _is_int(measures):
            line += " → " + _(
                "{n} measure of success", "{n} measures of success", n=measures
            ).format(n=measures)
        return line
    pool, difficulty = entry.get("pool"), entry.get("difficulty")
    line = f"{prefix}{name}"
    if _is_int(pool) and _is_int(difficulty):
        line += ": " + _("{pool}d10, difficulty {difficulty}").format(
            pool=pool, difficulty=difficulty
        )
    word = _outcome_word(entry.get("outcome"))
    successes = entry.get("successes")
    if word is not None:
        line += f" → <b>{word}</b>"
        if _is_int(successes) and successes > 0:
            line += ", " + render.successes_text(successes)
    faces = entry.get("faces")
    if isinstance(faces, list) and faces and all(_is_int(f) for f in faces):
        line += " (" + " ".join(str(f) for f in sorted(faces, reverse=True)) + ")"
    return line


MESSAGE_LIMIT = 4000  # Telegram's 4096 with room for the entities


def log_page(
    entries: list[dict[str, Any]], offset: int = 0, *, session: int | None = None
) -> tuple[str, int]:
    """One page of the log from ``offset`` (newest first): at most :data:`LOG_LINES` lines
    and never past one message (a roll of fifty dice makes a long line), and how many
    entries it showed."""
    if not entries:
        if session is not None:
            return _("No rolls in session {n} yet.").format(n=session), 0
        return _("No rolls here yet."), 0
    head = "📜 <b>" + _("Recent rolls") + "</b>"
    if session is not None:
        head = "📜 <b>" + _("Rolls of session {n}").format(n=session) + "</b>"
    if offset:
        head += " · " + _("older, from {n}").format(n=offset + 1)
    lines = [head]
    size = len(head)
    shown = 0
    for entry in entries[offset : offset + LOG_LINES]:
        line = log_line(entry)
        if size + len(line) + 1 > MESSAGE_LIMIT and shown:
            break
        lines.append(line[: MESSAGE_LIMIT - size - 1])
        size += len(line) + 1
        shown += 1
    return "\n".join(lines), shown


def log_text(entries: list[dict[str, Any]]) -> str:
    return log_page(entries)[0]


def _page(offset: int, session: int | None) -> str:
    if session is None:
        return LogCallback(o=offset).pack()
    return SessionLogCallback(s=session, o=offset).pack()


def log_keyboard(
    offset: int, shown: int, total: int, *, session: int | None = None
) -> InlineKeyboardMarkup | None:
    """«Раньше» while older entries remain, «Новее» back toward the newest."""
    row = []
    if offset > 0:
        newer = max(0, offset - LOG_LINES)
        row.append(
            InlineKeyboardButton(text="➡ " + _("Newer"), callback_data=_page(newer, session))
        )
    if offset + shown < total:
        row.insert(
            0,
            InlineKeyboardButton(
                text="⬅ " + _("Older"), callback_data=_page(offset + shown, session)
            ),
        )
    return InlineKeyboardMarkup(inline_keyboard=[row]) if row else None


def verdict_sentence(fair: Fairness) -> str:
    """The chi-square verdict in words a player understands, with the p-value for the curious."""
    p = "—" if fair.p_value is None else render.decimal(fair.p_value, "0.000")
    if fair.verdict is Verdict.NOT_ENOUGH_DATA:
        needed = 5 * fair.sides
        return _(
            "Too few dice to judge yet: the check needs at least {n} dice of this kind."
        ).format(n=needed)
    if fair.verdict is Verdict.LOOKS_FAIR:
        return _(
            "The dice look fair: a fair die spreads its faces like this quite often (p = {p})."
        ).format(p=p)
    if fair.verdict is Verdict.SUSPICIOUS:
        return _(
            "Unusual spread: a fair die does this about once in a hundred checks (p = {p}). "
            "Keep watching."
        ).format(p=p)
    return _("Very unlikely for a fair die: less than once in a thousand checks (p = {p}).").format(
        p=p
    )


def fairness_lines(fair: Fairness) -> list[str]:
    counts = " ".join(f"{face}:{count}" for face, count in enumerate(fair.counts, start=1))
    head = _("d{sides}: {n} dice, average {mean} (a fair die: {expected})").format(
        sides=fair.sides,
        n=fair.total,
        mean="—" if fair.mean is None else render.decimal(fair.mean, "0.00"),
        expected=render.decimal(fair.expected_mean, "0.0"),
    )
    return [head, f"<code>{counts}</code>", verdict_sentence(fair)]


# The players with the most rolls; with 64-character names (Telegram's longest) and the
# fairness lines the message stays under Telegram's 4,096 characters.
PLAYERS_SHOWN = 25


def stats_text(stats: ChatStats, *, session: int | None = None) -> str:
    if stats.rolls == 0:
        return _("No rolls to count yet.")
    n = stats.rolls
    title = _(
        "Statistics of the whole game: {n} roll", "Statistics of the whole game: {n} rolls", n=n
    )
    if session is not None:
        title = _("Session {session}: {n} roll", "Session {session}: {n} rolls", n=n)
    lines = ["📊 <b>" + title.format(n=n, session=session) + "</b>"]
    for player in stats.players[:PLAYERS_SHOWN]:
        rolls = _("{n} roll", "{n} rolls", n=player.rolls).format(n=player.rolls)
        line = f"{escape(player.name) or '?'}: {rolls}, " + _(
            "on average {mean} successes per roll"
        ).format(mean=render.decimal(player.mean_successes, "0.0"))
        botches = player.outcomes.get(Outcome.BOTCH.value, 0)
        if botches:
            line += ", " + _("{n} botch", "{n} botches", n=botches).format(n=botches)
        lines.append(line)
    hidden = len(stats.players) - PLAYERS_SHOWN
    if hidden > 0:
        lines.append(_("…and {n} more player", "…and {n} more players", n=hidden).format(n=hidden))
    lines.append("")
    lines.append("<b>" + _("Are the dice fair?") + "</b>")
    for fair in stats.dice.values():
        lines += fairness_lines(fair)
    return "\n".join(lines)


def no_session_text() -> str:
    return _("No session has been played here yet. The Storyteller starts one with /session start.")


def history_usage_text() -> str:
    return _("Example: /log — the latest rolls; /log session — this session's; /stats session 2")


def help_line(profile: Profile) -> str:
    return "/log · /stats · /log session · /stats session"
