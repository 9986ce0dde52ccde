"""A chat's settings and the Storyteller's role (docs/product.md §3).

The role is a field of the chat's settings changed by compare-and-set under WATCH. The
Storytellers' campaign lists follow right after, in the same update: they belong to users,
not to the chat, so on a Redis Cluster they sit in other slots than the chat and cannot be in
its transaction. Their writes can be repeated (a re-run of the update after a crash makes
them again), and whoever reads a list checks the chat's settings for the role
(docs/product.md §2 "Storyteller").
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from redis.asyncio.client import Pipeline

from table.scope import Campaign
from table.store.base import (
    CHAT_TTL,
    StoreBase,
    campaign_pick_key,
    campaigns_key,
    chat_key,
    flow_key,
    log,
    menu_key,
)
from table.store.flows import Flow, Screen, open_at, queue_close


class ChatSettings(BaseModel):
    """What a chat chose: its rules profile, its language, its house-rule switches."""

    model_config = ConfigDict(extra="ignore")

    profile: str = "mage"
    locale: str | None = None
    switches: dict[str, bool | int | str] = Field(default_factory=dict)
    # Who runs the game here (Рассказчик); None until an admin claims it with /st.
    storyteller_id: int | None = None
    storyteller_name: str | None = None
    # The session running now (table/fairness.py): its number and its secret seed (hex), which
    # never leaves Redis and the process before ``/session end`` reveals it.
    session: int | None = None
    session_seed: str | None = None
    # Whether players may read each other's sheets in the Mini App (``/rules set листы=открыты``);
    # a record written before the setting existed lacks it and stays closed, as it was.
    sheets_open: bool = False
    # The Storyteller's screen of this campaign open in their private chat, «CHAT:FLOW:MESSAGE»
    # (handlers/screen): redrawn when the group changes what it shows; None: none open.
    screen: str | None = None
    # A forum topic's name, as its service messages last told it (None: the chat's own game,
    # or a topic whose name the bot has not seen): said where the topic's answer goes to
    # General while it is closed, and in the Storyteller's lists («Хроника › Маг»).
    topic: str | None = None


def parse_chat_settings(raw: str | bytes | None) -> ChatSettings:
    """Stored JSON to settings; a damaged record falls back to the defaults, never crashes."""
    if raw is None:
        return ChatSettings()
    try:
        return ChatSettings.model_validate_json(raw)
    except ValidationError:
        log.warning("damaged chat settings ignored: %r", raw[:200])
        return ChatSettings()


class ChatStore(StoreBase):
    async def load_chat(self, chat_id: int | Campaign) -> ChatSettings:
        return parse_chat_settings(await self.redis.get(chat_key(self.at(chat_id))))

    async def menu_mark(self, chat_id: int | Campaign) -> str | None:
        """The mark of the command menu last published in the chat's own scope (bot/commands.py)."""
        mark = await self.redis.get(menu_key(self.at(chat_id)))
        return str(mark) if mark is not None else None

    async def set_menu_mark(self, chat_id: int | Campaign, mark: str | None) -> None:
        """Remember the menu just published for the chat; None: it has none of its own now."""
        if mark is None:
            await self.redis.delete(menu_key(self.at(chat_id)))
        else:
            await self.redis.set(menu_key(self.at(chat_id)), mark, ex=CHAT_TTL)

    async def update_chat(self, chat_id: int | Campaign, **changes: Any) -> ChatSettings:
        """Read-modify-write under WATCH, so two Storytellers' changes never overwrite each other.

        An unknown field name is a programming error and raises ``TypeError``; a bad value
        raises pydantic's ``ValidationError``; nothing is written in either case.
        """
        unknown = set(changes) - set(ChatSettings.model_fields)
        if unknown:
            raise TypeError(f"unknown chat settings: {', '.join(sorted(unknown))}")
        key = chat_key(self.at(chat_id))

        async def apply(pipe: Pipeline) -> ChatSettings:
            current = parse_chat_settings(await pipe.get(key))
            updated = ChatSettings.model_validate({**current.model_dump(), **changes})
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            pipe.set(key, updated.model_dump_json(), ex=CHAT_TTL)
            return updated

        return await self._watched(key, apply)

    async def swap_chat(
        self, chat_id: int | Campaign, before: ChatSettings, after: ChatSettings
    ) -> bool:
        """Compare-and-set: store ``after`` if the chat's settings are still ``before`` (as a
        button's press read them); False when another change came first."""
        key = chat_key(self.at(chat_id))

        async def apply(pipe: Pipeline) -> bool:
            current = parse_chat_settings(await pipe.get(key))
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            if current != before:
                return False
            pipe.set(key, after.model_dump_json(), ex=CHAT_TTL)
            return True

        return await self._watched(key, apply)

    async def set_storyteller(
        self, chat_id: int | Campaign, *, expected: int | None, new_id: int, name: str, title: str
    ) -> ChatSettings | None:
        """Make ``new_id`` the chat's Storyteller if the role is still ``expected``'s.

        None when someone else changed the role first (two admins claiming at once: one
        wins, the other's button goes stale). The old Storyteller loses the campaign from
        their list and the new one gains it, with the chat's ``title`` for their buttons.
        """
        key = chat_key(self.at(chat_id))

        async def apply(pipe: Pipeline) -> tuple[ChatSettings, int | None] | None:
            current = parse_chat_settings(await pipe.get(key))
            if current.storyteller_id != expected:
                return None
            updated = current.model_copy(
                update={"storyteller_id": new_id, "storyteller_name": name}
            )
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            pipe.set(key, updated.model_dump_json(), ex=CHAT_TTL)
            return updated, current.storyteller_id

        changed = await self._watched(key, apply)
        if changed is None:
            return None
        updated, previous = changed
        await self._list_campaign(chat_id, previous, new_id, title)
        return updated

    async def claim_storyteller(
        self,
        flow: Flow,
        *,
        expected: int | None,
        new_id: int,
        name: str,
        title: str,
        won: Screen,
        lost: Screen,
    ) -> bool | None:
        """A claim's press (its ``flow``, as loaded) in one compare-and-set: the claim closes
        at its version and the role moves to ``new_id`` if it is still ``expected``'s, in one
        transaction; the closed claim keeps ``won``, or ``lost`` when the role had changed
        meanwhile (then only the claim closes). True: the role moved; False: it had changed;
        None: the claim moved since, and nothing was written. The campaign lists follow, as
        after :meth:`set_storyteller`: a user's list is in another slot than the chat."""
        fkey, ckey = flow_key(flow.campaign, flow.id), chat_key(flow.campaign)

        async def apply(pipe: Pipeline) -> tuple[bool, int | None] | None:
            fields = await pipe.hgetall(fkey)
            if not open_at(fields, flow.version):
                return None
            current = parse_chat_settings(await pipe.get(ckey))
            moves = current.storyteller_id == expected
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            queue_close(pipe, flow, fields, won if moves else lost, self.scope.actor_id)
            if moves:
                updated = current.model_copy(
                    update={"storyteller_id": new_id, "storyteller_name": name}
                )
                pipe.set(ckey, updated.model_dump_json(), ex=CHAT_TTL)
            return moves, current.storyteller_id

        claimed = await self._watched([fkey, ckey], apply)
        if claimed is None:
            return None
        moved, previous = claimed
        if moved:
            await self._list_campaign(flow.campaign, previous, new_id, title)
        return moved

    async def _list_campaign(
        self, chat_id: int | Campaign, previous: int | None, new_id: int, title: str
    ) -> None:
        """The campaign leaves the old Storyteller's list and joins the new one's, with the
        chat's ``title`` for their buttons: repeatable writes, in the users' own slots."""
        field = self.at(chat_id).key
        async with self.redis.pipeline(transaction=False) as pipe:
            if previous is not None and previous != new_id:
                pipe.hdel(campaigns_key(previous), field)
            pipe.hset(campaigns_key(new_id), field, title)
            pipe.expire(campaigns_key(new_id), CHAT_TTL)
            await pipe.execute()

    async def campaigns(self, user_id: int) -> tuple[Campaign | None, dict[Campaign, str]]:
        """The Storyteller's chosen campaign (or None) and every campaign they run, a chat's
        own game or a forum topic (its key is the field): campaign → title. Reading them
        renews their clock, as an update renews its chat's."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(campaign_pick_key(user_id))
            pipe.hgetall(campaigns_key(user_id))
            pipe.expire(campaign_pick_key(user_id), CHAT_TTL)
            pipe.expire(campaigns_key(user_id), CHAT_TTL)
            chosen, titles, _, _ = await pipe.execute()
        runs = {
            campaign: str(v)
            for k, v in titles.items()
            if (campaign := Campaign.from_key(str(k))) is not None
        }
        picked = Campaign.from_key(str(chosen)) if chosen is not None else None
        return picked, runs

    async def choose_campaign(self, user_id: int, chat_id: int | Campaign) -> None:
        await self.redis.set(campaign_pick_key(user_id), self.at(chat_id).key, ex=CHAT_TTL)
