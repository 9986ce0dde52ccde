"""Initiative (§B.1) and the phases of a turn (§B.2): who declares and who acts first."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rules.combat.limits import TRAIT_MAX
from rules.d10 import parse_faces
from rules.dice import Rng, roll_faces
from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_int,
    check_mapping,
    check_sequence,
    check_type,
)
from rules.health import (
    HealthTrack,
    wound_penalty,
)
from rules.profiles import (
    CombatOptions,
    combat_options,
)

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
