"""The attack panel on screen: the plan before the roll, each roll of the chain as it comes,
and the target's new wound level at the end (docs/rules.md §B.3–§B.10)."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import house_rules, render, rolling, sheet_text, table_text
from bot.i18n import drawing
from handlers.combat.attack.callbacks import AtkAction, AtkCallback
from handlers.combat.attack.flow import (
    DEFENCES,
    INTERRUPT_DEFENCES,
    WEAPONS,
    AttackFlow,
    Defence,
    Guard,
    Past,
    Side,
    Stage,
)
from rules import combat
from rules.combat.damage import DiceTally
from rules.combat.manoeuvres import MANOEUVRES, DamageBase, Manoeuvre, Reach, Trait
from rules.combat.situation import Approach, Condition, Cover
from rules.d10 import D10Result
from rules.errors import RulesInputError
from rules.health import DamageType, wound_penalty
from rules.profiles import Profile
from table.store import Flow


def manoeuvre_name(code: Manoeuvre) -> str:
    names = {
        Manoeuvre.STRIKE: _("Strike"),
        Manoeuvre.KICK: _("Kick"),
        Manoeuvre.DISARM: _("Disarm"),
        Manoeuvre.GRAPPLE: _("Grapple"),
        Manoeuvre.HOLD: _("Hold"),
        Manoeuvre.SHOVE: _("Shove"),
        Manoeuvre.SWEEP: _("Sweep"),
        Manoeuvre.GUN_BUTT: _("Gun-butt jab"),
        Manoeuvre.SHOT: _("Shot / throw"),
        Manoeuvre.FULL_AUTO: _("Full auto"),
        Manoeuvre.SPRAY: _("Spray"),
        Manoeuvre.BURST: _("Burst"),
        Manoeuvre.BLIND_FIRE: _("Blind fire"),
        Manoeuvre.BITE: _("Bite"),
    }
    return names[code]


def trait_name(trait: Trait) -> str:
    names = {
        Trait.BRAWL: _("Brawl"),
        Trait.MELEE: _("Melee"),
        Trait.FIREARMS: _("Firearms"),
        Trait.THROWING: _("Throwing"),
        Trait.DODGE: _("Dodge"),
    }
    return names.get(trait, trait.value)


def damage_name(kind: DamageType) -> str:
    if kind is DamageType.BASHING:
        return _("bashing")
    if kind is DamageType.LETHAL:
        return _("lethal")
    return _("aggravated")


def damage_levels(kind: DamageType, levels: int) -> str:
    """The same words as ``/dmg`` says them (one catalogue entry each)."""
    if kind is DamageType.BASHING:
        return _("{n} level of bashing", "{n} levels of bashing", n=levels).format(n=levels)
    if kind is DamageType.LETHAL:
        return _("{n} level of lethal", "{n} levels of lethal", n=levels).format(n=levels)
    return _("{n} level of aggravated", "{n} levels of aggravated", n=levels).format(n=levels)


def _faces(result: D10Result) -> str:
    return render.faces_html(result) + " — " + render.successes_text(max(result.successes, 0))


def _tally(tally: DiceTally) -> str:
    faces = " ".join(
        f"<b>{f}</b>" if f >= tally.difficulty else str(f)
        for f in sorted(tally.faces, reverse=True)
    )
    return (faces or "—") + " — " + render.successes_text(tally.successes)


def _past(past: Past) -> str:
    head = f"{escape(past.attacker)} → {escape(past.target)}, {manoeuvre_name(past.manoeuvre)}: "
    if not past.hit:
        return "· " + head + _("no hit")
    if past.kind is None or past.levels == 0:
        return "· " + head + _("hit, no damage")
    return "· " + head + damage_levels(past.kind, past.levels)


def _modifiers(state: AttackFlow) -> list[str]:
    found = []
    if state.approach is Approach.FLANK:
        found.append(_("from the flank"))
    elif state.approach is Approach.REAR:
        found.append(_("from the rear"))
    if state.reach is Reach.RANGED and state.cover is Cover.PARTIAL:
        found.append(_("target in partial cover"))
    elif state.reach is Reach.RANGED and state.cover is Cover.FULL:
        found.append(_("target in full cover"))
    if state.reach is Reach.RANGED and state.own_cover is Cover.PARTIAL:
        found.append(_("shooting from partial cover"))
    elif state.reach is Reach.RANGED and state.own_cover is Cover.FULL:
        found.append(_("shooting from full cover"))
    if state.called:
        found.append(_("at a body part +{n}").format(n=state.called))
    if state.reach is Reach.RANGED and state.aim:
        found.append(_("aiming: {n}").format(n=state.aim))
    if state.moved:
        found.append(_("moved {n} m").format(n=state.moved))
    if state.off_hand:
        found.append(_("off hand"))
    if state.ambush:
        found.append(_("from an ambush"))
    return found


def plan_line(state: AttackFlow, profile: Profile) -> str:
    """«Удар (Драка): 5к10, сложность 6 · урон 2к10, ударный» with what changes it."""
    try:
        plan = state.plan(profile, preview=True)
    except RulesInputError:
        return "⚠️ " + _("These choices do not go together (aiming needs Firearms).")
    spec = MANOEUVRES[state.manoeuvre]
    head = manoeuvre_name(state.manoeuvre)
    if len(spec.abilities) > 1:
        head += f" ({trait_name(plan.ability)})"
    line = head + ": " + _("{n}d10").format(n=plan.roll.pool)
    line += ", " + _("difficulty {d}").format(d=plan.roll.difficulty)
    if plan.roll.threshold:
        line += " " + _("threshold {t}").format(t=plan.roll.threshold)
    penalty = wound_penalty(state.attacker.track).penalty
    if penalty:
        line += " (" + rolling.wounds_text(penalty) + ")"
    if plan.damage_type is not None:
        damage = _("{n}d10").format(n=plan.damage_dice)
        if plan.damage_successes:
            damage += " " + _potence(plan.damage_successes)
        damage += ", " + damage_name(plan.damage_type)
        line += " · " + _("damage {dice}").format(dice=damage)
    else:
        line += " · " + _("no damage")
    if plan.status is combat.PlanStatus.IMPOSSIBLE:
        line += "\n⛔ " + _("The attacker cannot make this attack now.")
    elif plan.status is combat.PlanStatus.AUTO_FAILURE:
        line += "\n⛔ " + _("With 0 in the Ability the attack fails without a roll.")
    elif plan.status is combat.PlanStatus.AUTO_HIT:
        line += "\n🎯 " + _("The target is fully immobilized: an automatic hit.")
    if state.blind_gated(profile) and state.blind_check is None:
        line += "\n" + _blind_plan_line(state, profile)
    return line


def _blind_plan_line(state: AttackFlow, profile: Profile) -> str:
    """AMB-B12: the check a gated blind shot waits on, before it is rolled."""
    check = state.blind_plan(profile)
    if check.status is not combat.PlanStatus.ROLL:
        return "⛔ " + blind_unseen_text(state.attacker.name)
    return "👁 " + _(
        "Blind fire: first Perception + Awareness, {n}d10 at difficulty {d}; "
        "without a success there is no shot."
    ).format(n=check.pool, d=check.difficulty)


def _blind_check_line(state: AttackFlow) -> str | None:
    """The rolled check of a blind shot, and its verdict when it failed."""
    check = state.blind_check
    if check is None:
        return None
    line = "👁 " + _("Perception + Awareness: {roll}").format(roll=_faces(check))
    if check.successes < 1:
        line += "\n🌑 " + _("{name} cannot make out the target in the dark: no shot.").format(
            name=escape(state.attacker.name)
        )
    return line


def panel_text(state: AttackFlow, profile: Profile) -> str:
    lines = [_past(p) for p in state.history]
    target = state.chosen_target()
    who = escape(state.attacker.name) + " → " + (escape(target.name) if target else "…")
    lines.append("⚔️ <b>" + _("Attack") + f"</b>: {who}")
    if state.stage is Stage.CANCELLED:
        lines.append(_cancelled_line(state))
        return "\n".join(lines)
    lines.extend(_plan_lines(state, profile))
    if state.stage is Stage.SETUP:
        if target is None:
            lines.append("🎯 " + _("Tap the target: the attack is rolled at once."))
        return "\n".join(lines)
    lines.extend(_rolled_lines(state, target, profile))
    return "\n".join(lines)


def _cancelled_line(state: AttackFlow) -> str:
    if state.lapsed:
        return "⌛ " + _(
            "The attack went unanswered and ended with its round: nothing from it lands."
        )
    return "✖ " + _("The attack was called off.")


def _plan_lines(state: AttackFlow, profile: Profile) -> list[str]:
    """The chosen manoeuvre with its pool, its modifiers and a move that costs an action."""
    lines = [plan_line(state, profile)]
    mods = _modifiers(state)
    if mods:
        lines.append(_("Modifiers: {list}").format(list=", ".join(mods)))
    moving = _movement_line(state, profile)
    if moving is not None:
        lines.append(moving)
    return lines


def _rolled_lines(state: AttackFlow, target: Side | None, profile: Profile) -> list[str]:
    """The attack from its roll on: the blind check, the roll, the defence and the hit."""
    lines: list[str] = []
    checked = _blind_check_line(state)
    if checked is not None:
        lines.append(checked)
        if state.attack is None:
            return lines
    if state.attack is not None:
        lines.append(_("Attack: {roll}").format(roll=_faces(state.attack)))
    if _auto_hit(state, profile):
        # AMB-B13: the immobilized target is hit with the table's count, or the roll's if more;
        # S4 «автоматическое попадание»: there is no defence to offer against it
        lines.append(
            "🎯 "
            + _("An automatic hit: {n}.").format(n=render.successes_text(state.net))
            + " "
            + _("The target is fully immobilized: no defence.")
        )
    if state.stage is Stage.DEFENCE and target is not None:
        lines.append(_defence_prompt(state, target, profile))
        return lines
    lines.extend(_defence_lines(state, target))
    if state.net <= 0 and state.stage is Stage.DONE:
        lines.append(_miss_line(state))
        return lines
    lines.extend(_hit_lines(state, target, profile))
    return lines


def _hit_lines(state: AttackFlow, target: Side | None, profile: Profile) -> list[str]:
    """The hit, its damage and soak, and what it did to the target."""
    lines = ["🎯 " + _("A hit: {n} net.").format(n=render.successes_text(state.net))]
    if state.damage is not None:
        roll = _tally(state.damage)
        extra = _potence_successes(state, profile)
        lines.append(
            _("Damage: {roll}").format(roll=roll + (" " + _potence(extra) if extra else ""))
        )
    if state.soak is not None:
        lines.append(_("Soak: {roll}").format(roll=_tally(state.soak)))
    if state.stage is Stage.DONE and target is not None:
        lines.append(_result(state, target.name, profile))
    elif state.stage is Stage.SOAK and target is not None:
        lines.append("🛡 " + _("{name} soaks.").format(name=escape(target.name)))
    return lines


def _movement_line(state: AttackFlow, profile: Profile) -> str | None:
    if not state.moved:
        return None
    moving = combat.movement(state.attacker.rating(Trait.DEXTERITY), state.moved, profile.combat)
    if not moving.separate_action:  # S4 «не отдельное действие до 1/2 скорости бега» (AMB-B8)
        return None
    return "🏃 " + _("More than the free {free} m: the move is an action of its own.").format(
        free=moving.free_metres
    )


def _defence_prompt(state: AttackFlow, target: Side, profile: Profile) -> str:
    """What the target may do against the rolled attack (§B.3 step 2)."""
    held = state.desperate_of(target.key)
    if state.guard is Guard.INTERRUPT and target.defences:
        return "✋ " + _(
            "{name}'s declared defence went on an earlier attack: only an Interruption (a "
            "Willpower roll at difficulty {d} or a point of Willpower) buys a dodge or a "
            "block, and drops the declared actions."
        ).format(name=escape(target.name), d=profile.combat.interruption_difficulty)
    if state.guard is Guard.INTERRUPT:
        return "✋ " + _(
            "{name} declared no defence: only an Interruption (a Willpower roll at "
            "difficulty {d} or a point of Willpower) buys a dodge or a block, and "
            "drops the declared actions."
        ).format(name=escape(target.name), d=profile.combat.interruption_difficulty)
    if held is not None:
        return "🛡 " + _(
            "{name} is in desperate defence this turn ({kind}): attack {n} of the turn."
        ).format(name=escape(target.name), kind=_defence_word(held.defence), n=held.met + 1)
    return "🛡 " + _("{name} defends: dodge, block or parry, or nothing.").format(
        name=escape(target.name)
    )


def _defence_lines(state: AttackFlow, target: Side | None) -> list[str]:
    """The defence as it went: an Interruption, none possible, or the roll."""
    lines: list[str] = []
    interrupted = _interruption_line(state)
    if interrupted is not None:
        lines.append(interrupted)
    if state.guard is Guard.NONE and state.defence is Defence.NONE and target is not None:
        said = (
            _("{name} has acted this turn and the declared defence is spent: no defence.")
            if target.defences
            else _("{name} has acted this turn and declared no defence: no defence.")
        )
        lines.append("🛡 " + said.format(name=escape(target.name)))
    elif state.defence is None and state.ambush and state.net > 0:
        lines.append("🥷 " + _("Ambushed: no defence."))
    if state.defence is Defence.NONE:
        lines.append(_("No defence."))
    elif state.defence is not None:
        kind = _defence_word(state.defence)
        roll = (
            _faces(state.defence_roll)
            if state.defence_roll is not None
            else _("no dice (0 in the Ability, wounds or stun)")
        )
        lines.append(_("Defence ({kind}): {roll}").format(kind=kind, roll=roll))
    return lines


def _miss_line(state: AttackFlow) -> str:
    if state.attack is not None and state.attack.outcome.value == "botch":
        return "💥 " + _("A botch: the attack goes badly wrong (the Storyteller says how).")
    return "🛡 " + _("No hit.")


def _interruption_line(state: AttackFlow) -> str | None:
    """What the target's Interruption cost and whether it bought the defence (§B.3 step 2)."""
    target = state.chosen_target()
    if target is None or (state.interruption is None and not state.interrupt_spent):
        return None
    name = escape(target.name)
    if state.interruption is None:
        head = "✋ " + _("Interruption: {name} spends a point of Willpower.").format(name=name)
    else:
        head = "✋ " + _("Interruption: {name} rolls Willpower: {roll}").format(
            name=name, roll=_faces(state.interruption)
        )
    if state.interrupted:
        return head + "\n" + _("{name} drops the declared actions to defend.").format(name=name)
    return head + "\n" + _("The interruption fails: {name} acts as declared.").format(name=name)


def _result(state: AttackFlow, name: str, profile: Profile) -> str:
    plan_kind = _damage_kind(state, profile)
    track = state.track_after
    if plan_kind is None:
        return "✅ " + _("{name}: the hit takes effect, no damage.").format(name=escape(name))
    if state.levels == 0 and state.soak is None:
        head = "✅ " + _("{name}: the hit takes effect, no damage.").format(name=escape(name))
    elif state.levels == 0:
        head = "🛡 " + _("The damage is fully soaked.")
    else:
        head = "🩸 " + _("{name} takes {damage}.").format(
            name=escape(name), damage=damage_levels(plan_kind, state.levels)
        )
    if state.halved:
        head += "\n🧛 " + _(
            "A vampire takes half the bashing that gets through: {n} shrugged off."
        ).format(n=state.halved)
    if state.stunned:
        head += " 💫 " + _stun_reason(profile)
    if state.knocked:
        head += "\n🤸 " + _("Knockdown: {name} is on the ground.").format(name=escape(name))
    if track is None:
        return head
    return head + "\n" + sheet_text.health_line(track)


def _potence(successes: int) -> str:
    """Potence's automatic damage successes (§B.13)."""
    return _("+{n} (Potence)").format(n=render.successes_text(successes))


def _potence_successes(state: AttackFlow, profile: Profile) -> int:
    try:
        return state.plan(profile).damage_successes
    except RulesInputError:
        return 0


def _auto_hit(state: AttackFlow, profile: Profile) -> bool:
    try:
        return state.plan(profile).status is combat.PlanStatus.AUTO_HIT
    except RulesInputError:
        return False


def _stun_reason(profile: Profile) -> str:
    """§B.11 «получает урона больше своей Выносливости», as the table reads it (AMB-B10)."""
    options = profile.combat
    if options.stun_per_turn and options.stun_inclusive:
        return _("Stunned: this turn's levels reach Stamina.")
    if options.stun_per_turn:
        return _("Stunned: more levels this turn than Stamina.")
    if options.stun_inclusive:
        return _("Stunned: as many levels as Stamina or more.")
    return _("Stunned: more levels than Stamina.")


def _damage_kind(state: AttackFlow, profile: Profile) -> DamageType | None:
    try:
        return state.plan(profile).damage_type
    except RulesInputError:
        return None


def keyboard(
    flow_id: str, version: int, state: AttackFlow, profile: Profile
) -> InlineKeyboardMarkup | None:
    def button(text: str, action: AtkAction, x: int = 0) -> InlineKeyboardButton:
        return table_text.button(text, AtkCallback(f=flow_id, v=version, a=action, x=x))

    rows: list[list[InlineKeyboardButton]] = []
    if state.stage is Stage.SETUP:
        rows.append(
            [
                button(
                    render.marked(_("Close combat"), state.reach is Reach.MELEE), AtkAction.REACH, 0
                ),
                button(
                    render.marked(_("Ranged combat"), state.reach is Reach.RANGED),
                    AtkAction.REACH,
                    1,
                ),
            ]
        )
        listed = state.manoeuvres()
        rows += render.rows(
            [
                button(
                    render.marked(manoeuvre_name(m), m is state.manoeuvre), AtkAction.MANOEUVRE, i
                )
                for i, m in enumerate(listed)
            ],
            3,
        )
        rows += render.rows(
            [
                button(render.marked("🎯 " + t.name, i == state.target), AtkAction.TARGET, i)
                for i, t in enumerate(state.targets)
            ],
            3,
        )
        spec = MANOEUVRES[state.manoeuvre]
        if spec.damage_base in (
            DamageBase.STRENGTH_OR_WEAPON,
            DamageBase.WEAPON,
            DamageBase.GUN_BUTT,
        ):
            first = 0 if spec.damage_base is not DamageBase.WEAPON else 1
            rows += render.rows(
                [
                    button(
                        render.marked(_("Strength") if w == 0 else f"🗡{w}", w == state.weapon),
                        AtkAction.WEAPON,
                        w,
                    )
                    for w in WEAPONS[first:]
                ],
                5,
            )
        toggles = [button(_approach_label(state.approach, profile), AtkAction.APPROACH)]
        if len(spec.abilities) > 1:
            toggles.append(button("↔ " + trait_name(state.used_ability()), AtkAction.ABILITY))
        if state.reach is Reach.RANGED:
            toggles.append(button(_cover_label(state.cover), AtkAction.COVER))
            toggles.append(button(_own_cover_label(state.own_cover), AtkAction.OWN_COVER))
            toggles.append(button("🔭 " + _("aim {n}").format(n=state.aim), AtkAction.AIM))
        toggles.append(button("🏃 " + _("{n} m").format(n=state.moved), AtkAction.MOVE))
        toggles.append(
            button(
                "🎯 "
                + (
                    _("body part +{n}").format(n=state.called)
                    if state.called
                    else _("body part: no")
                ),
                AtkAction.CALLED,
            )
        )
        toggles.append(
            button(render.marked("✋ " + _("off hand"), state.off_hand), AtkAction.OFF_HAND)
        )
        toggles.append(button(render.marked("🥷 " + _("ambush"), state.ambush), AtkAction.AMBUSH))
        rows += render.rows(toggles, 3)
        last = [button("✖ " + _("Cancel"), AtkAction.CANCEL)]
        if state.chosen_target() is not None:
            last.insert(0, button("⚔️ " + _("Attack"), AtkAction.ATTACK))
        rows.append(last)
    elif state.stage is Stage.DEFENCE:
        rows += _defence_rows(state, profile, button)
    elif state.stage is Stage.DAMAGE:
        rows.append([button("🩸 " + _("Roll damage"), AtkAction.DAMAGE)])
    elif state.stage is Stage.SOAK:
        kind = _damage_kind(state, profile)
        dice = state.soak_dice(profile, kind) if kind is not None else 0
        rows.append([button("🛡 " + _("Soak ({n}d10)").format(n=dice), AtkAction.SOAK)])
    else:
        return None
    if state.stage is not Stage.SETUP:
        # a defender who never answers does not hold the fight: the attacker or the
        # Storyteller calls the attack off
        rows.append([button("✖ " + _("Cancel"), AtkAction.CANCEL)])
    return InlineKeyboardMarkup(inline_keyboard=rows)


def _defence_word(kind: Defence) -> str:
    if kind is Defence.DESPERATE_DODGE:
        return _("desperate dodge")
    if kind is Defence.DESPERATE_BLOCK:
        return _("desperate block / parry")
    return _("dodge") if kind is Defence.DODGE else _("block / parry")


def _defence_rows(
    state: AttackFlow,
    profile: Profile,
    button: Callable[[str, AtkAction, int], InlineKeyboardButton],
) -> list[list[InlineKeyboardButton]]:
    """The target's reactions (§B.4); one who took desperate defence this turn has only it,
    with the dice it has left."""
    target = state.chosen_target()
    held = state.desperate_of(target.key) if target is not None else None
    if state.guard is Guard.INTERRUPT:
        return _interrupt_rows(state, profile, button)
    if held is not None:
        plan = state.defence_plan(profile, held.defence)
        dice = plan.pool if plan is not None else 0
        label = "🛡 " + _defence_word(held.defence) + " (" + _("{n}d10").format(n=dice) + ")"
        return [[button(label, AtkAction.DEFEND, DEFENCES.index(held.defence))]]
    return [
        [
            button("🏃 " + _("Dodge"), AtkAction.DEFEND, DEFENCES.index(Defence.DODGE)),
            button("🛡 " + _("Block / parry"), AtkAction.DEFEND, DEFENCES.index(Defence.BLOCK)),
        ],
        [
            button(
                "🏃🏃 " + _("Desperate dodge"),
                AtkAction.DEFEND,
                DEFENCES.index(Defence.DESPERATE_DODGE),
            ),
            button(
                "🛡🛡 " + _("Desperate block"),
                AtkAction.DEFEND,
                DEFENCES.index(Defence.DESPERATE_BLOCK),
            ),
        ],
        [button(_("No defence"), AtkAction.DEFEND, DEFENCES.index(Defence.NONE))],
    ]


def _interrupt_rows(
    state: AttackFlow,
    profile: Profile,
    button: Callable[[str, AtkAction, int], InlineKeyboardButton],
) -> list[list[InlineKeyboardButton]]:
    """One tap each: the Interruption and the defence it buys, rolled together."""
    spend = profile.combat.interruption_by_wp_spend
    rows: list[list[InlineKeyboardButton]] = []
    for kind in INTERRUPT_DEFENCES:
        word = "🏃 " + _("Dodge") if kind is Defence.DODGE else "🛡 " + _("Block / parry")
        index = DEFENCES.index(kind)
        row = [button("✋ " + word + " · " + _("Willpower roll"), AtkAction.INTERRUPT, 2 * index)]
        if spend:
            row.append(
                button("✋ " + word + " · −1 " + _("Willpower"), AtkAction.INTERRUPT, 2 * index + 1)
            )
        rows.append(row)
    rows.append([button(_("No defence"), AtkAction.DEFEND, DEFENCES.index(Defence.NONE))])
    return rows


def _approach_label(approach: Approach, profile: Profile) -> str:
    """The dice the table gives: flank +2 and rear +1 as written, the other way round when the
    house swaps them (docs/rules.md §B.7)."""
    bonus = combat.approach_dice(approach, profile.combat)
    if approach is Approach.FLANK:
        return "↗ " + _("flank +{n}").format(n=bonus)
    if approach is Approach.REAR:
        return "↩ " + _("rear +{n}").format(n=bonus)
    return "⬆ " + _("front")


def _own_cover_label(cover: Cover) -> str:
    # S4 «Стрельба из укрытия»: the shooter's own cover, partial free, full +1
    if cover is Cover.PARTIAL:
        return "🏠 " + _("I'm in partial cover")
    if cover is Cover.FULL:
        return "🏠 " + _("I'm in full cover")
    return "🏠 " + _("I'm in the open")


def _cover_label(cover: Cover) -> str:
    if cover is Cover.PARTIAL:
        return "🧱 " + _("partial cover")
    if cover is Cover.FULL:
        return "🧱 " + _("full cover")
    return "🧱 " + _("no cover")


def draw(
    flow: Flow, state: AttackFlow, profile: Profile
) -> tuple[str, InlineKeyboardMarkup | None]:
    with drawing(flow):  # the chat's shared message keeps its language (bot/i18n.py)
        text = panel_text(state, profile)
        tag = house_rules.house_tag(profile, keys=_rules_of(state))
        if tag is not None:
            text += "\n" + escape(tag, quote=False)
        return text, keyboard(flow.id, flow.version, state, profile)


# The combat switches every attack's chain depends on (§B.3: attack, defence, damage, soak).
_CHAIN_RULES = (
    "combat.attack_difficulty",
    "combat.defence_subtracts",
    "combat.extra_successes_add_damage",
    "combat.damage_difficulty",
    "combat.damage_ones_cancel",
    "combat.soak_difficulty",
    "combat.soak_ones_cancel",
    "combat.stamina_soaks_lethal",
)


def _rules_of(state: AttackFlow) -> tuple[str, ...]:
    """The house rules that may have changed this attack: its chain, and only the
    situational ones its choices and its course touched — not the fight's initiative, the
    care of wounds or standing up — so the 🏠 line owns up to what shaped this result."""
    keys = list(_CHAIN_RULES)
    target = state.chosen_target()
    if state.approach is not Approach.FRONT:
        keys.append("combat.swap_rear_flank")
    if state.guard is Guard.INTERRUPT or state.interruption is not None or state.interrupt_spent:
        keys += ["combat.interruption_difficulty", "combat.interruption_by_wp_spend"]
    if (state.defence is not None and state.defence.desperate) or state.desperate:
        keys.append("combat.desperate_defence_cumulative")
    if state.moved:
        keys.append("combat.free_move_bracket_is_half")
    if state.manoeuvre is Manoeuvre.BLIND_FIRE:
        keys.append("combat.blind_fire_gated")
    if state.ambush:
        keys.append("combat.ambush_victim_defends")
    if target is not None and Condition.IMMOBILIZED_FULL in target.conditions:
        keys.append("combat.immobilized_auto_hit_successes")
    if state.levels or state.stunned:
        keys += ["combat.stun_inclusive", "combat.stun_per_turn"]
    if state.reach is Reach.RANGED and state.aim:
        keys.append("combat.aim_cap")
    if _kindred(state):
        keys += ["vampire.bashing_halved", "vampire.potence_as_dice"]
    return tuple(k for k in keys if k in house_rules.BY_KEY)


def _kindred(state: AttackFlow) -> bool:
    """A vampire is in this attack: the table's vampire rules may change it (§B.13)."""
    target = state.chosen_target()
    return state.attacker.vampire or (target is not None and target.vampire)


def interrupt_needed_text(target: Side | None) -> str:
    name = target.name if target is not None else "?"
    if target is not None and target.defences:
        return _(
            "{name}'s declared defence went on an earlier attack: defending takes an "
            "Interruption (the ✋ buttons)."
        ).format(name=name)
    return _(
        "{name} declared no defence: defending takes an Interruption (the ✋ buttons)."
    ).format(name=name)


def no_interrupt_spend_text() -> str:
    return _("At this table an interruption takes a Willpower roll: spending a point is off.")


def no_willpower_text(name: str) -> str:
    return _("{name} has no Willpower on the sheet: there is nothing to roll.").format(name=name)


def blind_unseen_text(name: str) -> str:
    return _("{name} has no Perception + Awareness dice: no shooting blind.").format(
        name=escape(name)
    )


def cannot_attack_text() -> str:
    return _("The attacker cannot make this attack now (wounds, stun or no dice).")


def no_round_text() -> str:
    return _("No fight is on: open one with /init, then attack with /atk.")


def desperate_busy_text(name: str) -> str:
    return _("{name} is in desperate defence this turn and does nothing else.").format(
        name=escape(name)
    )


def desperate_only_text(name: str) -> str:
    return _("{name} took desperate defence this turn: it is their only defence.").format(
        name=escape(name)
    )


def busy_text(attacker: str) -> str:
    return _(
        "{name}'s attack is still being played out on the panel: answer it, or the attacker "
        "or the Storyteller cancels it (✖ on the panel)."
    ).format(name=escape(attacker))


def not_yours_text() -> str:
    return _("This roll belongs to someone else (or to the Storyteller for an NPC).")


def no_targets_text() -> str:
    return _("There is nobody to attack: add participants with /init.")


def not_in_fight_text(name: str) -> str:
    return _("{name} is not in this fight.").format(name=sheet_text.echoed(name))


def name_the_npc_text(names: list[str]) -> str:
    """The Storyteller's bare /atk when no NPC acts now: which NPC attacks, by name."""
    if not names:
        return _("No NPC is in this fight: add one with /init npc Ghoul 6.")
    return _(
        "Which NPC attacks? /atk {name} — or press «Attack» on the tracker when it acts."
    ).format(name=sheet_text.echoed(names[0]))


def usage_text() -> str:
    return _("Example: /atk — your character attacks; /atk npc Ghoul 1 — the Storyteller's NPC")


def d10_only_text() -> str:
    return _("Attacks on the panel are for the d10 games.")


def help_line(profile: Profile) -> str:
    return _("/atk attack")


def willpower_spent_text(name: str) -> str:
    return _("{name} has already spent Willpower this turn: a point only once a turn.").format(
        name=escape(name)
    )
