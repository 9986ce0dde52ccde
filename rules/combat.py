"""Combat on the house sheet S4 (RULES.md §B.1–§B.8), resolved with the Mage d10 core.

S4 gives the shape of a fight — initiative «Ловкость + Смекалка + бросок одного d10» (§B.1),
the five phases (§B.2), the chain «Атака / Защита / Урон / Поглощение» (§B.3), tables of
manoeuvres (§B.4–§B.6), situational modifiers (§B.7) and conditions (§B.8) — but no
mechanics for the damage and soak rolls. Those are the [P] of AMB-B2, and every such choice
is a switch in :class:`rules.profiles.CombatOptions`.

Manoeuvres, traits, covers and conditions are enum codes: the bot owns the words. Health and
its effects (wound penalties, the death rule, stun) live in :mod:`rules.health`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from rules.d10 import D10Result, Outcome, faces_or_roll, parse_faces
from rules.dice import Rng, roll_faces
from rules.difficulty import effective_difficulty
from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_bool,
    check_int,
    check_mapping,
    check_sequence,
    check_type,
    parse_enum,
)
from rules.health import (
    DamageEvent,
    DamageType,
    HealthTrack,
    PoolKind,
    PoolStatus,
    apply_damage,
    is_stunned,
    parse_damage_type,
    penalised_pool,
    wound_penalty,
)
from rules.profiles import (
    HOUSE_MAGE,
    CombatOptions,
    Profile,
    ZeroAbility,
    check_profile,
    combat_options,
)

TRAIT_MAX = 10
WEAPON_DAMAGE_MAX = 10
AMMO_MAX = 1000
STAND_UP_INITIATIVE = -2  # S4 «Чтобы сразу подняться - Ловкость + Атлетизм, с -2 к инициативе»
BLIND_FIRE_CHECK_DIFFICULTY = 8  # S4 «Восприятие+Осведомлённость (сложность 8)»
BURST_ROUNDS = 3  # S4 «тратится 3 патрона»


def _options(profile: Profile) -> CombatOptions:
    return check_profile(profile).combat


# ----- §B.1 Initiative and §B.2 turn phases -----


@dataclass(frozen=True)
class Initiative:
    score: int
    dex_wits: int  # the AMB-B1 tie-breaker
    face: int


def initiative(
    dexterity: int,
    wits: int,
    *,
    face: int | None = None,
    rng: Rng | None = None,
    modifier: int = 0,
    track: HealthTrack | None = None,
    options: CombatOptions | None = None,
) -> Initiative:
    """S4 «Инициатива: Ловкость + Смекалка + бросок одного d10» (§B.1).

    ``modifier`` carries −2 for «сразу подняться» (§B.8). Wounds do not slow initiative
    unless ``wound_penalty_on_initiative`` (AMB-B1).
    """
    opts = combat_options(options)
    dex = check_int(dexterity, "dexterity", 0, TRAIT_MAX)
    wit = check_int(wits, "wits", 0, TRAIT_MAX)
    check_int(modifier, "modifier", -20, 20)
    die = parse_faces([face])[0] if face is not None else roll_faces(1, 10, rng)[0]
    penalty = 0
    if track is not None and opts.wound_penalty_on_initiative:
        penalty = wound_penalty(track).penalty
    return Initiative(dex + wit + die + modifier + penalty, dex + wit, die)


@dataclass(frozen=True)
class Combatant:
    """One participant for ordering; ``key`` is the caller's id (never shown as words)."""

    key: str
    initiative: Initiative


def initiative_order(
    combatants: Sequence[Combatant],
    options: CombatOptions | None = None,
    rng: Rng | None = None,
) -> tuple[str, ...]:
    """Phase III order, highest first; ties by Dex+Wits, then a coin flip (AMB-B1)."""
    opts = combat_options(options)
    if isinstance(combatants, (str, bytes)) or not isinstance(combatants, Sequence):
        raise RulesInputError(ErrorCode.TYPE, "combatants", "expected a sequence of Combatant")
    keys = [c.key for c in combatants if isinstance(c, Combatant)]
    if len(keys) != len(combatants):
        raise RulesInputError(ErrorCode.TYPE, "combatants", "expected Combatant items")
    if len(set(keys)) != len(keys):
        raise RulesInputError(ErrorCode.STATE, "combatants", "duplicate key")
    coins = roll_faces(len(combatants), 1_000_000, rng)

    def key(i: int) -> tuple[int, int, int]:
        c = combatants[i].initiative
        return (-c.score, -c.dex_wits if opts.initiative_tie_by_dex_wits else 0, coins[i])

    return tuple(combatants[i].key for i in sorted(range(len(combatants)), key=key))


def declaration_order(order: Sequence[str]) -> tuple[str, ...]:
    """Phase II declares «по порядку возрастания инициативы»: the reverse of resolution."""
    return tuple(reversed(_actors(order)))


def _actors(order: Any) -> tuple[str, ...]:
    actors = check_sequence(order, "order")
    for i, actor in enumerate(actors):
        if not isinstance(actor, str):
            raise RulesInputError(ErrorCode.TYPE, f"order[{i}]", "expected an actor id")
    return actors


@dataclass(frozen=True)
class Slot:
    """One resolution step: ``actor``'s ``action``-th declared action (1-based)."""

    actor: str
    action: int


def build_turn_schedule(order: Sequence[str], actions: Mapping[str, int]) -> tuple[Slot, ...]:
    """Phases III and IV of §B.2 as a flat list the bot stores and walks.

    Every actor's first action goes in initiative order (phase III); then S4 «IV.
    Множественные действия в порядке инициативы… пока они не закончатся»: one pass per
    action index. An actor missing from ``actions`` declared one action; 0 means none
    (for example a stunned character).
    """
    order = _actors(order)
    if len(set(order)) != len(order):
        raise RulesInputError(ErrorCode.STATE, "order", "duplicate actor")
    for actor in check_mapping(actions, "actions"):
        if actor not in order:
            raise RulesInputError(ErrorCode.UNKNOWN_KEY, "actions", repr(actor))
    counts = {a: check_int(actions.get(a, 1), f"actions[{a}]", 0, 10) for a in order}
    passes = max(counts.values(), default=0)
    return tuple(
        Slot(actor, n) for n in range(1, passes + 1) for actor in order if counts[actor] >= n
    )


def delay_action(schedule: Sequence[Slot], slot: int, before: int) -> tuple[Slot, ...]:
    """Act later, just before the slot ``before`` (S4 «можно отложить заявленное действие»).

    A delay only moves an action later within the same pass, so the delayer still acts
    «прежде персонажей с меньшей инициативой» who have not yet acted.
    """
    steps = list(check_sequence(schedule, "schedule"))
    for i, step in enumerate(steps):
        check_type(step, Slot, f"schedule[{i}]")
    check_int(slot, "slot", 0, len(steps) - 1)
    check_int(before, "before", slot + 1, len(steps))
    if before < len(steps) and steps[before].action != steps[slot].action:
        raise RulesInputError(ErrorCode.RANGE, "before", "a delay stays within its pass")
    moved = steps.pop(slot)
    steps.insert(before - 1, moved)
    return tuple(steps)


# ----- Manoeuvre tables (§B.4–§B.6) -----


class Trait(StrEnum):
    """The traits §B names (RU in comments, §G.2)."""

    STRENGTH = "strength"  # Сила
    DEXTERITY = "dexterity"  # Ловкость
    STAMINA = "stamina"  # Выносливость
    PERCEPTION = "perception"  # Восприятие
    WITS = "wits"  # Смекалка
    INTELLIGENCE = "intelligence"  # Интеллект
    BRAWL = "brawl"  # Драка
    MELEE = "melee"  # Фехтование
    FIREARMS = "firearms"  # Огн. Оружие
    THROWING = "throwing"  # Метание
    DODGE = "dodge"  # Уклонение
    ATHLETICS = "athletics"  # Атлетизм
    STEALTH = "stealth"  # Скрытность
    ALERTNESS = "alertness"  # Бдительность
    AWARENESS = "awareness"  # Осведомлённость
    MEDICINE = "medicine"  # Медицина


class Reach(StrEnum):
    MELEE = "melee"  # ближний бой
    RANGED = "ranged"  # дальний бой (перестрелка)


class DamageBase(StrEnum):
    """What the damage dice start from (§B.5 «Урон» column)."""

    STRENGTH = "strength"  # «Сила»
    STRENGTH_OR_WEAPON = "strength_or_weapon"  # «Сила / урон оружия»
    WEAPON = "weapon"  # «урон оружия»
    GUN_BUTT = "gun_butt"  # AMB-B7: the gun's melee rating if given, else Strength
    NONE = "none"  # «без урона»


class Effect(StrEnum):
    """Side effects of a hit; the bot narrates them and updates conditions."""

    KNOCKDOWN = "knockdown"  # нокдаун
    DISARM = "disarm"  # потеря оружия
    SUSTAINED = "sustained"  # долгий
    IMMOBILIZE_PARTIAL = "immobilize_partial"
    IMMOBILIZE_FULL = "immobilize_full"
    SPLIT_TARGETS = "split_targets"  # «распределяет успехи по целям в зоне поражения»


class Ammo(StrEnum):
    NONE = "none"
    ONE = "one"
    BURST = "burst"  # «тратится 3 патрона»
    MAGAZINE = "magazine"  # «тратится вся обойма!»


class Manoeuvre(StrEnum):
    """Attacking manoeuvres of §B.5 and §B.6 (Aim is not a roll: see :func:`aim_bonus`)."""

    STRIKE = "strike"  # Удар
    KICK = "kick"  # Пинок
    DISARM = "disarm"  # Разоружение
    GRAPPLE = "grapple"  # Захват
    HOLD = "hold"  # Удержание
    SHOVE = "shove"  # Толчок
    SWEEP = "sweep"  # Подсечка
    GUN_BUTT = "gun_butt"  # Тычок огнестрельным оружием
    SHOT = "shot"  # Выстрел / Бросок
    FULL_AUTO = "full_auto"  # Автоматический огонь
    SPRAY = "spray"  # Веером
    BURST = "burst"  # Очередь
    BLIND_FIRE = "blind_fire"  # Стрельба вслепую


@dataclass(frozen=True)
class ManoeuvreSpec:
    code: Manoeuvre
    reach: Reach
    abilities: tuple[Trait, ...]  # the first is the default; Dexterity is always the attribute
    difficulty_mod: int
    attack_dice: int
    damage_base: DamageBase
    damage_bonus: int
    ammo: Ammo
    effects: frozenset[Effect]


_BRAWL_MELEE = (Trait.BRAWL, Trait.MELEE)
_GUNS = (Trait.FIREARMS,)
_NO_FX: frozenset[Effect] = frozenset()


def _spec(
    code: Manoeuvre,
    reach: Reach,
    abilities: tuple[Trait, ...],
    diff: int,
    base: DamageBase,
    bonus: int = 0,
    *,
    dice: int = 0,
    ammo: Ammo = Ammo.NONE,
    effects: frozenset[Effect] = _NO_FX,
) -> ManoeuvreSpec:
    return ManoeuvreSpec(code, reach, abilities, diff, dice, base, bonus, ammo, effects)


_M, _R = Reach.MELEE, Reach.RANGED
# S4 «Атака в ближнем бою» and «Атака в дальнем бою (перестрелка)», row by row.
MANOEUVRES: Mapping[Manoeuvre, ManoeuvreSpec] = {
    s.code: s
    for s in (
        _spec(Manoeuvre.STRIKE, _M, _BRAWL_MELEE, 0, DamageBase.STRENGTH_OR_WEAPON),
        _spec(Manoeuvre.KICK, _M, (Trait.BRAWL,), 1, DamageBase.STRENGTH, 1),
        _spec(
            Manoeuvre.DISARM,
            _M,
            (Trait.MELEE, Trait.BRAWL),
            1,
            DamageBase.NONE,
            effects=frozenset({Effect.DISARM}),
        ),
        _spec(
            Manoeuvre.GRAPPLE,
            _M,
            (Trait.BRAWL,),
            0,
            DamageBase.STRENGTH,
            effects=frozenset({Effect.SUSTAINED, Effect.IMMOBILIZE_PARTIAL}),
        ),
        _spec(
            Manoeuvre.HOLD,
            _M,
            (Trait.BRAWL,),
            1,
            DamageBase.NONE,
            effects=frozenset({Effect.SUSTAINED, Effect.IMMOBILIZE_FULL}),
        ),
        _spec(
            Manoeuvre.SHOVE,
            _M,
            (Trait.BRAWL,),
            1,
            DamageBase.STRENGTH,
            1,
            effects=frozenset({Effect.KNOCKDOWN}),
        ),
        _spec(
            Manoeuvre.SWEEP,
            _M,
            _BRAWL_MELEE,
            1,
            DamageBase.STRENGTH_OR_WEAPON,
            effects=frozenset({Effect.KNOCKDOWN}),
        ),
        _spec(Manoeuvre.GUN_BUTT, _M, (Trait.MELEE,), 0, DamageBase.GUN_BUTT, 2),
        _spec(Manoeuvre.SHOT, _R, (Trait.FIREARMS, Trait.THROWING), 0, DamageBase.WEAPON),
        _spec(Manoeuvre.FULL_AUTO, _R, _GUNS, 2, DamageBase.WEAPON, dice=10, ammo=Ammo.MAGAZINE),
        _spec(
            Manoeuvre.SPRAY,
            _R,
            _GUNS,
            2,
            DamageBase.WEAPON,
            dice=10,
            ammo=Ammo.MAGAZINE,
            effects=frozenset({Effect.SPLIT_TARGETS}),
        ),
        _spec(Manoeuvre.BURST, _R, _GUNS, 1, DamageBase.WEAPON, dice=2, ammo=Ammo.BURST),
        # The +3 is S4 «с +3 к сложности стрельбы»; the gate is AMB-B12.
        _spec(Manoeuvre.BLIND_FIRE, _R, _GUNS, 3, DamageBase.WEAPON, ammo=Ammo.ONE),
    )
}


def manoeuvre(code: Manoeuvre | str) -> ManoeuvreSpec:
    """The table row of an attacking manoeuvre; an unknown code is ``E_UNKNOWN_KEY``."""
    spec: ManoeuvreSpec = MANOEUVRES[parse_enum(Manoeuvre, code, "manoeuvre")]
    return spec


# ----- §B.7 situational modifiers and §B.8 conditions -----


class Approach(StrEnum):
    FRONT = "front"
    REAR = "rear"  # с тыла
    FLANK = "flank"  # с фланга


class Cover(StrEnum):
    NONE = "none"
    PARTIAL = "partial"  # частичное
    FULL = "full"  # полное


class Condition(StrEnum):
    """§B.8 «Негативные состояния в бою»."""

    BLINDED = "blinded"  # Ослепление
    STUNNED = "stunned"  # Контузия
    IMMOBILIZED_PARTIAL = "immobilized_partial"  # Обездвиживание (частичное)
    IMMOBILIZED_FULL = "immobilized_full"  # Обездвиживание (полное)
    PRONE = "prone"  # Нокдаун


# S4 «Стрельба по цели в укрытии / Стрельба из укрытия»: partial +1 / +0, full +2 / +1.
_TARGET_COVER = {Cover.NONE: 0, Cover.PARTIAL: 1, Cover.FULL: 2}
_OWN_COVER = {Cover.NONE: 0, Cover.PARTIAL: 0, Cover.FULL: 1}


def approach_dice(approach: Approach | str, options: CombatOptions | None = None) -> int:
    """S4 «Атака с тыла даёт +1 кубик к атаке, с фланга - +2 куба» (as written, AMB-B3)."""
    opts = combat_options(options)
    side = parse_enum(Approach, approach, "approach")
    rear, flank = (2, 1) if opts.swap_rear_flank else (1, 2)
    return {Approach.FRONT: 0, Approach.REAR: rear, Approach.FLANK: flank}[side]


def cover_difficulty(target_cover: Cover | str, own_cover: Cover | str) -> int:
    """S4 «Штрафы к сложности стрельбы, даваемые укрытиями (своим и чужим) - складываются.»"""
    target = parse_enum(Cover, target_cover, "target_cover")
    own = parse_enum(Cover, own_cover, "own_cover")
    return _TARGET_COVER[target] + _OWN_COVER[own]


@dataclass(frozen=True)
class Movement:
    free_metres: int
    dice_penalty: int  # ≤ 0
    separate_action: bool  # moved beyond the free distance [P]


def free_move_metres(dexterity: int, options: CombatOptions | None = None) -> int:
    """S4 «не отдельное действие до 1/2 скорости бега (10 м + Ловкость*1,5)» (AMB-B8).

    Whole metres, rounded down: the −1 die is counted per whole metre, so 14.5 m of free
    movement lets a character move 14 whole metres.
    """
    opts = combat_options(options)
    dex = check_int(dexterity, "dexterity", 0, TRAIT_MAX)
    twice = 20 + 3 * dex  # twice the bracket, to stay in integers
    return twice // 2 if opts.free_move_bracket_is_half else twice // 4


def movement(dexterity: int, metres: int, options: CombatOptions | None = None) -> Movement:
    """S4 «при действиях во время движения, каждый пройденный 1 м = -1 кубик для действий»."""
    free = free_move_metres(dexterity, options)
    moved = check_int(metres, "metres", 0, 1000)
    return Movement(free, -moved, moved > free)


def aim_bonus(turns: int, firearms: int, options: CombatOptions | None = None) -> int:
    """S4 «Иметь Огн. Оружие > 0, +1 кубик к последующей атаке за каждый ход Прицеливания»."""
    opts = combat_options(options)
    check_int(turns, "aim_turns", 0, 100)
    check_int(firearms, "firearms", 0, TRAIT_MAX)
    if turns and firearms == 0:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "aim_turns", "aiming needs Firearms > 0")
    if opts.aim_cap is not None:
        return min(turns, check_int(opts.aim_cap, "aim_cap", 0, 100))
    return turns


def attack_dice_against(conditions: frozenset[Condition]) -> int:
    """§B.8 dice bonuses for attacking a target: blinded +2, partly immobilized +2, prone +1."""
    conditions = _conditions(conditions, "conditions")
    bonus = 0
    if Condition.BLINDED in conditions:
        bonus += 2
    if Condition.IMMOBILIZED_PARTIAL in conditions:
        bonus += 2
    if Condition.PRONE in conditions:
        bonus += 1
    return bonus


def own_difficulty(conditions: frozenset[Condition], ability: Trait | None) -> int:
    """§B.8 difficulty on the afflicted character's own rolls.

    Blinded: «+2 сложности ко всем действиям». Prone: «+2 к сложности бросков с Дракой и
    Фехтованием для лежащего».
    """
    conditions = _conditions(conditions, "conditions")
    if ability is not None:
        ability = parse_enum(Trait, ability, "ability")
    diff = 2 if Condition.BLINDED in conditions else 0
    if Condition.PRONE in conditions and ability in (Trait.BRAWL, Trait.MELEE):
        diff += 2
    return diff


def _conditions(value: Any, field_name: str) -> frozenset[Condition]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (set, frozenset, tuple, list)):
        raise RulesInputError(ErrorCode.TYPE, field_name, "expected a set of Condition")
    return frozenset(parse_enum(Condition, c, field_name) for c in value)


@dataclass(frozen=True)
class Situation:
    """Everything §B.7–§B.8 can add to one attack; ``extra_*`` are the GM's own modifiers."""

    approach: Approach = Approach.FRONT
    off_hand: bool = False  # «+1 к сложности действия неосновной рукой»
    body_part: int = 0  # «от +1 до +3, зависит от размера»
    target_cover: Cover = Cover.NONE
    own_cover: Cover = Cover.NONE
    aim_turns: int = 0
    metres_moved: int = 0
    attacker_conditions: frozenset[Condition] = frozenset()
    target_conditions: frozenset[Condition] = frozenset()
    extra_dice: int = 0
    extra_difficulty: int = 0

    def __post_init__(self) -> None:
        parse_enum(Approach, self.approach, "approach")
        check_bool(self.off_hand, "off_hand")
        check_int(self.body_part, "body_part", 0, 3)
        cover_difficulty(self.target_cover, self.own_cover)
        check_int(self.aim_turns, "aim_turns", 0, 100)
        check_int(self.metres_moved, "metres_moved", 0, 1000)
        _conditions(self.attacker_conditions, "attacker_conditions")
        _conditions(self.target_conditions, "target_conditions")
        check_int(self.extra_dice, "extra_dice", -20, 20)
        check_int(self.extra_difficulty, "extra_difficulty", -10, 10)


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


def attack_plan(
    code: Manoeuvre | str,
    profile: Profile,
    *,
    dexterity: int,
    ability: int,
    ability_used: Trait | str | None = None,
    strength: int = 0,
    weapon_damage: int | None = None,
    damage_type: DamageType | str | None = None,
    ammo: int | None = None,
    situation: Situation | None = None,
    base_difficulty: int | None = None,
    track: HealthTrack | None = None,
    dice_penalty: int = 0,
    blind_check: D10Result | None = None,
    gm_override: bool = False,
) -> AttackPlan:
    """Pool, difficulty, threshold, damage dice and ammo of one attack (§B.3 step 1).

    Pool = Ловкость + the manoeuvre's ability + its extra dice (autofire +10, burst +2) +
    §B.7/§B.8 dice − metres moved − ``dice_penalty`` (the caller's §A.9 multiple-action
    penalty) − wounds (§B.9). Difficulty = ``base_difficulty`` (default 6, AMB-B2) + the
    manoeuvre's modifier + off hand, body part, cover on shots and the attacker's own
    conditions; above 9 it becomes threshold (§A.8).

    Damage type defaults (§B.10): Strength and the gun butt are bashing, a weapon is lethal;
    pass ``damage_type`` for a club or for claws.
    """
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
    if weapon_damage is not None:
        check_int(weapon_damage, "weapon_damage", 0, WEAPON_DAMAGE_MAX)
    if track is not None and not isinstance(track, HealthTrack):
        raise RulesInputError(ErrorCode.TYPE, "track", "expected HealthTrack")
    damage_dice, default_type = _damage(spec, strength, weapon_damage)
    kind = default_type if damage_type is None else parse_damage_type(damage_type)
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
            if not isinstance(blind_check, D10Result):
                raise RulesInputError(ErrorCode.NOT_ALLOWED, "blind_check", "roll it first")
            if blind_check.difficulty < BLIND_FIRE_CHECK_DIFFICULTY:
                raise RulesInputError(ErrorCode.RANGE, "blind_check", "rolled below difficulty 8")
            if blind_check.successes < 1:
                pool, status, reason = 0, PlanStatus.IMPOSSIBLE, PlanReason.BLIND_CHECK_FAILED
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
    )


def _damage(
    spec: ManoeuvreSpec, strength: int, weapon: int | None
) -> tuple[int, DamageType | None]:
    """Damage dice before extra successes, and the default type (§B.5, AMB-B7, AMB-B18)."""
    base = spec.damage_base
    if base is DamageBase.NONE:
        return 0, None
    if base is DamageBase.STRENGTH:
        return strength + spec.damage_bonus, DamageType.BASHING
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
) -> RollPlan:
    """S4 «Восприятие+Осведомлённость (сложность 8), позволяет выстрелить в темноте».

    An Attribute + Ability check like any other, so 0 in Осведомлённость is an automatic
    failure in the house profile (the default, as §B is the house sheet's).
    """
    prof = HOUSE_MAGE if profile is None else check_profile(profile)
    skill = check_int(awareness, "awareness", 0, TRAIT_MAX)
    pool = check_int(perception, "perception", 0, TRAIT_MAX) + skill
    if pool <= 0:
        return RollPlan(
            0, BLIND_FIRE_CHECK_DIFFICULTY, 0, PlanStatus.IMPOSSIBLE, PlanReason.POOL_EMPTY
        )
    planned = _zero_ability((pool, PlanStatus.ROLL, None), skill, prof, gm_override)
    return RollPlan(planned[0], BLIND_FIRE_CHECK_DIFFICULTY, 0, planned[1], planned[2])


# ----- §B.4 defence -----


class DefenceManoeuvre(StrEnum):
    BLOCK = "block"  # Блок/Парирование: Ловкость + Драка (без оружия) / Фехтование
    DODGE = "dodge"  # Уклонение: Ловкость + Уклонение («короткое перемещение»)


_DEFENCE_ABILITIES = {
    DefenceManoeuvre.BLOCK: (Trait.BRAWL, Trait.MELEE),
    DefenceManoeuvre.DODGE: (Trait.DODGE,),
}


def defence_plan(
    code: DefenceManoeuvre | str,
    profile: Profile,
    *,
    dexterity: int,
    ability: int,
    ability_used: Trait | str | None = None,
    attacks_before: int = 0,
    desperate: bool = False,
    conditions: frozenset[Condition] = frozenset(),
    track: HealthTrack | None = None,
    dice_penalty: int = 0,
    base_difficulty: int | None = None,
    gm_override: bool = False,
) -> RollPlan:
    """The defence roll of §B.3 step 2, with «Отчаянная защита» as ``desperate``.

    Desperate defence: «с полным набором кубов, отнимая от него по 1 кубу за каждую
    получаемую атаку»; against the j-th attack of the turn (``attacks_before = j − 1``) the
    pool loses j − 1 dice (AMB-B5, see :func:`desperate_defence_pools`).
    """
    kind = parse_enum(DefenceManoeuvre, code, "defence")
    opts = _options(profile)
    dex = check_int(dexterity, "dexterity", 0, TRAIT_MAX)
    skill = check_int(ability, "ability", 0, TRAIT_MAX)
    check_int(attacks_before, "attacks_before", 0, 50)
    check_bool(desperate, "desperate")
    check_int(dice_penalty, "dice_penalty", 0, 50)
    allowed = _DEFENCE_ABILITIES[kind]
    used = allowed[0] if ability_used is None else parse_enum(Trait, ability_used, "ability")
    if used not in allowed:
        raise RulesInputError(ErrorCode.UNKNOWN_KEY, "ability_used", f"{used} for {kind}")
    mine = _conditions(conditions, "conditions")
    dice = dex + skill - dice_penalty
    if desperate:
        dice -= attacks_before if opts.desperate_defence_cumulative else attacks_before + 1
    mods = [own_difficulty(mine, used)]
    difficulty, threshold = _combat_difficulty(base_difficulty, mods, profile, opts)
    planned = _zero_ability(_status_for(dice, track, mine), skill, profile, gm_override)
    return RollPlan(planned[0], difficulty, threshold, planned[1], planned[2])


def desperate_defence_pools(
    full_pool: int, attacks: int, options: CombatOptions | None = None
) -> tuple[int, ...]:
    """Pools of one desperate defence against each of ``attacks`` attacks; 0 = impossible.

    Cumulative (default, AMB-B5): full, full − 1, full − 2, …; flat: full − attacks each.
    """
    opts = combat_options(options)
    full = check_int(full_pool, "full_pool", 0, 50)
    n = check_int(attacks, "attacks", 0, 50)
    if opts.desperate_defence_cumulative:
        return tuple(max(0, full - j) for j in range(n))
    return tuple(max(0, full - n) for _ in range(n))


def interruption_allowed(
    profile: Profile, *, willpower_roll: D10Result | None = None, spend_willpower: bool = False
) -> bool:
    """S4 «Прерывание - отмена не разыгранных действий в обмен на любой защитный манёвр
    (бросок Силы Воли или трата 1 Силы Воли)».

    The WP roll needs one success at ``interruption_difficulty`` (AMB-B4); spending 1 WP
    always succeeds. Asking for an interruption with neither is ``E_NOT_ALLOWED``.
    """
    opts = _options(profile)
    check_bool(spend_willpower, "spend_willpower")
    if spend_willpower:
        if not opts.interruption_by_wp_spend:
            raise RulesInputError(ErrorCode.NOT_ALLOWED, "spend_willpower", "switched off")
        return True
    if not isinstance(willpower_roll, D10Result):
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "willpower_roll", "roll or spend Willpower")
    need = check_int(opts.interruption_difficulty, "interruption_difficulty", 2, 10)
    if willpower_roll.difficulty < need:
        raise RulesInputError(ErrorCode.RANGE, "willpower_roll", f"rolled below {need}")
    return willpower_roll.successes >= 1


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

    def __post_init__(self) -> None:
        check_int(self.stamina, "stamina", 0, TRAIT_MAX)
        check_int(self.armour, "armour", 0, 10)
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
    Backlash tier 5 are ``unsoakable``.
    """
    opts = combat_options(options)
    check_type(target, Target, "target")
    dtype = parse_damage_type(kind)
    if check_bool(unsoakable, "unsoakable"):
        return 0
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


def resolve_attack(
    plan: AttackPlan,
    target: Target,
    profile: Profile,
    *,
    attack: D10Result | None = None,
    defence: D10Result | None = None,
    ambush: bool = False,
    unsoakable: bool = False,
    damage_faces: Sequence[int] | None = None,
    soak_faces: Sequence[int] | None = None,
    rng: Rng | None = None,
) -> AttackOutcome:
    """S4 «Атакующий манёвр разыгрывается так: 1. Атака 2. Защита 3. Урон 4. Поглощение».

    Net = attack − defence successes (AMB-B2; with ``defence_subtracts`` off the defence must
    only match the attack to stop it). A hit rolls base + (net − 1) damage dice, the target
    soaks what it can, the rest marks the track (§B.10) and stuns if it exceeds Stamina
    (§B.11). A fully immobilized target is hit automatically with
    ``immobilized_auto_hit_successes`` (AMB-B13) or the rolled successes if higher.
    An ambush victim gets no defence unless ``ambush_victim_defends`` (AMB-B14).
    """
    opts = _options(profile)
    if not isinstance(plan, AttackPlan):
        raise RulesInputError(ErrorCode.TYPE, "plan", "expected AttackPlan")
    if not isinstance(target, Target):
        raise RulesInputError(ErrorCode.TYPE, "target", "expected Target")
    if target.track.dead:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "target", "the target is dead")
    check_bool(ambush, "ambush")
    if plan.status is PlanStatus.IMPOSSIBLE:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "plan", f"impossible: {plan.roll.reason}")
    if defence is not None and not isinstance(defence, D10Result):
        raise RulesInputError(ErrorCode.TYPE, "defence", "expected D10Result")
    if ambush and defence is not None and not opts.ambush_victim_defends:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "defence", "no defence against an ambush")
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
    levels = max(0, dmg.successes - (soak.successes if soak else 0))
    applied = apply_damage(target.track, plan.damage_type, levels, opts)
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
        events=applied.events,
        stunned=not applied.track.dead and is_stunned(levels, target.stamina, opts),
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


# ----- §B.5 sustained holds, §B.7 ambush, §B.8 standing up -----


def hold_broken(holder: D10Result, victim: D10Result) -> bool:
    """The Сила + Драка contest of Захват/Удержание: the hold breaks only when the victim
    gets more successes («пока жертва не выигрывает», AMB-B15); a tie keeps it."""
    if not isinstance(holder, D10Result) or not isinstance(victim, D10Result):
        raise RulesInputError(ErrorCode.TYPE, "contest", "expected two D10Result")
    return victim.successes > holder.successes


def contest_pool(strength: int, brawl: int) -> int:
    """«Соревнование Сила + Драка» of a sustained hold."""
    return check_int(strength, "strength", 0, TRAIT_MAX) + check_int(brawl, "brawl", 0, TRAIT_MAX)


@dataclass(frozen=True)
class AmbushResult:
    strikes_first: bool  # «позволяет нанести атаку до начала боя»
    victim_defends: bool


def ambush(ambusher: D10Result, victim: D10Result, profile: Profile) -> AmbushResult:
    """S4 «Засада (соревнование Ловкость + Скрытность против Восприятие + Бдительность
    жертвы)»: the ambusher must win outright; no defence then unless the profile allows."""
    opts = _options(profile)
    if not isinstance(ambusher, D10Result) or not isinstance(victim, D10Result):
        raise RulesInputError(ErrorCode.TYPE, "ambush", "expected two D10Result")
    won = ambusher.successes > victim.successes
    return AmbushResult(won, not won or opts.ambush_victim_defends)


@dataclass(frozen=True)
class StandUp:
    # True: up at once, keeping the action, at −2 initiative. False: still getting up — the
    # character is on their feet only at the cost of the whole action (``action_spent``).
    stood: bool
    initiative_modifier: int
    action_spent: bool  # «при неудаче лежащий тратит целое действие, вставая на ноги»
    bashing: int  # «при провале ещё и получает 1 Ударный Урон»
    soakable: bool  # AMB-B16: applied directly unless ``stand_up_botch_soakable``


def stand_up(roll: D10Result, profile: Profile) -> StandUp:
    """S4 «Чтобы сразу подняться - Ловкость + Атлетизм, с -2 к инициативе» (§B.8, AMB-B16)."""
    opts = _options(profile)
    if not isinstance(roll, D10Result):
        raise RulesInputError(ErrorCode.TYPE, "roll", "expected D10Result")
    need = check_int(opts.stand_up_difficulty, "stand_up_difficulty", 2, 10)
    if roll.difficulty < need:
        raise RulesInputError(ErrorCode.RANGE, "roll", f"rolled below {need}")
    soakable = opts.stand_up_botch_soakable
    if roll.successes >= 1:
        return StandUp(True, STAND_UP_INITIATIVE, False, 0, soakable)
    botched = roll.outcome is Outcome.BOTCH
    return StandUp(False, STAND_UP_INITIATIVE, True, 1 if botched else 0, soakable)


def stand_up_plan(
    dexterity: int, athletics: int, profile: Profile, *, gm_override: bool = False
) -> RollPlan:
    """The «Ловкость + Атлетизм» roll to get up at once, at ``stand_up_difficulty`` [P]."""
    opts = _options(profile)
    skill = check_int(athletics, "athletics", 0, TRAIT_MAX)
    pool = check_int(dexterity, "dexterity", 0, TRAIT_MAX) + skill
    diff = check_int(opts.stand_up_difficulty, "stand_up_difficulty", 2, 10)
    if pool <= 0:
        return RollPlan(0, diff, 0, PlanStatus.IMPOSSIBLE, PlanReason.POOL_EMPTY)
    planned = _zero_ability((pool, PlanStatus.ROLL, None), skill, profile, gm_override)
    return RollPlan(planned[0], diff, 0, planned[1], planned[2])


def ready_weapon(
    dexterity: int,
    ability: int,
    profile: Profile,
    *,
    in_multiple_action: bool = False,
    gm_override: bool = False,
) -> RollPlan | None:
    """S4 «Подготовка оружия - без броска, но если это входит в множественное действие -
    Ловкость + Фехтование/Огн. Оружие»: ``None`` means no roll is needed. The caller applies
    the §A.9 multiple-action penalty to the returned pool, as for any of the N actions."""
    opts = _options(profile)
    dex = check_int(dexterity, "dexterity", 0, TRAIT_MAX)
    skill = check_int(ability, "ability", 0, TRAIT_MAX)
    if not check_bool(in_multiple_action, "in_multiple_action"):
        return None
    diff = check_int(opts.attack_difficulty, "attack_difficulty", 2, 10)
    if dex + skill <= 0:
        return RollPlan(0, diff, 0, PlanStatus.IMPOSSIBLE, PlanReason.POOL_EMPTY)
    planned = _zero_ability((dex + skill, PlanStatus.ROLL, None), skill, profile, gm_override)
    return RollPlan(planned[0], diff, 0, planned[1], planned[2])
