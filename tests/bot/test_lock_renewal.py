"""The chat's lock is renewed while a long update runs, and an update that ends at once
starts no renewal at all (bot/middlewares.py)."""

from __future__ import annotations

import asyncio
from typing import Any

from bot import middlewares
from bot.middlewares import LockRenewal


class Renewals:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int, str]] = []

    async def renew_lock(self, bot_id: int, scope: int, token: str) -> bool:
        self.calls.append((bot_id, scope, token))
        return True


async def test_a_long_update_renews_its_lock_and_stops_when_done(monkeypatch: Any) -> None:
    monkeypatch.setattr(middlewares, "LOCK_RENEW_EVERY", 0.02)
    store = Renewals()
    renewal = LockRenewal(store, 1, -5, "me")  # type: ignore[arg-type]
    await asyncio.sleep(0.09)
    renewal.cancel()
    renewed = len(store.calls)
    assert renewed >= 2
    assert store.calls[0] == (1, -5, "me")
    await asyncio.sleep(0.05)
    assert len(store.calls) == renewed  # none after the update ended


async def test_a_short_update_starts_no_renewal(monkeypatch: Any) -> None:
    monkeypatch.setattr(middlewares, "LOCK_RENEW_EVERY", 0.02)
    store = Renewals()
    renewal = LockRenewal(store, 1, -5, "me")  # type: ignore[arg-type]
    renewal.cancel()
    await asyncio.sleep(0.05)
    assert store.calls == []
