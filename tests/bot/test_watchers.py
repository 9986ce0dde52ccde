"""The features' after-update hooks run only after an update that asked for a write."""

from __future__ import annotations

from typing import Any

from aiogram.types import Update

from bot.watchers import AfterUpdateMiddleware
from table.store.journal import Journal


async def _run(journal: Journal | None) -> list[int]:
    ran: list[int] = []

    async def hook(update: Update, data: dict[str, Any]) -> None:
        ran.append(update.update_id)

    async def handler(event: Any, data: dict[str, Any]) -> str:
        return "done"

    middleware = AfterUpdateMiddleware([hook])
    data: dict[str, Any] = {} if journal is None else {"journal": journal}
    assert await middleware(handler, Update(update_id=7), data) == "done"
    return ran


async def test_a_refused_press_runs_no_hook() -> None:
    assert await _run(Journal(key="j", seed=b"s")) == []


async def test_a_flow_step_a_transaction_or_a_roll_runs_the_hooks() -> None:
    for change in ({"marked": True}, {"taken": 1}, {"rolled": True}, {"steps": {1: "x"}}):
        journal = Journal(key="j", seed=b"s")
        for name, value in change.items():
            setattr(journal, name, value)
        assert await _run(journal) == [7], change


async def test_without_a_journal_the_hooks_run() -> None:
    """Outside the state middleware (a test's dispatcher) there is no journal to judge by."""
    assert await _run(None) == [7]
