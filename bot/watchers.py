"""What the features do once an update's own work is done (``Feature.after_update``): the
Storyteller's screen redrawn when the group changed what it shows.

The middleware is the innermost of the chain (bot/app.py), so it runs inside the update's
state — its store, settings and journal — after the handler's replies were sent, and before
the update is finished. What a hook does is a courtesy to another message: a Telegram or
Redis error there is logged and costs only that courtesy, never the update's own result.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from aiogram import BaseMiddleware
from aiogram.exceptions import TelegramAPIError
from aiogram.types import TelegramObject, Update

from bot.features import AfterUpdate
from table.store.base import REDIS_ERRORS

log = logging.getLogger(__name__)
# What a courtesy to another message may meet: Redis or Telegram away or refusing.
COURTESY_ERRORS: tuple[type[BaseException], ...] = (*REDIS_ERRORS, TelegramAPIError)


class AfterUpdateMiddleware(BaseMiddleware):
    def __init__(self, hooks: Sequence[AfterUpdate]) -> None:
        self.hooks = tuple(hooks)

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        result = await handler(event, data)
        if not self.hooks or data.get("update_skipped") or not isinstance(event, Update):
            return result
        for hook in self.hooks:
            try:
                await hook(event, data)
            except COURTESY_ERRORS as error:
                log.info("after the update, %s did not run: %s", hook.__qualname__, error)
        return result
