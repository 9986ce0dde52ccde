"""Each update handled once in effect, however often it is delivered (docs/product.md §5).

Telegram delivers an update at least once: polling re-sends what was not confirmed, a webhook
re-sends what was not answered, and a crash can hit anywhere in between. So an update is
kept until its effect and its replies are out, and handling it again repeats nothing:

- the **inbox** (``sdb:inbox:BOT``, update id → the update's JSON) holds every update from
  the moment it is fetched or received until it is finished, so a crash loses none of them
  and the next process (or another replica) picks them up (bot/delivery.py);
- the **journal** (``sdb:upd:BOT:{CHAT}:UPDATE``, a hash) carries the update's dice seed,
  drawn from the OS the first time (so a re-run rolls the very same dice), the result of each
  of its writes (``fx:N``, written in the same transaction as the write, so a re-run skips a
  write that was applied and reads back what it returned), beside each write what it took
  from the sheets' pools (``sp:STEP``, given back if the update is dropped:
  :meth:`UpdateStore.drop_update`) and the sends delivered so far (``sent:DIGEST``), the
  runs begun (``attempts``), and ``done`` once finished;
- the **chat lock** (``sdb:lock:BOT:{CHAT}``) serialises one chat's updates across
  replicas; it expires by itself if its holder dies;
- the **running mark** (``sdb:run:BOT:{CHAT}``) names the chat's update whose run began and
  neither finished nor was put off. A run that dies leaves it behind, and then the chat's
  next update does not begin: :meth:`UpdateStore.begin_update` answers ``behind`` with the
  marked update, which bot/delivery.py runs first, so nothing of the chat finishes between
  the dead run and its re-run and the chat's floor stays below what the dead run had sent
  (bot/sent.py). A mark whose update will never run again (finished, dropped, given up, its
  journal gone) is cleared by the begin that finds it; one whose run is this process's own
  (the journal's ``by``) is a live run here, not a dead one.

The journal, the lock and the mark carry the chat's hash tag, so they share a slot with the
chat's keys on a Redis Cluster. The inbox is one key for every chat, so on a cluster it lives
in a slot of its own: there an update leaves it by a second command right after its journal
says ``done`` (a crash in between leaves a finished update in the inbox, which
``begin_update`` then finds done and removes), while on one server the same script does both.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError
from redis.asyncio.client import Pipeline

from bot.context import current
from bot.store.base import (
    ABOUT_CAP,
    CHAT_TTL,
    LOG_TTL,
    PREFIX,
    StoreBase,
    about_key,
    chat_key,
    flow_key,
    hidden_key,
    hidden_seq_key,
    live_key,
    none_key,
    sent_key,
    sheet_key,
    tag,
)
from bot.store.budget import RESERVE_FUNCTION, Lease, Window, budget_key, budget_member
from bot.store.chats import ChatSettings, parse_chat_settings
from bot.store.inline import PLAYED, PLAYS_CAP, give_back_offers, plays_key, plays_write
from bot.store.journal import Dropped, Journal, Prefetch, Spent, give_back, load_spent
from bot.store.sheets import parse_sheet
from rules.sheet import to_json

JOURNAL_TTL = 86_400  # Telegram re-sends an unconfirmed update for up to a day
# Renewed while the update runs (bot/delivery.py), so only a dead holder's lock runs out.
LOCK_TTL_MS = 15_000
MAX_ATTEMPTS = 5  # an update that failed this often is finished, so a poisoned one cannot loop
DONE_SWEEP = 64  # the finished updates are swept of the old ones each time they grow by this


class Subject(BaseModel):
    """Whom a bot message is about: the player whose command or tap it answers."""

    model_config = ConfigDict(frozen=True)

    user_id: int
    name: str
    username: str | None = None


def about_member(message_id: int, subject: Subject) -> str:
    """«ID USER USERNAME NAME» (no username: empty): a few evenings of results are kept per
    chat, so each is as short as it can be (bench/footprint.py); the name, last, may hold
    spaces."""
    return f"{message_id} {subject.user_id} {subject.username or ''} {subject.name}"


def subject_of(member: str) -> Subject | None:
    """The subject of an ``about`` member: :func:`about_member`'s form, or the JSON an older
    version wrote after the id."""
    rest = member.partition(" ")[2]
    try:
        if rest.startswith("{"):
            return Subject.model_validate_json(rest)
        user, username, name = rest.split(" ", 2)
        return Subject(user_id=int(user), name=name, username=username or None)
    except (ValueError, ValidationError):
        return None


def journal_key(bot_id: int, update_id: int, scope: int) -> str:
    """The update's journal, in the slot of the chat (``scope``) it is serialised by."""
    return f"{PREFIX}:upd:{bot_id}:{tag(scope)}:{update_id}"


def done_key(bot_id: int, scope: int) -> str:
    """The chat's finished updates (update id → when it finished), in the chat's slot."""
    return f"{PREFIX}:done:{bot_id}:{tag(scope)}"


def lock_key(bot_id: int, scope: int) -> str:
    return f"{PREFIX}:lock:{bot_id}:{tag(scope)}"


def inbox_key(bot_id: int) -> str:
    return f"{PREFIX}:inbox:{bot_id}"


def running_key(bot_id: int, scope: int) -> str:
    """The chat's running mark (the module's docstring), in the chat's slot."""
    return f"{PREFIX}:run:{bot_id}:{tag(scope)}"


# KEYS[1] journal, KEYS[2] chat lock, KEYS[3] inbox (a placeholder on a cluster), then what is read
# ahead for the handler: KEYS[4] chat settings, KEYS[5] the flow a button names, KEYS[6] the chat's
# sheets (each only when ARGV[8] says so: a 'c', an 'f', an 's' for some sheets or an 'S' for all of
# them), KEYS[7] and KEYS[8] the chat's hidden rolls and their counter (only their clock is
# renewed), KEYS[9] and KEYS[10] the send budget's windows a lease is reserved in (the group's, the
# bot's; placeholders without one), KEYS[11] the chat's finished updates, KEYS[12] the chat's
# running mark, KEYS[13..] live pointers, each read with the flow it points at. ARGV[1] lock token,
# ARGV[2] lock TTL (ms), ARGV[3] '1' to take the lock from a holder presumed dead, ARGV[4] a fresh
# seed, ARGV[5] journal TTL, ARGV[6] update id, ARGV[7] attempts allowed, ARGV[8] the flags, ARGV[9]
# the chat's flow keys' prefix, ARGV[10] '1' when KEYS[3] is the inbox, ARGV[11] the update's JSON
# to keep in the inbox ('' when it is there already), ARGV[12] the lease's member ('' for none),
# ARGV[13..16] the limit and period (ms) of the group's window ('' for none) and of the bot's,
# ARGV[17..] the sheet fields to read (the sender's sheets). Every update in a chat renews the clock
# of the chat's table (CHAT_TTL). A mark naming another update is that update's if it is still
# unfinished (its journal, KEYS[1] with its id for this one's, counts a run and is not ``done``):
# its run died, as the lock is free (or taken over), so it goes first ('behind'); else it is stale.
# A run records its process's token in its journal (``by``): a marked update whose run is this
# process's is alive here, not dead (the process serialises its chats' updates itself,
# bot/delivery.py, and a test feeding one chat's updates at once runs them side by side).
_BEGIN = (
    RESERVE_FUNCTION
    + """
local running = redis.call('GET', KEYS[12])
if redis.call('HEXISTS', KEYS[11], ARGV[6]) == 1 or redis.call('HGET', KEYS[1], 'done') == '1' then
  if ARGV[10] == '1' then
    redis.call('HDEL', KEYS[3], ARGV[6])
  end
  if running == ARGV[6] then
    redis.call('DEL', KEYS[12])
  end
  return {'done'}
end
if ARGV[10] == '1' and ARGV[11] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[6], ARGV[11])
end
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[1] and ARGV[3] ~= '1' then
  return {'busy'}
end
if running and running ~= ARGV[6] then
  local dead = string.sub(KEYS[1], 1, #KEYS[1] - #ARGV[6]) .. running
  local by = redis.call('HGET', dead, 'by')
  if by ~= ARGV[1] then
    if redis.call('HEXISTS', KEYS[11], running) == 0
        and redis.call('HEXISTS', dead, 'attempts') == 1
        and redis.call('HGET', dead, 'done') ~= '1' then
      return {'behind', running}
    end
    redis.call('DEL', KEYS[12])
  end
end
local attempts = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
if attempts > tonumber(ARGV[7]) then
  if ARGV[10] == '1' then
    redis.call('HDEL', KEYS[3], ARGV[6])
  end
  if running == ARGV[6] then
    redis.call('DEL', KEYS[12])
  end
  return {'given-up'}
end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
redis.call('SET', KEYS[12], ARGV[6], 'EX', ARGV[5])
redis.call('HSET', KEYS[1], 'by', ARGV[1])
redis.call('HSETNX', KEYS[1], 'seed', ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
local flags = ARGV[8] or ''
local settings = false
if string.find(flags, 'c', 1, true) then
  settings = redis.call('GET', KEYS[4])
  for _, i in ipairs({4, 6, 7, 8}) do
    redis.call('EXPIRE', KEYS[i], CHAT_TTL)
  end
end
local flow = {}
if string.find(flags, 'f', 1, true) then
  flow = redis.call('HGETALL', KEYS[5])
end
local sheets = {}
if string.find(flags, 'S', 1, true) then
  sheets = redis.call('HGETALL', KEYS[6])
elseif string.find(flags, 's', 1, true) and #ARGV > 16 then
  local fields = {}
  for i = 17, #ARGV do
    fields[#fields + 1] = ARGV[i]
  end
  sheets = redis.call('HMGET', KEYS[6], unpack(fields))
end
local lives = {}
for i = 13, #KEYS do
  local pointer = redis.call('GET', KEYS[i])
  local fields = {}
  if pointer then
    local id = string.match(pointer, '"flow"%s*:%s*"([^"]+)"')
    if id then
      fields = redis.call('HGETALL', ARGV[9] .. id)
    end
  end
  lives[#lives + 1] = {pointer or false, fields}
end
local lease = false
if ARGV[12] ~= '' then
  local keys, limits = {}, {}
  if ARGV[13] ~= '' then
    keys[1], limits[1] = KEYS[9], {ARGV[13], ARGV[14]}
  end
  keys[#keys + 1], limits[#limits + 1] = KEYS[10], {ARGV[15], ARGV[16]}
  lease = reserve(keys, limits, ARGV[12])
end
return {'go', settings, redis.call('HGETALL', KEYS[1]), flow, sheets, lives, lease}
""".replace("CHAT_TTL", str(CHAT_TTL))
)

# KEYS[1] journal, KEYS[2] chat lock, KEYS[3] inbox (a placeholder on a cluster), KEYS[4] the
# chat's newest bot message, KEYS[5] the sender's plays (a placeholder on a cluster), KEYS[6] whom
# the chat's bot messages are about, KEYS[7] and KEYS[8] the send budget's windows of an untaken
# lease (placeholders without one), KEYS[9] the chat's finished updates, KEYS[10] the chat's
# running mark (cleared when it names this update); ARGV[1] lock token,
# ARGV[2] update id, ARGV[3] '1' when KEYS[3] is the inbox, ARGV[4] the newest message the update
# sent in its chat ('' for none), ARGV[5..7] the group the sender played in, its title and the cap
# ('' for none: bot/store/inline.py), ARGV[8] the untaken lease's member ('' for none), ARGV[9..]
# pairs of a message id and whom it is about (:func:`about_member`). A finished update leaves no
# journal, only its id and the time it finished in the chat's finished updates: a redelivery needs
# nothing else, and the seed and the writes' results were most of what an update left behind
# (bench/footprint.py). Those older than a redelivery can come (a day) are dropped as the hash
# grows, and the whole hash goes with a quiet chat.
_FINISH = (
    """
redis.call('DEL', KEYS[1])
local clock = tonumber(redis.call('TIME')[1])
redis.call('HSET', KEYS[9], ARGV[2], clock)
if redis.call('HLEN', KEYS[9]) % DONE_SWEEP == 0 then
  local finished = redis.call('HGETALL', KEYS[9])
  for i = 1, #finished, 2 do
    if tonumber(finished[i + 1]) < clock - JOURNAL_TTL then
      redis.call('HDEL', KEYS[9], finished[i])
    end
  end
end
redis.call('EXPIRE', KEYS[9], JOURNAL_TTL)
PLAYED
if ARGV[8] ~= '' then
  redis.call('ZREM', KEYS[7], ARGV[8])
  redis.call('ZREM', KEYS[8], ARGV[8])
end
if #ARGV > 8 then
  for i = 9, #ARGV - 1, 2 do
    redis.call('ZREMRANGEBYSCORE', KEYS[6], ARGV[i], ARGV[i])
    redis.call('ZADD', KEYS[6], ARGV[i], ARGV[i + 1])
  end
  redis.call('ZREMRANGEBYRANK', KEYS[6], 0, -(ABOUT_CAP + 1))
  redis.call('EXPIRE', KEYS[6], LOG_TTL)
end
if ARGV[4] ~= '' then
  local known = tonumber(redis.call('GET', KEYS[4]) or '0')
  if tonumber(ARGV[4]) > known then
    redis.call('SET', KEYS[4], ARGV[4], 'EX', CHAT_TTL)
  end
end
if ARGV[3] == '1' then
  redis.call('HDEL', KEYS[3], ARGV[2])
end
if redis.call('GET', KEYS[10]) == ARGV[2] then
  redis.call('DEL', KEYS[10])
end
if redis.call('GET', KEYS[2]) == ARGV[1] then
  redis.call('DEL', KEYS[2])
end
return 1
""".replace("CHAT_TTL", str(CHAT_TTL))
    .replace("PLAYED", plays_write("KEYS[5]", 5))
    .replace("ABOUT_CAP", str(ABOUT_CAP))
    .replace("LOG_TTL", str(LOG_TTL))
    .replace("JOURNAL_TTL", str(JOURNAL_TTL))
    .replace("DONE_SWEEP", str(DONE_SWEEP))
)

# KEYS[1] journal, KEYS[2] the chat's newest bot message, KEYS[3] the chat's running mark;
# ARGV[1] the newest message the update sent in its chat ('' for none), ARGV[2] the update's
# id, ARGV[3..] pairs of a journal field and a message id: the sends it delivered
# (bot/sent.py). Put off, the update is no dead run: its sends are written down, so the chat's
# other updates need not wait for it (its mark goes).
_POSTPONE = """
if redis.call('HEXISTS', KEYS[1], 'attempts') == 1 then
  redis.call('HINCRBY', KEYS[1], 'attempts', -1)
  for i = 3, #ARGV - 1, 2 do
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  end
end
if redis.call('GET', KEYS[3]) == ARGV[2] then
  redis.call('DEL', KEYS[3])
end
if ARGV[1] ~= '' and tonumber(ARGV[1]) > tonumber(redis.call('GET', KEYS[2]) or '0') then
  redis.call('SET', KEYS[2], ARGV[1], 'EX', CHAT_TTL)
end
return 1
""".replace("CHAT_TTL", str(CHAT_TTL))

# KEYS[1] the chat's newest bot message; ARGV[1] a message id.
_RAISE_SENT = """
if tonumber(ARGV[1]) > tonumber(redis.call('GET', KEYS[1]) or '0') then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', CHAT_TTL)
end
return 1
""".replace("CHAT_TTL", str(CHAT_TTL))

# KEYS[1] the chat's running mark; ARGV[1] the update id it is cleared of.
_UNMARK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
end
return 1
"""

# KEYS[1] chat lock; ARGV[1] token, ARGV[2] TTL (ms).
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""


@dataclass(frozen=True)
class UpdateRef:
    """Which update :meth:`UpdateStore.begin_update` begins: the bot's, its id, the chat it
    is serialised by (``scope``; outside a chat the sender's id), its chat (None outside
    one) and the token of the process that handles it (the lock's holder)."""

    bot_id: int
    update_id: int
    scope: int
    chat_id: int | None
    token: str


@dataclass(frozen=True)
class ReadAhead:
    """What :meth:`UpdateStore.begin_update` reads ahead for the handler in its round-trip:
    the flow ``flow_id`` (a button's) and the chat's sheets ``sheet_fields`` (the
    sender's); ``all_sheets`` reads every sheet of the chat instead, and ``live_names`` the
    chat's live messages of those names with their flows (a combat tap:
    ``Feature.reads_ahead``). Nothing is read ahead outside a chat."""

    flow_id: str | None = None
    sheet_fields: Sequence[str] = ()
    all_sheets: bool = False
    live_names: Sequence[str] = ()


class Begun(StrEnum):
    GO = "go"  # handle it (for the first time, or again after a crash)
    DONE = "done"  # finished before: nothing to do
    BUSY = "busy"  # another replica holds the chat: try later
    # A run of another update of the chat died mid-way (``Prefetch.behind`` names it): that
    # update runs first, then this one begins again (bot/delivery.py).
    BEHIND = "behind"
    GIVEN_UP = "given-up"  # failed too often: to be dropped (``drop_update``)


def _journal_from(key: str, fields: Mapping[Any, Any]) -> Journal:
    steps = {
        int(name[3:]): value
        for name, value in fields.items()
        if name.startswith("fx:") and name[3:].isdigit()
    }
    sent = {
        name[5:]: int(value)
        for name, value in fields.items()
        if name.startswith("sent:") and str(value).isdigit()
    }
    attempts = str(fields.get("attempts", "1"))
    return Journal(
        key=key,
        seed=bytes.fromhex(fields["seed"]),
        steps=steps,
        attempts=int(attempts) if attempts.lstrip("-").isdigit() else 1,
        sent=sent,
    )


class UpdateStore(StoreBase):
    def register_scripts(self) -> None:
        self._begin = self.redis.register_script(_BEGIN)
        self._finish = self.redis.register_script(_FINISH)
        self._raise_sent = self.redis.register_script(_RAISE_SENT)
        self._postpone = self.redis.register_script(_POSTPONE)
        self._renew = self.redis.register_script(_RENEW)
        self._unmark = self.redis.register_script(_UNMARK)
        self._played = self.redis.register_script(PLAYED)

    async def inbox_add(self, bot_id: int, updates: Mapping[int, str]) -> None:
        """Keep fetched updates (id → JSON) until they are finished: before polling
        confirms them to Telegram, or before a webhook answers 200."""
        if updates:
            mapping: dict[Any, Any] = dict(updates)
            await self.redis.hset(inbox_key(bot_id), mapping=mapping)

    async def inbox(self, bot_id: int) -> dict[int, str]:
        raw = await self.redis.hgetall(inbox_key(bot_id))
        return {int(k): str(v) for k, v in raw.items()}

    async def inbox_entry(self, bot_id: int, update_id: int) -> str | None:
        """One update's JSON in the inbox; None once it is finished or dropped."""
        raw = await self.redis.hget(inbox_key(bot_id), str(update_id))
        return None if raw is None else str(raw)

    async def unmark(self, bot_id: int, scope: int, update_id: int) -> None:
        """Clear the chat's running mark if it still names ``update_id``: that update is no
        longer in the inbox, so it will not run again here (bot/delivery.py)."""
        await self._unmark(keys=[running_key(bot_id, scope)], args=[update_id])

    async def begin_update(
        self,
        update: UpdateRef,
        *,
        force: bool,
        seed: bytes,
        ahead: ReadAhead | None = None,
        inbox: str | None = None,
        lease: Sequence[Window] = (),
    ) -> tuple[Begun, ChatSettings, Journal | None, Prefetch]:
        """Take the chat's lock and the update's journal, with the chat's settings, in one
        round-trip, reading ahead what ``ahead`` names for the handler (:class:`Prefetch`).
        ``force`` takes the lock from a holder presumed dead (polling has one consumer only).
        A chat's update is serialised by that chat (``scope`` is ``chat_id``), so all of it
        is in one slot of a cluster.

        On one server the same round-trip also keeps ``inbox`` (the update's JSON) in the
        inbox, unless the update was finished before (bot/delivery.py: the fetch's own write,
        folded in), and reserves a send slot in the windows ``lease`` (the group's, then the
        bot's; bot/store/budget.py) for the update's reply: :attr:`Journal.lease`."""
        bot_id, update_id, scope = update.bot_id, update.update_id, update.scope
        chat_id, token = update.chat_id, update.token
        ahead = ahead or ReadAhead()
        flow_id = ahead.flow_id
        none = none_key(scope)
        if chat_id is not None and chat_id != scope:
            raise ValueError(f"chat {chat_id} is not the update's scope {scope}")
        sheets = ahead.sheet_fields if chat_id is not None else ()
        wide = ahead.all_sheets and chat_id is not None
        lives = list(ahead.live_names) if chat_id is not None else []
        leasing = bool(lease) and not self.cluster
        group = [w for w in lease if w[0] is not None] if leasing else []
        overall = [w for w in lease if w[0] is None] if leasing else []
        leasing = leasing and len(overall) == 1 and len(group) <= 1
        keys = [
            journal_key(bot_id, update_id, scope),
            lock_key(bot_id, scope),
            none if self.cluster else inbox_key(bot_id),
            chat_key(chat_id) if chat_id is not None else none,
            flow_key(chat_id, flow_id) if flow_id is not None and chat_id is not None else none,
            sheet_key(chat_id) if chat_id is not None else none,
            hidden_key(chat_id) if chat_id is not None else none,
            hidden_seq_key(chat_id) if chat_id is not None else none,
            budget_key(bot_id, group[0][0]) if leasing and group else none,
            budget_key(bot_id, None) if leasing else none,
            done_key(bot_id, scope),
            running_key(bot_id, scope),
            *(live_key(chat_id, name) for name in lives if chat_id is not None),
        ]
        reading_flow = flow_id is not None and chat_id is not None
        flags = (
            ("c" if chat_id is not None else "")
            + ("f" if reading_flow else "")
            + ("S" if wide else "s" if sheets else "")
        )
        args: list[Any] = [
            token,
            LOCK_TTL_MS,
            "1" if force else "0",
            seed.hex(),
            JOURNAL_TTL,
            update_id,
            MAX_ATTEMPTS,
            flags,
            flow_key(chat_id, "") if chat_id is not None else "",
            "" if self.cluster else "1",
            inbox or "",
            budget_member() if leasing else "",
            *((group[0][1], int(group[0][2] * 1000)) if leasing and group else ("", "")),
            *((overall[0][1], int(overall[0][2] * 1000)) if leasing else ("", "")),
            *sheets,
        ]
        reply = await self._begin(keys=keys, args=args)
        status = Begun(reply[0])
        if status in (Begun.DONE, Begun.GIVEN_UP) and self.cluster:
            await self.redis.hdel(inbox_key(bot_id), str(update_id))
        if status is Begun.BEHIND:
            return status, ChatSettings(), None, Prefetch(behind=int(reply[1]))
        if status is not Begun.GO:
            return status, ChatSettings(), None, Prefetch()
        raw_settings, raw_fields = reply[1], reply[2]
        fields = dict(zip(raw_fields[0::2], raw_fields[1::2], strict=True))
        journal = _journal_from(keys[0], fields)
        prefetch = Prefetch()
        raw_flow = reply[3] if len(reply) > 3 else []
        if flow_id is not None and reading_flow:
            prefetch.flows[keys[4]] = dict(zip(raw_flow[0::2], raw_flow[1::2], strict=True))
        values = reply[4] if len(reply) > 4 else []
        if wide:
            prefetch.sheets_key = keys[5]
            prefetch.all_sheets = dict(zip(values[0::2], values[1::2], strict=True))
        else:
            for name, value in zip(sheets, values, strict=False):
                prefetch.sheets[(keys[5], name)] = value
        for key, (pointer, raw) in zip(keys[12:], reply[5] if len(reply) > 5 else [], strict=False):
            fields = dict(zip(raw[0::2], raw[1::2], strict=True))
            prefetch.lives[key] = (pointer or None, fields)
        waits = reply[6] if len(reply) > 6 else None
        if leasing and waits is not None:
            journal.lease = Lease(
                windows=(*(w[0] for w in group), None),
                member=str(args[11]),
                at=time.monotonic() + int(waits) / 1000,
            )
        return status, parse_chat_settings(raw_settings), journal, prefetch

    async def finish_update(
        self,
        bot_id: int,
        update_id: int,
        scope: int,
        token: str,
        *,
        sent: int | None = None,
        played: tuple[int, int, str] | None = None,
        about: Mapping[int, Subject] | None = None,
        lease: Lease | None = None,
    ) -> None:
        """Mark the update done (its journal shrunk to that mark), out of the inbox, the lock
        and the chat's running mark released; ``sent``: the newest message the update put in
        its chat, the floor of a later lost send's search;
        ``played``: (sender, group, its title), the group the sender's inline rolls belong to
        from now on (bot/store/inline.py); ``about``: whom the messages it sent there are
        about (:meth:`message_about`); ``lease``: the update's send slot reserved ahead,
        handed back unless a send took it."""
        inline = played is not None and not self.cluster
        refund = lease is not None and not lease.taken and not self.cluster
        windows = lease.windows if lease is not None and refund else ()
        groups = [chat for chat in windows if chat is not None]
        keys = [
            journal_key(bot_id, update_id, scope),
            lock_key(bot_id, scope),
            none_key(scope) if self.cluster else inbox_key(bot_id),
            sent_key(scope),
            plays_key(played[0]) if played is not None and inline else none_key(scope),
            about_key(scope),
            budget_key(bot_id, groups[0]) if groups else none_key(scope),
            budget_key(bot_id, None) if refund else none_key(scope),
            done_key(bot_id, scope),
            running_key(bot_id, scope),
        ]
        args: list[str | int] = [
            token,
            update_id,
            "" if self.cluster else "1",
            sent or "",
            played[1] if played is not None and inline else "",
            played[2] if played is not None and inline else "",
            PLAYS_CAP,
            lease.member if lease is not None and refund else "",
        ]
        for message_id, subject in sorted((about or {}).items()):
            # The id leads the member too: a set's members are unique, and two results of
            # the same player are two members.
            args += [message_id, about_member(message_id, subject)]
        await self._finish(keys=keys, args=args)
        if self.cluster:  # the inbox is in a slot of its own: out of it once done
            await self.redis.hdel(inbox_key(bot_id), str(update_id))
            if played is not None:  # and so is the player's: one more command
                user_id, chat_id, title = played
                await self._played(keys=[plays_key(user_id)], args=[chat_id, title, PLAYS_CAP])

    async def message_about(self, chat_id: int, message_id: int) -> Subject | None:
        """The player the bot's message ``message_id`` in the chat is about, if it is one of
        its recent messages about someone."""
        found = await self.redis.zrangebyscore(about_key(chat_id), message_id, message_id)
        for raw in found:
            return subject_of(str(raw))
        return None

    async def postpone_update(
        self, bot_id: int, update_id: int, scope: int, *, sent: int | None = None
    ) -> None:
        """The update met Redis or Telegram away and is run again later: that run does not
        count against ``MAX_ATTEMPTS`` (an outage is not the update's fault, and what it paid
        for must still be shown), what it delivered (``sent``, in its chat) stays below
        the next run's floor, and the sends it delivered anywhere are written in its journal
        (from the running update's :class:`Journal`), so a run in another process after
        this one's death repeats them without sending them (bot/sent.py). So it is no dead
        run: the chat's running mark goes, and the chat's other updates need not wait for
        it."""
        key = journal_key(bot_id, update_id, scope)
        running = current().journal
        delivered = dict(running.unwritten) if running is not None and running.key == key else {}
        args: list[str | int] = [sent or "", update_id]
        for digest, message_id in delivered.items():
            args += [f"sent:{digest}", message_id]
        await self._postpone(keys=[key, sent_key(scope), running_key(bot_id, scope)], args=args)
        if running is not None:
            for digest in delivered:
                running.unwritten.pop(digest, None)

    async def drop_update(
        self, bot_id: int, update_id: int, scope: int, token: str
    ) -> Dropped | None:
        """Drop an update whose result cannot be shown (Telegram refused it for too long,
        bot/delivery.py): in one transaction, what its writes spent (the journal's ``sp:``
        records) goes back to the sheets and the journal says ``done``, so no later run
        makes or pays for it. What was given back, and whether it wrote anything; None if
        the update had already finished. Then it leaves the inbox and its chat's lock, as a
        finished update does.

        What an inline roll of it paid is in its campaign's slot, which no transaction here
        can reach on a cluster: it comes back in a step of its own before, marked in its
        offer (bot/store/inline.py). Should the process die in between, the update is dropped
        again later, and that step gives nothing twice."""
        key = journal_key(bot_id, update_id, scope)
        sheets = sheet_key(scope)
        finished = done_key(bot_id, scope)
        inline: list[Spent] = []
        before = await self.redis.hgetall(key)
        if before.get("done") != "1" and not await self.redis.hexists(finished, str(update_id)):
            inline = await give_back_offers(self.redis, before)

        async def apply(pipe: Pipeline) -> Dropped | None:
            fields = await pipe.hgetall(key)
            # A finished update's journal is gone and its id is in the chat's finished ones.
            if fields.get("done") == "1" or await pipe.hexists(finished, str(update_id)):
                pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
                return None
            spent = [
                item
                for name in sorted(fields)
                if str(name).startswith("sp:")
                for item in load_spent(str(fields[name]))
            ]
            names = sorted({item.field for item in spent})
            current = (
                dict(zip(names, await pipe.hmget(sheets, names), strict=True)) if names else {}
            )
            given: dict[Any, Any] = {}
            for item in spent:
                sheet = parse_sheet(given.get(item.field, current.get(item.field)))
                if sheet is not None:
                    given[item.field] = to_json(give_back(sheet, item.points))
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            if given:
                pipe.hset(sheets, mapping=given)
            pipe.hset(key, "done", "1")
            pipe.hset(key, "dropped", "1")
            pipe.expire(key, JOURNAL_TTL)
            wrote = any(str(name).startswith(("fx:", "sp:", "of:")) for name in fields)
            return Dropped([*inline, *(item for item in spent if item.field in given)], wrote)

        # Not through the journal's recording: this step ends the update, it is none of its
        # writes.
        dropped: Dropped | None = await self.redis.transaction(
            apply, key, sheets, finished, value_from_callable=True
        )
        await self.finish_update(bot_id, update_id, scope, token)
        return dropped

    async def note_sent(self, chat_id: int, message_id: int) -> None:
        """Raise the chat's floor to ``message_id`` outside an update's finish (bot/sent.py)."""
        await self._raise_sent(keys=[sent_key(chat_id)], args=[message_id])

    async def last_sent(self, chat_id: int) -> int:
        """The newest message the finished updates of the chat put in it (0: none known)."""
        raw = await self.redis.get(sent_key(chat_id))
        return int(raw) if raw else 0

    async def renew_lock(self, bot_id: int, scope: int, token: str) -> bool:
        return bool(await self._renew(keys=[lock_key(bot_id, scope)], args=[token, LOCK_TTL_MS]))
