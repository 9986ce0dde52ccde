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
  runs begun (``attempts``) with the nonce of the call that began the last (``run``, so the
  same call sent again counts no second run; ``off`` once it was put off), the steps it
  took on flows (``cas:FLOW:VERSION``, so such a step sent again is not taken twice), and
  ``done`` once finished;
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

import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from pydantic import ValidationError
from redis.asyncio.client import Pipeline

from rules.sheet import to_json
from table.scope import Campaign, Serial
from table.scope import Subject as Subject
from table.store.base import (
    PREFIX,
    StoreBase,
    about_key,
    chat_key,
    flow_key,
    hidden_key,
    hidden_seq_key,
    live_key,
    none_key,
    pairs,
    sent_key,
    sheet_key,
    tag,
)
from table.store.budget import Lease, Window, budget_key, budget_member
from table.store.chats import ChatSettings, parse_chat_settings
from table.store.inline import PLAYED, PLAYS_CAP, give_back_offers, plays_key
from table.store.journal import Dropped, Journal, Prefetch, Spent, give_back, load_spent
from table.store.limits import JOURNAL_TTL
from table.store.scripts import Lua, as_bool, as_int, flag, pairs_of
from table.store.sheets import parse_sheet

# Renewed while the update runs (bot/delivery.py), so only a dead holder's lock runs out.
LOCK_TTL_MS = 15_000
MAX_ATTEMPTS = 5  # an update that failed this often is finished, so a poisoned one cannot loop
DONE_SWEEP = 64  # the finished updates are swept of the old ones each time they grow by this


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


def journal_key(bot_id: int, update_id: int, scope: Serial) -> str:
    """The update's journal, in the slot of the chat (``scope``) it is serialised by."""
    return f"{PREFIX}:upd:{bot_id}:{tag(scope)}:{update_id}"


def done_key(bot_id: int, scope: Serial) -> str:
    """The chat's finished updates (update id → when it finished), in the chat's slot."""
    return f"{PREFIX}:done:{bot_id}:{tag(scope)}"


def lock_key(bot_id: int, scope: Serial) -> str:
    return f"{PREFIX}:lock:{bot_id}:{tag(scope)}"


def inbox_key(bot_id: int) -> str:
    return f"{PREFIX}:inbox:{bot_id}"


def running_key(bot_id: int, scope: Serial) -> str:
    """The chat's running mark (the module's docstring), in the chat's slot."""
    return f"{PREFIX}:run:{bot_id}:{tag(scope)}"


class BeginReply(NamedTuple):
    """What lua/begin.lua answers (all but ``status`` only with ``go``, ``behind`` only
    with ``behind``): the journal, flow and sheets as Redis lists them (field, value, …)."""

    status: str
    behind: str | None = None
    settings: str | None = None
    journal: Sequence[str] = ()
    flow: Sequence[str] = ()
    sheets: Sequence[str | None] = ()
    lives: Sequence[Sequence[Any]] = ()
    lease: int | None = None

    @classmethod
    def of(cls, reply: list[Any]) -> BeginReply:
        return cls(*reply)


# On a cluster the inbox and the send budget live in other slots than the chat's: a key
# that is never written stands for each (``none_key``), and the script leaves it alone.
BEGIN = Lua(
    "begin",
    keys=(
        "journal", "lock", "inbox", "chat", "flow", "sheets", "hidden", "hidden_seq",
        "group_budget", "bot_budget", "done", "running",
    ),
    args=(
        "token", "lock_ttl", "force", "seed", "run", "journal_ttl", "update", "max_attempts",
        "read_chat", "read_flow", "all_sheets", "flow_prefix", "in_inbox", "inbox_entry",
        "lease_member", "group_limit", "group_period", "bot_limit", "bot_period",
    ),
    key_list="lives",
    arg_list="sheet_fields",
    reply=BeginReply.of,
)  # fmt: skip
FINISH = Lua(
    "finish",
    keys=(
        "journal", "lock", "inbox", "sent", "plays", "about", "group_budget", "bot_budget",
        "done", "running",
    ),
    args=(
        "token", "update", "in_inbox", "sent_message", "played_campaign", "played_title",
        "plays_cap", "lease_member",
    ),
    arg_list="about_pairs",
    reply=as_int,
    constants={"JOURNAL_TTL": JOURNAL_TTL, "DONE_SWEEP": DONE_SWEEP},
)  # fmt: skip
POSTPONE = Lua(
    "postpone",
    keys=("journal", "sent", "running"),
    args=("message", "update"),
    arg_list="records",
    reply=as_int,
)
RAISE_SENT = Lua("raise_sent", keys=("sent",), args=("message",), reply=as_int)
UNMARK = Lua("unmark", keys=("running",), args=("update",), reply=as_int)
RENEW = Lua("renew", keys=("lock",), args=("token", "ttl"), reply=as_bool)


@dataclass(frozen=True)
class UpdateRef:
    """Which update :meth:`UpdateStore.begin_update` begins: the bot's, its id, the chat it
    is serialised by (``scope``; outside a chat the sender's id), its chat (None outside
    one) and the token of the process that handles it (the lock's holder)."""

    bot_id: int
    update_id: int
    scope: Serial
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
        self._begin = BEGIN.bind(self.redis, self.batch)
        self._finish = FINISH.bind(self.redis, self.batch)
        self._raise_sent = RAISE_SENT.bind(self.redis, self.batch)
        self._postpone = POSTPONE.bind(self.redis, self.batch)
        self._renew = RENEW.bind(self.redis, self.batch)
        self._unmark = UNMARK.bind(self.redis, self.batch)
        self._played = PLAYED.bind(self.redis, self.batch)

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

    async def unmark(self, bot_id: int, scope: Serial, update_id: int) -> None:
        """Clear the chat's running mark if it still names ``update_id``: that update is no
        longer in the inbox, so it will not run again here (bot/delivery.py)."""
        await self._unmark(running=running_key(bot_id, scope), update=update_id)

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
        bot's; table/store/budget.py) for the update's reply: :attr:`Journal.lease`."""
        bot_id, update_id, scope = update.bot_id, update.update_id, update.scope
        here = scope.chat_id if isinstance(scope, Campaign) else scope
        if update.chat_id is not None and update.chat_id != here:
            raise ValueError(f"chat {update.chat_id} is not the update's scope {scope}")
        none = none_key(scope)
        leasing = None if self.cluster else _leasing(lease)
        named: dict[str, Any] = {
            "journal": journal_key(bot_id, update_id, scope),
            "lock": lock_key(bot_id, scope),
            "inbox": none if self.cluster else inbox_key(bot_id),
            "done": done_key(bot_id, scope),
            "running": running_key(bot_id, scope),
            "token": update.token,
            "lock_ttl": LOCK_TTL_MS,
            "force": flag(force),
            "seed": seed.hex(),
            "run": secrets.token_hex(8),  # this call's own: sent again, it counts one run
            "journal_ttl": JOURNAL_TTL,
            "update": update_id,
            "max_attempts": MAX_ATTEMPTS,
            "in_inbox": flag(not self.cluster),
            "inbox_entry": inbox or "",
            **_reading(None if update.chat_id is None else scope, ahead or ReadAhead(), none),
            **_lease_args(bot_id, leasing, none),
        }
        reply = await self._begin(**named)
        status = Begun(reply.status)
        if status in (Begun.DONE, Begun.GIVEN_UP) and self.cluster:
            await self.redis.hdel(inbox_key(bot_id), str(update_id))
        if status is not Begun.GO:
            behind = int(reply.behind) if status is Begun.BEHIND and reply.behind else None
            return status, ChatSettings(), None, Prefetch(behind=behind)
        journal = _journal_from(named["journal"], pairs(reply.journal))
        if leasing is not None and reply.lease is not None:
            group = leasing[0]
            journal.lease = Lease(
                windows=(group[0], None) if group is not None else (None,),
                member=named["lease_member"],
                at=time.monotonic() + int(reply.lease) / 1000,
            )
        return status, parse_chat_settings(reply.settings), journal, _prefetch(named, reply)

    async def finish_update(
        self,
        bot_id: int,
        update_id: int,
        scope: Serial,
        token: str,
        *,
        sent: int | None = None,
        played: tuple[int, Campaign, str] | None = None,
        about: Mapping[int, Subject] | None = None,
        lease: Lease | None = None,
    ) -> None:
        """Mark the update done (its journal shrunk to that mark), out of the inbox, the lock
        and the chat's running mark released; ``sent``: the newest message the update put in
        its chat, the floor of a later lost send's search;
        ``played``: (sender, campaign, its title), the campaign (a group's own game or a
        forum topic) the sender's inline rolls belong to from now on
        (table/store/inline.py); ``about``: whom the messages it sent there are about
        (:meth:`message_about`); ``lease``: the update's send slot reserved ahead,
        handed back unless a send took it."""
        none = none_key(scope)
        about_args: list[Any] = []
        for message_id, subject in sorted((about or {}).items()):
            # The id leads the member too: a set's members are unique, and two results of
            # the same player are two members.
            about_args += [message_id, about_member(message_id, subject)]
        await self._finish(
            journal=journal_key(bot_id, update_id, scope),
            lock=lock_key(bot_id, scope),
            inbox=none if self.cluster else inbox_key(bot_id),
            sent=sent_key(scope),
            about=about_key(scope),
            done=done_key(bot_id, scope),
            running=running_key(bot_id, scope),
            token=token,
            update=update_id,
            in_inbox=flag(not self.cluster),
            sent_message=sent or "",
            plays_cap=PLAYS_CAP,
            about_pairs=about_args,
            **self._played_args(played, none),
            **self._refund_args(bot_id, lease, none),
        )
        if self.cluster:  # the inbox is in a slot of its own: out of it once done
            await self.redis.hdel(inbox_key(bot_id), str(update_id))
            if played is not None:  # and so is the player's: one more command
                user_id, campaign, title = played
                await self._played(
                    plays=plays_key(user_id), campaign=campaign.key, title=title, cap=PLAYS_CAP
                )

    def _played_args(self, played: tuple[int, Campaign, str] | None, none: str) -> dict[str, Any]:
        """The sender's campaign for the finish's script; on a cluster a command of its own."""
        if played is None or self.cluster:
            return {"plays": none, "played_campaign": "", "played_title": ""}
        user_id, campaign, title = played
        return {
            "plays": plays_key(user_id),
            "played_campaign": campaign.key,
            "played_title": title,
        }

    def _refund_args(self, bot_id: int, lease: Lease | None, none: str) -> dict[str, Any]:
        """The untaken send slot the finish hands back (none on a cluster: never leased)."""
        if lease is None or lease.taken or self.cluster:
            return {"group_budget": none, "bot_budget": none, "lease_member": ""}
        groups = [chat for chat in lease.windows if chat is not None]
        return {
            "group_budget": budget_key(bot_id, groups[0]) if groups else none,
            "bot_budget": budget_key(bot_id, None),
            "lease_member": lease.member,
        }

    async def message_about(self, chat_id: int | Campaign, message_id: int) -> Subject | None:
        """The player the bot's message ``message_id`` in the chat is about, if it is one of
        its recent messages about someone."""
        found = await self.redis.zrangebyscore(about_key(self.at(chat_id)), message_id, message_id)
        for raw in found:
            return subject_of(str(raw))
        return None

    async def postpone_update(
        self, bot_id: int, update_id: int, scope: Serial, *, sent: int | None = None
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
        running = self.scope.journal
        delivered = dict(running.unwritten) if running is not None and running.key == key else {}
        await self._postpone(
            journal=key,
            sent=sent_key(scope),
            running=running_key(bot_id, scope),
            message=sent or "",
            update=update_id,
            records=pairs_of((f"sent:{digest}", i) for digest, i in delivered.items()),
        )
        if running is not None:
            for digest in delivered:
                running.unwritten.pop(digest, None)

    async def drop_update(
        self, bot_id: int, update_id: int, scope: Serial, token: str
    ) -> Dropped | None:
        """Drop an update whose result cannot be shown (Telegram refused it for too long,
        bot/delivery.py): in one transaction, what its writes spent (the journal's ``sp:``
        records) goes back to the sheets and the journal says ``done``, so no later run
        makes or pays for it. What was given back, and whether it wrote anything; None if
        the update had already finished. Then it leaves the inbox and its chat's lock, as a
        finished update does.

        What an inline roll of it paid is in its campaign's slot, which no transaction here
        can reach on a cluster: it comes back in a step of its own before, marked in its
        offer (table/store/inline.py). Should the process die in between, the update is dropped
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

    async def note_sent(self, chat_id: Serial, message_id: int) -> None:
        """Raise the chat's floor to ``message_id`` outside an update's finish (bot/sent.py)."""
        await self._raise_sent(sent=sent_key(chat_id), message=message_id)

    async def last_sent(self, chat_id: Serial) -> int:
        """The newest message the finished updates of the chat put in it (0: none known)."""
        raw = await self.redis.get(sent_key(chat_id))
        return int(raw) if raw else 0

    async def renew_lock(self, bot_id: int, scope: Serial, token: str) -> bool:
        return await self._renew(lock=lock_key(bot_id, scope), token=token, ttl=LOCK_TTL_MS)


def _reading(chat_id: Serial | None, ahead: ReadAhead, none: str) -> dict[str, Any]:
    """The keys and arguments of what ``begin_update`` reads ahead: nothing outside a chat."""
    if chat_id is None:
        return {
            **dict.fromkeys(("chat", "flow", "sheets", "hidden", "hidden_seq"), none),
            **dict.fromkeys(("read_chat", "read_flow", "all_sheets", "flow_prefix"), ""),
            "lives": [],
            "sheet_fields": [],
        }
    return {
        "chat": chat_key(chat_id),
        "flow": flow_key(chat_id, ahead.flow_id) if ahead.flow_id is not None else none,
        "sheets": sheet_key(chat_id),
        "hidden": hidden_key(chat_id),
        "hidden_seq": hidden_seq_key(chat_id),
        "lives": [live_key(chat_id, name) for name in ahead.live_names],
        "read_chat": "1",
        "read_flow": flag(ahead.flow_id is not None),
        "all_sheets": flag(ahead.all_sheets),
        "flow_prefix": flow_key(chat_id, ""),
        "sheet_fields": [] if ahead.all_sheets else list(ahead.sheet_fields),
    }


def _prefetch(named: Mapping[str, Any], reply: BeginReply) -> Prefetch:
    """What ``begin_update`` read ahead (``named``: what it asked for), for the handler."""
    prefetch = Prefetch()
    if named["read_flow"]:
        prefetch.flows[named["flow"]] = pairs(reply.flow)
    if named["all_sheets"]:
        prefetch.sheets_key = named["sheets"]
        prefetch.all_sheets = pairs(reply.sheets)
    for name, value in zip(named["sheet_fields"], reply.sheets, strict=False):
        prefetch.sheets[(named["sheets"], name)] = value
    for key, (pointer, raw) in zip(named["lives"], reply.lives, strict=False):
        prefetch.lives[key] = (pointer or None, pairs(raw))
    return prefetch


# The windows a reply's slot is reserved in ahead: the group's (None: a private chat) and the
# bot's; None when ``lease`` is not that (nothing is reserved ahead then).
Leasing = tuple[Window | None, Window]


def _leasing(lease: Sequence[Window]) -> Leasing | None:
    group = [w for w in lease if w[0] is not None]
    overall = [w for w in lease if w[0] is None]
    if len(overall) != 1 or len(group) > 1:
        return None
    return (group[0] if group else None), overall[0]


def _lease_args(bot_id: int, leasing: Leasing | None, none: str) -> dict[str, Any]:
    """The keys and arguments of the reply's send slot ``begin_update`` reserves."""
    if leasing is None:
        return {
            **dict.fromkeys(("group_budget", "bot_budget"), none),
            **dict.fromkeys(("lease_member", "group_limit", "group_period"), ""),
            **dict.fromkeys(("bot_limit", "bot_period"), ""),
        }
    group, overall = leasing
    return {
        "group_budget": budget_key(bot_id, group[0]) if group is not None else none,
        "bot_budget": budget_key(bot_id, None),
        "lease_member": budget_member(),
        "group_limit": group[1] if group is not None else "",
        "group_period": int(group[2] * 1000) if group is not None else "",
        "bot_limit": overall[1],
        "bot_period": int(overall[2] * 1000),
    }
