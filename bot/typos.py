"""Commands as people mistype them (docs/product.md §5 "every bad input gets a clear answer"):
``/R 7 6``, ``/r7 6``, ``/к 7 6`` and ``/кщдд 7 6`` typed on the Russian layout, ``r 7 6``
without the slash. Nothing here runs a command; the fallback router answers with the line
the player meant, which a tap copies.
"""

from __future__ import annotations

import re
from collections.abc import Collection

# The Russian ЙЦУКЕН keys over the Latin QWERTY ones: what «/r» becomes when the keyboard
# was left on Russian.
_LAYOUT = str.maketrans(
    "йцукенгшщзхъфывапролджэячсмитьбю",
    "qwertyuiop[]asdfghjkl;'zxcvbnm,.",
)
_ALIASES = {"roll": "r", "dice": "r"}
_COMMAND = re.compile(r"^/?([^\s@/]+)(@\S+)?(.*)$", re.DOTALL)
_GLUED = re.compile(r"^([a-z]+?)(\d.*)$")


def meant(
    text: str, known: Collection[str], *, bot_username: str | None, slash: bool
) -> str | None:
    """The command line the player most likely meant, or None when it is not ours to read:
    another bot's command, plain chat, or nothing close to a command of ours. ``slash``:
    the text must start with «/» (a group, where plain words are conversation)."""
    line = text.strip()
    if not line or len(line) > 200 or (slash and not line.startswith("/")):
        return None
    found = _COMMAND.match(line)
    if found is None:
        return None
    name, addressee, rest = found.group(1), found.group(2), found.group(3)
    if addressee and bot_username and addressee[1:].casefold() != bot_username.casefold():
        return None
    folded = name.casefold()
    candidates = [folded, folded.translate(_LAYOUT)]
    for candidate in candidates:
        glued = _GLUED.match(candidate)
        head, tail = (glued.group(1), " " + glued.group(2)) if glued else (candidate, "")
        head = _ALIASES.get(head, head)
        if head in known:
            fixed = f"/{head}{tail}{rest}"
            return None if fixed == line else " ".join(fixed.split())
    return None
