"""A Dispatcher that offers a message only to the routers that could take it.

aiogram offers every message to each feature's router in turn, and each router runs its
handlers' filters one by one: a ``/r 7 6`` paid for the routers before ``/r``'s (their
middleware wrapping, their ``Command`` filters), about a sixth of a roll's CPU in-process
(bench/cpu.py). A router whose every message handler carries a ``Command`` filter can only
take a message that names one of those commands, so it is skipped for any other; a router
with any other message handler (a pasted sheet, a reply, a typed d6 line), a root filter, an
outer middleware, or a command given as a pattern is offered every message, as before. What
a router would have done is unchanged: a skipped router is one whose filters all refuse.

Before that, a command typed as phones type it is read as meant (table/typos.py): ``/R 7 6``,
``/к 7 6`` on the Russian layout, ``/r6 7``, a Latin «c» in ``cв``, ``ловкость + драка``.
The message is offered as the line the grammar reads, so every command takes it as its own;
a line read on the other layout is said at the top of its answer (bot/session.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from aiogram import Bot, Dispatcher, Router
from aiogram.dispatcher.event.bases import UNHANDLED
from aiogram.dispatcher.event.telegram import TelegramEventObserver
from aiogram.enums import MessageEntityType
from aiogram.filters import Command
from aiogram.types import BotCommand, Message, TelegramObject

from bot import render
from table import typos
from table.scope import Scope

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
        self._known: frozenset[str] | None = None
        super().__init__(**kwargs)

    def include_router(self, router: Router) -> Router:
        """Include ``router`` as aiogram does, keyed by the commands it takes
        (:func:`message_commands`), so a message naming none of them skips it."""
        included = super().include_router(router)
        self._commands[id(router)] = message_commands(router)
        self._known = None
        return included

    def known_commands(self) -> frozenset[str]:
        """Every command name some router takes: those its filters name, and the menu's."""
        if self._known is None:
            names: set[str] = set()
            for taken in self._commands.values():
                names |= taken or frozenset()
            features = self.workflow_data.get("features")
            commands = getattr(features, "command_names", None)
            if callable(commands):
                names |= set(commands())
            self._known = frozenset(names)
        return self._known

    async def _as_meant(
        self, event: Message, bot: Bot | None
    ) -> tuple[Message, tuple[int, str] | None]:
        """The message with its command line as the grammar reads it (table/typos.py), and
        the line to say in its answer when it was read on the other layout."""
        text = event.text
        if not text or not text.startswith("/"):
            return event, None
        head = text.split(maxsplit=1)[0]
        username = None
        if "@" in head and bot is not None:
            username = (await bot.me()).username
        known = self.known_commands()
        entities = event.entities
        if entities and any(e.type != MessageEntityType.BOT_COMMAND for e in entities):
            # A mention is found by its offset: only the command's own word is read again.
            reading = typos.read_line(head, known, bot_username=username)
            if reading is None:
                return event, None
            line = reading.line + text[len(head) :]
        else:
            reading = typos.read_line(text, known, bot_username=username)
            if reading is None:
                return event, None
            line = reading.line
        command = line.split(maxsplit=1)[0]
        if entities:
            # the text before the arguments changed by this much (nothing after it did)
            shift = _utf16(line) - _utf16(text) if line.endswith(text[len(head) :]) else 0
            entities = [
                e.model_copy(update={"length": _utf16(command)})
                if e.offset == 0
                else e.model_copy(update={"offset": e.offset + shift})
                for e in entities
            ]
        understood = (event.chat.id, render.understood_text(line)) if reading.said else None
        return event.model_copy(update={"text": line, "entities": entities}), understood

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
        meant, understood = await self._as_meant(event, kwargs.get("bot"))
        scope = kwargs.get("scope")
        if understood is None or not isinstance(scope, Scope):
            return await self._offer(update_type, meant, kwargs)
        before, scope.understood = scope.understood, understood  # said in its first answer
        try:
            return await self._offer(update_type, meant, kwargs)
        finally:
            scope.understood = before

    async def _offer(self, update_type: str, event: Message, kwargs: dict[str, Any]) -> Any:
        """The message to each router that could take it, in order, until one does."""
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


def _utf16(text: str) -> int:
    """A text's length as Telegram counts entity offsets: in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2
