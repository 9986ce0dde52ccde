"""The campaign's privacy setting: whether players may read each other's sheets in the Mini
App (``/rules set листы=открыты``). It is not a house rule of the game: a switch of the game
leaves it as it is and ``/rules reset`` does not touch it."""

from __future__ import annotations

from html import escape

from aiogram.utils.i18n import gettext as _
from aiogram.utils.i18n.context import get_i18n

# The words are the catalogues' own: the name and values the card shows, in every language
# the bot speaks, so a Russian «листы=открыты» and an English «sheets=open» both read.
NAME = "sheets"
OPEN = "open"
CLOSED = "closed"


def _spellings(message: str) -> frozenset[str]:
    i18n = get_i18n()
    said = {i18n.gettext(message, locale=locale) for locale in i18n.available_locales}
    return frozenset(word.casefold() for word in {message, *said})


class PrivacyError(ValueError):
    """A value of ``листы=`` that is neither open nor closed."""

    def __init__(self, value: str) -> None:
        super().__init__(value)
        self.value = value


def split_words(words: list[str]) -> tuple[bool | None, list[str]]:
    """The privacy setting among ``/rules set`` words (None: not given) and the words left for
    the house rules. ``листы=открыты``, ``листы открыты`` and ``sheets=closed`` are read; a
    bad value raises :class:`PrivacyError`."""
    found: bool | None = None
    rest: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        name, has_value, value = word.partition("=")
        if name.casefold() in _spellings(NAME):
            if not has_value or not value:
                if i + 1 >= len(words):
                    raise PrivacyError("")
                value = words[i + 1].lstrip("=")
                i += 1
            found = parse_value(value)
        else:
            rest.append(word)
        i += 1
    return found, rest


def parse_value(value: str) -> bool:
    word = value.strip().casefold()
    if word in _spellings(OPEN):
        return True
    if word in _spellings(CLOSED):
        return False
    raise PrivacyError(value)


def state_text(sheets_open: bool) -> str:
    """The value as the /rules card says it."""
    return _("open") if sheets_open else _("closed")


def line(sheets_open: bool) -> str:
    """The /rules card's line about it, with the command that changes it."""
    other = _("closed") if sheets_open else _("open")
    return _(
        "👁 Players' sheets: <b>{state}</b> ({meaning}). Change: /rules set {name}={other}"
    ).format(
        name=typed_name(),
        state=state_text(sheets_open),
        meaning=_("each may read the others' in the sheet app")
        if sheets_open
        else _("each opens only their own"),
        other=other,
    )


def typed_name() -> str:
    """The setting's name as typed after ``/rules set``, in the reader's language."""
    return _("sheets")


def button_text(sheets_open: bool) -> str:
    """The /rules card's button: what a tap does."""
    return _("👁 Close the players' sheets") if sheets_open else _("👁 Open the players' sheets")


def set_text(sheets_open: bool) -> str:
    if sheets_open:
        return _(
            "Players' sheets are open now: each may read another player's sheet in the sheet "
            "app, without changing it."
        )
    return _("Players' sheets are closed now: each opens only their own.")


def bad_value_text(value: str) -> str:
    return _("«{value}» is not a value of {name}. Values: {open}, {closed}").format(
        value=escape(value[:40]), name=typed_name(), open=_("open"), closed=_("closed")
    )
