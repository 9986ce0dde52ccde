"""How the bot names whoever sent a message (docs/product.md §2: results name the roller),
and how any name is made safe to draw (:func:`clean_name`).

A name is whatever a Telegram user typed into their profile (or a group's title): it may
carry bidirectional controls (a right-to-left override turns «Аня: 3 успеха» around, so a
player appears to be someone else or to have rolled something else), zero-width characters
(«Аня» and «А\u200bня» look the same and are two people), a pile of combining marks, or
nothing visible at all. Every name an update carries is cleaned once, where the update comes
in (:func:`clean_update`, bot/delivery.py), so every view that draws a name (a result's
roller, a tracker's seats, a sheet's owner, a campaign's title) draws a clean one, and so
does everything stored from it; a name typed for an NPC is cleaned where it is read.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Any

from aiogram.types import Message, User

NAME_MAX = 32  # characters of a person's name drawn: Telegram allows 64, a line needs fewer
TITLE_MAX = 64  # characters of a group's title
MARKS_MAX = 2  # combining marks kept on one letter (enough for any script's accents)
ELLIPSIS = "…"
UNNAMED = "?"

# First-strong isolate and its end: a name written right to left is drawn inside them, so it
# can never turn the text around it (the numbers of a result beside it) — the controls the
# name itself carried are gone by then, so the pair is the only one and always balanced.
_ISOLATE, _END_ISOLATE = "\u2068", "\u2069"
# Joins emoji into one (a family, a profession); between anything else it is invisible.
_ZWJ = "\u200d"
# Tags spell a subdivision's flag after the black flag (🏴 + tags: Scotland, Wales).
_TAGS = re.compile("[\U000e0020-\U000e007f]")
_BLACK_FLAG = "\U0001f3f4"
_RTL = frozenset({"R", "AL"})
# A quick look: a name with none of these needs no cleaning (the usual case, nothing to do).
_SUSPECT = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2800"
    "\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb"
    "\u0300-\u036f\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc"
    "\U00010800-\U00010fff\U0001e800-\U0001efff\U000e0000-\U000e0fff]"
)


def clean_name(name: str, limit: int = NAME_MAX, *, fallback: str = UNNAMED) -> str:
    """``name`` safe to draw in a line of the bot's: bidirectional controls and invisible
    characters removed, control characters and line breaks made spaces, runs of combining
    marks cut to :data:`MARKS_MAX`, cut to ``limit`` characters (an ellipsis marks the cut),
    and a name written right to left drawn inside an isolate. Nothing visible left: the
    ``fallback``. The same name cleaned again comes back unchanged."""
    if len(name) <= limit and name.strip() == name and name and not _SUSPECT.search(name):
        return name
    text = " ".join(_visible(name).split())
    if len(text) > limit:
        text = text[: limit - 1].rstrip(_ZWJ + " ") + ELLIPSIS
    if not text:
        return fallback
    if any(unicodedata.bidirectional(char) in _RTL for char in text):
        text = f"{_ISOLATE}{text}{_END_ISOLATE}"
    return text


def _visible(name: str) -> str:
    """What of ``name`` draws as itself: invisible characters dropped, breaks made spaces,
    combining marks capped, and joiners and flag tags kept only where they join a pictograph
    (so an emoji sequence survives while a bare joiner cannot hide text)."""
    kept: list[str] = []
    marks = 0
    flag = False  # inside a subdivision flag's tags
    for char in unicodedata.normalize("NFC", name):
        category = unicodedata.category(char)
        if char == _ZWJ:
            if kept and _emoji(kept[-1]):
                kept.append(char)
            continue
        if _TAGS.fullmatch(char):
            if flag:
                kept.append(char)
            continue
        flag = char == _BLACK_FLAG
        if category in ("Cc", "Zl", "Zp"):
            kept.append(" ")
            marks = 0
            continue
        if category == "Cf" or char in "\u115f\u1160\u3164\uffa0\u2800":
            continue  # bidi controls, zero-width, invisible fillers
        if category in ("Mn", "Me"):
            if "\ufe00" <= char <= "\ufe0f":
                kept.append(char)  # a variation selector: how an emoji is drawn
                continue
            marks += 1
            if marks > MARKS_MAX or not kept:
                continue
        else:
            marks = 0
        kept.append(char)
    while kept and kept[-1] == _ZWJ:
        kept.pop()
    return "".join(kept)


def _emoji(char: str) -> bool:
    """A character a zero-width joiner may join to the next: a pictograph or its modifier."""
    return unicodedata.category(char) in ("So", "Sk", "Mn") or char >= "\U0001f000"


# The names an update carries, by the field that holds them, with the length each keeps.
_NAME_FIELDS = {"first_name": NAME_MAX, "last_name": NAME_MAX, "title": TITLE_MAX}
# Objects that hold a person's or a chat's name carry an id or a type (a game's title, which
# has neither, is no name).


def clean_update(raw: dict[str, Any]) -> bool:
    """Clean every person's and chat's name in an update as the Bot API sent it (a dict, in
    place): whether anything changed. A user whose name is nothing visible is named by their
    @username, or their id. (Every update passes here: a plain walk, a few microseconds.)"""
    changed = False
    stack: list[Any] = [raw]
    while stack:
        node = stack.pop()
        if type(node) is list:
            stack.extend(node)
            continue
        if type(node) is not dict:
            continue
        if "id" in node or "type" in node:
            for key, limit in _NAME_FIELDS.items():
                value = node.get(key)
                if type(value) is not str:
                    continue
                fallback = _fallback(node) if key == "first_name" else UNNAMED
                cleaned = clean_name(value, limit, fallback=fallback)
                if key == "last_name" and cleaned == UNNAMED:
                    cleaned = ""
                if cleaned != value:
                    node[key] = cleaned
                    changed = True
        stack.extend(v for v in node.values() if type(v) is dict or type(v) is list)
    return changed


def _fallback(user: dict[str, Any]) -> str:
    username = user.get("username")
    if isinstance(username, str) and username:
        return f"@{username}"
    return f"#{user.get('id', UNNAMED)}"


def roller_name(message: Message, user: User | None) -> str:
    """An anonymous admin speaks as the chat (sender_chat); everyone else by first name."""
    if message.sender_chat is not None and message.sender_chat.title:
        return clean_name(message.sender_chat.title, TITLE_MAX)
    if user is not None:
        return clean_name(user.first_name)
    return UNNAMED


def numbered_names(name: str, copies: int, taken: Callable[[str], bool]) -> list[str]:
    """``Гуль`` once, or ``Гуль 1``…``Гуль 3`` for several NPCs at once, numbering on past the
    names ``taken`` says are already in the fight (both round trackers); one more of a group
    already numbered gets the next number too."""
    if copies == 1 and not taken(f"{name} 1"):
        return [name]
    names: list[str] = []
    n = 1 if taken(name) else 0  # a lone «Гуль» already fighting counts as the first
    while len(names) < copies:
        n += 1
        candidate = f"{name} {n}"
        if not taken(candidate):
            names.append(candidate)
    return names
