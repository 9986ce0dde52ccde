"""The manoeuvre tables of S4 (§B.4–§B.6): what each attack rolls, its damage and effects."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from rules.errors import (
    parse_enum,
)
from rules.health import DamageType

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
    BITE = "bite"  # Укус: a vampire's fangs (§B.13)


@dataclass(frozen=True)
class ManoeuvreSpec:
    code: Manoeuvre
    reach: Reach
    abilities: tuple[Trait, ...]  # the first is the default; Dexterity is always the attribute
    difficulty_mod: int
    damage_base: DamageBase
    damage_bonus: int = 0
    attack_dice: int = 0
    ammo: Ammo = Ammo.NONE
    effects: frozenset[Effect] = frozenset()
    damage_kind: DamageType | None = None  # None: the type §B.10 gives its damage base


_BRAWL_MELEE = (Trait.BRAWL, Trait.MELEE)
_GUNS = (Trait.FIREARMS,)


_M, _R = Reach.MELEE, Reach.RANGED
# S4 «Атака в ближнем бою» and «Атака в дальнем бою (перестрелка)», row by row.
MANOEUVRES: Mapping[Manoeuvre, ManoeuvreSpec] = {
    s.code: s
    for s in (
        ManoeuvreSpec(Manoeuvre.STRIKE, _M, _BRAWL_MELEE, 0, DamageBase.STRENGTH_OR_WEAPON),
        ManoeuvreSpec(Manoeuvre.KICK, _M, (Trait.BRAWL,), 1, DamageBase.STRENGTH, 1),
        ManoeuvreSpec(
            Manoeuvre.DISARM,
            _M,
            (Trait.MELEE, Trait.BRAWL),
            1,
            DamageBase.NONE,
            effects=frozenset({Effect.DISARM}),
        ),
        ManoeuvreSpec(
            Manoeuvre.GRAPPLE,
            _M,
            (Trait.BRAWL,),
            0,
            DamageBase.STRENGTH,
            effects=frozenset({Effect.SUSTAINED, Effect.IMMOBILIZE_PARTIAL}),
        ),
        ManoeuvreSpec(
            Manoeuvre.HOLD,
            _M,
            (Trait.BRAWL,),
            1,
            DamageBase.NONE,
            effects=frozenset({Effect.SUSTAINED, Effect.IMMOBILIZE_FULL}),
        ),
        ManoeuvreSpec(
            Manoeuvre.SHOVE,
            _M,
            (Trait.BRAWL,),
            1,
            DamageBase.STRENGTH,
            1,
            effects=frozenset({Effect.KNOCKDOWN}),
        ),
        ManoeuvreSpec(
            Manoeuvre.SWEEP,
            _M,
            _BRAWL_MELEE,
            1,
            DamageBase.STRENGTH_OR_WEAPON,
            effects=frozenset({Effect.KNOCKDOWN}),
        ),
        ManoeuvreSpec(Manoeuvre.GUN_BUTT, _M, (Trait.MELEE,), 0, DamageBase.GUN_BUTT, 2),
        ManoeuvreSpec(Manoeuvre.SHOT, _R, (Trait.FIREARMS, Trait.THROWING), 0, DamageBase.WEAPON),
        ManoeuvreSpec(
            Manoeuvre.FULL_AUTO, _R, _GUNS, 2, DamageBase.WEAPON, attack_dice=10, ammo=Ammo.MAGAZINE
        ),
        ManoeuvreSpec(
            Manoeuvre.SPRAY,
            _R,
            _GUNS,
            2,
            DamageBase.WEAPON,
            attack_dice=10,
            ammo=Ammo.MAGAZINE,
            effects=frozenset({Effect.SPLIT_TARGETS}),
        ),
        ManoeuvreSpec(
            Manoeuvre.BURST, _R, _GUNS, 1, DamageBase.WEAPON, attack_dice=2, ammo=Ammo.BURST
        ),
        # The +3 is S4 «с +3 к сложности стрельбы»; the gate is AMB-B12.
        ManoeuvreSpec(Manoeuvre.BLIND_FIRE, _R, _GUNS, 3, DamageBase.WEAPON, ammo=Ammo.ONE),
        # §B.13: S4 counts «атаки … клыками … (вампиры…)» aggravated; Strength + 1 as the book.
        ManoeuvreSpec(
            Manoeuvre.BITE,
            _M,
            (Trait.BRAWL,),
            0,
            DamageBase.STRENGTH,
            1,
            damage_kind=DamageType.AGGRAVATED,
        ),
    )
}


def manoeuvre(code: Manoeuvre | str) -> ManoeuvreSpec:
    """The table row of an attacking manoeuvre; an unknown code is ``E_UNKNOWN_KEY``."""
    spec: ManoeuvreSpec = MANOEUVRES[parse_enum(Manoeuvre, code, "manoeuvre")]
    return spec
