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

from bot.store.base import PREFIX, StoreBase, tag

# KEYS[1] the window's reserved slots; ARGV[1] limit, ARGV[2] period (ms), ARGV[3] a member
# unique to this send. Returns how long (ms) the send waits for its slot.
_RESERVE = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local limit = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - period)
local count = redis.call('ZCARD', KEYS[1])
local slot = now
if count >= limit then
  local kth = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
  slot = math.max(now, tonumber(kth[2]) + period)
end
redis.call('ZADD', KEYS[1], slot, ARGV[3])
redis.call('PEXPIRE', KEYS[1], slot - now + period)
return slot - now
"""


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

    async def reserve_send(
        self, bot_id: int, chat_id: int | str | None, limit: int, period: float
    ) -> float:
        """Reserve a send's slot in the shared window; seconds to wait before sending."""
        self._sends += 1
        member = f"{self._origin}:{self._sends}"
        key = budget_key(bot_id, chat_id)
        waited = await self._reserve(keys=[key], args=[limit, int(period * 1000), member])
        return int(waited) / 1000
