"""The wizard's choices so far, stored as its flow (docs/product.md §3 "Concurrency")."""

from __future__ import annotations

from typing import ClassVar

from bot.wizard import WizardMode, WizardTarget
from table.store import FlowState

KIND = "setup"


class SetupState(FlowState):
    """``target_name`` is the table roll the wizard opens (its :class:`WizardTarget`);
    ``carry`` is that feature's own state to resume (the /vs challenge, JSON of its flow
    model), ``opponent`` the name shown for it; ``pools`` are the declared actions' pools
    in :attr:`WizardMode.DECLARE`; ``mode`` is fixed when the wizard opens."""

    kind: ClassVar[str] = KIND

    target_name: str
    mode: WizardMode = WizardMode.ONE_POOL
    roller: str
    pool: int | None = None
    difficulty: int
    target: int | None = None
    pools: tuple[int, ...] = ()
    difficulties: tuple[int, ...] = ()  # each declared pool's difficulty, chosen before it
    carry: str | None = None
    opponent: str | None = None
    cancelled: bool = False

    def ready(self, target: WizardTarget) -> bool:
        if self.mode is WizardMode.DECLARE:
            return len(self.pools) >= 2
        return self.pool is not None and (not target.target_required or bool(self.target))
