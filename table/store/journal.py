"""The journal of the update being handled: its dice and what its writes returned.

See :mod:`table.store.updates` for why. These are the records alone; the writes that keep them
(a transaction recorded in the journal, a read-ahead forgotten) are table/store/journaled.py's,
which take the update's scope, so the scope can hold a journal without an import cycle.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import pickle
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from redis.asyncio.client import Pipeline

from rules.errors import RulesInputError
from rules.sheet import BLOOD_MAX, Sheet, gain_quintessence, validate

if TYPE_CHECKING:
    from table.store.lease import Lease

_T = TypeVar("_T")

# The pools a step pays from (Sheet fields): what an update spent of them comes back to the
# sheet if the update is dropped before its result could be shown (ARCHITECTURE.md "Nothing
# lost, nothing twice"). Wounds, Paradox and the other changes a result brings stay.
POOLS = ("willpower_current", "blood", "quintessence", "luck")


@dataclass(frozen=True)
class Spent:
    """Points a write took off one sheet (``field`` of the chat's sheets hash), by pool."""

    field: str
    points: dict[str, int]


@dataclass(frozen=True)
class Dropped:
    """What dropping an update did (``UpdateStore.drop_update``): what came back to the
    sheets, and whether its journal says it wrote anything, which stays."""

    refunded: list[Spent]
    wrote: bool


def spent_between(field_name: str, before: Sheet | None, after: Sheet | None) -> Spent | None:
    """What changing ``before`` into ``after`` took from the pools; None when nothing."""
    if before is None or after is None:
        return None
    points = {}
    for pool in POOLS:
        was, now = getattr(before, pool), getattr(after, pool)
        if isinstance(was, int) and isinstance(now, int) and now < was:
            points[pool] = was - now
    return Spent(field_name, points) if points else None


def give_back(sheet: Sheet, points: dict[str, int]) -> Sheet:
    """``sheet`` with ``points`` returned to its pools, within each pool's bounds as the
    sheet stands now (a rating lowered since keeps its new cap); a pool the sheet no longer
    tracks gets nothing."""
    for pool, amount in points.items():
        try:
            sheet = _returned(sheet, pool, amount)
        except RulesInputError:
            continue
    return sheet


def _returned(sheet: Sheet, pool: str, amount: int) -> Sheet:
    if amount <= 0:
        return sheet
    if pool == "willpower_current":
        if sheet.willpower is None:
            return sheet
        current = min(sheet.willpower, (sheet.willpower_current or 0) + amount)
        return validate(sheet.model_copy(update={pool: current}))
    if pool == "blood":
        if sheet.blood is None:
            return sheet
        return validate(sheet.model_copy(update={pool: min(BLOOD_MAX, sheet.blood + amount)}))
    if pool == "quintessence":
        return gain_quintessence(sheet, amount)
    if pool == "luck":
        return validate(sheet.model_copy(update={pool: sheet.luck + amount}))
    return sheet


def dump_spent(spending: list[Spent]) -> str:
    return json.dumps([[s.field, s.points] for s in spending], separators=(",", ":"))


def load_spent(raw: str) -> list[Spent]:
    """The ``sp:STEP`` records of a journal; what cannot be read is skipped."""
    try:
        items = json.loads(raw)
    except ValueError:
        return []
    found = []
    for item in items if isinstance(items, list) else []:
        if (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], str)
            and isinstance(item[1], dict)
        ):
            points = {str(k): int(v) for k, v in item[1].items() if isinstance(v, int)}
            found.append(Spent(item[0], points))
    return found


class ReplayDice(random.Random):
    """The update's dice: SHA-256 in counter mode over a 256-bit seed drawn from the OS
    (``secrets``), so a re-run of the update after a crash rolls exactly the same faces
    (docs/product.md §5 "nothing is sent twice" — and never a different result)."""

    def __init__(self, seed: bytes) -> None:
        self._key = seed
        self._counter = 0
        self._pool = b""
        super().__init__()

    def seed(self, *args: Any, **kwargs: Any) -> None:  # the OS seed is fixed at creation
        return None

    def _bytes(self, count: int) -> bytes:
        while len(self._pool) < count:
            block = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._pool += block
        taken, self._pool = self._pool[:count], self._pool[count:]
        return taken

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        if k == 0:
            return 0
        size = (k + 7) // 8
        return int.from_bytes(self._bytes(size), "big") >> (size * 8 - k)

    def random(self) -> float:
        return self.getrandbits(53) * 2.0**-53


@dataclass
class Journal:
    """The running update's journal: its seed and what its writes already returned."""

    key: str
    seed: bytes
    steps: dict[int, str] = field(default_factory=dict)
    taken: int = 0
    # A roll went into the campaign's log: its sender played there (table/store/inline.py).
    rolled: bool = False
    # A flow's step was asked of the store (``step_mark``): with :attr:`taken`, whether the
    # update may have changed anything another message shows (bot/watchers.py).
    marked: bool = False
    # The send slot reserved ahead for the update's reply (table/store/budget.py); not stored.
    lease: Lease | None = None
    # Runs begun, this one included: above 1, a run before this one neither finished nor was
    # put off (``postpone_update``), so its process died mid-way and its sends may have been
    # applied without a trace (bot/sent.py looks for them before sending).
    attempts: int = 1
    # The sends earlier runs delivered (``sent:DIGEST`` → message id, bot/sent.py) and those
    # of this run not yet written down: written with the update's next write or postponement,
    # never by a round-trip of their own.
    sent: dict[str, int] = field(default_factory=dict)
    unwritten: dict[str, int] = field(default_factory=dict)
    # What the write being made takes off sheets (:func:`note_spent`), written beside it as
    # ``sp:STEP``, so an update dropped at last gives it back in the drop's own step.
    spending: list[Spent] = field(default_factory=list)

    def dice(self) -> ReplayDice:
        return ReplayDice(self.seed)

    def secret(self, label: str, size: int = 32) -> bytes:
        """A secret of the update's own, the same on every run of it, kept nowhere but in
        the seed: HMAC-SHA-256 of ``label`` under the seed, apart from the dice's stream."""
        if size > hashlib.sha256().digest_size:
            raise ValueError(f"at most 32 bytes, not {size}")
        return hmac.new(self.seed, label.encode(), hashlib.sha256).digest()[:size]

    def next_step(self) -> int:
        self.taken += 1
        return self.taken

    def delivered(self, digest: str, message_id: int) -> None:
        """A send of this run was delivered: kept for the update's next write to record."""
        self.sent[digest] = message_id
        self.unwritten[digest] = message_id

    def queue_records(self, pipe: Pipeline, step: int) -> Callable[[], None]:
        """Queue, beside the write ``step`` in ``pipe``, what it spends and the sends not yet
        written down; returns what to call once the write is applied."""
        spending, self.spending = self.spending, []
        if spending:
            pipe.hset(self.key, f"sp:{step}", dump_spent(spending))
        sent = dict(self.unwritten)
        if sent:
            pipe.hset(self.key, mapping={f"sent:{d}": str(i) for d, i in sent.items()})

        def written() -> None:
            for digest in sent:
                self.unwritten.pop(digest, None)

        return written

    @staticmethod
    def encode(value: object) -> str:
        # Our own values (pydantic models, tuples) written by us to our own Redis.
        return base64.b64encode(pickle.dumps(value)).decode("ascii")

    @staticmethod
    def decode(raw: str) -> Any:
        return pickle.loads(base64.b64decode(raw))


@dataclass
class Prefetch:
    """What the update's first round-trip (``begin_update``) read ahead for its handler: the
    flow a button names and the sender's sheets. Each is good once, and only until the
    update's first write (:func:`forget`), so nothing read here is ever stale."""

    flows: dict[str, dict[str, str]] = field(default_factory=dict)  # flow key → its hash
    sheets: dict[tuple[str, str], str | None] = field(default_factory=dict)  # (key, field)
    # A combat tap reads a whole chat's sheets and its live messages (the tracker, the
    # attack panel), which such a tap shows or changes together (``Feature.reads_ahead``).
    sheets_key: str | None = None
    all_sheets: dict[str, str] | None = None  # field → raw, every sheet of ``sheets_key``
    lives: dict[str, tuple[str | None, dict[str, str]]] = field(default_factory=dict)
    # Not for the handler but for the delivery: the chat's update whose run died mid-way and
    # must run before this one (``Begun.BEHIND``, table/store/updates.py).
    behind: int | None = None

    def flow(self, key: str) -> dict[str, str] | None:
        return self.flows.pop(key, None)

    def whole(self, key: str) -> dict[str, str] | None:
        """Every field of the sheets hash ``key`` as read ahead, or None if it was not."""
        return self.all_sheets if key == self.sheets_key else None

    def live(self, name: str) -> tuple[str | None, dict[str, str]] | None:
        """(the pointer's raw JSON or None, its flow's hash) of the live message ``name``."""
        return self.lives.get(name)

    def sheet(self, key: str, field_name: str) -> tuple[bool, str | None]:
        """(known, raw): whether it was read ahead, and what it held then (None: nothing)."""
        whole = self.whole(key)
        if whole is not None:
            return True, whole.get(field_name)
        if (key, field_name) not in self.sheets:
            return False, None
        return True, self.sheets.pop((key, field_name))
