"""Defence (§B.4): dodge, block and parry plans, desperate defence, interruption."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.combat.attack import RollPlan, _combat_difficulty, _status_for, _zero_ability
from rules.combat.limits import TRAIT_MAX, _options
from rules.combat.manoeuvres import Trait
from rules.combat.situation import Condition, _conditions, own_difficulty
from rules.d10 import D10Result
from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_bool,
    check_int,
    parse_enum,
)
from rules.health import (
    HealthTrack,
)
from rules.profiles import (
    CombatOptions,
    Profile,
    combat_options,
)

# ----- §B.4 defence -----


class DefenceManoeuvre(StrEnum):
    BLOCK = "block"  # Блок/Парирование: Ловкость + Драка (без оружия) / Фехтование
    DODGE = "dodge"  # Уклонение: Ловкость + Уклонение («короткое перемещение»)


_DEFENCE_ABILITIES = {
    DefenceManoeuvre.BLOCK: (Trait.BRAWL, Trait.MELEE),
    DefenceManoeuvre.DODGE: (Trait.DODGE,),
}


@dataclass(frozen=True)
class DefenceSetup:
    """What one defence is made with (§B.3 step 2): the manoeuvre, the defender's Dexterity
    and the ability it uses, the attacks already met this turn and whether the defence is
    desperate, the defender's conditions and health, the caller's multiple-action penalty,
    the table's base difficulty and the Storyteller's override of a zero ability. Checked by
    :func:`defence_plan`."""

    code: DefenceManoeuvre | str
    dexterity: int
    ability: int
    ability_used: Trait | str | None = None
    attacks_before: int = 0
    desperate: bool = False
    conditions: frozenset[Condition] = frozenset()
    track: HealthTrack | None = None
    dice_penalty: int = 0
    base_difficulty: int | None = None
    gm_override: bool = False


def defence_plan(setup: DefenceSetup, profile: Profile) -> RollPlan:
    """The defence roll of §B.3 step 2, with «Отчаянная защита» as ``desperate``.

    Desperate defence: «с полным набором кубов, отнимая от него по 1 кубу за каждую
    получаемую атаку»; against the j-th attack of the turn (``attacks_before = j − 1``) the
    pool loses j − 1 dice (AMB-B5, see :func:`desperate_defence_pools`).
    """
    if not isinstance(setup, DefenceSetup):
        raise RulesInputError(ErrorCode.TYPE, "setup", "expected DefenceSetup")
    code, dexterity, ability, ability_used = (
        setup.code,
        setup.dexterity,
        setup.ability,
        setup.ability_used,
    )
    attacks_before, desperate, conditions, track = (
        setup.attacks_before,
        setup.desperate,
        setup.conditions,
        setup.track,
    )
    dice_penalty, base_difficulty, gm_override = (
        setup.dice_penalty,
        setup.base_difficulty,
        setup.gm_override,
    )
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
