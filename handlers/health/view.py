"""Health on screen: the track after damage or healing, and the refusals (§B.10–§B.12)."""

from __future__ import annotations

from html import escape

from aiogram.utils.i18n import gettext as _

from bot import sheet_text
from rules.health import DamageType, Duration, HealthTrack, TimeUnit, healing_plan
from rules.profiles import Profile


def damage_kind(kind: DamageType, levels: int) -> str:
    if kind is DamageType.BASHING:
        return _("{n} level of bashing", "{n} levels of bashing", n=levels).format(n=levels)
    if kind is DamageType.LETHAL:
        return _("{n} level of lethal", "{n} levels of lethal", n=levels).format(n=levels)
    return _("{n} level of aggravated", "{n} levels of aggravated", n=levels).format(n=levels)


def damaged_text(name: str, kind: DamageType, levels: int, track: HealthTrack) -> str:
    head = "💥 " + _("{name} takes {damage}.").format(
        name=escape(name), damage=damage_kind(kind, levels)
    )
    return head + "\n" + status_text(track)


def healed_text(name: str, levels: int, track: HealthTrack) -> str:
    head = "🩹 " + _("{name} heals {n} level.", "{name} heals {n} levels.", n=levels).format(
        name=escape(name), n=levels
    )
    return head + "\n" + status_text(track)


def hp_text(name: str, track: HealthTrack) -> str:
    return f"<b>{escape(name)}</b>\n" + status_text(track)


def status_text(track: HealthTrack) -> str:
    lines = [sheet_text.health_line(track)]
    if track.dead:
        lines.append("☠️ " + _("Dead."))
        return "\n".join(lines)
    plan = healing_plan(track)
    if plan:
        lines.append(_("Next level heals in {time}.").format(time=duration_text(plan[0].duration)))
    return "\n".join(lines)


def duration_text(time: Duration) -> str:
    n = time.amount
    if time.unit is TimeUnit.HOUR:
        return _("{n} hour", "{n} hours", n=n).format(n=n)
    if time.unit is TimeUnit.DAY:
        return _("{n} day", "{n} days", n=n).format(n=n)
    if time.unit is TimeUnit.WEEK:
        return _("{n} week", "{n} weeks", n=n).format(n=n)
    return _("{n} month", "{n} months", n=n).format(n=n)


def nothing_to_heal_text(name: str) -> str:
    return _("{name} has no wounds to heal.").format(name=escape(name))


def dead_text(name: str) -> str:
    return "☠️ " + _("{name} is dead; damage changes nothing now.").format(name=escape(name))


def storyteller_only_text() -> str:
    return _("Only the Storyteller changes another character's health or an NPC's.")


def no_npc_text(name: str) -> str:
    return _("There is no NPC called {name}. Create one with /npc {name}: stamina 2").format(
        name=escape(name)
    )


def dmg_usage_text() -> str:
    return _(
        "Example: /dmg 3 l — your character takes 3 lethal (b bashing, l lethal, "
        "a aggravated); /dmg npc Ghoul 2 b; in reply to a player: their character"
    )


def heal_usage_text() -> str:
    return _("Example: /heal — one level; /heal 2; /heal npc Ghoul")


def d10_only_text() -> str:
    return _("Health levels belong to the d10 games; the d6 game keeps wounds on the sheet.")


def help_line(profile: Profile) -> str:
    return _("/dmg 3 l damage · /heal · /hp health")
