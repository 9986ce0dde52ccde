"""Combat on the house sheet S4 (docs/rules.md §B.1–§B.8), resolved with the Mage d10 core.

S4 gives the shape of a fight — initiative «Ловкость + Смекалка + бросок одного d10» (§B.1),
the five phases (§B.2), the chain «Атака / Защита / Урон / Поглощение» (§B.3), tables of
manoeuvres (§B.4–§B.6), situational modifiers (§B.7) and conditions (§B.8) — but no
mechanics for the damage and soak rolls. Those are the [P] of AMB-B2, and every such choice
is a switch in :class:`rules.profiles.CombatOptions`.

One module per section: :mod:`.initiative` (§B.1–§B.2), :mod:`.manoeuvres` (§B.4–§B.6
tables), :mod:`.situation` (§B.7–§B.8), :mod:`.attack` (what an attack rolls),
:mod:`.defence` (§B.4 defence), :mod:`.damage` (§B.3 steps 3–4: damage and soak) and
:mod:`.holds` (§B.5 holds, §B.7 ambush, §B.8 standing up). Usage:
``from rules import combat; combat.attack_plan(...)``. Health and its effects (wound
penalties, the death rule, stun) live in :mod:`rules.health`.
"""

from __future__ import annotations

from rules.combat.attack import (
    AttackPlan,
    AttackSetup,
    PlanReason,
    PlanStatus,
    RollPlan,
    attack_plan,
    blind_fire_check,
)
from rules.combat.damage import (
    AttackOutcome,
    DiceTally,
    HitResult,
    Rolled,
    Target,
    damage_pool,
    resolve_attack,
    roll_damage,
    roll_soak,
    soak_pool,
    split_spray,
    tally,
)
from rules.combat.defence import (
    DefenceManoeuvre,
    DefenceSetup,
    defence_plan,
    desperate_defence_pools,
    interruption_allowed,
)
from rules.combat.holds import (
    AmbushResult,
    StandUp,
    ambush,
    contest_pool,
    hold_broken,
    ready_weapon,
    stand_up,
    stand_up_plan,
)
from rules.combat.initiative import (
    Combatant,
    Initiative,
    Slot,
    build_turn_schedule,
    declaration_order,
    delay_action,
    initiative,
    initiative_order,
)
from rules.combat.limits import (
    AMMO_MAX,
    BLIND_FIRE_CHECK_DIFFICULTY,
    BURST_ROUNDS,
    STAND_UP_INITIATIVE,
    TRAIT_MAX,
    WEAPON_DAMAGE_MAX,
)
from rules.combat.manoeuvres import (
    MANOEUVRES,
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
    Approach,
    Condition,
    Cover,
    Movement,
    OwnAction,
    Situation,
    aim_bonus,
    approach_dice,
    attack_dice_against,
    cover_difficulty,
    free_move_metres,
    movement,
    own_action,
    own_difficulty,
)

__all__ = [
    "AMMO_MAX",
    "BLIND_FIRE_CHECK_DIFFICULTY",
    "BURST_ROUNDS",
    "MANOEUVRES",
    "STAND_UP_INITIATIVE",
    "TRAIT_MAX",
    "WEAPON_DAMAGE_MAX",
    "AmbushResult",
    "Ammo",
    "Approach",
    "AttackOutcome",
    "AttackPlan",
    "AttackSetup",
    "Combatant",
    "Condition",
    "Cover",
    "DamageBase",
    "DefenceManoeuvre",
    "DefenceSetup",
    "DiceTally",
    "Effect",
    "HitResult",
    "Initiative",
    "Manoeuvre",
    "ManoeuvreSpec",
    "Movement",
    "OwnAction",
    "PlanReason",
    "PlanStatus",
    "Reach",
    "RollPlan",
    "Rolled",
    "Situation",
    "Slot",
    "StandUp",
    "Target",
    "Trait",
    "aim_bonus",
    "ambush",
    "approach_dice",
    "attack_dice_against",
    "attack_plan",
    "blind_fire_check",
    "build_turn_schedule",
    "contest_pool",
    "cover_difficulty",
    "damage_pool",
    "declaration_order",
    "defence_plan",
    "delay_action",
    "desperate_defence_pools",
    "free_move_metres",
    "hold_broken",
    "initiative",
    "initiative_order",
    "interruption_allowed",
    "manoeuvre",
    "movement",
    "own_action",
    "own_difficulty",
    "ready_weapon",
    "resolve_attack",
    "roll_damage",
    "roll_soak",
    "soak_pool",
    "split_spray",
    "stand_up",
    "stand_up_plan",
    "tally",
]
