"""A chat's settings, the de-duplication of updates, and the Storyteller's role (PRODUCT.md §3).

The role is a field of the chat's settings changed by compare-and-set under WATCH, in the
same transaction as the Storytellers' campaign lists, so a list never disagrees with the
chats (PRODUCT.md §2 "Storyteller").
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from redis.asyncio.client import Pipeline

from bot.store.base import (
    UPDATE_TTL,
    StoreBase,
    campaign_pick_key,
    campaigns_key,
    chat_key,
    log,
    update_key,
)

# KEYS[1] update marker, KEYS[2] chat settings (may be absent); ARGV[1] marker TTL.
# Returns {fresh (1/0), settings JSON or false}: one round-trip per update.
_TAKE_UPDATE = """
local fresh = redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1])
if not fresh then
  return {0, false}
end
if KEYS[2] then
  return {1, redis.call('GET', KEYS[2])}
end
return {1, false}
"""


class ChatSettings(BaseModel):
    """What a chat chose: its rules profile, its language, its house-rule switches."""

    model_config = ConfigDict(extra="ignore")

    profile: str = "mage"
    locale: str | None = None
    switches: dict[str, bool | int | str] = Field(default_factory=dict)
    # Who runs the game here (Рассказчик); None until an admin claims it with /st.
    storyteller_id: int | None = None
    storyteller_name: str | None = None


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
    def register_scripts(self) -> None:
        # Registered once: the client sends EVALSHA and reloads the script by itself if a
        # restarted Redis has forgotten it.
        self._take_update = self.redis.register_script(_TAKE_UPDATE)

    async def take_update(
        self, bot_id: int, update_id: int, chat_id: int | None
    ) -> tuple[bool, ChatSettings]:
        """Mark the update as taken and load its chat's settings, in one round-trip.

        Returns ``(False, defaults)`` for an update some replica (or an earlier delivery)
        already took: Telegram re-sends unconfirmed updates after a restart, and a webhook
        retries on a slow answer, and neither may roll the dice twice.
        """
        keys = [update_key(bot_id, update_id)]
        if chat_id is not None:
            keys.append(chat_key(chat_id))
        fresh, raw = await self._take_update(keys=keys, args=[UPDATE_TTL])
        if not fresh:
            return False, ChatSettings()
        return True, parse_chat_settings(raw)

    async def load_chat(self, chat_id: int) -> ChatSettings:
        return parse_chat_settings(await self.redis.get(chat_key(chat_id)))

    async def update_chat(self, chat_id: int, **changes: Any) -> ChatSettings:
        """Read-modify-write under WATCH, so two Storytellers' changes never overwrite each other.

        An unknown field name is a programming error and raises ``TypeError``; a bad value
        raises pydantic's ``ValidationError``; nothing is written in either case.
        """
        unknown = set(changes) - set(ChatSettings.model_fields)
        if unknown:
            raise TypeError(f"unknown chat settings: {', '.join(sorted(unknown))}")
        key = chat_key(chat_id)

        async def apply(pipe: Pipeline) -> ChatSettings:
            current = parse_chat_settings(await pipe.get(key))
            updated = ChatSettings.model_validate({**current.model_dump(), **changes})
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            pipe.set(key, updated.model_dump_json())
            return updated

        return await self._watched(key, apply)

    async def set_storyteller(
        self, chat_id: int, *, expected: int | None, new_id: int, name: str, title: str
    ) -> ChatSettings | None:
        """Make ``new_id`` the chat's Storyteller if the role is still ``expected``'s.

        None when someone else changed the role first (two admins claiming at once: one
        wins, the other's button goes stale). The old Storyteller loses the campaign from
        their list and the new one gains it, with the chat's ``title`` for their buttons.
        """
        key = chat_key(chat_id)

        async def apply(pipe: Pipeline) -> ChatSettings | None:
            current = parse_chat_settings(await pipe.get(key))
            if current.storyteller_id != expected:
                return None
            updated = current.model_copy(
                update={"storyteller_id": new_id, "storyteller_name": name}
            )
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            pipe.set(key, updated.model_dump_json())
            if current.storyteller_id is not None and current.storyteller_id != new_id:
                pipe.hdel(campaigns_key(current.storyteller_id), str(chat_id))
            pipe.hset(campaigns_key(new_id), str(chat_id), title)
            return updated

        return await self._watched(key, apply)

    async def campaigns(self, user_id: int) -> tuple[int | None, dict[int, str]]:
        """The Storyteller's chosen campaign (or None) and every campaign they run: id → title."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(campaign_pick_key(user_id))
            pipe.hgetall(campaigns_key(user_id))
            chosen, titles = await pipe.execute()
        runs = {int(k): str(v) for k, v in titles.items() if str(k).lstrip("-").isdigit()}
        picked = int(chosen) if chosen is not None and chosen.lstrip("-").isdigit() else None
        return picked, runs

    async def choose_campaign(self, user_id: int, chat_id: int) -> None:
        await self.redis.set(campaign_pick_key(user_id), str(chat_id))
