"""A send slot reserved for the update ahead by its first round-trip (``begin_update``,
table/store/budget.py): kept on the update's journal until its first send takes it. Apart
from the budget's Store so the journal (table/store/journal.py) holds one without a cycle."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

# A window the send must keep: the group (None for the bot's overall one), limit, seconds.
Window = tuple[int | str | None, int, float]

# How long after its slot a lease may still be taken: about the time a command's handling
# takes. A send later than that reserves a slot of its own (and the lease is handed back).
LEASE_FRESH = 0.25


@dataclass
class Lease:
    """A send slot reserved for the update ahead (``begin_update``): the windows it holds (the
    group or None, as :data:`Window`), its member in their sets, and when (``time.monotonic``)
    the slot comes."""

    windows: tuple[int | str | None, ...]
    member: str
    at: float
    taken: bool = False

    def take(self, windows: Sequence[Window]) -> float | None:
        """Seconds to wait for the leased slot if it fits a send keeping ``windows`` and is
        fresh; None if the send reserves its own."""
        now = time.monotonic()
        if self.taken or tuple(chat for chat, _l, _p in windows) != self.windows:
            return None
        if now > self.at + LEASE_FRESH:
            return None
        self.taken = True
        return max(0.0, self.at - now)
