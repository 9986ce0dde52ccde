"""Health on screen: the track after damage or healing, the soak of a typed wound, and the
refusals (§B.10–§B.12)."""

from __future__ import annotations

from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import house_rules, render, sheet_text
from handlers.combat.health.callbacks import HealthAction, HealthCallback
from handlers.combat.health.flow import WoundFlow
from rules.combat.damage import DiceTally
from rules.health import (
    CareNeed,
    DamageType,
    Duration,
    HealthTrack,
    TimeUnit,
    care_needs,
    doctor_times,
    healing_plan,
    needs_stabilising,
    stabilise_difficulty,
)
from rules.profiles import CombatOptions, Profile, VampireOptions
from rules.sheet import Sheet, is_vampire
from rules.vampire import BloodHealing, blood_per_turn, torpid


def damage_kind(kind: DamageType, levels: int) -> str:
    if kind is DamageType.BASHING:
        return _("{n} level of bashing", "{n} levels of bashing", n=levels).format(n=levels)
    if kind is DamageType.LETHAL:
        return _("{n} level of lethal", "{n} levels of lethal", n=levels).format(n=levels)
    return _("{n} level of aggravated", "{n} levels of aggravated", n=levels).format(n=levels)


def wound_text(state: WoundFlow, track: HealthTrack, profile: Profile) -> str:
    """A typed wound (§B.10): the damage, the soak once rolled and what it left, the track
    with its care, and the house rules that decided them."""
    lines = [
        "💥 "
        + _("{name} takes {damage}.").format(
            name=escape(state.name), damage=damage_kind(state.damage, state.levels)
        )
    ]
    if state.soak is not None and state.kept is not None:
        kept = (
            _("the damage is fully soaked")
            if state.kept == 0
            else damage_kind(state.damage, state.kept)
        )
        lines.append(
            "🛡 " + _("Soak: {roll} → {damage}.").format(roll=tally_text(state.soak), damage=kept)
        )
    elif state.dice:
        lines.append(
            "🛡 " + _("{name} may soak it: {n}d10.").format(name=escape(state.name), n=state.dice)
        )
    lines.append(status_text(track, profile, vampire=state.vampire))
    soaks = state.dice > 0 or state.soak is not None
    # the care of lethal wounds, only where there are lethal wounds (a vampire's never worsen)
    lethal = DamageType.LETHAL in track.boxes and not state.vampire
    keys: tuple[str, ...] = house_rules.CARE_RULES if lethal else ()
    if soaks:
        keys += house_rules.SOAK_RULES
    if state.soak is not None and state.vampire and state.damage is DamageType.BASHING:
        keys += house_rules.VAMPIRE_SOAK_RULES
    tag = house_rules.house_tag(profile, dice=False, keys=keys)
    if tag is not None:
        lines.append(escape(tag, quote=False))
    return "\n".join(lines)


def tally_text(tally: DiceTally) -> str:
    faces = " ".join(
        f"<b>{f}</b>" if f >= tally.difficulty else str(f)
        for f in sorted(tally.faces, reverse=True)
    )
    return (faces or "—") + " — " + render.successes_text(tally.successes)


def wound_keyboard(flow_id: str, version: int, dice: int) -> InlineKeyboardMarkup:
    data = HealthCallback(f=flow_id, v=version, a=HealthAction.SOAK).pack()
    text = "🛡 " + _("Soak ({n}d10)").format(n=dice)
    return InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text=text, callback_data=data)]]
    )


def blood_healed_text(name: str, cure: BloodHealing, sheet: Sheet, profile: Profile) -> str:
    """A vampire's wounds mended with blood (§B.13): the blood (and Willpower) spent, the
    pool left, and whether the Generation's turn stopped it short."""
    mended = _("{name} mends {n} level.", "{name} mends {n} levels.", n=cure.levels)
    head = "🩸 " + mended.format(name=escape(name), n=cure.levels)
    head += " " + _("Blood spent: {n}.").format(n=cure.blood)
    lines = [head]
    if cure.willpower:
        lines.append(_("An aggravated wound: a point of Willpower and a day's rest too."))
    elif cure.blood > cure.levels:
        lines.append(_("An aggravated wound: it takes a day's rest too."))
    if cure.limited:
        lines.append(
            _("No more this turn: the Generation lets {n} blood a turn.").format(
                n=blood_per_turn(sheet.generation)
            )
        )
    lines.append(_("Blood left: {n}.").format(n=sheet.blood or 0))
    lines.append(status_text(sheet.health, profile, vampire=True, generation=sheet.generation))
    if cure.blood > cure.levels:  # an aggravated level: what it cost is the table's to say
        tag = house_rules.house_tag(profile, dice=False, keys=house_rules.AGGRAVATED_HEAL_RULES)
        if tag is not None:
            lines.append(escape(tag, quote=False))
    return "\n".join(lines)


def no_blood_text(name: str, need: int, held: int) -> str:
    return _(
        "{name} has {held} blood: mending the next level takes {need}. Nothing was spent."
    ).format(name=escape(name), held=held, need=need)


def no_willpower_to_heal_text(name: str) -> str:
    return _(
        "{name} has no Willpower left: at this table an aggravated level takes a point too."
    ).format(name=escape(name))


def healed_text(name: str, levels: int, track: HealthTrack, profile: Profile | None = None) -> str:
    head = "🩹 " + _("{name} heals {n} level.", "{name} heals {n} levels.", n=levels).format(
        name=escape(name), n=levels
    )
    return head + "\n" + status_text(track, profile)


def hp_text(
    name: str, track: HealthTrack, profile: Profile | None = None, sheet: Sheet | None = None
) -> str:
    vampire = sheet is not None and is_vampire(sheet)
    generation = sheet.generation if sheet is not None else None
    return f"<b>{escape(name)}</b>\n" + status_text(
        track, profile, vampire=vampire, generation=generation
    )


def status_text(
    track: HealthTrack,
    profile: Profile | None = None,
    *,
    vampire: bool = False,
    generation: int | None = None,
) -> str:
    """The track, when the next level heals, and (§B.12 S4 «Любое Летальное повреждение
    начиная с Травм требует медицинского вмешательства») whether the lethal wounds worsen a
    level a day until stabilised, as the table's house rules read it. A vampire mends with
    blood instead (§B.13): no days, no Medicine."""
    lines = [sheet_text.health_line(track, vampire=vampire)]
    if track.dead:
        lines.append("☠️ " + _("Dead."))
        return "\n".join(lines)
    if vampire and torpid(track):
        lines.append(torpor_hint_text())
    if vampire:
        if track.boxes:
            lines.append(_vampire_hint(track, profile, generation))
        return "\n".join(lines)
    options = profile.combat if profile is not None else None
    lines.extend(care_lines(track, options))
    plan = healing_plan(track)
    if plan:
        lines.append(_("Next level heals in {time}.").format(time=duration_text(plan[0].duration)))
    if needs_stabilising(track, options):
        lines.append(
            "🩺 "
            + _(
                "The lethal wounds worsen a level a day until stabilised: "
                "Intelligence + Medicine, difficulty {n}."
            ).format(n=stabilise_difficulty(options))
        )
    return "\n".join(lines)


def torpor_hint_text() -> str:
    return "💤 " + _(
        "In torpor: skipped in the fight. Blood that mends a level wakes them (/heal); "
        "with no blood the Storyteller feeds them first (/blood +N)."
    )


def care_lines(track: HealthTrack, options: CombatOptions | None = None) -> list[str]:
    """The care the healing times need (§B.12): the table's times assume first aid and rest,
    a doctor's Medicine makes the next level faster, and the worst rows cannot heal without
    nursing. Drawn above the time itself, which stays the track's last word on healing."""
    lines: list[str] = []
    faster = doctor_times(track)
    if faster:
        parts = [
            _("Medicine {n} — {time}").format(n=d.medicine, time=duration_text(d.duration))
            for d in faster
        ]
        lines.append(
            "🧑‍⚕️ "
            + _("A doctor with drugs and care heals it faster: {times}.").format(
                times="; ".join(parts)
            )
        )
    needs = care_needs(track, options)
    if CareNeed.CONSTANT_CARE in needs:
        lines.append(
            "🛏 "
            + _("Unconscious and helpless: needs constant watching and care, to be fed and washed.")
        )
    elif CareNeed.REGULAR_CARE in needs:
        lines.append("🛏 " + _("From «Crippled» on, full recovery needs regular medical care."))
    if CareNeed.SEQUELAE_RISK in needs:
        lines.append("⚠️ " + _("Bashing this deep may leave lasting harm without a doctor's help."))
    return lines


def _vampire_hint(track: HealthTrack, profile: Profile | None, generation: int | None) -> str:
    if any(box is not DamageType.AGGRAVATED for box in track.boxes):
        return "🩸 " + _("/heal mends with blood: a point a level, up to {n} a turn.").format(
            n=blood_per_turn(generation)
        )
    cost = (profile.vampire if profile is not None else VampireOptions()).aggravated_heal_blood
    return "🩸 " + _("/heal mends an aggravated level: {n} blood and a day's rest.").format(n=cost)


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


def no_fight_text() -> str:
    return _("No fight is on: /hp all lists the fighters of an open round.")


def heal_usage_text() -> str:
    return _("Example: /heal — one level; /heal 2; /heal npc Ghoul")


def d10_only_text() -> str:
    return _("Health levels belong to the d10 games; the d6 game keeps wounds on the sheet.")


def soaked_already_text() -> str:
    return _("This wound is already soaked.")


def track_moved_text() -> str:
    return _("The health track has changed since this wound: soak it by hand and use /heal.")


def not_yours_text() -> str:
    return _("Only the wounded character's player or the Storyteller soaks this wound.")


def help_line(profile: Profile) -> str:
    return _("/dmg 3 l damage · /heal · /hp health · /hp all: every fighter")
