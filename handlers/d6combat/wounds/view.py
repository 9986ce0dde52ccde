"""d6 wounds on screen: what was written and the wounds the sheet now holds."""

from __future__ import annotations

from html import escape

from aiogram.utils.i18n import gettext as _

from bot import render
from rules.d6.chance import DifficultyKind, difficulty_total
from rules.profiles import Profile
from rules.sheet import Sheet


def kind_name(kind: DifficultyKind) -> str:
    if kind is DifficultyKind.MENTAL_WOUND:
        return _("mental wound")
    if kind is DifficultyKind.ON_EDGE:
        return _("on edge (mental wound)")
    return _("physical wound")


def wounds_line(sheet: Sheet) -> str:
    if not sheet.wounds:
        return _("No wounds.")
    listed = ", ".join(
        f"{n}) {kind_name(w.kind)} −{w.magnitude}" for n, w in enumerate(sheet.wounds, start=1)
    )
    return _("Wounds: {list}").format(list=listed)


def wounded_text(
    name: str, kind: DifficultyKind, severity: int, sheet: Sheet, helpless: bool = False
) -> str:
    head = _("{name}: {kind} of severity {n}.").format(
        name=escape(name), kind=kind_name(kind), n=severity
    )
    text = head + "\n" + wounds_line(sheet)
    return text + ("\n" + render.helpless_text() if helpless else "")


def healed_text(name: str, sheet: Sheet) -> str:
    return _("{name}: a wound healed.").format(name=escape(name)) + "\n" + wounds_line(sheet)


def hp_text(name: str, sheet: Sheet | None, profile: Profile, helpless: bool) -> str:
    """``/hp`` in a d6 chat: the wounds the sheet keeps, what they take off every chance
    together (physical ones add up, only the strongest mental one counts: §D.2), and
    helplessness while it lasts (§D.11)."""
    lines = ["<b>" + escape(name) + "</b>"]
    wounds = sheet.wounds if sheet is not None else ()
    if sheet is None or not wounds:
        lines.append(_("No wounds."))
    else:
        lines.append(wounds_line(sheet))
        lines.append(
            _("Every chance is {n} lower for them.").format(n=difficulty_total(wounds, profile))
        )
    if helpless:
        lines.append(render.helpless_text())
    return "\n".join(lines)


def hp_usage_text() -> str:
    return _(
        "/hp — your character's wounds; in reply to a player's message — theirs; "
        "/hp Bandit — an NPC's, /hp Guard — every copy of a group."
    )


def usage_text() -> str:
    return _(
        "In the d6 game: /dmg 2 phys — a physical wound of severity 2; /dmg 3 ment — a mental "
        "one; /heal 1 — the first wound on the list heals. In reply to a player's message, or "
        "/dmg npc Guard 2 phys, the GM wounds another."
    )


def no_wound_text(name: str) -> str:
    return _("{name} has no such wound.").format(name=escape(name))


def storyteller_only_text() -> str:
    return _("Only the GM wounds or heals another character.")


def no_npc_text(name: str) -> str:
    return _("No NPC «{name}» here.").format(name=escape(name[:40]))


def help_line(_profile: object) -> str:
    return _("/dmg 2 phys, /dmg 3 ment — wounds on your sheet; /heal 1 — one heals; /hp — wounds")
