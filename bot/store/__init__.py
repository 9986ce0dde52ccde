"""The state layer: the only code that speaks to Redis (PRODUCT.md §3).

The bot process keeps nothing of its own, so several replicas can share one Redis. Every
change is atomic on the server: a Lua script for the flow's compare-and-set and for the
update de-duplication with the chat's settings, WATCH/MULTI/EXEC for chat settings, sheets
and the steps that spend from a sheet. That is what makes a double tap on a button apply
once, whichever replica receives it.

One :class:`Store` for the handlers, assembled from one part per concern:

- :mod:`bot.store.chats` — update de-duplication, the chat's settings, the Storyteller's
  role and campaigns;
- :mod:`bot.store.flows` — the state behind an interactive message, with its typed models;
- :mod:`bot.store.log` — the chat's roll log;
- :mod:`bot.store.sheets` — character and NPC sheets;
- :mod:`bot.store.hidden` — the Storyteller's hidden rolls.

Keys (all under ``sdb:``):

- ``sdb:chat:{chat_id}`` — the chat's :class:`ChatSettings` as JSON;
- ``sdb:flow:{flow_id}`` — a hash: kind, chat_id, owner_id, version, closed, data (JSON);
- ``sdb:inbox:{bot_id}`` — the updates fetched or received and not yet finished (update id →
  JSON), ``sdb:upd:{bot_id}:{update_id}`` — the update's journal (dice seed, what its writes
  returned, ``done``; a day's TTL) and ``sdb:lock:{bot_id}:{chat_id}`` — the lock that
  serialises a chat's updates across replicas (:mod:`bot.store.updates`);
- ``sdb:live:{chat_id}:{name}`` — the chat's one live message of a kind (``init``: the
  round tracker) as JSON: its flow id and, once sent, its message id (:class:`Live`);
- ``sdb:log:{chat_id}`` — a capped list of recent rolls (:class:`LogEntry`), newest first;
- ``sdb:st:{user_id}`` — a hash of the campaigns a Storyteller runs: chat id → chat title
  (kept in step with ``ChatSettings.storyteller_id`` by :meth:`Store.set_storyteller`);
- ``sdb:stpick:{user_id}`` — the campaign the Storyteller's private ``/h`` rolls for;
- ``sdb:hseq:{chat_id}`` — the counter of the chat's hidden rolls (their ``seq``);
- ``sdb:hidden:{chat_id}`` — a hash of the chat's hidden rolls: ``{seq}`` the record
  (:class:`HiddenRecord` JSON, nonce included), ``{seq}:r`` set once it is revealed.
- ``sdb:sheet:{chat_id}`` — a hash of the chat's character sheets: ``u:{user_id}:{system}``
  a player's sheet (``rules.sheet.to_json``; one per game system, so a ``/rules`` switch
  neither loses nor mixes a sheet), ``p:{user_id}`` the player's shown name and @username
  (JSON, for ``/sheet @user``), ``npc:{system}:{name}`` a Storyteller's NPC sheet (name
  casefolded) and ``npcname:{system}:{name}`` its name as typed.
"""

from __future__ import annotations

from redis.asyncio import Redis
from redis.commands.core import AsyncScript

from bot.store.base import (
    LOG_CAP,
    PREFIX,
    STORAGE_ERRORS,
    RedisUnavailable,
    StoreBase,
    chat_key,
    connect,
    current_actor,
    flow_key,
    hidden_seq_key,
    log_key,
    sheet_key,
)
from bot.store.chats import ChatSettings, ChatStore, parse_chat_settings
from bot.store.flows import (
    AlsoStep,
    Flow,
    FlowState,
    FlowStateError,
    FlowStore,
    Live,
    LiveAhead,
    Screen,
    SheetSpend,
)
from bot.store.hidden import HiddenRecord, HiddenStore
from bot.store.journal import Journal, Prefetch, ReplayDice, current_journal, current_prefetch
from bot.store.log import LogEntry
from bot.store.sheets import PlayerSheet, SheetOwner, SheetStore
from bot.store.updates import Begun, UpdateStore, inbox_key, journal_key, lock_key

__all__ = [
    "LOG_CAP",
    "PREFIX",
    "STORAGE_ERRORS",
    "AlsoStep",
    "Begun",
    "ChatSettings",
    "Flow",
    "FlowState",
    "FlowStateError",
    "HiddenRecord",
    "Journal",
    "Live",
    "LiveAhead",
    "LogEntry",
    "PlayerSheet",
    "Prefetch",
    "RedisUnavailable",
    "ReplayDice",
    "Screen",
    "SheetOwner",
    "SheetSpend",
    "Store",
    "UpdateStore",
    "chat_key",
    "connect",
    "current_actor",
    "current_journal",
    "current_prefetch",
    "flow_key",
    "hidden_seq_key",
    "inbox_key",
    "journal_key",
    "lock_key",
    "log_key",
    "parse_chat_settings",
    "sheet_key",
]


class Store(ChatStore, FlowStore, HiddenStore, SheetStore, UpdateStore):
    """The contract the features use; every method is one atomic step on the server."""

    def __init__(self, redis: Redis) -> None:
        StoreBase.__init__(self, redis)
        FlowStore.register_scripts(self)
        HiddenStore.register_scripts(self)
        UpdateStore.register_scripts(self)

    @classmethod
    def from_url(cls, redis_url: str | None) -> Store:
        return cls(connect(redis_url))

    async def load_scripts(self) -> None:
        """Put every script on the server at start (one round-trip), so a step's first use
        of a script is not two extra round-trips (NOSCRIPT, then SCRIPT LOAD) in a tap."""
        scripts = [v for v in vars(self).values() if isinstance(v, AsyncScript)]
        async with self.redis.pipeline(transaction=False) as pipe:
            for script in scripts:
                pipe.script_load(script.script)
            await pipe.execute()
