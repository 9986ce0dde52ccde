"""The Storyteller's NPCs by name, and groups of copies (docs/product.md "NPCs").

An NPC is a sheet the Storyteller keeps under a name (``/npc``). A group is several copies of
one NPC in a fight, numbered «Охранник 1», «Охранник 2», …: each copy is a sheet of its own
under its numbered name, written when the copies join the fight as the group's sheet with an
untouched health track, so every feature that reads an NPC by name (the attack panel, the
trackers, ``/dmg``, ``/r``) finds the group's traits and the copy's own health. A numbered
sheet that is not a copy (the Storyteller wrote other traits on it) is left as it is. A
group with no sheet seats its copies without one: the health commands find them by name
among the open fight's NPCs, and a copy's first wound writes its sheet.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rules.sheet import Sheet, SheetSystem, new_sheet
from table.scope import Campaign
from table.store import SheetOwner, Store
from table.traits import TraitNameError, resolve
from table.typos import unmix

_NUMBERED = re.compile(r"(.*\S)\s+([0-9]{1,3})")


def _folded(name: str) -> str:
    return " ".join(name.split()).casefold()


def group_of(name: str) -> str | None:
    """«Охранник 2» → «Охранник»: the group a numbered name belongs to, if it is numbered."""
    found = _NUMBERED.fullmatch(" ".join(name.split()))
    return found.group(1) if found is not None else None


def fresh_copy(group: Sheet) -> Sheet:
    """The group's sheet for one more copy: the same traits, its own health untouched (no
    boxes, no d6 wounds, no conditions or tricks waiting, Willpower full)."""
    blank = new_sheet(group.system)
    return group.model_copy(
        update={
            "health": blank.health,
            "wounds": blank.wounds,
            "conditions": blank.conditions,
            "edges": blank.edges,
            "willpower_current": group.willpower,
        }
    )


def _is_copy(sheet: Sheet, group: Sheet) -> bool:
    """A numbered sheet made from the group (or blank): the same traits and powers."""
    blank = new_sheet(sheet.system)
    if sheet.traits == blank.traits and sheet.powers == blank.powers:
        return True
    return sheet.traits == group.traits and sheet.powers == group.powers


async def seat_copies(
    store: Store, chat_id: int, system: SheetSystem, group: str, names: Sequence[str]
) -> Sheet | None:
    """Write each copy's sheet from the group's ``group`` sheet as the copies join a fight;
    the group's sheet (None when the Storyteller has none: the copies fight without one)."""
    sheet = await store.load_npc(chat_id, system, group)
    if sheet is None:
        return None
    fresh = fresh_copy(sheet)

    def made(current: Sheet) -> Sheet:
        return fresh if _is_copy(current, sheet) else current

    for name in names:
        if _folded(name) != _folded(group):
            await store.update_npc(chat_id, system, name, made)
    return sheet


async def npc_at_start(
    store: Store,
    chat_id: int,
    system: SheetSystem,
    text: str,
    *,
    whole: bool = False,
    also: Sequence[str] = (),
) -> tuple[str, str] | None:
    """``Охранник 2 л`` → (``Охранник 2``, ``л``): the chat's NPC whose name the line starts
    with (the longest that fits, any case), as the Storyteller names one; ``whole``: the name
    may be the whole line (``/hp Охранник``); ``also``: names known without a sheet (the
    NPCs of the open fight: a group with no sheet seats its copies without one)."""
    words = text.split()
    if not words or words[0][:1].isdigit() or words[0][:1] in "+-":
        return None
    found = await store.npc_at_start(chat_id, system, words, whole=whole)
    known = [found[0]] if found is not None else []
    return name_at_start(words, [*known, *also], whole=whole)


def name_at_start(
    words: Sequence[str], names: Sequence[str], *, whole: bool = False
) -> tuple[str, str] | None:
    """The longest of ``names`` the typed words start with (any case), and the words left."""
    typed = [w.casefold() for w in words]
    best: tuple[str, str] | None = None
    for name in names:
        parts = [w.casefold() for w in name.split()]
        room = len(parts) <= len(typed) if whole else len(parts) < len(typed)
        fits = room and typed[: len(parts)] == parts
        if fits and (best is None or len(parts) > len(best[0].split())):
            best = (name, " ".join(words[len(parts) :]))
    return best


async def group_sheets(
    store: Store, chat_id: int, system: SheetSystem, group: str, also: Sequence[str] = ()
) -> list[tuple[str, Sheet]]:
    """The copies of ``group`` by number («Охранник 1», «Охранник 2»): those the chat has
    sheets for, and those among ``also`` (the open fight's NPCs) with a blank sheet."""
    found: list[tuple[int, str, Sheet]] = []
    listed = [(name, sheet) for name, sheet in await store.list_npcs(chat_id, system)]
    seen = {_folded(name) for name, _sheet in listed}
    listed += [(name, new_sheet(system)) for name in also if _folded(name) not in seen]
    for name, sheet in listed:
        numbered = _NUMBERED.fullmatch(" ".join(name.split()))
        if numbered is not None and _folded(numbered.group(1)) == _folded(group):
            found.append((int(numbered.group(2)), name, sheet))
    found.sort(key=lambda item: item[0])
    return [(name, sheet) for _n, name, sheet in found]


async def note_npcs(store: Store, chat_id: int, system: SheetSystem, names: Sequence[str]) -> None:
    """A blank sheet for each NPC that joins a fight without one, so the chat knows it by name
    (``/atk бандит 4``, ``/dmg бандит тел 1``) and its wounds have a place to land."""
    for name in names:
        await store.update_npc(chat_id, system, name, lambda sheet: sheet)


class AmbiguousName(Exception):
    """A part of a name that several of the chat's NPCs share; ``names`` are theirs."""

    def __init__(self, typed: str, names: Sequence[str]) -> None:
        super().__init__(typed)
        self.typed = typed
        self.names = tuple(names)


PART_MIN = 3  # a part shorter than this is no name: «ал» would find half the chat


def _part_fits(typed: Sequence[str], parts: Sequence[str]) -> bool:
    """The typed words are consecutive words of the name, each whole or its beginning."""
    for start in range(len(parts) - len(typed) + 1):
        window = parts[start : start + len(typed)]
        if all(
            w == t or (len(t) >= PART_MIN and w.startswith(t))
            for t, w in zip(typed, window, strict=True)
        ):
            return True
    return False


def name_by_part(words: Sequence[str], names: Sequence[str]) -> tuple[str, str] | None:
    """``гуго восп+эмпатия 7`` → («епископ гуго», ``восп+эмпатия 7``): the one name that the
    first typed words are a part of (whole words of it, or their beginnings of three letters
    at least), the most words first; :class:`AmbiguousName` when several names share it."""
    typed = [unmix(w).casefold() for w in words]
    for count in range(min(len(typed), 3), 0, -1):
        found = [n for n in names if _part_fits(typed[:count], n.casefold().split())]
        unique = list(dict.fromkeys(found))
        if len(unique) == 1:
            return unique[0], " ".join(words[count:])
        if unique:
            raise AmbiguousName(" ".join(words[:count]), unique)
    return None


def may_be_a_name(word: str, system: SheetSystem) -> bool:
    """Whether a line's first word could be part of an NPC's name rather than the roll
    itself: no number, no pool of trait names (``ловк+драка``), which are read as typed
    without a look at the roster."""
    if not word or word[:1].isdigit() or word[:1] in "+-@" or "+" in word:
        return False
    try:
        resolve(word, system)
    except TraitNameError:
        return True
    return False


async def npc_by_part(
    store: Store, chat_id: int | Campaign, system: SheetSystem, text: str
) -> tuple[str, str] | None:
    """The chat's NPC a line names by a part of its name («гуго» for «епископ гуго»), when
    no name starts it; read from the roster only when the first word is no trait, so a roll
    by the sheet's traits costs no read of its own (:class:`AmbiguousName` when several)."""
    words = text.split()
    if not words or not may_be_a_name(words[0], system):
        return None
    names = [name for name, _sheet in await store.list_npcs(chat_id, system)]
    return name_by_part(words, names)


async def npc_named(
    store: Store, chat_id: int, system: SheetSystem, text: str, *, whole: bool = False
) -> tuple[str, str] | None:
    """The chat's NPC a line names: by the start of its name (:func:`npc_at_start`), else by
    a part of it that is its alone (:func:`npc_by_part`: «бандит» for «Одноглазый бандит»);
    :class:`AmbiguousName` when several names share the part. ``whole``: the name may be the
    whole line."""
    found = await npc_at_start(store, chat_id, system, text, whole=whole)
    if found is not None:
        return found
    return await npc_by_part(store, chat_id, system, text)


async def player_at_start(
    store: Store, chat_id: int, system: SheetSystem, text: str
) -> tuple[SheetOwner, str] | None:
    """``Борис 2 л`` → (Борис's sheet owner, ``2 л``): the chat's player a line starts with,
    by the name their sheet shows or their @username, when one player has it."""
    words = text.split()
    if not words or not may_be_a_name(words[0].lstrip("@") or "0", system):
        return None
    owners = [p.owner for p in await store.list_sheets(chat_id, system)]
    if words[0].startswith("@"):
        handle = words[0][1:].casefold()
        found = [o for o in owners if o.username and o.username.casefold() == handle]
        return (found[0], " ".join(words[1:])) if len(found) == 1 else None
    named = name_at_start(words, [o.name for o in owners])
    if named is None:
        return None
    name, rest = named
    found = [o for o in owners if _folded(o.name) == _folded(name)]
    return (found[0], rest) if len(found) == 1 else None


async def copy_named(
    store: Store,
    chat_id: int,
    system: SheetSystem,
    group: str,
    number: int | None,
    seated: Sequence[str],
) -> str | None:
    """``/init npc Стражник 2``: «Стражник 2» when the group has that copy (in the fight or
    with a sheet of its own), so the line addresses it rather than seating one more
    «Стражник» with 2 for its initiative; None when there is no such copy."""
    if number is None:
        return None
    name = f"{' '.join(group.split())} {number}"
    if _folded(name) in {_folded(s) for s in seated}:
        return name
    return name if await store.load_npc(chat_id, system, name) is not None else None
