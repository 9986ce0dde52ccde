"""Damage and soak (§B.3 steps 3–4), and one attack resolved end to end."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from rules.combat.attack import AttackPlan, PlanStatus
from rules.combat.limits import TRAIT_MAX, _options
from rules.combat.manoeuvres import Effect
from rules.d10 import D10Result, Outcome, faces_or_roll, parse_faces
from rules.dice import Rng
from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_bool,
    check_int,
    check_ints,
    check_type,
)
from rules.health import (
    DamageEvent,
    DamageType,
    HealthTrack,
    apply_damage,
    is_stunned,
    parse_damage_type,
    stunned_in_turn,
)
from rules.profiles import (
    CombatOptions,
    Profile,
    combat_options,
)
from rules.vampire import halved_bashing

# ----- §B.3 steps 3–4: damage and soak -----


@dataclass(frozen=True)
class DiceTally:
    """A damage or soak roll: every die at ``difficulty`` or more counts; no botch (AMB-B2)."""

    faces: tuple[int, ...]
    difficulty: int
    successes: int
    ones: int


def tally(faces: Sequence[int], difficulty: int, ones_cancel: bool = False) -> DiceTally:
    """Count a damage or soak roll (AMB-B2). Unlike :func:`rules.d10.resolve`, 1s do not
    cancel by default and nothing botches: the roll only measures how much gets through."""
    parsed = parse_faces(faces)
    diff = check_int(difficulty, "difficulty", 2, 10)
    check_bool(ones_cancel, "ones_cancel")
    hits = sum(1 for f in parsed if f >= diff)
    ones = parsed.count(1)
    return DiceTally(parsed, diff, max(0, hits - ones) if ones_cancel else hits, ones)


def _roll_tally(
    pool: int,
    difficulty: int,
    ones_cancel: bool,
    faces: Sequence[int] | None,
    rng: Rng | None,
    field_name: str,
) -> DiceTally:
    check_int(pool, field_name, 0, 100)
    return tally(faces_or_roll(pool, faces, rng, field_name), difficulty, ones_cancel)


def damage_pool(base_dice: int, net: int, options: CombatOptions | None = None) -> int:
    """Damage dice: the manoeuvre's base + (net − 1) extra attack successes (AMB-B2)."""
    opts = combat_options(options)
    base = check_int(base_dice, "base_dice", 0, 50)
    hits = check_int(net, "net", 1, 50)
    return base + (hits - 1 if opts.extra_successes_add_damage else 0)


def roll_damage(
    pool: int,
    options: CombatOptions | None = None,
    *,
    faces: Sequence[int] | None = None,
    rng: Rng | None = None,
) -> DiceTally:
    opts = combat_options(options)
    diff = check_int(opts.damage_difficulty, "damage_difficulty", 2, 10)
    return _roll_tally(pool, diff, opts.damage_ones_cancel, faces, rng, "damage_pool")


@dataclass(frozen=True)
class Target:
    """What soak and stun need of the defender (§B.10–§B.11)."""

    stamina: int
    armour: int = 0
    track: HealthTrack = field(default_factory=HealthTrack)
    soaks_aggravated: bool = False  # a source that lets this character soak Тяжёлый урон
    vampire: bool = False  # on the sheet (rules.sheet.is_vampire): soaks as §B.13 says
    fortitude: int = 0  # «Стойкость»: soak dice of a vampire, the only ones against aggravated

    def __post_init__(self) -> None:
        check_int(self.stamina, "stamina", 0, TRAIT_MAX)
        check_int(self.armour, "armour", 0, 10)
        check_bool(self.vampire, "vampire")
        check_int(self.fortitude, "fortitude", 0, TRAIT_MAX)
        if not isinstance(self.track, HealthTrack):
            raise RulesInputError(ErrorCode.TYPE, "track", "expected HealthTrack")
        check_bool(self.soaks_aggravated, "soaks_aggravated")


def soak_pool(
    target: Target,
    kind: DamageType | str,
    options: CombatOptions | None = None,
    *,
    unsoakable: bool = False,
) -> int:
    """S4 «Поглощение урона (бросок), если это возможно» — who may soak what (§B.10, [P]).

    Bashing: Stamina + armour. Lethal: armour only unless ``stamina_soaks_lethal``.
    Aggravated: only a target flagged ``soaks_aggravated``. Barrier-crossing damage and
    Backlash tier 5 are ``unsoakable``. A vampire (§B.13) soaks bashing and lethal with
    Stamina + Fortitude + armour and aggravated with Fortitude alone.
    """
    opts = combat_options(options)
    check_type(target, Target, "target")
    dtype = parse_damage_type(kind)
    if check_bool(unsoakable, "unsoakable"):
        return 0
    if target.vampire:
        if dtype is DamageType.AGGRAVATED:
            return target.fortitude
        return target.stamina + target.fortitude + target.armour
    if dtype is DamageType.BASHING:
        return target.stamina + target.armour
    if dtype is DamageType.LETHAL:
        return target.armour + (target.stamina if opts.stamina_soaks_lethal else 0)
    return target.stamina + target.armour if target.soaks_aggravated else 0


def roll_soak(
    pool: int,
    options: CombatOptions | None = None,
    *,
    faces: Sequence[int] | None = None,
    rng: Rng | None = None,
) -> DiceTally:
    opts = combat_options(options)
    diff = check_int(opts.soak_difficulty, "soak_difficulty", 2, 10)
    return _roll_tally(pool, diff, opts.soak_ones_cancel, faces, rng, "soak_pool")


class HitResult(StrEnum):
    HIT = "hit"
    MISS = "miss"
    BOTCH = "botch"  # the attack roll botched (S0: a jammed gun…; the GM narrates)


@dataclass(frozen=True)
class AttackOutcome:
    result: HitResult
    attack_successes: int
    defence_successes: int
    net: int
    damage_pool: int
    damage: DiceTally | None
    soak_pool: int
    soak: DiceTally | None
    levels: int
    damage_type: DamageType | None
    track: HealthTrack
    events: tuple[DamageEvent, ...]
    stunned: bool
    effects: frozenset[Effect]
    halved: int = 0  # bashing levels a vampire shrugged off after soak (§B.13)


@dataclass(frozen=True)
class Rolled:
    """What is already known of an attack when it is resolved: the attack's and the
    defence's rolls, an ambush, damage that cannot be soaked, the damage and soak faces
    (None: rolled now) and the levels the target took from earlier attacks this turn."""

    attack: D10Result | None = None
    defence: D10Result | None = None
    ambush: bool = False
    unsoakable: bool = False
    damage_faces: Sequence[int] | None = None
    soak_faces: Sequence[int] | None = None
    earlier_levels: Sequence[int] = ()


def _check_attack(plan: AttackPlan, target: Target, known: Rolled, opts: CombatOptions) -> None:
    """Refuse an attack that cannot be resolved before any die is rolled: on a dead target,
    from an impossible plan, or with a defence the ambushed target may not make."""
    if not isinstance(plan, AttackPlan):
        raise RulesInputError(ErrorCode.TYPE, "plan", "expected AttackPlan")
    if not isinstance(target, Target):
        raise RulesInputError(ErrorCode.TYPE, "target", "expected Target")
    if target.track.dead:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "target", "the target is dead")
    ambush, defence = known.ambush, known.defence
    check_bool(ambush, "ambush")
    if plan.status is PlanStatus.IMPOSSIBLE:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "plan", f"impossible: {plan.roll.reason}")
    if defence is not None and not isinstance(defence, D10Result):
        raise RulesInputError(ErrorCode.TYPE, "defence", "expected D10Result")
    if ambush and defence is not None and not opts.ambush_victim_defends:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "defence", "no defence against an ambush")


def resolve_attack(
    plan: AttackPlan,
    target: Target,
    profile: Profile,
    rolled: Rolled | None = None,
    *,
    rng: Rng | None = None,
) -> AttackOutcome:
    """S4 «Атакующий манёвр разыгрывается так: 1. Атака 2. Защита 3. Урон 4. Поглощение».

    Net = attack − defence successes (AMB-B2; with ``defence_subtracts`` off the defence must
    only match the attack to stop it). A hit rolls base + (net − 1) damage dice, the target
    soaks what it can, the rest marks the track (§B.10) and stuns if it exceeds Stamina
    (§B.11). A fully immobilized target is hit automatically with
    ``immobilized_auto_hit_successes`` (AMB-B13) or the rolled successes if higher.
    An ambush victim gets no defence unless ``ambush_victim_defends`` (AMB-B14).
    ``earlier_levels`` are what the target took from other attacks this turn: with
    ``stun_per_turn`` the stun counts their sum with this one's (AMB-B10).
    """
    known = Rolled() if rolled is None else rolled
    if not isinstance(known, Rolled):
        raise RulesInputError(ErrorCode.TYPE, "rolled", "expected Rolled")
    attack, defence, unsoakable = known.attack, known.defence, known.unsoakable
    damage_faces, soak_faces, earlier_levels = (
        known.damage_faces,
        known.soak_faces,
        known.earlier_levels,
    )
    opts = _options(profile)
    _check_attack(plan, target, known, opts)
    hits = _attack_successes(plan, attack, opts)
    blocked = defence.successes if defence is not None else 0

    def no_damage(result: HitResult, net: int, effects: frozenset[Effect]) -> AttackOutcome:
        return AttackOutcome(
            result=result,
            attack_successes=hits,
            defence_successes=blocked,
            net=net,
            damage_pool=0,
            damage=None,
            soak_pool=0,
            soak=None,
            levels=0,
            damage_type=plan.damage_type,
            track=target.track,
            events=(),
            stunned=False,
            effects=effects,
        )

    if attack is not None and attack.outcome is Outcome.BOTCH and plan.status is PlanStatus.ROLL:
        return no_damage(HitResult.BOTCH, 0, frozenset())
    # Without subtraction the defence is a contest the attacker must win outright.
    net = hits - blocked if opts.defence_subtracts else (hits if hits > blocked else 0)
    if net <= 0:
        return no_damage(HitResult.MISS, net, frozenset())
    if plan.damage_type is None:  # «без урона»: the hit only brings its effects
        return no_damage(HitResult.HIT, net, plan.effects)
    dmg_pool = damage_pool(plan.damage_dice, net, opts)
    dmg = roll_damage(dmg_pool, opts, faces=damage_faces, rng=rng)
    s_pool = soak_pool(target, plan.damage_type, opts, unsoakable=unsoakable)
    soak = roll_soak(s_pool, opts, faces=soak_faces, rng=rng) if s_pool else None
    through = max(0, dmg.successes + plan.damage_successes - (soak.successes if soak else 0))
    levels = (
        halved_bashing(through, plan.damage_type, profile.vampire) if target.vampire else through
    )
    applied = apply_damage(target.track, plan.damage_type, levels, opts, undead=target.vampire)
    if opts.stun_per_turn:
        earlier = check_ints(earlier_levels, "earlier_levels", 0, 100)
        stunned = levels > 0 and stunned_in_turn([*earlier, levels], target.stamina, opts)
    else:
        stunned = is_stunned(levels, target.stamina, opts)
    return AttackOutcome(
        result=HitResult.HIT,
        attack_successes=hits,
        defence_successes=blocked,
        net=net,
        damage_pool=dmg_pool,
        damage=dmg,
        soak_pool=s_pool,
        soak=soak,
        levels=levels,
        damage_type=plan.damage_type,
        track=applied.track,
        halved=through - levels,
        events=applied.events,
        stunned=not applied.track.dead and stunned,
        effects=plan.effects,
    )


def _attack_successes(plan: AttackPlan, attack: D10Result | None, opts: CombatOptions) -> int:
    if plan.status is PlanStatus.AUTO_FAILURE:
        return 0
    if attack is not None:
        if not isinstance(attack, D10Result):
            raise RulesInputError(ErrorCode.TYPE, "attack", "expected D10Result")
        if (attack.difficulty, attack.threshold) != (plan.roll.difficulty, plan.roll.threshold):
            raise RulesInputError(ErrorCode.STATE, "attack", "not rolled as planned")
    if plan.status is PlanStatus.AUTO_HIT:
        auto = check_int(
            opts.immobilized_auto_hit_successes, "immobilized_auto_hit_successes", 1, 10
        )
        return max(auto, attack.successes if attack is not None else 0)
    if attack is None:
        raise RulesInputError(ErrorCode.TYPE, "attack", "expected the attack roll")
    return attack.successes


def split_spray(net: int, shares: Sequence[int]) -> tuple[int, ...]:
    """«Веером: атакующий распределяет успехи по целям в зоне поражения» — each target's
    share becomes its net successes; the shares must add up to the net."""
    total = check_int(net, "net", 0, 50)
    if isinstance(shares, (str, bytes)) or not isinstance(shares, Sequence) or not shares:
        raise RulesInputError(ErrorCode.TYPE, "shares", "expected a non-empty sequence of int")
    parts = tuple(check_int(s, f"shares[{i}]", 0, 50) for i, s in enumerate(shares))
    if sum(parts) != total:
        raise RulesInputError(ErrorCode.RANGE, "shares", f"sum {sum(parts)} != net {total}")
    return parts
