"""What the features do once an update's own work is done (``Feature.after_update``): the
Storyteller's screen redrawn when the group changed what it shows.

The middleware is the innermost of the chain (bot/app.py), so it runs inside the update's
state — its store, settings and journal — after the handler's replies were sent, and before
the update is finished; only after an update that asked the store for a write, since one
that wrote nothing (a refused press, a question) moved nothing another message shows. What
a hook does is a courtesy to another message: a Telegram or Redis error there is logged and
costs only that courtesy, never the update's own result.
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
from table.store.journal import Journal

log = logging.getLogger(__name__)
# What a courtesy to another message may meet: Redis or Telegram away or refusing.
COURTESY_ERRORS: tuple[type[BaseException], ...] = (*REDIS_ERRORS, TelegramAPIError)


def may_have_changed(journal: Journal) -> bool:
    """Whether the update asked the store for any write (a transaction, a new flow, a flow's
    step, a log line), in this run or an earlier one."""
    return bool(journal.taken or journal.steps or journal.marked or journal.rolled)


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
        journal = data.get("journal")
        if isinstance(journal, Journal) and not may_have_changed(journal):
            return result  # a refused press, a question: nothing another message shows moved
        for hook in self.hooks:
            try:
                await hook(event, data)
            except COURTESY_ERRORS as error:
                log.info("after the update, %s did not run: %s", hook.__qualname__, error)
        return result
