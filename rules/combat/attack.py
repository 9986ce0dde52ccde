"""What an attack rolls (§B.3 steps 1–2): the plan of dice and difficulty, or why not."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.combat.limits import (
    AMMO_MAX,
    BLIND_FIRE_CHECK_DIFFICULTY,
    BURST_ROUNDS,
    TRAIT_MAX,
    WEAPON_DAMAGE_MAX,
    _options,
)
from rules.combat.manoeuvres import (
    Ammo,
    DamageBase,
    Effect,
    Manoeuvre,
    ManoeuvreSpec,
    Reach,
    Trait,
    manoeuvre,
)
from rules.combat.situation import (
    Condition,
    Situation,
    _conditions,
    aim_bonus,
    approach_dice,
    attack_dice_against,
    cover_difficulty,
    own_difficulty,
)
from rules.d10 import D10Result
from rules.difficulty import effective_difficulty
from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_bool,
    check_int,
    parse_enum,
)
from rules.health import (
    DamageType,
    HealthTrack,
    PoolKind,
    PoolStatus,
    parse_damage_type,
    penalised_pool,
)
from rules.profiles import (
    HOUSE_MAGE,
    CombatOptions,
    Profile,
    ZeroAbility,
    check_profile,
)
from rules.vampire import potence_damage

# ----- Plans: what to roll -----


class PlanStatus(StrEnum):
    ROLL = "roll"
    AUTO_HIT = "auto_hit"  # «автоматическое попадание против полностью обездвиженного»
    AUTO_FAILURE = "auto_failure"  # S4 «0 в Способности - автоматически [Неудача]»
    IMPOSSIBLE = "impossible"


class PlanReason(StrEnum):
    POOL_EMPTY = "pool_empty"
    INCAPACITATED = "incapacitated"
    DEAD = "dead"
    STUNNED = "stunned"
    ZERO_ABILITY = "zero_ability"
    BLIND_CHECK_FAILED = "blind_check_failed"


@dataclass(frozen=True)
class RollPlan:
    """A roll to make: ``pool`` dice at ``difficulty`` with ``threshold`` (§A.8)."""

    pool: int
    difficulty: int
    threshold: int
    status: PlanStatus = PlanStatus.ROLL
    reason: PlanReason | None = None


@dataclass(frozen=True)
class AttackPlan:
    manoeuvre: Manoeuvre
    ability: Trait
    roll: RollPlan
    damage_dice: int  # before extra successes; 0 for manoeuvres «без урона»
    damage_type: DamageType | None
    ammo_spent: int
    ammo_left: int | None
    effects: frozenset[Effect]
    damage_successes: int = 0  # automatic damage successes (Potence, §B.13)

    @property
    def status(self) -> PlanStatus:
        return self.roll.status


def _combat_difficulty(
    base: int | None, mods: list[int], profile: Profile, opts: CombatOptions
) -> tuple[int, int]:
    if base is None:
        sys_base = check_int(opts.attack_difficulty, "attack_difficulty", 2, 10)
        d = effective_difficulty(sys_base, mods, profile, validate_base=False)
    else:
        d = effective_difficulty(base, mods, profile)
    return d.difficulty, d.threshold


def _status_for(
    pool: int,
    track: HealthTrack | None,
    conditions: frozenset[Condition],
) -> tuple[int, PlanStatus, PlanReason | None]:
    """Wounds (§B.9), stun (§B.11) and an empty pool (§A.2) for an action roll."""
    if Condition.STUNNED in conditions:
        return 0, PlanStatus.IMPOSSIBLE, PlanReason.STUNNED
    if track is None:
        if pool <= 0:
            return 0, PlanStatus.IMPOSSIBLE, PlanReason.POOL_EMPTY
        return pool, PlanStatus.ROLL, None
    result = penalised_pool(track, max(0, pool), kind=PoolKind.ACTION)
    if result.status is PoolStatus.OK:
        return result.dice, PlanStatus.ROLL, None
    assert result.reason is not None
    return 0, PlanStatus.IMPOSSIBLE, PlanReason(result.reason.value)


def _zero_ability(
    plan: tuple[int, PlanStatus, PlanReason | None],
    ability: int,
    profile: Profile,
    gm_override: bool,
) -> tuple[int, PlanStatus, PlanReason | None]:
    """S4 «0 в Способности - автоматически [Неудача], если ГМ не решит иначе» (§A.2, AMB-A8).

    The house sheet says it of every Attribute + Ability check, so every §B roll built from
    one (attack, defence, standing up, readying a weapon) goes through here.
    """
    override = check_bool(gm_override, "gm_override")
    if (
        plan[1] is PlanStatus.ROLL
        and ability == 0
        and profile.zero_ability is ZeroAbility.AUTO_FAILURE
        and not override
    ):
        return 0, PlanStatus.AUTO_FAILURE, PlanReason.ZERO_ABILITY
    return plan


@dataclass(frozen=True)
class AttackSetup:
    """What one attack is made with (§B.3 step 1): the manoeuvre, the attacker's Dexterity
    and the ability it uses, Strength, the weapon, ammo, the situation, the attacker's
    health, the caller's multiple-action penalty, a blind-fire check already rolled and the
    Storyteller's override of a zero ability. Checked by :func:`attack_plan`."""

    code: Manoeuvre | str
    dexterity: int
    ability: int
    ability_used: Trait | str | None = None
    strength: int = 0
    weapon_damage: int | None = None
    damage_type: DamageType | str | None = None
    ammo: int | None = None
    situation: Situation | None = None
    base_difficulty: int | None = None
    track: HealthTrack | None = None
    dice_penalty: int = 0
    blind_check: D10Result | None = None
    gm_override: bool = False
    vampire: bool = False  # the attacker is a vampire: the bite is theirs (§B.13)
    potence: int = 0  # «Мощь»: added to melee damage (§B.13)


def attack_plan(setup: AttackSetup, profile: Profile) -> AttackPlan:
    """Pool, difficulty, threshold, damage dice and ammo of one attack (§B.3 step 1).

    Pool = Ловкость + the manoeuvre's ability + its extra dice (autofire +10, burst +2) +
    §B.7/§B.8 dice − metres moved − ``dice_penalty`` (the caller's §A.9 multiple-action
    penalty) − wounds (§B.9). Difficulty = ``base_difficulty`` (default 6, AMB-B2) + the
    manoeuvre's modifier + off hand, body part, cover on shots and the attacker's own
    conditions; above 9 it becomes threshold (§A.8).

    Damage type defaults (§B.10): Strength and the gun butt are bashing, a weapon is lethal;
    pass ``damage_type`` for a club or for claws.
    """
    if not isinstance(setup, AttackSetup):
        raise RulesInputError(ErrorCode.TYPE, "setup", "expected AttackSetup")
    code, dexterity, ability, ability_used = (
        setup.code,
        setup.dexterity,
        setup.ability,
        setup.ability_used,
    )
    strength, ammo = setup.strength, setup.ammo
    situation, base_difficulty, track, dice_penalty = (
        setup.situation,
        setup.base_difficulty,
        setup.track,
        setup.dice_penalty,
    )
    blind_check, gm_override = setup.blind_check, setup.gm_override
    spec = manoeuvre(code)
    opts = _options(profile)
    sit = situation if situation is not None else Situation()
    if not isinstance(sit, Situation):
        raise RulesInputError(ErrorCode.TYPE, "situation", "expected Situation")
    dex = check_int(dexterity, "dexterity", 0, TRAIT_MAX)
    skill = check_int(ability, "ability", 0, TRAIT_MAX)
    check_int(strength, "strength", 0, TRAIT_MAX)
    check_int(dice_penalty, "dice_penalty", 0, 50)
    check_bool(gm_override, "gm_override")
    used = spec.abilities[0] if ability_used is None else parse_enum(Trait, ability_used, "ability")
    if used not in spec.abilities:
        raise RulesInputError(ErrorCode.UNKNOWN_KEY, "ability_used", f"{used} for {spec.code}")
    _check_weapon_and_attacker(spec, setup)
    damage_dice, kind, auto_damage = _attack_damage(spec, setup, profile)
    spent, left = _ammo(spec, ammo)
    mine = _conditions(sit.attacker_conditions, "attacker_conditions")
    theirs = _conditions(sit.target_conditions, "target_conditions")

    dice = dex + skill + spec.attack_dice + approach_dice(sit.approach, opts)
    dice += attack_dice_against(theirs) + sit.extra_dice - sit.metres_moved - dice_penalty
    if sit.aim_turns:
        if spec.reach is not Reach.RANGED:
            raise RulesInputError(ErrorCode.NOT_ALLOWED, "aim_turns", "aiming is for shots")
        dice += aim_bonus(sit.aim_turns, skill if used is Trait.FIREARMS else 0, opts)
    mods = [spec.difficulty_mod, sit.body_part, own_difficulty(mine, used), sit.extra_difficulty]
    mods.append(1 if sit.off_hand else 0)
    if spec.reach is Reach.RANGED:
        mods.append(cover_difficulty(sit.target_cover, sit.own_cover))
    difficulty, threshold = _combat_difficulty(base_difficulty, mods, profile, opts)
    if dice > profile.pool_sanity_max:
        raise RulesInputError(ErrorCode.RANGE, "pool", f"more than {profile.pool_sanity_max}")

    pool, status, reason = _status_for(dice, track, mine)
    if status is PlanStatus.ROLL:
        if spec.code is Manoeuvre.BLIND_FIRE and opts.blind_fire_gated:
            pool, status, reason = _blind_fire((pool, status, reason), blind_check)
        if status is PlanStatus.ROLL and Condition.IMMOBILIZED_FULL in theirs:
            status = PlanStatus.AUTO_HIT
        else:
            pool, status, reason = _zero_ability(
                (pool, status, reason), skill, profile, gm_override
            )
    return AttackPlan(
        manoeuvre=spec.code,
        ability=used,
        roll=RollPlan(pool, difficulty, threshold, status, reason),
        damage_dice=damage_dice,
        damage_type=kind,
        ammo_spent=spent,
        ammo_left=left,
        effects=spec.effects,
        damage_successes=auto_damage,
    )


def _check_weapon_and_attacker(spec: ManoeuvreSpec, setup: AttackSetup) -> None:
    """The weapon's damage in range, the attacker's track a track, and a bite only from a
    vampire: checked before any dice are counted, so a bad setup never yields a plan."""
    if setup.weapon_damage is not None:
        check_int(setup.weapon_damage, "weapon_damage", 0, WEAPON_DAMAGE_MAX)
    if setup.track is not None and not isinstance(setup.track, HealthTrack):
        raise RulesInputError(ErrorCode.TYPE, "track", "expected HealthTrack")
    if spec.code is Manoeuvre.BITE and not check_bool(setup.vampire, "vampire"):
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "code", "only a vampire bites (§B.13)")


def _attack_damage(
    spec: ManoeuvreSpec, setup: AttackSetup, profile: Profile
) -> tuple[int, DamageType | None, int]:
    """Damage dice, type and the successes it deals with no roll: Potence adds both, but
    only to a blow that does damage in melee (§B.13)."""
    damage_dice, default_type = _damage(spec, setup.strength, setup.weapon_damage)
    kind = default_type if setup.damage_type is None else parse_damage_type(setup.damage_type)
    auto_damage = 0
    potence = check_int(setup.potence, "potence", 0, TRAIT_MAX)
    if potence and spec.reach is Reach.MELEE and kind is not None:
        more_dice, auto_damage = potence_damage(potence, profile.vampire)
        damage_dice += more_dice
    return damage_dice, kind, auto_damage


def _blind_fire(
    plan: tuple[int, PlanStatus, PlanReason | None], blind_check: D10Result | None
) -> tuple[int, PlanStatus, PlanReason | None]:
    """Where the house gates blind fire, the shot needs its check rolled first, at
    difficulty 8 or more; a check with no success makes the shot impossible."""
    if not isinstance(blind_check, D10Result):
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "blind_check", "roll it first")
    if blind_check.difficulty < BLIND_FIRE_CHECK_DIFFICULTY:
        raise RulesInputError(ErrorCode.RANGE, "blind_check", "rolled below difficulty 8")
    if blind_check.successes < 1:
        return 0, PlanStatus.IMPOSSIBLE, PlanReason.BLIND_CHECK_FAILED
    return plan


def _damage(
    spec: ManoeuvreSpec, strength: int, weapon: int | None
) -> tuple[int, DamageType | None]:
    """Damage dice before extra successes, and the default type (§B.5, AMB-B7, AMB-B18)."""
    base = spec.damage_base
    if base is DamageBase.NONE:
        return 0, None
    if base is DamageBase.STRENGTH:
        return strength + spec.damage_bonus, spec.damage_kind or DamageType.BASHING
    if base is DamageBase.GUN_BUTT:
        rating = strength if weapon is None else weapon
        return rating + spec.damage_bonus, DamageType.BASHING
    if weapon is None:
        if base is DamageBase.STRENGTH_OR_WEAPON:
            return strength + spec.damage_bonus, DamageType.BASHING
        raise RulesInputError(ErrorCode.TYPE, "weapon_damage", f"{spec.code} needs a weapon")
    return weapon + spec.damage_bonus, DamageType.LETHAL


def _ammo(spec: ManoeuvreSpec, ammo: int | None) -> tuple[int, int | None]:
    """Rounds spent and left: «тратится вся обойма!», «тратится 3 патрона» (§B.6)."""
    if spec.ammo is Ammo.NONE:
        return 0, None if ammo is None else check_int(ammo, "ammo", 0, AMMO_MAX)
    if spec.ammo is Ammo.ONE and ammo is None:
        return 0, None  # a thrown weapon or an untracked magazine
    rounds = check_int(ammo, "ammo", 0, AMMO_MAX)
    need = {Ammo.ONE: 1, Ammo.BURST: BURST_ROUNDS, Ammo.MAGAZINE: 1}[spec.ammo]
    if rounds < need:
        raise RulesInputError(ErrorCode.RANGE, "ammo", f"{rounds} < {need}")
    spent = rounds if spec.ammo is Ammo.MAGAZINE else need
    return spent, rounds - spent


def blind_fire_check(
    perception: int,
    awareness: int,
    profile: Profile | None = None,
    *,
    gm_override: bool = False,
    track: HealthTrack | None = None,
) -> RollPlan:
    """S4 «Восприятие+Осведомлённость (сложность 8), позволяет выстрелить в темноте».

    An Attribute + Ability check like any other, so 0 in Осведомлённость is an automatic
    failure in the house profile (the default, as §B is the house sheet's), and the shooter's
    wounds take their dice off it as off any action pool (AMB-B17).
    """
    prof = HOUSE_MAGE if profile is None else check_profile(profile)
    skill = check_int(awareness, "awareness", 0, TRAIT_MAX)
    pool = check_int(perception, "perception", 0, TRAIT_MAX) + skill
    if track is not None and not isinstance(track, HealthTrack):
        raise RulesInputError(ErrorCode.TYPE, "track", "expected HealthTrack")
    if pool <= 0:
        return RollPlan(
            0, BLIND_FIRE_CHECK_DIFFICULTY, 0, PlanStatus.IMPOSSIBLE, PlanReason.POOL_EMPTY
        )
    planned = _zero_ability(_status_for(pool, track, frozenset()), skill, prof, gm_override)
    return RollPlan(planned[0], BLIND_FIRE_CHECK_DIFFICULTY, 0, planned[1], planned[2])
