"""The journal of the update being handled: its dice and what its writes returned.

See :mod:`bot.store.updates` for why. Everything here takes the Redis client, so the store's
base class can route its transactions through it without an import cycle.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import pickle
import random
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, cast

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline
from redis.exceptions import RedisError

from bot.context import current

if TYPE_CHECKING:
    from bot.store.budget import Lease

_T = TypeVar("_T")


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
    # A roll went into the chat's log: its sender played there (bot/store/inline.py).
    rolled: bool = False
    # The send slot reserved ahead for the update's reply (bot/store/budget.py); not stored.
    lease: Lease | None = None

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

    @staticmethod
    def encode(value: object) -> str:
        # Our own values (pydantic models, tuples) written by us to our own Redis.
        return base64.b64encode(pickle.dumps(value)).decode("ascii")

    @staticmethod
    def decode(raw: str) -> Any:
        return pickle.loads(base64.b64decode(raw))


def note_rolled() -> None:
    """A log line is being written by the running update (``bot.store.log.stored``)."""
    running = current().journal
    if running is not None:
        running.rolled = True


def update_secret(label: str, size: int = 32) -> bytes:
    """A secret fixed when the running update first ran (:meth:`Journal.secret`), so a re-run
    after an outage shows the same one (a hidden roll's nonce, ARCHITECTURE.md "Nothing lost,
    nothing twice"); fresh from the OS outside an update."""
    journal = current().journal
    if journal is None:
        return secrets.token_bytes(size)
    return journal.secret(label, size)


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


def forget() -> None:
    """A write is about to happen: what was read ahead may no longer be true."""
    prefetch = current().prefetch
    if prefetch is not None:
        prefetch.flows.clear()
        prefetch.sheets.clear()
        prefetch.all_sheets = None
        prefetch.lives.clear()


async def transaction(
    redis: Redis,
    keys: list[str],
    apply: Callable[[Pipeline], Awaitable[_T]],
) -> _T:
    """A WATCH transaction that, inside an update, records what it returned in the update's
    journal in the same MULTI, and on a re-run of the update returns that record instead of
    writing again."""
    forget()
    journal = current().journal
    if journal is None:
        return cast(_T, await redis.transaction(apply, *keys, value_from_callable=True))
    step = journal.next_step()
    if step in journal.steps:
        return cast(_T, journal.decode(journal.steps[step]))

    async def recorded(pipe: Pipeline) -> _T:
        result = await apply(pipe)
        # It decided without writing: record that alone. (A cluster's pipeline does not say
        # whether MULTI was issued; both refuse a second one with a RedisError.)
        with contextlib.suppress(RedisError):
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
        pipe.hset(journal.key, f"fx:{step}", journal.encode(result))
        return result

    return cast(_T, await redis.transaction(recorded, *keys, value_from_callable=True))


async def pipeline(redis: Redis, queue: Callable[[Pipeline], None], result: _T) -> _T:
    """A MULTI/EXEC of writes whose result is known beforehand (a new flow, nothing), recorded
    like :func:`transaction`."""
    forget()
    journal = current().journal
    step = journal.next_step() if journal is not None else 0
    if journal is not None and step in journal.steps:
        return cast(_T, journal.decode(journal.steps[step]))
    async with redis.pipeline(transaction=True) as pipe:
        queue(pipe)
        if journal is not None:
            pipe.hset(journal.key, f"fx:{step}", journal.encode(result))
        await pipe.execute()
    return result


async def once(redis: Redis, write: Callable[[], Awaitable[int]]) -> int:
    """A single write that is not a transaction (a counter): its result is journaled right
    after it, so a re-run of the update reuses it unless the crash fell in between."""
    forget()
    journal = current().journal
    if journal is None:
        return int(await write())
    step = journal.next_step()
    if step in journal.steps:
        return int(journal.decode(journal.steps[step]))
    value = int(await write())
    encoded = journal.encode(value)
    await redis.hset(journal.key, f"fx:{step}", encoded)
    journal.steps[step] = encoded
    return value
