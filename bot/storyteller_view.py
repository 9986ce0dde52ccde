"""The Storyteller's words and buttons: ``/st``, hidden rolls, ``/reveal``, ``/log``, ``/stats``.

Pure rendering (issue 4 items 6, 7 and 9): values in, localised HTML and keyboards out, in the
locale the i18n middleware put in context. What a hidden roll's group message may say is
decided here and nowhere else: :func:`hidden_group_text` takes no pool, difficulty, faces or
result at all, so no later edit of it can leak one by accident.

It also turns the roll log into the lines ``/log`` shows and the entries ``bot.stats`` counts
(:func:`merge_history`): a hidden roll is logged without its result and gains it here only
once it is revealed, so neither ``/log`` nor ``/stats`` can give it away before ``/reveal``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape
from typing import Any, TypeGuard

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n.context import get_i18n
from babel.numbers import format_decimal
from pydantic import ValidationError

from bot import commitment, render
from bot.stats import ChatStats, Fairness, Verdict
from bot.store import HiddenRecord, LogEntry
from rules import profiles
from rules.d10 import D10Result, Outcome
from rules.errors import RulesInputError
from rules.profiles import Profile

LOG_LINES = 15
START_PAYLOAD = "st"  # the deep link's ?start= value: «open the chat for hidden rolls»


class StCallback(CallbackData, prefix="st"):
    """A tap on a claim or take-over confirmation: which flow, at which version."""

    f: str
    v: int


class RevealCallback(CallbackData, prefix="hr"):
    """«Раскрыть» under a hidden result in the Storyteller's private chat: chat and number."""

    c: int
    s: int


class CampaignCallback(CallbackData, prefix="hc"):
    """A campaign button in the Storyteller's private chat: the group to roll for."""

    c: int


def _locale() -> str:
    return get_i18n().current_locale


def decimal(value: float, pattern: str = "0.0") -> str:
    return format_decimal(value, format=pattern, locale=_locale())


# --- /st -------------------------------------------------------------------------------------


def help_line() -> str:
    """One line in /help for the Storyteller's commands (the screen must stay one screen)."""
    return "🎭 " + _("/st Storyteller · /h 7 6 secret roll · /reveal · /log · /stats")


def storyteller_set_text(name: str) -> str:
    return "🎭 " + _("{name} is now the Storyteller of this chat.").format(name=escape(name))


def storyteller_passed_text(old: str, new: str) -> str:
    return "🎭 " + _("{old} hands the Storyteller's role to {new}.").format(
        old=escape(old), new=escape(new)
    )


def storyteller_current_text(name: str) -> str:
    return (
        _("The Storyteller of this chat: {name}.").format(name=escape(name))
        + "\n"
        + _("The Storyteller passes the role with /st as a reply to a player's message.")
    )


def storyteller_already_text() -> str:
    return _("You are already the Storyteller of this chat.")


def storyteller_admins_only_text() -> str:
    return _("Only a chat administrator can become the Storyteller.")


def storyteller_group_only_text() -> str:
    return _("The Storyteller's role belongs to a group: send /st in your game's group.")


def storyteller_anonymous_text() -> str:
    return _(
        "You are writing anonymously on behalf of the group. "
        "Tap the button to become the Storyteller (only administrators can)."
    )


def storyteller_takeover_text(current: str) -> str:
    return _("The Storyteller now is {name}. Take the role over?").format(name=escape(current))


def storyteller_changed_text() -> str:
    return _("The Storyteller's role changed in the meantime; send /st again.")


def storyteller_target_problem_text() -> str:
    return _(
        "Pass the role by replying with /st to a message of the player who gets it "
        "(not a bot, not an anonymous administrator)."
    )


def storyteller_only_text() -> str:
    return _("Only the Storyteller can do this. An administrator becomes one with /st.")


def not_for_you_text() -> str:
    return _("This button is not for you.")


def anonymous_reveal_text() -> str:
    return _("Reveal with the button under the result in our private chat, or send /reveal there.")


def game_storyteller_only_text() -> str:
    return _("Only the Storyteller can change the game.")


def claim_keyboard(flow_id: str, version: int, takeover: bool) -> InlineKeyboardMarkup:
    text = _("Take the role") if takeover else _("I am the Storyteller")
    data = StCallback(f=flow_id, v=version).pack()
    return InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text="🎭 " + text, callback_data=data)]]
    )


# --- hidden rolls ----------------------------------------------------------------------------


def hidden_group_text(name: str, seq: int, commitment_hex: str) -> str:
    """The only thing the group learns of a hidden roll: who, its number and the commitment."""
    return "\n".join(
        [
            "🤫 "
            + _("{name} rolled in secret: hidden roll #{seq}.").format(name=escape(name), seq=seq),
            _("SHA-256 commitment:") + f" <code>{commitment_hex}</code>",
            _("After /reveal anyone can check that the result was not changed."),
        ]
    )


def hidden_private_text(
    record: HiddenRecord, result: D10Result, title: str, profile: Profile
) -> str:
    """The full result, for the Storyteller's eyes only (their private chat)."""
    head = "🤫 " + _("Hidden roll #{seq} in «{title}»").format(seq=record.seq, title=escape(title))
    body = render.roll_result_text(result, pool=record.pool, roller=record.name, profile=profile)
    tail = _("Commitment posted in the group:") + f" <code>{record.commitment}</code>"
    return "\n".join([head, body, tail, _("Publish it with the button or /reveal in the group.")])


def reveal_keyboard(chat_id: int, seq: int) -> InlineKeyboardMarkup:
    data = RevealCallback(c=chat_id, s=seq).pack()
    return InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text="📢 " + _("Reveal"), callback_data=data)]]
    )


def deep_link(bot_username: str) -> str:
    return f"https://t.me/{bot_username}?start={START_PAYLOAD}"


def no_private_chat_text(name: str) -> str:
    return "🤫 " + _(
        "{name}, to roll in secret open a private chat with me (the button below), "
        "then send /h again. Nothing was rolled and nothing was shown here."
    ).format(name=escape(name))


def open_private_keyboard(bot_username: str) -> InlineKeyboardMarkup:
    button = InlineKeyboardButton(
        text="💬 " + _("Open a private chat"), url=deep_link(bot_username)
    )
    return InlineKeyboardMarkup(inline_keyboard=[[button]])


def private_ready_text() -> str:
    return _(
        "This chat is ready: the results of your hidden rolls will come here. "
        "Send /h 7 6 in your game's group, or /h here to roll for a campaign you run."
    )


def anonymous_hidden_text() -> str:
    return _(
        "An anonymous administrator's roll cannot be sent to anyone privately. "
        "Send /h 7 6 to me in a private chat instead."
    )


def hidden_d6_text() -> str:
    return _("Hidden rolls are for the d10 games for now; this chat plays the d6 system.")


def choose_campaign_text(has_any: bool) -> str:
    if not has_any:
        return _(
            "You are not the Storyteller of any chat yet. Become one with /st in your game's group."
        )
    return _("Choose the campaign your hidden rolls from this chat are for:")


def campaigns_keyboard(campaigns: Mapping[int, str], chosen: int | None) -> InlineKeyboardMarkup:
    rows = [
        [
            InlineKeyboardButton(
                text=("✅ " if chat_id == chosen else "") + title,
                callback_data=CampaignCallback(c=chat_id).pack(),
            )
        ]
        for chat_id, title in sorted(campaigns.items(), key=lambda item: item[1].casefold())
    ]
    return InlineKeyboardMarkup(inline_keyboard=rows)


def campaign_chosen_text(title: str) -> str:
    return _(
        "Campaign: «{title}». Now /h 7 6 here rolls in secret for it; "
        "/reveal publishes the last hidden roll."
    ).format(title=escape(title))


def reveal_text(record: HiddenRecord, result: D10Result, profile: Profile) -> str:
    """The published roll and exactly what to paste into ``sha256sum`` to check it."""
    line = commitment.reveal_line(record.payload, record.nonce)
    shell = commitment.shell_command(record.payload, record.nonce)
    return "\n".join(
        [
            "📢 " + _("Hidden roll #{seq} revealed:").format(seq=record.seq),
            render.roll_result_text(result, pool=record.pool, roller=record.name, profile=profile),
            _("Check: the SHA-256 of this line must equal the commitment {commitment}").format(
                commitment=f"<code>{record.commitment}</code>"
            ),
            f"<code>{escape(line, quote=False)}</code>",
            _("In a terminal:") + f" <code>{escape(shell, quote=False)}</code>",
        ]
    )


def reveal_done_text() -> str:
    return _("Revealed in the group.")


def already_revealed_text(seq: int) -> str:
    return _("Hidden roll #{seq} is already revealed.").format(seq=seq)


def no_hidden_roll_text(seq: int | None) -> str:
    if seq is None:
        return _("There are no hidden rolls left to reveal.")
    return _("There is no hidden roll #{seq}.").format(seq=seq)


def reveal_usage_text() -> str:
    return _("/reveal publishes the last hidden roll; /reveal 3 publishes hidden roll #3.")


def record_profile(record: HiddenRecord, fallback: Profile) -> Profile:
    """The profile the roll was made under, for its words; the chat's own if it is unknown."""
    try:
        return profiles.get(record.profile)
    except RulesInputError:
        return fallback


def record_result(record: HiddenRecord) -> D10Result | None:
    try:
        return D10Result.model_validate(record.result)
    except ValidationError:
        return None


# --- /log and /stats -------------------------------------------------------------------------


def hidden_log_entry(record: HiddenRecord) -> LogEntry:
    """What the roll log holds for a hidden roll: who and which number, never the result."""
    return LogEntry(hidden=True, seq=record.seq, user_id=record.owner_id, name=record.name)


def _revealed_entry(record: HiddenRecord) -> dict[str, Any] | None:
    result = record_result(record)
    if result is None:
        return None
    return {
        "user_id": record.owner_id,
        "name": record.name,
        "pool": record.pool,
        "difficulty": result.difficulty,
        "threshold": result.threshold,
        "willpower": result.willpower,
        "faces": list(result.faces),
        "successes": result.successes,
        "outcome": result.outcome.value,
        "hidden": True,
        "seq": record.seq,
    }


def merge_history(
    entries: Iterable[Mapping[str, Any]], hidden: Mapping[int, HiddenRecord]
) -> list[dict[str, Any]]:
    """The log as ``/log`` and ``/stats`` may see it, newest first.

    A hidden roll's line becomes its full entry once revealed and stays a bare marker
    (``hidden`` and ``seq``, no faces) until then; a d6 roll (§D.3) is counted in measures of
    success on six-sided dice, so ``bot.stats`` reads it like any other roll.
    """
    merged: list[dict[str, Any]] = []
    for raw in entries:
        entry = dict(raw)
        if entry.get("hidden") is True:
            seq = entry.get("seq")
            record = hidden.get(seq) if isinstance(seq, int) else None
            revealed = _revealed_entry(record) if record and record.revealed else None
            merged.append(
                revealed
                or {k: entry[k] for k in ("hidden", "seq", "user_id", "name") if k in entry}
            )
            continue
        if entry.get("system") == "d6" and "measures" in entry and "successes" not in entry:
            entry["successes"] = entry["measures"]
            entry["sides"] = 6
        merged.append(entry)
    return merged


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


def log_line(entry: Mapping[str, Any]) -> str:
    """One roll in a line; a field the bot does not know is left out, never guessed."""
    name = _name(entry)
    seq = entry.get("seq")
    if entry.get("hidden") is True and "faces" not in entry:
        return f"🤫 {name}: " + _("hidden roll #{seq}").format(seq=seq)
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


def log_text(entries: list[dict[str, Any]]) -> str:
    if not entries:
        return _("No rolls here yet.")
    lines = ["📜 <b>" + _("Recent rolls") + "</b>"]
    lines += [log_line(entry) for entry in entries[:LOG_LINES]]
    return "\n".join(lines)


def countable(entries: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The entries ``/stats`` counts: an unrevealed hidden roll is not one (it has no dice)."""
    return [e for e in entries if not (e.get("hidden") is True and "faces" not in e)]


def verdict_sentence(fair: Fairness) -> str:
    """The chi-square verdict in words a player understands, with the p-value for the curious."""
    p = "—" if fair.p_value is None else decimal(fair.p_value, "0.000")
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
        mean="—" if fair.mean is None else decimal(fair.mean, "0.00"),
        expected=decimal(fair.expected_mean, "0.0"),
    )
    return [head, f"<code>{counts}</code>", verdict_sentence(fair)]


def stats_text(stats: ChatStats) -> str:
    if stats.rolls == 0:
        return _("No rolls to count yet.")
    lines = [
        "📊 <b>"
        + _(
            "Statistics of the last {n} roll", "Statistics of the last {n} rolls", n=stats.rolls
        ).format(n=stats.rolls)
        + "</b>"
    ]
    for player in stats.players:
        rolls = _("{n} roll", "{n} rolls", n=player.rolls).format(n=player.rolls)
        line = f"{escape(player.name) or '?'}: {rolls}, " + _(
            "on average {mean} successes per roll"
        ).format(mean=decimal(player.mean_successes, "0.0"))
        botches = player.outcomes.get(Outcome.BOTCH.value, 0)
        if botches:
            line += ", " + _("{n} botch", "{n} botches", n=botches).format(n=botches)
        lines.append(line)
    lines.append("")
    lines.append("<b>" + _("Are the dice fair?") + "</b>")
    for fair in stats.dice.values():
        lines += fairness_lines(fair)
    return "\n".join(lines)
