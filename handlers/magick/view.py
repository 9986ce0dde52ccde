"""The Effect on screen: the wizard with its live odds, the cast with the wheel, the Backlash
(docs/rules.md §C.2–§C.12)."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import house_rules, render, rolling, sheet_text, table_text
from handlers.magick.callbacks import (
    BarrierAction,
    BarrierCallback,
    MagickAction,
    MagickCallback,
    SphereCallback,
)
from handlers.magick.flow import (
    EXTEND_TARGETS,
    LEVELS,
    MODIFIER_CAP,
    NAMED_MODIFIERS,
    PANELS,
    PARTS,
    BarrierFlow,
    EffectFlow,
    Panel,
    Stage,
)
from rules import magick, probability
from rules.combat.damage import DiceTally
from rules.d10 import D10Result, Outcome
from rules.errors import RulesInputError
from rules.health import DamageType
from rules.profiles import MagickOptions, Profile
from rules.spheres import LEVEL_NAMES, SPHERE_LEVELS, SPHERE_NAMES, Sphere, SphereLevel, SphereText
from table.store import Flow


def magnitude_name(kind: magick.Magnitude) -> str:
    names = {
        magick.Magnitude.ORDINARY: _("ordinary"),
        magick.Magnitude.COMPLEX: _("complex"),
        magick.Magnitude.MIGHTY: _("mighty"),
        magick.Magnitude.UNUSUAL: _("unusual"),
        magick.Magnitude.GODLIKE: _("godlike"),
    }
    return names[kind]


def wheel_line(quintessence: int, paradox: int, size: int) -> str:
    """«Квинтэссенция 3 · Парадокс 4» and the track itself (§C.11)."""
    words = _("Quintessence {q} · Paradox {p}").format(q=quintessence, p=paradox)
    return words + "\n" + sheet_text.wheel_track(quintessence, paradox, size)


def _effect_head(state: EffectFlow) -> str:
    kind = _("vulgar") if state.vulgar else _("coincidental")
    if state.vulgar and state.witnesses:
        kind = _("vulgar, with witnesses")
    elif state.witnesses:
        kind = _("coincidental, with witnesses")
    level = _("Sphere {n}").format(n=state.level)
    return f"✨ {escape(state.caster)}: {level}, {kind}"


def quintessence_most(state: EffectFlow, profile: Profile) -> int:
    """The Quintessence a roll may spend: what the sheet holds, up to the table's limit (§C.3
    S4 «максимум 3»)."""
    return min(profile.magick.quintessence_max_per_roll, state.held)


def _difficulty_line(state: EffectFlow, profile: Profile) -> str:
    try:
        found = state.difficulty(profile)
    except RulesInputError as error:
        if error.field == "modifiers":
            return "⚠️ " + modifiers_clash_text()
        return "⚠️ " + _("More Quintessence than the sheet holds.")
    line = _("difficulty {d}").format(d=found.difficulty)
    if found.threshold:
        line += ", " + _("threshold {t}").format(t=found.threshold)
    parts = [_("base {n}").format(n=found.base)]
    if found.modifier_applied:
        parts.append(
            _("modifiers {n:+d} of ±{cap}").format(
                n=found.modifier_applied, cap=profile.magick.modifier_cap
            )
        )
    if state.condition_difficulty:  # §B.8, outside magick's own ±3
        parts.append(_("blinded +{n}").format(n=state.condition_difficulty))
    line += " (" + ", ".join(parts).replace("-", "−") + ")"
    if found.wasted_quintessence:
        line += "\n⚠️ " + _(
            "{n} Quintessence lowers nothing: the modifiers are already at −{cap}."
        ).format(n=found.wasted_quintessence, cap=profile.magick.modifier_cap)
    if found.floor_quintessence:
        line += "\n⚠️ " + floor_quintessence_text(
            found.floor_quintessence, profile.effect_difficulty_min
        )
    return line


def floor_quintessence_text(n: int, floor: int) -> str:
    """§C.4: the difficulty never goes below its floor, so a point spent there buys nothing
    and the cast does not take it."""
    return _(
        "{n} Quintessence would lower nothing: the difficulty does not go below {floor}, "
        "so it is not spent."
    ).format(n=n, floor=floor)


def _pool_line(state: EffectFlow, profile: Profile) -> str:
    line = _("Arete {n}d10").format(n=state.dice(profile))
    if state.wound_penalty and profile.magick.wound_penalty_on_arete:
        line += " (" + rolling.wounds_text(state.wound_penalty) + ")"
    if state.quintessence:
        line += ", " + _("Quintessence {n}").format(n=state.quintessence)
    if state.willpower:
        line += ", " + _("Willpower")
    return line


def wizard_text(state: EffectFlow, profile: Profile) -> str:
    lines = [
        _effect_head(state),
        _pool_line(state, profile) + " · " + _difficulty_line(state, profile),
    ]
    if state.modifier:
        lines.append(_("Storyteller's modifier: {n:+d}").format(n=state.modifier).replace("-", "−"))
    if state.named:
        chosen = ", ".join(
            f"{modifier_name(magick.Modifier(k))} {v:+d}".replace("-", "−")
            for k, v in state.named.items()
        )
        lines.append(_("Modifiers: {list}").format(list=chosen))
    try:
        found = state.difficulty(profile)
        dice = state.dice(profile)
        if dice:
            odds = probability.d10(
                dice,
                found.difficulty,
                profile,
                willpower=state.willpower,
                threshold=found.threshold,
            )
            lines.append(render.chances_line(odds))
        else:
            lines.append("⛔ " + _("Wounds leave no Arete dice: the Effect cannot be cast."))
    except RulesInputError:
        pass
    gain, botch = state.paradox_if(False, profile), state.paradox_if(True, profile)
    lines.append(
        _("Paradox: +{gain} on a success or a failure, +{botch} on a botch").format(
            gain=gain, botch=botch
        )
    )
    return "\n".join(lines)


def cast_text(state: EffectFlow, profile: Profile) -> str:
    result = state.result
    lines = [_effect_head(state)]
    if result is None:
        lines.append("⛔ " + _("Wounds leave no Arete dice: the Effect cannot be cast."))
        return "\n".join(lines)
    lines[0] += _rolled_pool(state, result, profile)
    lines.append(render.faces_html(result))
    lines.append(_cast_outcome(state, result, profile))
    if state.target is not None:
        lines.append(ritual_line(state))
    lines += _cost_lines(state, profile)
    # a Backlash's soak reads the soak rules of combat (§B.10)
    soak = house_rules.SOAK_RULES if state.soak is not None else ()
    tag = house_rules.house_tag(profile, house_rules.Group.MAGICK, keys=soak)
    if tag is not None:
        lines.append(escape(tag, quote=False))
    if state.backlash is not None:
        lines.append("")
        lines.append(backlash_text(state, profile))
    lines += _open_panel_lines(state, profile)
    return "\n".join(lines)


def _rolled_pool(state: EffectFlow, result: D10Result, profile: Profile) -> str:
    """« → Arete 2d10 (−1 for wounds), difficulty 6, Quintessence 1» after the Effect's head."""
    rolled = render.conditions(
        state.pool, result.difficulty, result.threshold, result.willpower, profile
    )
    if state.wound_penalty and profile.magick.wound_penalty_on_arete:
        # «Арете 2к10 (−1 за раны), сложность 6»: why the pool is smaller than the Arete.
        dice, comma, rest = rolled.partition(", ")
        wounds = " (" + rolling.wounds_text(-state.wound_penalty) + ")"
        rolled = dice + wounds + comma + rest
    text = " → " + _("Arete") + " " + rolled
    if state.quintessence:
        text += ", " + _("Quintessence {n}").format(n=state.quintessence)
    return text


def _cast_outcome(state: EffectFlow, result: D10Result, profile: Profile) -> str:
    """The roll's outcome; a plain cast also names the largest Effect its successes reach."""
    outcome = render.outcome_line(result.outcome, result.successes, None, profile.labels)
    if state.target is not None:
        return outcome
    found = magick.magnitude_of(min(result.successes, magick.MAX_SUCCESSES))
    if result.outcome in (Outcome.SUCCESS, Outcome.AUTO_SUCCESS) and found is not None:
        outcome += " · " + _("up to a {kind} Effect").format(kind=magnitude_name(found))
    return outcome


def _cost_lines(state: EffectFlow, profile: Profile) -> list[str]:
    """What the cast cost: Quintessence wasted or kept, Paradox, the wheel, Willpower."""
    lines: list[str] = []
    if state.wasted:
        lines.append(
            "⚠️ "
            + _("{n} Quintessence lowered nothing (the ±{cap} cap).").format(
                n=state.wasted, cap=profile.magick.modifier_cap
            )
        )
    if state.kept:
        lines.append("⚠️ " + floor_quintessence_text(state.kept, profile.effect_difficulty_min))
    if state.paradox:
        lines.append("🌀 " + _("Paradox +{n}").format(n=state.paradox))
    if state.prepaid and state.stage is Stage.RITUAL:
        lines.append(
            "🌀 "
            + _("Paradox paid with the first cast: {n} (the ritual's end counts it)").format(
                n=state.prepaid
            )
        )
    if state.wheel is not None:
        lines.append(wheel_line(state.wheel[0], state.wheel[1], profile.magick.wheel_size))
    if state.willpower_left is not None:
        lines.append(
            _("Willpower left: {current} of {permanent}").format(
                current=state.willpower_left[0], permanent=state.willpower_left[1]
            )
        )
    return lines


def _open_panel_lines(state: EffectFlow, profile: Profile) -> list[str]:
    if state.panel is Panel.ALLOCATE:
        return ["", allocation_text(state, profile)]
    if state.panel is Panel.CORRESPONDENCE:
        return ["", correspondence_table(), link_text(state, profile)]
    if state.panel is Panel.TIME:
        return ["", time_table()]
    return []


def ritual_line(state: EffectFlow) -> str:
    """§C.10: a ritual's progress, and how it ended."""
    assert state.target is not None
    head = "🕯 " + _("Ritual, roll {n}").format(n=state.rolls) + ": "
    head += table_text.progress_bar(state.gathered, state.target)
    if state.stage is Stage.RITUAL:
        return head
    if state.abandoned:
        return head + "\n✖ " + _("The ritual was given up: the Effect failed.")
    if state.result is not None and state.result.outcome is Outcome.BOTCH:
        return head + "\n💥 " + _("A botch: the ritual fails, its successes are lost.")
    found = magick.magnitude_of(min(state.gathered, magick.MAX_SUCCESSES))
    done = "✅ " + _("The ritual is complete.")
    if found is not None:
        done += " " + _("up to a {kind} Effect").format(kind=magnitude_name(found))
    return head + "\n" + done


def duration_name(kind: magick.Duration, turns: int | None) -> str:
    names = {
        magick.Duration.INSTANT: _("an instant"),
        magick.Duration.SCENE: _("a scene"),
        magick.Duration.DAY: _("a day"),
        magick.Duration.STORY: _("a story"),
        magick.Duration.HALF_YEAR: _("half a year"),
        magick.Duration.GM_DECIDES: _("as long as the Storyteller allows"),
        magick.Duration.PERMANENT: _("permanent"),
    }
    if kind is magick.Duration.TURNS:
        n = turns or 0
        return _("{n} turn", "{n} turns", n=n).format(n=n)
    return names[kind]


def place_name(place: magick.Place) -> str:
    names = {
        magick.Place.LINE_OF_SIGHT: _("within sight"),
        magick.Place.VERY_FAMILIAR: _("a very familiar place"),
        magick.Place.FAMILIAR: _("a familiar place"),
        magick.Place.VISITED_ONCE: _("a place visited once"),
        magick.Place.DESCRIBED: _("a place known from a description"),
        magick.Place.ANYWHERE: _("anywhere on Earth"),
    }
    return names[place]


def contact_name(contact: magick.Contact) -> str:
    names = {
        magick.Contact.BODY_SAMPLE: _("a sample of the body"),
        magick.Contact.IMPORTANT_POSSESSION: _("a treasured possession, a very close friend"),
        magick.Contact.POSSESSION: _("a possession or a friend"),
        magick.Contact.ACQUAINTANCE: _("an acquaintance, a thing used once"),
        magick.Contact.SEEN_ONCE: _("someone or something touched or seen once"),
        magick.Contact.NONE_NEEDED: _("nothing needed"),
    }
    return names[contact]


def place_short(place: magick.Place) -> str:
    """A place of the §C.8 table on its button."""
    names = {
        magick.Place.LINE_OF_SIGHT: _("in sight"),
        magick.Place.VERY_FAMILIAR: _("very familiar place"),
        magick.Place.FAMILIAR: _("familiar place"),
        magick.Place.VISITED_ONCE: _("visited once"),
        magick.Place.DESCRIBED: _("from a description"),
        magick.Place.ANYWHERE: _("any place on Earth"),
    }
    return names[place]


def contact_short(contact: magick.Contact) -> str:
    """A contact of the §C.8 table on its button."""
    names = {
        magick.Contact.BODY_SAMPLE: _("body sample"),
        magick.Contact.IMPORTANT_POSSESSION: _("treasured thing, close friend"),
        magick.Contact.POSSESSION: _("a thing or a friend"),
        magick.Contact.ACQUAINTANCE: _("acquaintance"),
        magick.Contact.SEEN_ONCE: _("seen or touched once"),
        magick.Contact.NONE_NEEDED: _("no link needed"),
    }
    return names[contact]


def link_text(state: EffectFlow, profile: Profile) -> str:
    """§C.8 for this Effect: the place and the contact named, the successes on distance they
    need — the better link, or both reached, as the table reads it — and whether the
    successes spent there are enough."""
    need = state.link_required(profile)
    if need is None:
        return "🔗 " + _("Name the place and the contact the link goes through.")
    named = []
    if state.link_place is not None:
        row = tuple(magick.Place).index(state.link_place) + 1
        named.append(
            _("{place} ({n})").format(  # the place names say «place» themselves
                place=place_name(state.link_place), n=render.successes_text(row)
            )
        )
    if state.link_contact is not None:
        row = tuple(magick.Contact).index(state.link_contact) + 1
        named.append(
            _("contact: {name} ({n})").format(
                name=contact_name(state.link_contact), n=render.successes_text(row)
            )
        )
    lines = ["🔗 " + _("Link") + ": " + "; ".join(named)]
    line = _("Successes on distance needed: {n}").format(n=need)
    if state.link_place is not None and state.link_contact is not None:
        if profile.magick.correspondence_better_link:
            line += " — " + _("the better link decides")
        else:
            line += " — " + _("both links must reach")
    lines.append(line)
    found = state.allocated(profile)
    if found is not None:
        lines.append(link_spent_line(found.correspondence_successes, need))
    return "\n".join(lines)


def link_spent_line(spent: int, need: int) -> str:
    if spent >= need:
        return "✅ " + _("Spent on distance: {n}, enough.").format(n=spent)
    return "⛔ " + _("Spent on distance: {n}, {more} more needed.").format(
        n=spent, more=need - spent
    )


def haunt_line(paradox: int, profile: Profile) -> str:
    """§C.14: Мороки pursue the mage as long as the unreleased Paradox, in the unit the
    table reads for it (AMB-C15)."""
    found = magick.haunt_duration(paradox, profile=profile)
    n = found.amount
    units = {
        MagickOptions.HauntUnit.DAYS: _("for {n} day", "for {n} days", n=n),
        MagickOptions.HauntUnit.WEEKS: _("for {n} week", "for {n} weeks", n=n),
        MagickOptions.HauntUnit.MONTHS: _("for {n} month", "for {n} months", n=n),
        MagickOptions.HauntUnit.YEARS: _("for {n} year", "for {n} years", n=n),
    }
    span = units[found.unit].format(n=n)
    return "👻 " + _(
        "Haunts will pursue the mage {span}: as much as the Paradox left on the wheel."
    ).format(span=span)


def _years(n: int) -> str:
    if n >= 1000:
        return _("1000 years and more")
    return _("{n} year", "{n} years", n=n).format(n=n)


def correspondence_table() -> str:
    """§C.8: the successes a place or a contact needs."""
    lines = ["📍 <b>" + _("Correspondence") + "</b>"]
    for n in range(1, 7):
        reach = magick.correspondence_reach(n)
        count = f"{n}+" if n == 6 else str(n)
        lines.append(f"{count}: {place_name(reach.place)} · {contact_name(reach.contact)}")
    return "\n".join(lines)


def time_table() -> str:
    """§C.9: how far into the past or the future successes reach."""
    lines = ["🕰 <b>" + _("Time") + "</b>"]
    for n in (1, 2, 3, 4, 5, 6, 10):
        count = f"{n}+" if n in (6, 10) else str(n)
        lines.append(f"{count}: {_years(magick.time_reach(n))}")
    return "\n".join(lines)


def part_name(part: str) -> str:
    names = {
        "damage": "🩸 " + _("damage"),
        "duration": "⏳ " + _("duration"),
        "area": "🎯 " + _("targets"),
        "correspondence": "📍 " + _("distance"),
        "time": "🕰 " + _("time"),
    }
    return names[part]


def allocation_text(state: EffectFlow, profile: Profile) -> str:
    """§C.7: where the successes go and what they buy, with what is left to spend."""
    found = state.allocated(profile)
    if found is None:
        return "⚖ " + _("No successes to spend.")
    lines = [
        "⚖ <b>"
        + _("Successes: {n}, left {left}").format(n=found.successes, left=found.unspent)
        + "</b>"
    ]
    if not found.works:
        lines.append(
            "⛔ " + _("The Effect needs {n}: too few successes, it fails.").format(n=found.required)
        )
    lines.append(
        f"{part_name('damage')}: {found.damage_successes} → "
        + _("{n} health level", "{n} health levels", n=found.damage_levels).format(
            n=found.damage_levels
        )
    )
    line = f"{part_name('duration')}: {state.allocation.get('duration', 0)} → " + duration_name(
        found.duration, found.duration_turns
    )
    if state.permanent and found.duration is not magick.Duration.PERMANENT:
        line += " (" + permanent_needs(found.required, profile) + ")"
    lines.append(line)
    line = f"{part_name('area')}: {found.area_successes}"
    if state.mage_too:
        others = state.others_reached(profile)
        line += " → " + (
            _("the mage and {n} more target", "the mage and {n} more targets", n=others).format(
                n=others
            )
            if others
            else _("the mage alone")
        )
    lines.append(line)
    distance = found.correspondence_successes
    line = f"{part_name('correspondence')}: {distance}"
    if distance:
        reach = magick.correspondence_reach(distance)
        line += f" → {place_name(reach.place)} · {contact_name(reach.contact)}"
    need = state.link_required(profile)
    if need is not None:
        line += (
            " · " + _("the link needs {n}").format(n=need) + (" ✅" if distance >= need else " ⛔")
        )
    lines.append(line)
    line = f"{part_name('time')}: {found.time_successes}"
    if found.time_successes:
        line += " → " + _years(magick.time_reach(found.time_successes))
    lines.append(line)
    return "\n".join(lines)


def permanent_needs(required: int, profile: Profile) -> str:
    """What a permanent Effect asks for, as the table reads «x2 необходимого количества»
    (AMB-C9)."""
    if profile.magick.permanent_duration_rule is MagickOptions.PermanentRule.DOUBLE_REQUIRED:
        n = 2 * required
        return _(
            "permanent from {n} success in all", "permanent from {n} successes in all", n=n
        ).format(n=n)
    n = magick.PERMANENT_ON_DURATION
    return _(
        "permanent takes {n} success on duration", "permanent takes {n} successes on duration", n=n
    ).format(n=n)


def _damage_name(kind: DamageType) -> str:
    if kind is DamageType.BASHING:
        return _("bashing")
    if kind is DamageType.LETHAL:
        return _("lethal")
    return _("aggravated")


def _effect_name(effect: magick.BacklashEffect) -> str:
    names = {
        magick.BacklashEffect.SLIGHT_FLAW: _("a slight Paradox flaw is possible"),
        magick.BacklashEffect.NONMAGICAL_DIFFICULTY: _(
            "+1 to +3 difficulty on non-magical actions"
        ),
        magick.BacklashEffect.ALL_DIFFICULTY: _("+4 to +6 difficulty on all actions"),
        magick.BacklashEffect.EXTRA_DAMAGE: _("some more damage"),
        magick.BacklashEffect.OTHER_PUNISHMENT: _("flaws, Paradox spirits, a storm…"),
        magick.BacklashEffect.UNCONSCIOUS: _("unconsciousness"),
        magick.BacklashEffect.SEVERE_PUNISHMENT: _("a possible severe punishment"),
        magick.BacklashEffect.PERMANENT_FLAW: _("a permanent Paradox flaw"),
        magick.BacklashEffect.PERMANENT_PARADOX: _("permanent Paradox"),
        magick.BacklashEffect.PARADOX_SPIRIT: _("a mighty Paradox spirit"),
        magick.BacklashEffect.PARADOX_REALM: _("a Paradox realm"),
        magick.BacklashEffect.GM_ANYTHING: _("whatever the Storyteller wishes"),
    }
    return names[effect]


def _tally(tally: DiceTally) -> str:
    """A damage or soak roll's faces high→low, the counting ones bold, and its successes."""
    faces = " ".join(
        f"<b>{f}</b>" if f >= tally.difficulty else str(f)
        for f in sorted(tally.faces, reverse=True)
    )
    return (faces or "—") + " — " + render.successes_text(tally.successes)


def backlash_text(state: EffectFlow, profile: Profile) -> str:
    """§C.12: the roll, what it discharged, the tier with the Storyteller's part, the damage."""
    found = state.backlash
    assert found is not None
    faces = " ".join(
        f"<b>{f}</b>" if f >= found.difficulty else str(f)
        for f in sorted(found.faces, reverse=True)
    )
    lines = [
        "⚡ <b>"
        + _("Backlash")
        + "</b>: "
        + _("{n} Paradox dice at difficulty {d}").format(
            n=found.paradox_before, d=found.difficulty
        ),
        faces,
        _("{n} discharged, {left} stay on the wheel").format(
            n=found.successes, left=found.paradox_after
        ),
    ]
    if found.paradox_after:
        lines.append(haunt_line(found.paradox_after, profile))
    effects = found.effects
    if effects.tier == 0:
        lines.append(_("Nothing happens this time."))
        return "\n".join(lines)
    lines.append(_("Tier {n}").format(n=effects.tier) + ": " + _tier_options(effects))
    lines.append(flaw_line(effects.tier))
    if state.damage is not None and state.damage_type is not None:
        lines.append(
            _("Damage ({kind}): {n}d10, difficulty {d}").format(
                kind=_damage_name(state.damage_type),
                n=len(state.damage.faces),
                d=state.damage.difficulty,
            )
            + ": "
            + _tally(state.damage)
        )
        if state.soak is not None:
            lines.append(
                _("Soak: {n}d10, difficulty {d}").format(
                    n=len(state.soak.faces), d=state.soak.difficulty
                )
                + ": "
                + _tally(state.soak)
            )
        lines.append(
            _("Health levels lost: {n}").format(n=state.levels)
            + ("" if effects.soakable else " (" + _("unsoakable") + ")")
        )
    if state.track is not None:
        lines.append(sheet_text.health_line(state.track))
    return "\n".join(lines)


def flaw_line(tier: int) -> str:
    """§C.13: the Paradox flaw that matches the tier, for the Storyteller to give or not."""
    spec = next((s for s in magick.PARADOX_FLAWS.values() if s.tier == tier), None)
    if spec is None:
        return ""
    names = {
        magick.ParadoxFlaw.TRIVIAL: _("trivial"),
        magick.ParadoxFlaw.MINOR: _("minor"),
        magick.ParadoxFlaw.MODERATE: _("moderate"),
        magick.ParadoxFlaw.SEVERE: _("severe"),
        magick.ParadoxFlaw.RADICAL: _("radical"),
    }
    lasting = {
        magick.FlawLasting.BRIEF: _("brief"),
        magick.FlawLasting.LONG: _("long"),
        magick.FlawLasting.MAY_BE_PERMANENT: _("may be permanent"),
    }
    line = "🎭 " + _(
        "A Paradox flaw of this tier, if the Storyteller gives one: {kind}, {lasting}"
    ).format(kind=names[spec.flaw], lasting=lasting[spec.lasting])
    if spec.difficulty_high:
        low, high = spec.difficulty_low, spec.difficulty_high
        span = f"+{low}" if low == high else f"+{low}…{high}"
        line += ", " + _("{span} difficulty on actions it touches").format(span=span)
    if spec.draws_attention:
        line += ", " + _("draws attention")
    return line


def _tier_options(effects: magick.BacklashEffects) -> str:
    parts = []
    for option in effects.options:
        text = _effect_name(option.effect)
        if option.turns:  # a difficulty's turns, and tier 4's unconsciousness for as many
            text += " " + _("for {n} turn", "for {n} turns", n=option.turns).format(n=option.turns)
        if option.amount:
            text += f" ({option.amount})"
        parts.append(text)
    joiner = " · "
    if effects.choice is magick.Choice.ONE_OF:
        return _("the Storyteller picks one: {list}").format(list=joiner.join(parts))
    if effects.choice is magick.Choice.AT_LEAST_ONE:
        return _("at least one, the Storyteller picks: {list}").format(list=joiner.join(parts))
    return joiner.join(parts)


def keyboard(
    flow_id: str, version: int, state: EffectFlow, profile: Profile
) -> InlineKeyboardMarkup | None:
    def button(text: str, action: MagickAction, x: int = 0) -> InlineKeyboardButton:
        return table_text.button(text, MagickCallback(f=flow_id, v=version, a=action, x=x))

    if state.stage is Stage.RITUAL:
        return InlineKeyboardMarkup(
            inline_keyboard=[
                [
                    button("🕯 " + _("Next roll"), MagickAction.NEXT_ROLL),
                    button("✖ " + _("Give up"), MagickAction.ABANDON),
                ]
            ]
        )
    if state.stage in (Stage.CAST, Stage.BACKLASH):
        return _cast_keyboard(state, button)
    if state.stage is not Stage.SETUP:
        return None
    rows = [
        [button(render.marked(str(n), n == state.level), MagickAction.LEVEL, n) for n in LEVELS],
        [
            button(
                "🔥 " + _("vulgar") if state.vulgar else "🌿 " + _("coincidental"),
                MagickAction.VULGAR,
            ),
            button(render.marked("👁 " + _("witnesses"), state.witnesses), MagickAction.WITNESSES),
        ],
    ]
    most = quintessence_most(state, profile)
    if most:
        rows.append(
            [
                button(
                    render.marked(f"💠{n}", n == state.quintessence), MagickAction.QUINTESSENCE, n
                )
                for n in range(0, most + 1)
            ]
        )
    rows.append(
        [
            button(
                render.marked(f"{n:+d}" if n else "±0", n == state.modifier),
                MagickAction.MODIFIER,
                n + MODIFIER_CAP,
            )
            for n in range(-MODIFIER_CAP, MODIFIER_CAP + 1)
        ]
    )
    if state.modifiers_open:
        rows += render.rows(
            [
                button(_named_label(row, state.named.get(row.value)), MagickAction.NAMED, i)
                for i, row in enumerate(NAMED_MODIFIERS)
            ],
            2,
        )
        rows.append([button("↩ " + _("Close the modifiers"), MagickAction.MODIFIERS, 0)])
    else:
        rows.append([button("⚙️ " + _("Modifiers of the table"), MagickAction.MODIFIERS, 1)])
    rows.append(
        [
            button(render.marked("💪 " + _("Willpower"), state.willpower), MagickAction.WILLPOWER),
        ]
    )
    rows.append(
        [
            button("✨ " + _("Cast"), MagickAction.CAST),
            button("✖ " + _("Cancel"), MagickAction.CANCEL),
        ]
    )
    return InlineKeyboardMarkup(inline_keyboard=rows)


def _cast_keyboard(
    state: EffectFlow, button: Callable[..., InlineKeyboardButton]
) -> InlineKeyboardMarkup | None:
    """Under a cast: the allocation helper and the range tables one tap away (§C.7–§C.9),
    and «Отдача» while the Paradox it gained waits."""
    rows: list[list[InlineKeyboardButton]] = []
    if state.panel is Panel.ALLOCATE:
        rows.append(
            [
                button("−", MagickAction.MAGNITUDE, 0),
                button(
                    "🎚 " + _("Effect needs: {n}").format(n=state.magnitude) + "  ＋",
                    MagickAction.MAGNITUDE,
                    1,
                ),
            ]
        )
        for i, part in enumerate(PARTS):
            have = state.allocation.get(part, 0)
            rows.append(
                [
                    button("−", MagickAction.TAKE, i),
                    button(f"{part_name(part)}: {have}  ＋", MagickAction.ADD, i),
                ]
            )
        if state.sphere is Sphere.FORCES:  # «сразу 1 ур. … если используется Сфера Сил»
            label = render.marked("💥 " + _("a damaging Effect"), state.damaging)
            rows.append([button(label, MagickAction.DAMAGING)])
        rows.append(
            [
                button(
                    render.marked("🧙 " + _("the mage is in the area too"), state.mage_too),
                    MagickAction.MAGE_TOO,
                ),
                button(
                    render.marked("♾ " + _("permanent"), state.permanent), MagickAction.PERMANENT
                ),
            ]
        )
    if state.panel is Panel.CORRESPONDENCE:
        for i, (place, contact) in enumerate(zip(magick.Place, magick.Contact, strict=True)):
            rows.append(
                [
                    button(
                        render.marked(f"📍{i + 1} {place_short(place)}", place is state.link_place),
                        MagickAction.LINK_PLACE,
                        i,
                    ),
                    button(
                        render.marked(
                            f"🔗{i + 1} {contact_short(contact)}", contact is state.link_contact
                        ),
                        MagickAction.LINK_CONTACT,
                        i,
                    ),
                ]
            )
    if state.panel is not Panel.CAST:
        rows.append([button("↩ " + _("Back"), MagickAction.PANEL, PANELS.index(Panel.CAST))])
        return InlineKeyboardMarkup(inline_keyboard=rows)
    if state.allocated_successes() > 0:
        panel = PANELS.index(Panel.ALLOCATE)
        rows.append([button("⚖ " + _("Spend successes"), MagickAction.PANEL, panel)])
    rows.append(
        [
            button(
                "📍 " + _("Correspondence"),
                MagickAction.PANEL,
                PANELS.index(Panel.CORRESPONDENCE),
            ),
            button("🕰 " + _("Time"), MagickAction.PANEL, PANELS.index(Panel.TIME)),
        ]
    )
    if state.paradox and state.backlash is None:
        rows.append([button("⚡ " + _("Backlash"), MagickAction.BACKLASH)])
    if extendable(state):
        if state.extending:
            rows += render.rows(
                [
                    button(f"🎯{n}", MagickAction.EXTEND, n)
                    for n in EXTEND_TARGETS
                    if state.result is not None and n > state.result.successes
                ],
                6,
            )
        else:
            rows.append([button("⏳ " + _("Extend into a ritual"), MagickAction.EXTEND)])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def extendable(state: EffectFlow) -> bool:
    """«Продлить» (§C.10): an ordinary cast that did not botch may go on as a ritual, its
    successes the first of the gathering, while its Backlash has not come."""
    return (
        state.stage is Stage.CAST
        and state.target is None
        and not state.abandoned
        and state.backlash is None
        and state.result is not None
        and state.result.outcome is not Outcome.BOTCH
    )


def draw(
    flow: Flow, state: EffectFlow, profile: Profile
) -> tuple[str, InlineKeyboardMarkup | None]:
    if state.stage is Stage.SETUP:
        text = wizard_text(state, profile)
    elif state.stage is Stage.CANCELLED:
        text = _effect_head(state) + "\n✖ " + _("Called off.")
    else:
        text = cast_text(state, profile)
    return text, keyboard(flow.id, flow.version, state, profile)


def barrier_no_dice_text(arete: int, wounds: int) -> str:
    """§C.15: the crossing rolls Arete less wounds; none left, no crossing."""
    return _(
        "Crossing the Barrier rolls Arete less wounds: Arete {arete} − {wounds} for wounds "
        "leaves no dice. The Barrier cannot be crossed until the wounds heal."
    ).format(arete=arete, wounds=wounds)


def no_arete_text() -> str:
    return _("Your sheet has no Arete yet: /set arete 3")


def not_mage_text() -> str:
    return _("Magick Effects belong to the Mage games (/rules mage or mage-revised).")


def no_sphere_text(name: str) -> str:
    return _("«{name}» is not a Sphere. Example: /m matter 3 or /m 3").format(
        name=sheet_text.echoed(name)
    )


def no_sphere_on_sheet_text(name: str) -> str:
    return _(
        "Your sheet has no {sphere}: a mage casts only with the Spheres they know. "
        "If the character has it, write it down: /set {sphere} 2"
    ).format(sphere=sheet_text.echoed(name))


def sphere_too_low_text(name: str, known: int, level: int) -> str:
    return _(
        "Your sheet has {sphere} {known}: an Effect of level {level} is beyond it. "
        "Cast at most /m {sphere} {known}"
    ).format(sphere=sheet_text.echoed(name), known=known, level=level)


def not_enough_quintessence_text(held: int, profile: Profile) -> str:
    return _(
        "Not that much Quintessence: the sheet holds {n}, and one roll takes at most {most}."
    ).format(n=held, most=profile.magick.quintessence_max_per_roll)


def no_successes_left_text() -> str:
    return _("Every success is spent: take one back from another part first.")


def magnitude_floor_text() -> str:
    return _("An Effect needs at least one success.")


def no_paradox_text() -> str:
    return _("No Paradox on the wheel: there is nothing to discharge.")


def not_yours_text() -> str:
    return _("This Effect is someone else's (the Storyteller may roll its Backlash).")


def usage_text() -> str:
    return _(
        "Example: /m 3 vulgar witnesses q 2 mod -1 wp — Sphere 3, vulgar before witnesses, "
        "2 Quintessence, a −1 modifier, Willpower; /m alone opens the buttons"
    )


def help_line(profile: Profile) -> str:
    return _("/m 3 vulgar q 1 magick")


# ----- /sphere: the reference cards of §C.16 ------------------------------------------------


def _in(text: SphereText, locale: str) -> str:
    return text.en if locale == "en" else text.ru


def sphere_card(sphere: Sphere | None, level: int, locale: str) -> tuple[str, InlineKeyboardMarkup]:
    """The nine Spheres; one Sphere's five levels; or one level's card (house sheet S4)."""

    def button(text: str, data: SphereCallback) -> InlineKeyboardButton:
        return table_text.button(text, data)

    if sphere is None:
        text = (
            "🔮 <b>"
            + _("The Spheres")
            + "</b>\n"
            + _("Choose a Sphere to see what its levels allow.")
        )
        spheres = [button(_in(SPHERE_NAMES[s], locale), SphereCallback(s=s.value)) for s in Sphere]
        return text, InlineKeyboardMarkup(inline_keyboard=render.rows(spheres, 3))
    name = _in(SPHERE_NAMES[sphere], locale)
    levels = [
        button(render.marked("●" * n, n == level), SphereCallback(s=sphere.value, n=n))
        for n in range(1, 6)
    ]
    rows = [levels, [button("↩ " + _("All Spheres"), SphereCallback())]]
    if level == 0:
        lines = [f"🔮 <b>{escape(name)}</b>"]
        for n, allowed in enumerate(SPHERE_LEVELS[sphere], start=1):
            lines.append(f"{'●' * n} {escape(_in(allowed, locale))}")
        return "\n".join(lines), InlineKeyboardMarkup(inline_keyboard=rows)
    rank = _in(LEVEL_NAMES[SphereLevel(level)], locale)
    card = _in(SPHERE_LEVELS[sphere][level - 1], locale)
    text = f"🔮 <b>{escape(name)}</b> {'●' * level} ({escape(rank)})\n{escape(card)}"
    return text, InlineKeyboardMarkup(inline_keyboard=rows)


# ----- /barrier: crossing into the spirit worlds (§C.15) ------------------------------------

PLACES = tuple(magick.BarrierPlace)


def place_of_barrier(place: magick.BarrierPlace) -> str:
    names = {
        magick.BarrierPlace.NODE: _("a Node"),
        magick.BarrierPlace.DEEP_WILDERNESS: _("deep wilderness"),
        magick.BarrierPlace.COUNTRYSIDE: _("countryside"),
        magick.BarrierPlace.MOST_CITIES: _("most cities"),
        magick.BarrierPlace.DOWNTOWN: _("downtown"),
        magick.BarrierPlace.TECHNOCRACY_LAB: _("a Technocracy lab"),
    }
    return names[place]


def _barrier_pool(state: BarrierFlow, profile: Profile) -> str:
    """The dice the next roll throws: the Arete less the wounds' dice when the table's rule
    takes them off Arete (AMB-C5), the penalty shown."""
    line = _("Arete {n}d10").format(n=state.dice(profile))
    if state.wound_penalty and profile.magick.wound_penalty_on_arete:
        line += " (" + rolling.wounds_text(-state.wound_penalty) + ")"
    return line


def barrier_text(state: BarrierFlow, profile: Profile) -> str:
    found = state.barrier(profile)
    need = f"{found.successes}+" if found.at_least else str(found.successes)
    lines = [
        "🌫 <b>"
        + _("The Barrier")
        + f"</b>: {escape(state.caster)} · "
        + place_of_barrier(state.place),
        _barrier_pool(state, profile)
        + " · "
        + _("difficulty {d}").format(d=state.difficulty(profile))
        + " · "
        + _("successes needed: {n}").format(n=need),
    ]
    if state.condition_difficulty:
        lines.append(_("Blinded: +{n} difficulty").format(n=state.condition_difficulty))
    if state.shift:
        lines.append(_("Local shift: {n:+d}").format(n=state.shift).replace("-", "−"))
    for n, roll in enumerate(state.rolls, start=1):
        lines.append(f"{n}. {render.faces_html(roll)} — {render.outcome_label(roll.outcome)}")
    if state.rolls:
        lines.append(table_text.progress_bar(state.gathered, found.successes))
    if state.harm:
        lines.append(
            "🩸 " + _("Each failed roll hurts: {n} unsoakable lethal").format(n=state.harm)
        )
    if state.track is not None:
        lines.append(sheet_text.health_line(state.track))
    if state.crossed:
        lines.append("✅ " + _("Across: the spirit world is on the other side."))
    elif state.stopped:
        lines.append("✖ " + _("The mage stays on this side."))
    return "\n".join(lines)


def barrier_keyboard(flow_id: str, version: int, state: BarrierFlow) -> InlineKeyboardMarkup | None:
    def button(text: str, action: BarrierAction, x: int = 0) -> InlineKeyboardButton:
        return table_text.button(text, BarrierCallback(f=flow_id, v=version, a=action, x=x))

    if state.over:
        return None
    rows: list[list[InlineKeyboardButton]] = []
    if not state.rolls:
        rows += render.rows(
            [
                button(render.marked(place_of_barrier(p), p is state.place), BarrierAction.PLACE, i)
                for i, p in enumerate(PLACES)
            ],
            2,
        )
        rows.append(
            [
                button(
                    render.marked(f"{n:+d}" if n else "±0", n == state.shift),
                    BarrierAction.SHIFT,
                    n + magick.BARRIER_ADJUSTMENT_LIMIT,
                )
                for n in range(
                    -magick.BARRIER_ADJUSTMENT_LIMIT, magick.BARRIER_ADJUSTMENT_LIMIT + 1
                )
            ]
        )
    label = "🌫 " + (_("Cross") if not state.rolls else _("Next roll"))
    rows.append([button(label, BarrierAction.ROLL), button("✖ " + _("Stay"), BarrierAction.STOP)])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def draw_barrier(
    flow: Flow, state: BarrierFlow, profile: Profile
) -> tuple[str, InlineKeyboardMarkup | None]:
    text = barrier_text(state, profile)
    tag = house_rules.house_tag(profile, house_rules.Group.MAGICK)
    if tag is not None:
        text += "\n" + escape(tag, quote=False)
    return text, barrier_keyboard(flow.id, flow.version, state)


def modifier_name(row: magick.Modifier) -> str:
    names = {
        magick.Modifier.ANALYSIS: _("analysis of the target"),
        magick.Modifier.TARGET_RESONANCE: _("resonance with the target"),
        magick.Modifier.NODE: _("near a Node"),
        magick.Modifier.SPHERE_FOCUS: _("the Sphere's focus"),
        magick.Modifier.UNIQUE_FOCUS: _("a unique focus"),
        magick.Modifier.UNNEEDED_FOCUS: _("a focus not needed"),
        magick.Modifier.EXTRA_TIME: _("extra time"),
        magick.Modifier.QUINTESSENCE: _("Quintessence"),
        magick.Modifier.MATCHING_RESONANCE: _("matching Resonance"),
        magick.Modifier.OPPOSED_RESONANCE: _("opposed Resonance"),
        magick.Modifier.FAR_OR_HIDDEN: _("target far or hidden"),
        magick.Modifier.FAST_CASTING: _("fast casting"),
        magick.Modifier.DISTRACTED: _("distracted"),
        magick.Modifier.AVATAR_CONFLICT: _("at odds with the Avatar"),
        magick.Modifier.DOMINO: _("domino effect"),
        magick.Modifier.VERY_POWERFUL: _("a very powerful Effect"),
        magick.Modifier.MISSING_FOCUS: _("without the needed focus"),
    }
    return names[row]


def _named_label(row: magick.Modifier, value: int | None) -> str:
    low, high = magick.MODIFIER_RANGES[row]
    if value is None:
        span = (
            f"{low:+d}" if low == high else f"{high:+d}…{low:+d}" if low < 0 else f"+{low}…+{high}"
        )
        return f"{modifier_name(row)} ({span})".replace("-", "−")
    return render.marked(f"{modifier_name(row)} {value:+d}".replace("-", "−"), True)


def modifiers_clash_text() -> str:
    return _("These two rows cannot go together (two foci, or both Resonances).")
