"""One send budget for the bot, shared by every replica and kept across restarts (docs/product.md
§5): Telegram's limits are per token, not per process.

Each limit is a sorted set of reserved send slots (milliseconds on the Redis server's clock,
so replicas whose clocks differ agree): a send reserves the earliest slot that keeps every
window of ``period`` within ``limit`` and waits until then, as the in-process
``SlidingWindow`` of bot/session.py does for one process. A group's set carries the chat's
hash tag (its slot on a cluster); the bot's overall one is a key of its own.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from bot.store.base import PREFIX, StoreBase, tag

# KEYS[1..n] the windows' reserved slots (a group's minute, then the bot's second); ARGV[2i-1]
# and ARGV[2i] window i's limit and period (ms), the last ARGV a member unique to this send.
# The send's slot is the earliest that keeps every window within its limit; returns how long
# (ms) the send waits for it.
_RESERVE = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local slot = now
for i = 1, #KEYS do
  local limit = tonumber(ARGV[2 * i - 1])
  local period = tonumber(ARGV[2 * i])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - period)
  local since = '(' .. (slot - period)
  if redis.call('ZCOUNT', KEYS[i], since, '+inf') >= limit then
    local kth = redis.call(
      'ZREVRANGEBYSCORE', KEYS[i], '+inf', since, 'WITHSCORES', 'LIMIT', limit - 1, 1)
    slot = math.max(slot, tonumber(kth[2]) + period)
  end
end
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], slot, ARGV[#ARGV])
  redis.call('PEXPIRE', KEYS[i], slot - now + tonumber(ARGV[2 * i]))
end
return slot - now
"""

# A window the send must keep: the group (None for the bot's overall one), limit, seconds.
Window = tuple[int | str | None, int, float]


def budget_key(bot_id: int, chat_id: int | str | None) -> str:
    """The bot's overall window (``chat_id`` None), or one group's."""
    if chat_id is None:
        return f"{PREFIX}:budget:{bot_id}"
    where = tag(chat_id) if isinstance(chat_id, int) else f"{{{chat_id}}}"
    return f"{PREFIX}:budget:{bot_id}:{where}"


class BudgetStore(StoreBase):
    def register_scripts(self) -> None:
        self._reserve = self.redis.register_script(_RESERVE)
        self._origin = secrets.token_hex(8)  # this process, among the replicas
        self._sends = 0

    async def reserve_send(self, bot_id: int, windows: Sequence[Window]) -> float:
        """Reserve one send's slot in each shared window (a group's minute, the bot's second);
        seconds to wait before sending. One script on a single server; on a cluster the
        windows live in different slots, so one call each and the latest slot wins."""
        self._sends += 1
        member = f"{self._origin}:{self._sends}"
        keys = [budget_key(bot_id, chat) for chat, _limit, _period in windows]
        limits = [[limit, int(period * 1000)] for _chat, limit, period in windows]
        if not self.cluster:
            flat = [x for pair in limits for x in pair]
            return int(await self._reserve(keys=keys, args=[*flat, member])) / 1000
        waits = [
            int(await self._reserve(keys=[key], args=[*pair, member]))
            for key, pair in zip(keys, limits, strict=True)
        ]
        return max(waits, default=0) / 1000
