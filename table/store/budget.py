"""One send budget for the bot, shared by every replica and kept across restarts (docs/product.md
§5): Telegram's limits are per token, not per process.

Each limit is a sorted set of reserved send slots (milliseconds on the Redis server's clock,
so replicas whose clocks differ agree): a send reserves the earliest slot that keeps every
window of ``period`` within ``limit`` and waits until then, as the in-process
``SlidingWindow`` of bot/session.py does for one process. A group's set carries the chat's
hash tag (its slot on a cluster); the bot's overall one is a key of its own.

A command's reply is reserved ahead, on one server, by the update's first round-trip
(``begin_update``): a :class:`Lease` kept on the update's journal, which the update's first
new message in its own chat takes instead of a round-trip of its own. A lease is a slot like
any other, reserved moments before the send (a lease older than :data:`LEASE_FRESH` is not
taken, so a send never goes much later than its slot, the transit Telegram's margins allow
for), and one the update did not take is handed back by its finishing script.
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Sequence

from table.store.base import PREFIX, StoreBase, tag
from table.store.lease import Lease as Lease
from table.store.lease import Window as Window
from table.store.scripts import Lua, as_int

# One send's slot in every window named (lua/reserve.lua).
RESERVE = Lua(
    "reserve", keys=(), args=("member",), key_list="windows", arg_list="limits", reply=as_int
)


def budget_key(bot_id: int, chat_id: int | str | None) -> str:
    """The bot's overall window (``chat_id`` None), or one group's."""
    if chat_id is None:
        return f"{PREFIX}:budget:{bot_id}"
    where = tag(chat_id) if isinstance(chat_id, int) else f"{{{chat_id}}}"
    return f"{PREFIX}:budget:{bot_id}:{where}"


_ORIGIN = secrets.token_hex(8)  # this process, among the replicas
_SENDS = itertools.count(1)


def budget_member() -> str:
    """A name for one send's slot, unique among the replicas' sends."""
    return f"{_ORIGIN}:{next(_SENDS)}"


class BudgetStore(StoreBase):
    def register_scripts(self) -> None:
        self._reserve = RESERVE.bind(self.redis, self.batch)

    async def reserve_send(
        self, bot_id: int, windows: Sequence[Window], lease: Lease | None = None
    ) -> float:
        """Reserve one send's slot in each shared window (a group's minute, the bot's second);
        seconds to wait before sending. The sending update's ``lease`` (the Telegram session
        hands it from the update's scope; a bound Store finds its own) if it fits, with no
        round-trip; else one script on a single server; on a cluster the windows live in
        different slots, so one call each and the latest slot wins."""
        if lease is None:
            running = self.scope.journal
            lease = running.lease if running is not None else None
        if lease is not None:
            leased = lease.take(windows)
            if leased is not None:
                return leased
        member = budget_member()
        keys = [budget_key(bot_id, chat) for chat, _limit, _period in windows]
        limits = [[limit, int(period * 1000)] for _chat, limit, period in windows]
        if not self.cluster:
            flat = [x for pair in limits for x in pair]
            return await self._reserve(windows=keys, limits=flat, member=member) / 1000
        waits = [
            await self._reserve(windows=[key], limits=pair, member=member)
            for key, pair in zip(keys, limits, strict=True)
        ]
        return max(waits, default=0) / 1000
