"""Situational modifiers (§B.7) and conditions (§B.8): cover, approach, movement, aim."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rules.combat.limits import TRAIT_MAX
from rules.combat.manoeuvres import Trait
from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_bool,
    check_int,
    parse_enum,
)
from rules.profiles import (
    CombatOptions,
    combat_options,
)

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


@dataclass(frozen=True)
class OwnAction:
    """What a character's own conditions do to an action roll (§B.8, §B.11)."""

    difficulty: int  # added to the roll's difficulty
    can_act: bool  # False while stunned: «пропускает текущий и следующий ход»


def own_action(conditions: Any, abilities: Any = ()) -> OwnAction:
    """Any action roll of the afflicted character: blinded +2, prone +2 on a roll with Brawl
    or Melee among ``abilities`` (:func:`own_difficulty`), and no action while stunned."""
    mine = _conditions(conditions, "conditions")
    used = [parse_enum(Trait, a, "abilities") for a in _sequence(abilities, "abilities")]
    close = next((a for a in used if a in (Trait.BRAWL, Trait.MELEE)), None)
    return OwnAction(own_difficulty(mine, close), Condition.STUNNED not in mine)


def _sequence(value: Any, field_name: str) -> tuple[Any, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (set, frozenset, tuple, list)):
        raise RulesInputError(ErrorCode.TYPE, field_name, "expected a sequence")
    return tuple(value)


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
