"""Several actions' state, stored as its flow: declared pools, reduced dice, results (§A.9)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import ConfigDict

from bot import rolling
from rules import d10
from rules.actions import Pool, PoolStatus, multiple_action_pools, split_pool
from rules.difficulty import effective_difficulty
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import MultipleActions, Profile
from table.store import FlowState

KIND = "multi"


class MultiFlow(FlowState):
    """``declared`` are the typed pools (or the parts of a split pool), ``dice`` what each
    action rolls after §A.9; ``split_of`` is the split pool, waiting for its split while
    ``declared`` is empty."""

    kind: ClassVar[str] = KIND

    model_config = ConfigDict(frozen=True, extra="forbid")

    roller: str
    declared: tuple[int, ...] = ()
    dice: tuple[int, ...] = ()
    difficulties: tuple[int, ...] = ()
    split_of: int | None = None
    default_difficulty: int
    results: tuple[d10.D10Result | None, ...] = ()
    stopped: bool = False
    sources: tuple[str | None, ...] = ()  # where each typed pool's dice came from, as shown
    read_as: str | None = None  # «ловк+драка 6 7» read as that pool at each difficulty
    part_difficulties: tuple[int, ...] = ()  # a split pool's two actions' difficulties
    condition_mod: int = 0  # what the roller's conditions add to every action (§B.8)
    thresholds: tuple[int, ...] = ()  # each action's, when a condition passes the cap (§A.8)

    @property
    def pools(self) -> tuple[Pool, ...]:
        return tuple(
            Pool(n, PoolStatus.ROLL if n > 0 else PoolStatus.IMPOSSIBLE) for n in self.dice
        )

    def next_action(self) -> int | None:
        """The first declared action not yet rolled that can be rolled at all."""
        for k, (pool, result) in enumerate(zip(self.pools, self.results, strict=True)):
            if pool.rollable and result is None:
                return k
        return None


def declare(state: MultiFlow, actions: list[tuple[int, int | None]], profile: Profile) -> MultiFlow:
    """The reduced pools of §A.9 for the declared actions, in the profile's mode."""
    if profile.multiple_actions is MultipleActions.CUMULATIVE:
        if len(actions) < 2:
            raise RulesInputError(ErrorCode.RANGE, "base_pools", "one action is not multiple")
        for pool, _d in actions:
            rolling.check_pool(pool, profile)  # a typed pool of 0 or 999 is a typo, not an action
        pools = multiple_action_pools([p for p, _d in actions], profile)
    else:
        if state.split_of is None or len(actions) < 2:
            raise RulesInputError(ErrorCode.RANGE, "parts", "split into two or more")
        parts = split_pool(state.split_of, [p for p, _d in actions], profile)
        pools = tuple(Pool(n, PoolStatus.ROLL) for n in parts)
    bases = [
        rolling.check_difficulty(d if d is not None else state.default_difficulty, profile)
        for _p, d in actions
    ]
    mods = [state.condition_mod] if state.condition_mod else []
    terms = [effective_difficulty(base, mods, profile) for base in bases]
    return state.model_copy(
        update={
            "declared": tuple(p for p, _d in actions),
            "dice": tuple(p.dice for p in pools),
            "difficulties": tuple(t.difficulty for t in terms),
            "thresholds": tuple(t.threshold for t in terms),
            "results": (None,) * len(pools),
        }
    )
