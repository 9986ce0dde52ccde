"""What the ambush says (docs/rules.md §B.7): the contest's one message and its refusals."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _

from bot import render, rolling, sheet_text, table_text
from rules.d10 import D10Result
from rules.profiles import Profile
from rules.sheet import SheetPool, SheetSystem, TraitCode, system_of


def help_line(profile: Profile) -> str:
    return _("/ambush VICTIM ambush before the fight")


def usage_text() -> str:
    return _(
        "An ambush before the fight (Dexterity + Stealth against the victim's Perception + "
        "Alertness): /ambush VICTIM; the Storyteller for an NPC: /ambush NPC VICTIM."
    )


def no_fight_text() -> str:
    return _("No fight is open: start it with /init, then set up the ambush.")


def not_in_fight_text() -> str:
    return _("Your character is not in the fight: join it with /init first.")


def no_victim_text(typed: str) -> str:
    return _("Nobody in the fight is called «{name}».").format(name=render.shown_word(typed))


def ambiguous_text(typed: str, names: Sequence[str]) -> str:
    return _("«{part}» fits several fighters: {names}. Type more of the name.").format(
        part=render.shown_word(typed), names=", ".join(f"«{escape(n)}»" for n in names)
    )


def self_text() -> str:
    return _("Nobody can ambush themselves.")


def too_late_text() -> str:
    return _("An ambush comes before the fight, and round 1 is already under way.")


def already_text(name: str) -> str:
    return _("{name} has already made an ambush in this fight: one per fight.").format(
        name=escape(name)
    )


def no_sheet_text(name: str) -> str:
    return _(
        "{name} has no sheet: the ambush rolls Dexterity + Stealth against Perception + "
        "Alertness. Set them with /set (an NPC's with /npc)."
    ).format(name=escape(name))


def unset_text(name: str, traits: Sequence[TraitCode], system: SheetSystem) -> str:
    lang = sheet_text.lang_of(get_i18n().current_locale)
    names = ", ".join(sheet_text.trait_name(t, lang, system) for t in traits)
    return _("{name}: the sheet lacks {traits}. Set them with /set (an NPC's with /npc).").format(
        name=escape(name), traits=names
    )


def cannot_sneak_text(name: str) -> str:
    return _("{name} cannot lay an ambush: Dexterity + Stealth rolls nothing now.").format(
        name=escape(name)
    )


def pool_line(name: str, pool: SheetPool, roll: D10Result | None, system: SheetSystem) -> str:
    """«Аня: Ловкость 3 + Скрытность 2» and the roll under it (none: no dice to roll)."""
    lang = sheet_text.lang_of(get_i18n().current_locale)
    label = rolling.sheet_pool_label(
        [sheet_text.trait_name(code, lang, system) for code in pool.codes],
        pool.ratings,
        [code in pool.missing for code in pool.codes],
        pool.wound_penalty,
    )
    line = f"{escape(name)}: {label}"
    if roll is None:
        return line + "\n" + _("no dice to roll: nothing noticed")
    return line + "\n" + table_text.roll_summary(roll)


def contest_text(
    ambusher: str,
    victim: str,
    sneak: tuple[SheetPool, D10Result],
    watch: tuple[SheetPool, D10Result | None],
    outcome: tuple[bool, bool],
    profile: Profile,
) -> str:
    """The contest in one message: who lies in wait for whom, both rolls, and what follows."""
    difficulty = profile.default_difficulty
    head = "🥷 <b>" + _("Ambush") + "</b>: " + f"{escape(ambusher)} → {escape(victim)}"
    lines = [head + " · " + _("difficulty {d}").format(d=difficulty)]
    system = system_of(profile)
    lines.append(pool_line(ambusher, *sneak, system))
    lines.append(pool_line(victim, *watch, system))
    won, defends = outcome
    if not won:
        lines.append("👁 <b>" + _("The ambush is spotted") + "</b>: " + _("nothing happens."))
    elif defends:
        lines.append(
            "🗡 <b>"
            + _("An attack from the ambush before the fight begins")
            + "</b>: "
            + _("the victim may defend (house rule).")
        )
    else:
        lines.append(
            "🗡 <b>"
            + _("An attack from the ambush before the fight begins")
            + "</b>: "
            + _("the victim does not defend; soak still applies.")
        )
    return "\n".join(lines)


def busy_text() -> str:
    return render.busy_text()
