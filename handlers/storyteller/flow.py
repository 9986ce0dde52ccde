"""A claim of the Storyteller's role, stored as its flow until an admin confirms it."""

from __future__ import annotations

from typing import ClassVar

from pydantic import StrictInt

from table.store import FlowState

CLAIM = "st"


class ClaimState(FlowState):
    """A claim waiting for a tap: whose role it takes over (None when the chat has none), so
    a claim made stale by another one changes nothing."""

    kind: ClassVar[str] = CLAIM

    expected: StrictInt | None = None
