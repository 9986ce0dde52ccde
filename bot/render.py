"""Rules results into localised HTML text and inline keyboards (docs/product.md §2).

The rules return codes (``Outcome.BOTCH``, ``Degree.MARGINAL``); the words for them live in
the Babel catalogues and are chosen here, in the locale that the i18n middleware put in
context. Everything a player typed (names) is HTML-escaped here, once, because the Bot sends
every message as HTML (bot/app.py: make_bot). No business logic: the handlers decide what
happened, this module only says it. The CallbackData factories live here too, beside the
keyboards that carry them, so that the road goes handler → render and never back.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from html import escape
from typing import Protocol

from aiogram.types import InlineKeyboardButton
from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n import lazy_gettext as __
from aiogram.utils.i18n.context import get_i18n
from babel.numbers import format_decimal
from babel.support import LazyProxy

from bot import house_rules
from rules.d6.roll import MEASURE_FACE, D6Outcome, D6Result
from rules.d10 import D10Result, Degree, Outcome
from rules.profiles import BotchRule, LabelSet, Profile
from table.parsing import Problem

TOKEN_SHOWN = 40  # characters of a mistyped word echoed back


class D10Chances(Protocol):
    """What ``rules.probability.d10`` returns, as far as the bot needs it."""

    @property
    def success(self) -> float: ...
    @property
    def failure(self) -> float: ...
    @property
    def botch(self) -> float: ...
    @property
    def successes(self) -> Mapping[int, float] | Sequence[float]: ...


_OUTCOMES: dict[Outcome, LazyProxy] = {
    Outcome.SUCCESS: __("Success"),
    Outcome.FAILURE: __("Failure"),
    Outcome.BOTCH: __("Botch"),
    Outcome.AUTO_SUCCESS: __("Automatic success"),
}

# §A.5: the two books name the degrees differently; the English words are the same. Each is
# the whole name of the success («Полный успех»), which the result line leads with.
_DEGREES: dict[LabelSet, dict[Degree, LazyProxy]] = {
    LabelSet.S0: {
        Degree.MARGINAL: __("Marginal success"),
        Degree.MODERATE: __("Moderate success"),
        Degree.COMPLETE: __("Complete success"),
        Degree.EXCEPTIONAL: __("Exceptional success"),
        Degree.PHENOMENAL: __("Phenomenal success"),
    },
    LabelSet.S1: {
        Degree.MARGINAL: __("Marginal success (dubious)"),
        Degree.MODERATE: __("Moderate success (Dark Ages)"),
        Degree.COMPLETE: __("Complete success (Dark Ages)"),
        Degree.EXCEPTIONAL: __("Exceptional success (Dark Ages)"),
        Degree.PHENOMENAL: __("Phenomenal success (rare luck)"),
    },
}

_DIFFICULTY_LABELS: dict[LabelSet, dict[int, LazyProxy]] = {
    LabelSet.S0: {
        3: __("easy"),
        4: __("routine"),
        5: __("straightforward"),
        6: __("standard"),
        7: __("challenging"),
        8: __("difficult"),
        9: __("extremely difficult"),
    },
    LabelSet.S1: {
        3: __("easy (Dark Ages)"),
        4: __("routine (Dark Ages)"),
        5: __("straightforward (Dark Ages)"),
        6: __("standard (Dark Ages)"),
        7: __("risky"),
        8: __("difficult (Dark Ages)"),
        9: __("extremely difficult (Dark Ages)"),
    },
}

# Each language by its own name, in every interface language alike: a player looks for the
# language they read, so these are not translated (not in locales/).
LANGUAGES: dict[str, str] = {"ru": "Русский", "en": "English"}

_PROFILE_NAMES: dict[str, LazyProxy] = {
    "mage": __("Mage (house rules)"),
    "mage-revised": __("Mage: the Ascension Revised"),
    "dark-ages": __("Vampire: the Dark Ages"),
    "d6": __("Narrative d6 system"),
}


def botch_rule_name(rule: BotchRule) -> str:
    """§A.4: S0/S4 botch only with no success at all; S1 when 1s outnumber successes."""
    if rule is BotchRule.RAW_ZERO:
        return _("the Mage rule (no successes and a 1)")
    return _("the Dark Ages rule (more 1s than successes)")


def outcome_label(outcome: Outcome) -> str:
    return str(_OUTCOMES[outcome])


def degree_label(degree: Degree, labels: LabelSet) -> str:
    return str(_DEGREES[labels][degree])


def difficulty_label(difficulty: int, labels: LabelSet) -> str | None:
    """§A.5: neither book names 2 or 10, so those get no label."""
    label = _DIFFICULTY_LABELS[labels].get(difficulty)
    return None if label is None else str(label)


def profile_title(name: str) -> str:
    title = _PROFILE_NAMES.get(name)
    return escape(name) if title is None else str(title)


def successes_text(n: int) -> str:
    return _("{n} success", "{n} successes", n=n).format(n=n)


def percent(p: float) -> str:
    """A probability as a percentage in the reader's number format (12,5 % vs 12.5%)."""
    if 0 < p < 0.001:
        return "<" + format_decimal(0.1, format="0.0", locale=_locale()) + "%"
    return format_decimal(p * 100, format="0.0", locale=_locale()) + "%"


def percent_html(p: float) -> str:
    """:func:`percent` for HTML text: «<0,1%» must not reach Telegram as an open tag."""
    return escape(percent(p))


def _locale() -> str:
    return get_i18n().current_locale


def faces_html(result: D10Result) -> str:
    """Faces high→low; successes bold, 1s struck through (the rule of one cancels them)."""
    parts = []
    for face in sorted(result.faces, reverse=True):
        if face >= result.difficulty:
            parts.append(f"<b>{face}</b>")
        elif face == 1:
            parts.append(f"<s>{face}</s>")
        else:
            parts.append(str(face))
    return " ".join(parts)


def conditions(
    pool: int, difficulty: int, threshold: int, willpower: bool, profile: Profile
) -> str:
    """«7к10, сложность 6 (стандарт), Сила Воли»: what was rolled, in one line."""
    line = _("{pool}d10, difficulty {difficulty}").format(pool=pool, difficulty=difficulty)
    label = difficulty_label(difficulty, profile.labels)
    if label is not None:
        line += f" ({label})"
    if threshold:
        line += ", " + _("threshold {t}").format(t=threshold)
    if willpower:
        line += ", " + _("Willpower")
    return line


def outcome_line(outcome: Outcome, successes: int, degree: Degree | None, labels: LabelSet) -> str:
    """«Полный успех: 3 успеха»: a success is named by its degree (§A.5) when it has one; an
    automatic success is always the one success it says."""
    if outcome is Outcome.SUCCESS and degree is not None:
        return f"<b>{degree_label(degree, labels)}</b>: " + successes_text(successes)
    if outcome is Outcome.SUCCESS:
        # no degree to name it by: the count says it, not «Успех: 1 успех»
        return f"<b>{successes_text(successes)}</b>"
    line = f"<b>{outcome_label(outcome)}</b>"
    if outcome is Outcome.AUTO_SUCCESS and degree is not None and labels is LabelSet.S1:
        # S1 «Такой успех считается сомнительным (как при получении одного успешного балла)»
        return line + ": " + degree_label(degree, labels).lower() + ", " + successes_text(successes)
    if outcome is Outcome.AUTO_SUCCESS:
        line += ": " + successes_text(successes)
    return line


def roll_result_text(
    result: D10Result,
    *,
    pool: int,
    roller: str,
    profile: Profile,
    attempt: int = 1,
    source: str | None = None,
    willpower_left: tuple[int, int] | None = None,
) -> str:
    """The message a table reads after a roll: who, what, the faces, and what it means.

    ``source`` is the sheet's traits the pool came from (already escaped, «Ловкость 3 + Драка
    2»); ``willpower_left`` the sheet's (current, permanent) Willpower after this roll spent
    a point."""
    head = f"🎲 {escape(roller)}: "
    if source:
        head += source + " → "
    lines = [
        head + conditions(pool, result.difficulty, result.threshold, result.willpower, profile)
    ]
    if attempt > 1:
        lines[0] += " · " + _("attempt {n}").format(n=attempt)
    lines.append(faces_html(result))
    outcome = outcome_line(result.outcome, result.successes, result.degree, profile.labels)
    if result.outcome is Outcome.BOTCH:
        outcome += " " + _("(1s: {n})").format(n=result.botch_severity)
    lines.append(outcome)
    # A later attempt's difficulty is the retry rule's too (§A.10).
    tag = house_rules.house_tag(profile, keys=("retry_penalty",) if attempt > 1 else ())
    if tag is not None:
        lines.append(escape(tag, quote=False))
    if willpower_left is not None:
        lines.append(
            _("Willpower left: {current} of {permanent}").format(
                current=willpower_left[0], permanent=willpower_left[1]
            )
        )
    return "\n".join(lines)


def chances_line(chances: D10Chances) -> str:
    return _("Chance of success {success}, of a botch {botch}").format(
        success=percent_html(chances.success), botch=percent_html(chances.botch)
    )


def marked(text: str, chosen: bool) -> str:
    return f"[{text}]" if chosen else text


def rows(buttons: Sequence[InlineKeyboardButton], width: int) -> list[list[InlineKeyboardButton]]:
    return [list(buttons[i : i + width]) for i in range(0, len(buttons), width)]


def example(command: str) -> str:
    return _(
        "Example: /{cmd} 7 6 (7 dice, difficulty 6); /{cmd} 7 8 wp t1 (Willpower, threshold 1)"
    ).format(cmd=command)


def shown_word(token: str) -> str:
    """A typed word echoed back, escaped and cut short: a pasted novel must not push an
    answer past Telegram's 4096 characters."""
    return escape(token if len(token) <= TOKEN_SHOWN else token[: TOKEN_SHOWN - 1] + "…")


def parse_problem_text(problem: Problem, token: str, profile: Profile, command: str = "r") -> str:
    """A short answer that says what is wrong and shows a correct line (docs/product.md §5)."""
    return problem_sentence(problem, token, profile) + "\n" + example(command)


def problem_sentence(problem: Problem, token: str, profile: Profile) -> str:
    """What is wrong with a typed line, without the example (each command adds its own)."""
    word = shown_word(token)
    if problem is Problem.POOL_MISSING:
        text = _("How many dice? Give the pool as a number from 1 to {max}.").format(
            max=profile.pool_sanity_max
        )
    elif problem is Problem.THRESHOLD_SYNTAX:
        text = _("«{word}»: write the threshold as t2 (a number from 0 to 50).").format(word=word)
    elif problem is Problem.TOO_MANY_NUMBERS:
        text = _("«{word}»: only two numbers are expected, the pool and the difficulty.").format(
            word=word
        )
    elif problem is Problem.REPEATED:
        text = _("«{word}» is given twice.").format(word=word)
    else:
        text = _("«{word}» is not understood: the pool and the difficulty are numbers.").format(
            word=word
        )
    return text


def line_problem_text(problem: Problem, token: str, usage: str) -> str:
    """A line the grammar refused, for a command that is no pool and difficulty (a wound, a
    preparation, the d6 odds): what is wrong in words of any command, then its usage."""
    word = shown_word(token)
    if problem is Problem.TOO_MANY_NUMBERS and word:
        text = _("«{word}»: one number too many.").format(word=word)
    elif problem is Problem.REPEATED and word:
        text = _("«{word}» is given twice.").format(word=word)
    elif problem is Problem.NOT_A_NUMBER and word:
        text = _("«{word}» is not understood here.").format(word=word)
    else:
        return usage
    return text + "\n" + usage


def range_problem_text(field: str, profile: Profile, command: str = "r") -> str:
    """A number outside the rules' range; ``field`` is the rules' name for it."""
    return range_sentence(field, profile) + "\n" + example(command)


def range_sentence(field: str, profile: Profile) -> str:
    """A number outside the rules' range, without the example."""
    if field == "pool":
        text = _("The pool must be from 1 to {max} dice.").format(max=profile.pool_sanity_max)
    elif field == "threshold":
        text = _("The threshold must be from 0 to 50.")
    elif field == "willpower":
        text = _("Willpower does not add a success in this game.")
    else:
        text = _("The difficulty must be from {lo} to {hi} in this game.").format(
            lo=profile.difficulty_min, hi=profile.difficulty_max
        )
    return text


def wrong_system_text() -> str:
    return _("These rolls are for the d10 games; this chat plays the d6 system.")


_D6_OUTCOMES: dict[D6Outcome, LazyProxy] = {
    D6Outcome.SUCCESS: __("Success"),
    D6Outcome.SHORTFALL: __("Not enough"),
    D6Outcome.FIASCO: __("Fiasco"),
    D6Outcome.AUTO_SUCCESS: __("Automatic success"),
    D6Outcome.NO_MEASURES: __("No measures"),
}


def d6_outcome_name(outcome: D6Outcome) -> str:
    return str(_D6_OUTCOMES[outcome])


def d6_faces_text(result: D6Result) -> str:
    """Fives and sixes in bold are the measures (меры успеха, §D.3); a die a special effort
    rerolled is underlined."""
    shown = []
    for i, face in sorted(enumerate(result.faces), key=lambda p: -p[1]):
        text = f"<b>{face}</b>" if face >= MEASURE_FACE else str(face)
        shown.append(f"<u>{text}</u>" if i in result.rerolled else text)
    return " ".join(shown)


def d6_outcome_line(result: D6Result) -> str:
    outcome = f"<b>{d6_outcome_name(result.outcome)}</b>"
    if result.measures:
        outcome += ": " + _(
            "{n} measure of success", "{n} measures of success", n=result.measures
        ).format(n=result.measures)
        outcome += " · " + _("gain {n}").format(n=result.gain)
    return outcome


def d6_roll_text(result: D6Result, *, roller: str) -> str:
    """A d6 roll in three lines: who and the chance, the faces, the outcome (§D.3)."""
    head = f"🎲 {escape(roller)}: " + _("chance {n}d6").format(n=len(result.faces))
    if result.required > 1:
        head += ", " + _("measures needed: {n}").format(n=result.required)
    return "\n".join([head, d6_faces_text(result), d6_outcome_line(result)])


def d6_unsupported_text() -> str:
    return _("This chat plays the d6 system: roll with /r 4 (a chance of 4 dice).")


def admins_only_text() -> str:
    return _("Only the chat's administrators can change the game.")


def not_yours_text() -> str:
    return _("This is not your roll.")


def closed_text() -> str:
    return _("This roll is closed.")


def elsewhere_text() -> str:
    """A button pressed under a message its flow is not drawn in (a forged press)."""
    return _("This button does not belong to this message.")


def invalid_button_text() -> str:
    return _("This button is not valid.")


def decimal(value: float, pattern: str = "0.0") -> str:
    return format_decimal(value, format=pattern, locale=_locale())


def plain(html_text: str) -> str:
    """An HTML message as the plain text an alert shows (a callback answer has no markup)."""
    return html.unescape(re.sub(r"<[^>]+>", "", html_text))


def storyteller_only_text(*, d6: bool = False) -> str:
    """The d6 game names the one who runs it in its own texts' word («сценарист»)."""
    if d6:
        return _("Only the GM can do this. An administrator becomes one with /st.")
    return _("Only the Storyteller can do this. An administrator becomes one with /st.")


def already_done_text() -> str:
    return _("Already counted.")


def meant_text(line: str) -> str:
    """The answer to a mistyped command: the line that was meant, to copy with one tap."""
    return _("Did you mean <code>{line}</code>?").format(line=escape(line))


def understood_text(line: str) -> str:
    """The first line of the answer to a command the bot read otherwise than typed."""
    return _("<i>Read as</i> <code>{line}</code>").format(line=escape(line))


def understood_name_text(typed: str, name: str) -> str:
    """A name a slip away read as the one it means, said at the top of the answer."""
    return _("<i>Read «{typed}» as</i> «{name}»").format(typed=escape(typed), name=name)


def busy_text() -> str:
    return _("Many taps at once: please press again.")


def npc_storyteller_only_text(name: str) -> str:
    """A player named an NPC of the chat: its sheet is the Storyteller's to roll."""
    return _("{name} is the Storyteller's NPC: only the Storyteller rolls for them.").format(
        name=escape(name)
    )


def helpless_text() -> str:
    """S3 «Беспомощность» (§D.11): said where the wound that caused it is shown, and on the
    sheet while it lasts."""
    return "⛓ " + _(
        "Helpless: no power has a chance left and there are no luck dice. No roll is needed "
        "to bind or finish them; an ally's help that gives dice lifts it."
    )
