"""A forum's sends one at a time, and the register of what the bot posted in a chat
(bot/sent.py, ARCHITECTURE.md "Nothing lost, nothing twice").

A send whose answer was lost is looked for above the newest message its campaign knows it
sent. In a group without topics that is safe because the chat's updates run one after the
other, so nothing else of the bot's can sit there. In a forum each topic is a campaign whose
updates run beside the other topics', and a bot message above a topic's floor may be another
topic's send, even one still on its way. Two things make the search safe there again:

- the chat's **send turn**, ``sdb:sendturn:{CHAT}``: a send in a forum, from any topic and any
  replica, is made while holding it (a token with a clock, so a process that died holding it
  blocks the chat's sends for :data:`SEND_TURN_TTL_MS` at most). While a send holds the turn,
  no other send of the chat is on its way;
- the chat's **register**, ``sdb:posted:{CHAT}``: a sorted set of the messages whose send
  answered (score: the message id; member: ``ID:THREAD:UPDATE``, the topic's thread, 0 for
  General, and the update that sent it, 0 outside one), written as the turn ends, capped at
  :data:`POSTED_KEPT` and forgotten :data:`POSTED_TTL` after the last send.

So a bot message above the floor that the register names for another update is passed over,
and one it does not name is this send's. The register also tells a press on a message
Telegram no longer shows the bot (an ``InaccessibleMessage`` carries no topic) which topic's
campaign the message was posted in.

Both keys carry the chat's own hash tag: on a cluster they sit in the slot of the chat's
own game (a forum's General), beside no topic's keys, so the turn and the register are
round-trips of their own; a group without topics never takes the turn.
"""

from __future__ import annotations

from dataclasses import dataclass

from table.store.base import PREFIX, StoreBase, sent_key, tag
from table.store.limits import LOG_TTL
from table.store.scripts import Lua, as_bool, as_int, flag

# How long the turn is held at most: a send and, after an ambiguous failure, the search for
# it take far less; a holder that died makes the chat's next send wait that long once.
SEND_TURN_TTL_MS = 6_000
POSTED_KEPT = 4096  # a busy forum's sends over several evenings
POSTED_TTL = LOG_TTL  # as long as a roll's line in the log is kept

TAKE_TURN = Lua("take_turn", keys=("turn",), args=("token", "ttl"), reply=as_bool)
RENEW_TURN = Lua("renew", keys=("lock",), args=("token", "ttl"), reply=as_bool)
END_TURN = Lua(
    "end_turn",
    keys=("turn", "posted", "sent"),
    args=("token", "message", "thread", "update", "lift"),
    reply=as_int,
    constants={"POSTED_KEPT": POSTED_KEPT, "POSTED_TTL": POSTED_TTL},
)


def turn_key(chat_id: int) -> str:
    return f"{PREFIX}:sendturn:{tag(chat_id)}"


def posted_key(chat_id: int) -> str:
    return f"{PREFIX}:posted:{tag(chat_id)}"


@dataclass(frozen=True)
class Posted:
    """One message on a chat's register: its topic's thread (None: General or no forum)
    and the update that sent it (0: none)."""

    message_id: int
    thread_id: int | None
    update_id: int

    @classmethod
    def parse(cls, member: object) -> Posted | None:
        text = member.decode() if isinstance(member, bytes) else str(member)
        parts = text.split(":")
        if len(parts) != 3 or not all(p.isdigit() for p in parts):
            return None
        message, thread, update = (int(p) for p in parts)
        return cls(message, thread or None, update)


class PostStore(StoreBase):
    def register_scripts(self) -> None:
        self._take_turn = TAKE_TURN.bind(self.redis, self.batch)
        self._renew_turn = RENEW_TURN.bind(self.redis, self.batch)
        self._end_turn = END_TURN.bind(self.redis, self.batch)

    async def take_send_turn(self, chat_id: int, token: str) -> bool:
        """Whether ``token`` holds the chat's send turn now (taken, or held already)."""
        return await self._take_turn(turn=turn_key(chat_id), token=token, ttl=SEND_TURN_TTL_MS)

    async def renew_send_turn(self, chat_id: int, token: str) -> bool:
        """Start the turn's clock again before a long search; False if it was lost."""
        return await self._renew_turn(lock=turn_key(chat_id), token=token, ttl=SEND_TURN_TTL_MS)

    async def end_send_turn(
        self,
        chat_id: int,
        token: str,
        posted: Posted | None,
        *,
        raise_floor: bool = False,
    ) -> None:
        """Put what the send posted on the chat's register (and, ``raise_floor``, the chat's
        floor over it), then let the turn go if ``token`` holds it (``""``: a send made
        without the turn still registers what it posted)."""
        await self._end_turn(
            turn=turn_key(chat_id),
            posted=posted_key(chat_id),
            sent=sent_key(chat_id),
            token=token,
            message=str(posted.message_id) if posted is not None else "",
            thread=str(posted.thread_id or 0) if posted is not None else "0",
            update=str(posted.update_id) if posted is not None else "0",
            lift=flag(raise_floor),
        )

    async def posted_above(self, chat_id: int, floor: int, limit: int = 200) -> dict[int, Posted]:
        """The registered messages of the chat above ``floor``, the oldest ``limit`` of them."""
        members = await self.redis.zrangebyscore(
            posted_key(chat_id), f"({floor}", "+inf", start=0, num=limit
        )
        found = (Posted.parse(m) for m in members)
        return {p.message_id: p for p in found if p is not None}

    async def posted(self, chat_id: int, message_id: int) -> Posted | None:
        """The chat's register's entry for ``message_id`` (None: not on it)."""
        members = await self.redis.zrangebyscore(posted_key(chat_id), message_id, message_id)
        for member in members:
            entry = Posted.parse(member)
            if entry is not None:
                return entry
        return None
