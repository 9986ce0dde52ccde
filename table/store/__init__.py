"""The state layer: the only code that speaks to Redis (docs/product.md §3).

The bot process keeps nothing of its own, so several replicas can share one Redis. Every
change is atomic on the server: a Lua script for the flow's compare-and-set and for the
update de-duplication with the chat's settings (the scripts are files in ``lua/``, called
by name through :mod:`table.store.scripts`), WATCH/MULTI/EXEC for chat settings, sheets
and the steps that spend from a sheet. That is what makes a double tap on a button apply
once, whichever replica receives it, and a step sent again after its answer was lost apply
once for its update.

One :class:`Store` for the handlers, assembled from one part per concern:

- :mod:`table.store.chats` — the chat's settings, the Storyteller's role and campaigns;
- :mod:`table.store.budget` — the bot's send budget, shared by its replicas;
- :mod:`table.store.updates` with :mod:`table.store.journal` — the inbox, the update's journal
  and the chat lock (each update handled once in effect);
- :mod:`table.store.flows` — the state behind an interactive message, with its typed models;
- :mod:`table.store.log` — the chat's roll log;
- :mod:`table.store.sheets` — character and NPC sheets;
- :mod:`table.store.hidden` — the Storyteller's hidden rolls;
- :mod:`table.store.inline` — the rolls offered in inline mode, and where each player plays;
- :mod:`table.store.posts` — a forum's send turn and the register of what the bot posted;
- :mod:`table.store.legacy` — the move of an older layout's keys, once at start-up.

Keys (all under ``sdb:``; ``{…}`` is literal, the hash tag that keeps a chat's keys in one
slot of a Redis Cluster, so every script and transaction of an update, which touches only
its own chat, runs there as on one server — REDIS_URL ``redis+cluster://host:port``):

- ``sdb:chat:{CHAT}`` — the chat's :class:`ChatSettings` as JSON;
- ``sdb:menu:{CHAT}`` — the mark (game and content) of the command menu last published in
  the chat's own scope, so a release that changes a game's menu publishes it again at the
  chat's next update (bot/commands.py); forgotten ``CHAT_TTL`` after it was published;
- ``sdb:flow:{CHAT}:FLOW`` — a hash: kind, owner_id, version, closed, data (JSON), actors,
  screen, locale (a new flow leaves out the chat, its key's, and ``closed``, and keeps a long
  data JSON in pieces of 64 bytes, ``data``, ``data1``, …, which its first step writes
  whole again: :mod:`table.store.flows`); expires with its flow (a day unless the feature
  says otherwise);
- ``sdb:inbox:BOT`` — the updates fetched or received and not yet finished (update id →
  JSON), ``sdb:upd:BOT:{CHAT}:UPDATE`` — the running update's journal (dice seed, what its
  writes returned and spent, the sends it delivered, its tries and the nonce of the call
  that began the last, the steps it took on flows; a day's TTL; deleted as it
  finishes, kept with ``done`` when it is given up), ``sdb:away:{OTHER}:upd:BOT:CHAT:UPDATE``
  — what the update's writes to another campaign (OTHER's slot) returned, for its re-run
  (a day's TTL, :mod:`table.store.journaled`), ``sdb:done:BOT:{CHAT}`` — the chat's
  finished updates (update id → when, for a day: what a redelivery is told by),
  ``sdb:lock:BOT:{CHAT}`` — the lock that serialises a chat's updates across replicas and
  ``sdb:run:BOT:{CHAT}`` — the id of the chat's update whose run began and neither finished
  nor was put off, which the chat's next update lets run first if that run died
  (:mod:`table.store.updates`); outside a chat, the sender's id stands for CHAT;
- ``sdb:live:{CHAT}:NAME`` — the chat's one live message of a kind (``init``: the round
  tracker) as JSON: its flow id and, once sent, its message id (:class:`Live`);
- ``sdb:log:{CHAT}`` — a list of recent rolls (:class:`LogEntry`), newest first, capped at
  ``LOG_CAP`` and forgotten after ``LOG_TTL`` without a roll;
- ``sdb:stats:{CHAT}`` — the chat's roll counters for ``/stats`` (``table.stats``: rolls,
  successes, outcomes and faces per player by id, the player's newest name, the log lines
  written, ``seeded`` once the log's older lines were added), written by the step that logs
  the rolls and by a hidden roll's reveal; forgotten ``CHAT_TTL`` after the last roll;
- ``sdb:st:USER`` — a hash of the campaigns a Storyteller runs: chat id → chat title
  (written after :meth:`Store.set_storyteller` changes ``ChatSettings.storyteller_id``;
  a reader checks the chat's settings);
- ``sdb:stpick:USER`` — the campaign the Storyteller's private ``/h`` rolls for;
- ``sdb:hseq:{CHAT}`` — the counter of the chat's hidden rolls (their ``seq``);
- ``sdb:hidden:{CHAT}`` — a hash of the chat's last ``HIDDEN_CAP`` hidden rolls: ``SEQ`` the
  record (:class:`HiddenRecord` JSON, nonce included), ``SEQ:r`` set once it is revealed.
- ``sdb:sheet:{CHAT}`` — a hash of the chat's character sheets: ``u:USER:SYSTEM``
  a player's sheet (``rules.sheet.to_json``; one per game system, so a ``/rules`` switch
  neither loses nor mixes a sheet), ``p:USER`` the player's shown name and @username
  (JSON, for ``/sheet @user``), ``npc:SYSTEM:NAME`` a Storyteller's NPC sheet (name
  casefolded: the field is the index by name, so a line that may start with an NPC's name
  is looked up by the fields its first words make, never by reading every sheet) and
  ``npcname:SYSTEM:NAME`` its name as typed;
- ``sdb:offer:{HOME}:ID`` — a roll offered in inline mode (``offer``: its JSON, ``rolled``:
  its result's text once pressed), in the slot of the campaign it rolls for; gone after
  ``OFFER_TTL`` (:mod:`table.store.inline`);
- ``sdb:plays:{USER}`` — a hash of the campaigns a player rolled in (``c:KEY`` → title, KEY
  a chat's id for its own game or ``chat:thread`` for a forum topic, at most ``PLAYS_CAP``)
  and ``last``, the KEY of the campaign of their inline rolls;
- ``sdb:about:{CHAT}`` — a sorted set of whom the bot's recent messages in the chat are
  about (score: the message id; member: «ID USER USERNAME NAME»), written as an update
  finishes, capped at ``ABOUT_CAP`` and forgotten after ``LOG_TTL`` (bot/replies.py);
- ``sdb:budget:BOT`` and ``sdb:budget:BOT:{CHAT}`` — the send slots the bot reserved in the
  last second overall and in the last minute in a group, one budget for every replica and
  across restarts (:mod:`table.store.budget`; a command's reply is reserved by its update's
  first step); each expires a period after its last slot;
- ``sdb:sessions:{CHAT}`` — the campaign's sessions (``n`` the counter, ``N`` → JSON: the
  commitment, start, end and, once ended, the seed; the running one's seed sits in the chat's
  settings) and ``sdb:sevents:{CHAT}:N`` — what the Storyteller's screen changed during
  session N, for its chronicle, capped at ``EVENTS_CAP`` (:mod:`table.store.sessions`);
- ``sdb:quiet:{USER}`` — the player asked for no private notices (``/notify off``), and
  ``sdb:unreach:{CHAT}`` — the players the group was told the bot cannot write to
  (``bot.notices``); forgotten ``CHAT_TTL`` after they were written;
- ``sdb:sendturn:{CHAT}`` — the token of the send a forum chat is making now, and
  ``sdb:posted:{CHAT}`` — the messages the bot posted there (score: the id; member:
  ``ID:THREAD:UPDATE``), capped at ``POSTED_KEPT`` (:mod:`table.store.posts`);
- ``sdb:layout`` — which key layout the data is in (:mod:`table.store.legacy`).

A chat's settings, sheets and hidden rolls, and a Storyteller's campaign list, are forgotten
after ``CHAT_TTL`` (a year) without an update in that chat; every update starts the clock
again. Everything else expires sooner or is capped: no key grows or stays for ever.

On a cluster a step touches only its own chat's slot. The two that reach beyond it run as
separate commands that may be repeated: the Storyteller's campaign lists after
``set_storyteller`` (:mod:`table.store.chats`), and a hidden roll made from the private chat for
a campaign, stored once per number (:mod:`table.store.hidden`), and an inline roll, which has
no chat and is rolled once by its offer's compare-and-set in the campaign's slot
(:mod:`table.store.inline`); the inbox, one key for every chat, is emptied right after the
journal says done, and the player's last group is written beside it
(:mod:`table.store.updates`).
"""

from __future__ import annotations

from redis.asyncio import Redis

from table.store import legacy
from table.store.base import (
    CHAT_TTL,
    HIDDEN_CAP,
    LOG_CAP,
    LOG_TTL,
    PREFIX,
    REDIS_ERRORS,
    STORAGE_ERRORS,
    RedisUnavailable,
    StoreBase,
    chat_key,
    client_faults,
    connect,
    flow_key,
    hidden_key,
    hidden_seq_key,
    is_cluster,
    live_key,
    log_key,
    sheet_key,
    stats_key,
)
from table.store.budget import BudgetStore, budget_key
from table.store.chats import ChatSettings, ChatStore, parse_chat_settings
from table.store.flows import (
    AlsoMoved,
    AlsoStep,
    Flow,
    FlowState,
    FlowStateError,
    FlowStore,
    Live,
    LiveAhead,
    Screen,
    SheetSpend,
    StepWrites,
)
from table.store.hidden import HiddenRecord, HiddenStore
from table.store.inline import OFFER_TTL, PLAYS_CAP, InlineStore, offer_key, plays_key
from table.store.journal import Journal, Prefetch, ReplayDice
from table.store.journaled import update_secret
from table.store.log import LogEntry, LogStore
from table.store.posts import Posted, PostStore
from table.store.scripts import Bound
from table.store.sheets import PlayerSheet, SheetOwner, SheetStore
from table.store.updates import (
    Begun,
    ReadAhead,
    Subject,
    UpdateRef,
    UpdateStore,
    inbox_key,
    journal_key,
    lock_key,
    running_key,
)

__all__ = [
    "CHAT_TTL",
    "HIDDEN_CAP",
    "LOG_CAP",
    "LOG_TTL",
    "OFFER_TTL",
    "PLAYS_CAP",
    "PREFIX",
    "REDIS_ERRORS",
    "STORAGE_ERRORS",
    "AlsoMoved",
    "AlsoStep",
    "Begun",
    "ChatSettings",
    "Flow",
    "FlowState",
    "FlowStateError",
    "HiddenRecord",
    "InlineStore",
    "Journal",
    "Live",
    "LiveAhead",
    "LogEntry",
    "PlayerSheet",
    "PostStore",
    "Posted",
    "Prefetch",
    "ReadAhead",
    "RedisUnavailable",
    "ReplayDice",
    "Screen",
    "SheetOwner",
    "SheetSpend",
    "StepWrites",
    "Store",
    "Subject",
    "UpdateRef",
    "UpdateStore",
    "budget_key",
    "chat_key",
    "client_faults",
    "connect",
    "flow_key",
    "hidden_key",
    "hidden_seq_key",
    "inbox_key",
    "is_cluster",
    "journal_key",
    "live_key",
    "lock_key",
    "log_key",
    "offer_key",
    "parse_chat_settings",
    "plays_key",
    "running_key",
    "sheet_key",
    "stats_key",
    "update_secret",
]


class Store(
    BudgetStore,
    ChatStore,
    FlowStore,
    HiddenStore,
    InlineStore,
    PostStore,
    SheetStore,
    UpdateStore,
):
    """The contract the features use; every method is one atomic step on the server."""

    def __init__(self, redis: Redis) -> None:
        StoreBase.__init__(self, redis)
        LogStore.register_scripts(self)
        FlowStore.register_scripts(self)
        HiddenStore.register_scripts(self)
        UpdateStore.register_scripts(self)
        BudgetStore.register_scripts(self)
        PostStore.register_scripts(self)

    @classmethod
    def from_url(cls, redis_url: str | None) -> Store:
        return cls(connect(redis_url))

    async def load_scripts(self) -> None:
        """Put every script on the server at start (one round-trip), so a step's first use
        of a script is not two extra round-trips (NOSCRIPT, then SCRIPT LOAD) in a tap. A
        cluster loads each on every primary, one by one (it pipelines no SCRIPT LOAD)."""
        scripts = [v.script for v in vars(self).values() if isinstance(v, Bound)]
        if self.cluster:
            for script in scripts:
                await self.redis.script_load(script.script)
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for script in scripts:
                pipe.script_load(script.script)
            await pipe.execute()

    async def migrate_layout(self) -> int:
        """Move the keys of an older layout, once (:mod:`table.store.legacy`)."""
        return await legacy.migrate(self.redis)
