"""What the rolls a table makes together share on screen (docs/product.md §2 "table rolls").

Extended (§A.11), opposed (§A.12, §A.14), teamwork (§A.13) and multiple actions (§A.9) each
live in one message redrawn after every tap. Each feature draws its own message
(``handlers/<feature>/view.py``); the pieces here are the ones they all draw the same way:
one roll on one line, a progress bar, the buttons' layout and the refusals of a number.
"""

from __future__ import annotations

from html import escape

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton
from aiogram.utils.i18n import gettext as _

from bot import house_rules, render
from rules.d10 import D10Result, Outcome
from rules.profiles import Profile
from table.parsing import Problem

HISTORY_SHOWN = 12  # a long extended roll shows its latest rolls; 4096 characters is the cap
PROGRESS_WIDTH = 10
EXTEND_TARGETS = (3, 5, 7, 10, 15, 20)
TABLE_POOLS = range(1, 16)
SPLIT_BUTTONS_MAX = 20  # a bigger pool is split by typing: /multi 30 10 10 10


def roll_summary(result: D10Result) -> str:
    """«<b>8</b> 3 <s>1</s> → <b>Успех</b>: 1 успех»: one roll on one line."""
    line = render.faces_html(result) + " → " + f"<b>{render.outcome_label(result.outcome)}</b>"
    if result.outcome is Outcome.SUCCESS:
        line += ": " + render.successes_text(result.successes)
    return line


def with_house_tag(text: str, profile: Profile) -> str:
    """A table roll's message with the house rules that change what it means (docs/product.md
    "/rules"): the dice rules and those of extended, opposed, teamwork and multiple actions."""
    tag = house_rules.house_tag(profile, house_rules.Group.TABLE)
    return text if tag is None else text + "\n" + escape(tag, quote=False)


def button(text: str, data: CallbackData) -> InlineKeyboardButton:
    return InlineKeyboardButton(text=text, callback_data=data.pack())


def progress_bar(done: int, target: int) -> str:
    filled = min(PROGRESS_WIDTH, done * PROGRESS_WIDTH // target) if target > 0 else 0
    return "▰" * filled + "▱" * (PROGRESS_WIDTH - filled) + f" {done}/{target}"


def problem_text(problem: Problem, token: str, profile: Profile, usage: str) -> str:
    """A line that did not parse, and the command's one correct example under it."""
    return render.problem_sentence(problem, token, profile) + "\n" + usage


def range_text(field: str, profile: Profile, usage: str) -> str:
    """A number the rules refused; ``field`` is the rules' name for it."""
    if field in ("target", "race_to"):
        text = _("The number of successes to reach must be from 1 to 1000.")
    elif field == "max_rolls":
        text = _("The roll limit must be from 1 to 1000.")
    elif field in ("parts", "base_pools"):
        text = _("Declare from 2 to {n} actions; each needs at least one die.").format(
            n=profile.max_declared_actions
        )
    else:
        text = render.range_sentence(field, profile)
    return text + "\n" + usage


def stopped_text() -> str:
    return _("Stopped.")


def extend_prompt_text() -> str:
    return _("How many successes does the extended action need?")
