"""Helpers for the views' pure tests: a view is called with a sample state in one language,
and its text and buttons are read back, with no Bot, no Dispatcher and no Store.

A view renders for the state it is given; these tests build each state a message can be in
and look at what a player reads and which buttons they can press.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from aiogram.types import InlineKeyboardMarkup
from aiogram.utils.i18n import I18n

LOCALES = ("ru", "en")


@contextmanager
def speaking(i18n: I18n, locale: str) -> Iterator[None]:
    """Draw in ``locale`` as the bot does inside an update."""
    with i18n.context(), i18n.use_locale(locale):
        yield


def buttons(markup: InlineKeyboardMarkup | None) -> list[tuple[str, str]]:
    """Every button as (label, callback_data or url), row after row; none for no keyboard."""
    if markup is None:
        return []
    return [
        (button.text, button.callback_data or button.url or "")
        for row in markup.inline_keyboard
        for button in row
    ]


def labels(markup: InlineKeyboardMarkup | None) -> list[str]:
    return [label for label, _data in buttons(markup)]


def prefixes(markup: InlineKeyboardMarkup | None) -> set[str]:
    """The callback_data prefixes (``atk`` of ``atk:…``): which feature gets each press."""
    return {data.split(":", 1)[0] for _label, data in buttons(markup) if ":" in data}


def rows(markup: InlineKeyboardMarkup | None) -> list[list[str]]:
    """Labels row by row: the layout a phone shows."""
    if markup is None:
        return []
    return [[button.text for button in row] for row in markup.inline_keyboard]


def has_label(markup: InlineKeyboardMarkup | None, part: str) -> bool:
    return any(part in label for label in labels(markup))
