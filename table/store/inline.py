"""Rolls offered in inline mode, and where each player last played (README "Inline mode").

An inline answer is prepared before anyone sees it, so it never holds dice: it holds an
*offer* (``sdb:offer:{HOME}:ID``, a hash with the offer's JSON and, once rolled, the text of
its result), and the first press of its «🎲 Бросить» by its sender rolls it. HOME is the
campaign whose sheet, log and statistics the roll belongs to (a group's own game or a forum
topic: :class:`table.scope.Campaign`, its ``key``), or the sender's own id when they have
played in no group yet. So the press's one transaction (the offer marked rolled, the
Willpower or luck off the sheet, the log line) stays in that campaign's slot of a Redis
Cluster. An inline update has no chat and is journaled under its sender
(:mod:`table.store.updates`), another slot: the offer's own compare-and-set is what makes a
press apply once, however often it is delivered or pressed, the way hidden rolls from a
private chat are stored once per number (:mod:`table.store.hidden`).

``sdb:plays:{USER}`` is a hash of the campaigns a player rolled in (``c:KEY`` → its title,
«Хроника › Маг» for a topic) and ``last``, the KEY of the campaign their inline rolls belong
to: written when an update of theirs in a group finishes
(:meth:`table.store.updates.UpdateStore.finish_update`), and by their choice in the private
chat. A chat's own game's KEY is the chat's id, so what the release before topics wrote there
(``c:CHAT``, ``last`` = CHAT) reads as the chat's own game (General's).

What a press spends is written in its offer (``spent``, and ``by``: the journal of the update
that rolled it), in the same transaction, and the update's journal points at the offer
(``of:HOME:ID``, in the same transaction on one server, right after it on a cluster, where
the journal is in the sender's slot). An update dropped before its result could be shown
gives that back (:func:`give_back_offers`, ARCHITECTURE.md "Nothing lost, nothing twice"):
a step of its own in the campaign's slot, marked in the offer (``refunded``), so a repeat of
the drop gives nothing twice.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline

from rules.sheet import Sheet, new_sheet, to_json
from table.scope import Campaign
from table.store import journaled
from table.store.base import CHAT_TTL, FLOW_ID_BYTES, PREFIX, log_key, sheet_key, tag
from table.store.flows import SheetSpend
from table.store.journal import Spent, dump_spent, give_back, load_spent, spent_between
from table.store.log import LogEntry, LogStore
from table.store.scripts import Lua, as_int
from table.store.sheets import parse_sheet

# An offer not pressed within this is gone: its button then answers «closed». A rolled one
# is kept as long, so a second press or a re-run of the update shows the same result.
OFFER_TTL = 30 * 60
PLAYS_CAP = 20  # campaigns remembered per player; more are forgotten, the last one kept


def offer_key(home: int | Campaign, offer_id: str) -> str:
    return f"{PREFIX}:offer:{tag(home)}:{offer_id}"


def plays_key(user_id: int) -> str:
    """In the player's own slot: their inline queries and private chat are journaled there."""
    return f"{PREFIX}:plays:{tag(user_id)}"


def offer_pointer(home: int | Campaign, offer_id: str) -> str:
    """The journal's field naming an offer its update rolled and paid for (a topic's key has
    a ``:`` of its own; an offer's id never has one)."""
    return f"of:{home}:{offer_id}"


def pointed_offers(fields: Mapping[Any, Any]) -> list[tuple[Campaign, str]]:
    """(home, offer id) of each offer a journal's fields point at."""
    found = []
    for name in fields:
        kind, _, rest = str(name).partition(":")
        home, _, offer_id = rest.rpartition(":")
        campaign = Campaign.from_key(home) if kind == "of" and offer_id else None
        if campaign is not None:
            found.append((campaign, offer_id))
    return found


async def give_back_offers(redis: Redis, fields: Mapping[Any, Any]) -> list[Spent]:
    """Give back what the offers a dropped update's journal (``fields``) points at spent,
    each in one transaction on its campaign's slot, at most once: the offer says
    ``refunded`` after it. The sheets get the points as they stand now, as
    ``UpdateStore.drop_update`` does. What was given back, now or by an earlier try of
    the same drop (only that update's journal points at the offer)."""
    given_back: list[Spent] = []
    for home, offer_id in pointed_offers(fields):
        okey, skey = offer_key(home, offer_id), sheet_key(home)

        async def apply(pipe: Pipeline, okey: str = okey, skey: str = skey) -> list[Spent]:
            raw, refunded = await pipe.hmget(okey, ["spent", "refunded"])
            spent = load_spent(str(raw)) if raw is not None else []
            if refunded is not None:
                pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
                return spent
            names = sorted({item.field for item in spent})
            now = dict(zip(names, await pipe.hmget(skey, names), strict=True)) if names else {}
            given: dict[Any, Any] = {}
            for item in spent:
                sheet = parse_sheet(given.get(item.field, now.get(item.field)))
                if sheet is not None:
                    given[item.field] = to_json(give_back(sheet, item.points))
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            if raw is not None:
                if given:
                    pipe.hset(skey, mapping=given)
                pipe.hset(okey, "refunded", "1")
            return [item for item in spent if item.field in given]

        done: list[Spent] = await redis.transaction(apply, okey, skey, value_from_callable=True)
        given_back += done
    return given_back


def new_offer_id() -> str:
    return secrets.token_urlsafe(FLOW_ID_BYTES)


# The player's last campaign, where a cluster keeps it apart from the update's finish.
PLAYED = Lua("played", keys=("plays",), args=("campaign", "title", "cap"), reply=as_int)


def _text(raw: str | bytes | None) -> str | None:
    return raw.decode() if isinstance(raw, bytes) else raw


class InlineStore(LogStore):
    async def plays(self, user_id: int) -> tuple[Campaign | None, dict[Campaign, str]]:
        """The campaign the player's inline rolls belong to (None: none yet) and every
        campaign they played in, a group's own game or a forum topic, with its title."""
        raw = await self.redis.hgetall(plays_key(user_id))
        played = {
            campaign: str(title)
            for name, title in raw.items()
            if str(name).startswith("c:")
            and (campaign := Campaign.from_key(str(name)[2:])) is not None
        }
        last = Campaign.from_key(str(raw.get("last", "")))
        return (last if last in played else None), played

    async def choose_play(self, user_id: int, campaign: Campaign) -> bool:
        """Make one of the player's campaigns the one of their inline rolls; False when it is
        not one of theirs (a forged or forgotten button)."""
        journaled.forget(self.scope)
        key = plays_key(user_id)

        async def apply(pipe: Pipeline) -> bool:
            known = await pipe.hexists(key, f"c:{campaign.key}")
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            if known:
                pipe.hset(key, "last", campaign.key)
                pipe.expire(key, CHAT_TTL)
            return bool(known)

        return await self._watched(key, apply)

    async def put_offers(self, home: int | Campaign, offers: Mapping[str, str]) -> None:
        """Keep the offers of one inline answer (id → JSON) for ``OFFER_TTL``: a re-run of
        the query makes new ones, and the unchosen ones expire unseen."""
        journaled.forget(self.scope)
        if not offers:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for offer_id, data in offers.items():
                pipe.hset(offer_key(home, offer_id), "offer", data)
                pipe.expire(offer_key(home, offer_id), OFFER_TTL)
            await pipe.execute()

    async def load_offer(
        self, home: int | Campaign, offer_id: str
    ) -> tuple[str | None, str | None]:
        """(the offer's JSON, its result's text once rolled); (None, None) when it is gone."""
        offer, rolled = await self.redis.hmget(offer_key(home, offer_id), ["offer", "rolled"])
        return _text(offer), _text(rolled)

    async def settle_offer(
        self,
        home: int | Campaign,
        offer_id: str,
        result: Callable[[Sheet | None], str],
        *,
        spend: SheetSpend | None = None,
        entries: Sequence[LogEntry] = (),
    ) -> tuple[bool, str | None]:
        """Roll the offer once: in one transaction on the campaign's slot, the offer marked
        with its result's text (``result`` of the sheet after the spend), the ``spend`` off
        the sheet and the log lines. (True, text) for the press that rolled it; (False, the
        text rolled before) for any later one, or (False, None) when the offer is gone. A
        spend the sheet cannot pay raises ``RulesInputError`` and writes nothing. Inside an
        update, what the roll paid is written down for a drop to give back (module
        docstring)."""
        journaled.forget(self.scope)
        home = self.at(home)  # the log line's campaign is the sheet's
        okey, skey = offer_key(home, offer_id), sheet_key(home)
        running = self.scope.journal
        by = running.key if running is not None else ""
        # The journal's pointer is still to be written: on a cluster after a roll that paid,
        # and on a run again of the update that rolled it (a crash may have come between).
        repoint: list[bool] = [False]

        async def apply(pipe: Pipeline) -> tuple[bool, str | None]:
            repoint[0] = False  # a lost WATCH runs this again on fresh data
            offer, rolled, spender = await pipe.hmget(okey, ["offer", "rolled", "by"])
            if offer is None or rolled is not None:
                repoint[0] = bool(by) and _text(spender) == by
                return False, _text(rolled)
            updated: Sheet | None = None
            before: Sheet | None = None
            if spend is not None:
                before = parse_sheet(await pipe.hget(skey, spend.field()))
                if before is None and spend.create:
                    before = new_sheet(spend.system)
                updated = spend.change(before) if before is not None else None
            text = result(updated)
            spent = spent_between(spend.field(), before, updated) if spend is not None else None
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            pipe.hset(okey, "rolled", text)
            if spent is not None and by:
                pipe.hset(okey, mapping={"spent": dump_spent([spent]), "by": by})
                if not self.cluster:  # one server: the journal's pointer in the same step
                    pipe.hset(by, offer_pointer(home, offer_id), "1")
                repoint[0] = self.cluster
            pipe.expire(okey, OFFER_TTL)
            if spend is not None and updated is not None:
                pipe.hset(skey, spend.field(), to_json(updated))
            self._queue_log(pipe, home, tuple(entries))
            return True, text

        outcome: tuple[bool, str | None] = await self.redis.transaction(
            apply, okey, skey, log_key(home), value_from_callable=True
        )
        if repoint[0]:  # the journal is in the sender's slot, apart from the offer's
            await self.redis.hset(by, offer_pointer(home, offer_id), "1")
        return outcome
