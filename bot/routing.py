"""A Dispatcher that offers a message only to the routers that could take it.

aiogram offers every message to each feature's router in turn, and each router runs its
handlers' filters one by one: a ``/r 7 6`` paid for the routers before ``/r``'s (their
middleware wrapping, their ``Command`` filters), about a sixth of a roll's CPU in-process
(bench/cpu.py). A router whose every message handler carries a ``Command`` filter can only
take a message that names one of those commands, so it is skipped for any other; a router
with any other message handler (a pasted sheet, a reply, a typed d6 line), a root filter, an
outer middleware, or a command given as a pattern is offered every message, as before. What
a router would have done is unchanged: a skipped router is one whose filters all refuse.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from aiogram import Dispatcher, Router
from aiogram.dispatcher.event.bases import UNHANDLED
from aiogram.dispatcher.event.telegram import TelegramEventObserver
from aiogram.filters import Command
from aiogram.types import BotCommand, Message, TelegramObject

# Every message: a router that takes more than commands.
ANY = None


def message_commands(router: Router) -> frozenset[str] | None:
    """The lower-cased command names a router (with its sub-routers) can take a message
    for, or :data:`ANY` when it may take a message whatever it says."""
    observer = router.message
    if observer._handler.filters or observer.outer_middleware:
        return ANY
    names: set[str] = set()
    for handler in observer.handlers:
        commands = [f.callback for f in handler.filters or () if isinstance(f.callback, Command)]
        if not commands:
            return ANY
        taken = _names(commands[0].commands)  # filters are all required: one is enough
        if taken is ANY:
            return ANY
        names |= taken
    for sub in router.sub_routers:
        taken = message_commands(sub)
        if taken is ANY:
            return ANY
        names |= taken
    return frozenset(names)


def _names(commands: Iterable[object]) -> frozenset[str] | None:
    names: set[str] = set()
    for command in commands:
        if isinstance(command, BotCommand):
            names.add(command.command.lower())
        elif isinstance(command, str):
            names.add(command.lower())
        else:  # a pattern: no name to key on
            return ANY
    return frozenset(names)


def command_name(message: Message) -> str | None:
    """The command a message names as aiogram's ``Command`` filter reads it (the first word
    of its text or caption, after the prefix, before any ``@mention``), lower-cased."""
    text = message.text or message.caption
    if not text:
        return None
    words = text.split(maxsplit=1)
    if not words:
        return None
    return words[0][1:].partition("@")[0].lower()


class RoutedDispatcher(Dispatcher):
    """:class:`aiogram.Dispatcher` with messages offered only to the routers that could
    take them (:func:`message_commands`); every other event goes the usual way."""

    def __init__(self, **kwargs: Any) -> None:
        self._commands: dict[int, frozenset[str] | None] = {}
        super().__init__(**kwargs)

    def include_router(self, router: Router) -> Router:
        included = super().include_router(router)
        self._commands[id(router)] = message_commands(router)
        return included

    async def _propagate_event(
        self,
        observer: TelegramEventObserver | None,
        update_type: str,
        event: TelegramObject,
        **kwargs: Any,
    ) -> Any:
        own = self.observers["message"]
        if update_type != "message" or not isinstance(event, Message) or own.handlers:
            return await super()._propagate_event(observer, update_type, event, **kwargs)
        result, data = await own.check_root_filters(event, **kwargs)
        if not result:
            return UNHANDLED
        kwargs.update(data)
        name = command_name(event)
        response = UNHANDLED
        for router in self.sub_routers:
            taken = self._commands.get(id(router), ANY)
            if taken is not ANY and name not in taken:
                continue
            response = await router.propagate_event(update_type=update_type, event=event, **kwargs)
            if response is not UNHANDLED:
                break
        return response
