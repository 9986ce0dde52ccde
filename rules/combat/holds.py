"""Sustained holds (§B.5), ambush (§B.7) and standing up (§B.8)."""

from __future__ import annotations

from dataclasses import dataclass

from rules.combat.attack import PlanReason, PlanStatus, RollPlan, _zero_ability
from rules.combat.limits import STAND_UP_INITIATIVE, TRAIT_MAX, _options
from rules.d10 import D10Result, Outcome
from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_bool,
    check_int,
)
from rules.profiles import (
    Profile,
)

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
