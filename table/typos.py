"""Commands as people type them on phones (docs/product.md §5 "every bad input gets a clear
answer"): ``/R 7 6``, ``/r7 6``, ``/blood2``, ``/к 7 6`` and ``/кщдд 7 6`` typed on the
Russian layout, a Latin «c» inside a Russian word (``/r 6 7 cв``), ``ловкость + драка`` and
``провал = без_успехов`` with spaces around the sign.

:func:`read_line` is what the Dispatcher routes: the line the player meant when it is
certain (bot/routing.py), with ``said`` when the answer should say how it was read (the
layout: «поняли как /r 7 6»). :func:`meant` is what the fallback router offers for what was
not certain (``r 7 6`` without the slash in a private chat). Pure: no aiogram.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

# The Russian ЙЦУКЕН keys over the Latin QWERTY ones: what «/r» becomes when the keyboard
# was left on Russian.
_LAYOUT = str.maketrans(
    "йцукенгшщзхъфывапролджэячсмитьбю",
    "qwertyuiop[]asdfghjkl;'zxcvbnm,.",
)
_ALIASES = {"roll": "r", "dice": "r"}
_COMMAND = re.compile(r"^/?([^\s@/]+)(@\S+)?(.*)$", re.DOTALL)
_GLUED = re.compile(r"^([a-z]+?)(\d.*)$")
LINE_MAX = 200  # longer text is a paste or a story, not a mistyped command

# Letters one script draws like the other's: a phone's keyboard left on Latin types «c» in
# «cила». Only the shapes that match in print, lower and upper case.
_LATIN_LOOKALIKES = "aceopxykABCEHKMOPTXY"
_CYRILLIC_LOOKALIKES = "асеорхукАВСЕНКМОРТХУ"
_TO_CYRILLIC = str.maketrans(_LATIN_LOOKALIKES, _CYRILLIC_LOOKALIKES)
_TO_LATIN = str.maketrans(_CYRILLIC_LOOKALIKES, _LATIN_LOOKALIKES)
_LETTERS = re.compile(r"[^\W\d_]+")
_CYRILLIC = re.compile("[а-яёА-ЯЁ]")
_LATIN = re.compile("[a-zA-Z]")


def unmix(text: str) -> str:
    """Each word in one script: a Latin letter that looks Cyrillic inside a Russian word is
    read as the Cyrillic one (``cила`` → «сила»), and back inside an English word
    (``strеngth`` with a Cyrillic «е»). A word is Russian when it has a Cyrillic letter no
    Latin one looks like («и», «л», «в»), English when it has such a Latin letter, else the
    script most of its letters are in; a word with a letter of the other script that looks
    like none of its own is left as typed."""
    return _LETTERS.sub(_unmixed_word, text)


def _unmixed_word(found: re.Match[str]) -> str:
    word = found.group(0)
    cyrillic = _CYRILLIC.findall(word)
    latin = _LATIN.findall(word)
    if not cyrillic or not latin:
        return word
    own_cyrillic = any(ch not in _CYRILLIC_LOOKALIKES for ch in cyrillic)
    own_latin = any(ch not in _LATIN_LOOKALIKES for ch in latin)
    if own_cyrillic and own_latin:
        return word
    russian = own_cyrillic or (not own_latin and len(cyrillic) >= len(latin))
    return word.translate(_TO_CYRILLIC if russian else _TO_LATIN)


# Spaces around a sign that joins two words: «ловкость + драка», «провал = без_успехов»,
# «сила : 3». A «+» joins only letters («/r 6 +2» keeps its two dice), the others anything.
_SPACED_PLUS = re.compile(r"(?<=[^\W\d_])[ \t]*\+[ \t]*(?=[^\W\d_])")
_SPACED_SIGN = re.compile(r"(?<=\S)[ \t]*([=:])[ \t]*(?=\S)")


def tidy(text: str) -> str:
    """The arguments of a command as the grammar reads them: one script per word
    (:func:`unmix`) and no spaces around «+», «=» and «:»."""
    return _SPACED_SIGN.sub(r"\1", _SPACED_PLUS.sub("+", unmix(text)))


@dataclass(frozen=True)
class Reading:
    """A command line as it was meant; ``said``: the answer tells how it was read."""

    line: str
    said: bool = False


def read_line(text: str, known: Collection[str], *, bot_username: str | None) -> Reading | None:
    """The line a command of ours meant, when it is not typed as the grammar reads it:
    the command in any case, on the Russian layout, with its number glued on, or its words
    with mixed letters or spaced signs; None when the line needs nothing or is not ours
    (another bot's command, an unknown one, plain chat)."""
    if not text.startswith("/") or len(text) > LINE_MAX:
        return None
    ours = _ours(text, known, bot_username)
    if ours is None:
        return None
    (head, tail, said), addressee, rest = ours
    args = tidy(tail + rest)
    line = f"/{head}{addressee or ''}{args}"
    return None if line == text else Reading(line, said)


def _ours(
    line: str, known: Collection[str], bot_username: str | None
) -> tuple[tuple[str, str, bool], str | None, str] | None:
    """A line's command of ours as :func:`_command` reads it, its «@bot» addressee and the
    rest of the line; None for another bot's command or one we do not know."""
    found = _COMMAND.match(line)
    if found is None:
        return None
    name, addressee, rest = found.group(1), found.group(2), found.group(3)
    if addressee and bot_username and addressee[1:].casefold() != bot_username.casefold():
        return None
    command = _command(name, known)
    if command is None:
        return None
    return command, addressee, rest


def _command(name: str, known: Collection[str]) -> tuple[str, str, bool] | None:
    """The known command ``name`` means, the number glued to it (as a word of its own) and
    whether it was typed on the other layout."""
    folded = name.casefold()
    for candidate, said in ((folded, False), (folded.translate(_LAYOUT), True)):
        glued = _GLUED.match(candidate)
        head, tail = (glued.group(1), " " + glued.group(2)) if glued else (candidate, "")
        head = _ALIASES.get(head, head)
        if head in known:
            return head, tail, said
    return None


def meant(
    text: str, known: Collection[str], *, bot_username: str | None, slash: bool
) -> str | None:
    """The command line the player most likely meant, or None when it is not ours to read:
    another bot's command, plain chat, or nothing close to a command of ours. ``slash``:
    the text must start with «/» (a group, where plain words are conversation)."""
    line = text.strip()
    if not line or len(line) > LINE_MAX or (slash and not line.startswith("/")):
        return None
    ours = _ours(line, known, bot_username)
    if ours is None:
        return None
    (head, tail, _said), _addressee, rest = ours
    fixed = f"/{head}{tail}{rest}"
    return None if fixed == line else " ".join(fixed.split())
