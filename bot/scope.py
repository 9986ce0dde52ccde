"""What one update plays in and has done so far, in one explicit value (ARCHITECTURE.md,
"The update's scope").

An update carries more than its Telegram payload: the campaign it plays in, who sent it (the
actor a flow's step records), the languages it is drawn in, its journal and read-ahead
(bot/store/journal.py), what it has sent and whom each message is about (bot/sent.py), the
command its messages reply to, its flood-wait budget and the callback queries it answered
(bot/session.py).

The state middleware builds one :class:`Scope` per update and hands it on by argument only:
handlers get it as ``scope`` with a Store bound to it (``Store.bound``) as ``store`` and a Bot
bound to it (:func:`scoped_bot`) as ``bot``; the update's event objects are bound to that Bot,
so ``message.answer(...)`` goes through it and the Telegram session's request middlewares read
the scope from the Bot they are handed. Nothing is found by the running task: a task started
inside an update sees the scope only if it is handed it, and code outside an update (start-up,
the Mini App before it builds its own scope) sees an empty one.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aiogram.types import TelegramObject

if TYPE_CHECKING:
    from aiogram import Bot
    from aiogram.types import User

    from bot.sent import Outbox
    from bot.store.journal import Journal, Prefetch
    from bot.store.updates import Subject


# How long one update may wait out Telegram's flood control (429 with ``retry_after``):
# Telegram asks for a minute at most in practice, and a result shown late beats a result
# never shown, which the player may already have paid for (ARCHITECTURE.md).
FLOOD_WAIT_BUDGET = 600.0


@dataclass
class FloodBudget:
    """The seconds of 429 waits the running update has left (:data:`FLOOD_WAIT_BUDGET`),
    spent by the session's retries (bot/session.py). Kept here, with the scope that holds
    it, so the scope imports nothing of the session."""

    left: float = FLOOD_WAIT_BUDGET


@dataclass(frozen=True, slots=True)
class Campaign:
    """The game an update plays in: a chat, and one day a forum topic of it.

    ``thread_id`` is None for a chat's own game; :attr:`key` is the text of the campaign's
    hash tag in its keys (bot/store/base.py ``tag``), so a topic made a campaign of its own
    gets a slot of its own by changing this value alone."""

    chat_id: int
    thread_id: int | None = None

    @property
    def key(self) -> str:
        if self.thread_id is None:
            return str(self.chat_id)
        return f"{self.chat_id}:{self.thread_id}"


@dataclass(frozen=True, slots=True)
class Actor:
    """Who sent the update: their id, their first name and (when Telegram gave one) their
    full name. A tap's step gets it (bot/runner.py), and the Store records its id as the
    step's actor: one value, from the update's scope."""

    id: int
    name: str
    full_name: str | None = None

    @property
    def whole_name(self) -> str:
        return self.full_name or self.name

    @classmethod
    def of(cls, user: User) -> Actor:
        return cls(id=user.id, name=user.first_name, full_name=user.full_name)


@dataclass(slots=True)
class Scope:
    """What the running update knows beyond its payload; empty outside an update.

    Mutable on purpose: the layers of an update fill it in turn (the delivery its flood-wait
    budget, the error middleware its answered callbacks, the state middleware its journal and
    actor, the locale middleware its languages), and a handler says whom its messages are
    about or how its line was read (:meth:`note_understood`)."""

    campaign: Campaign | None = None  # the game the update plays in (None: outside one)
    actor: Actor | None = None  # who sent the update: the actor of a flow's step (bot/runner.py)
    locale: str | None = None  # the language a message opened now is drawn in (bot/i18n.py)
    pinned: str | None = None  # the chat's pinned language, None when it pinned none
    own: str | None = None  # the sender's own language (the pinned one if any)
    journal: Journal | None = None  # the update's writes, replayed on a re-run
    prefetch: Prefetch | None = None  # what the update's first round-trip read ahead
    subject: Subject | None = None  # whom the messages sent now are about (bot/replies.py)
    outbox: Outbox | None = None  # what the update sent to its chat (bot/sent.py)
    command: tuple[int, int] | None = None  # the group command its messages reply to
    flood_budget: FloodBudget | None = None  # seconds of 429 waits left (bot/session.py)
    answered: set[str] | None = None  # callback queries answered so far (bot/session.py)
    # how a command was read otherwise than typed («/к 7 6» as «/r 7 6», bot/typos.py; a
    # name a slip away, bot/rolling.py): the chat and the words that say so, put at the top
    # of the first message sent there (bot/session.py)
    understood: tuple[int, str] | None = None
    hushed: bool = False  # a secret line (a hidden roll): nothing of it is said (bot/typos.py)
    dice: Any = None  # the update's dice, a session's when one runs (bot/fairness.py)

    def note_understood(self, chat_id: int, note: str) -> None:
        """Say ``note`` (made in the reader's language) at the top of the update's first
        message to ``chat_id``, after any note already waiting; nothing after :meth:`hush`.
        Outside an update the scope is a throw-away one, and the note goes nowhere."""
        if self.hushed:
            return
        held = self.understood
        self.understood = (chat_id, note if held is None else held[1] + "\n" + note)

    def hush(self) -> None:
        """The rest of the update says nothing of how its line was read: a hidden roll's
        group must not learn its pool from «Поняли как /h 7 6»."""
        self.hushed = True
        self.understood = None

    @property
    def actor_id(self) -> int:
        """The sender's id, 0 when the update has none (a step stored outside an update)."""
        return self.actor.id if self.actor is not None else 0

    @contextmanager
    def about(self, subject: Subject | None) -> Iterator[None]:
        """What is sent inside is about ``subject`` (None: about nobody, such as the round
        tracker); whom the update's messages were about before comes back after."""
        before = self.subject
        self.subject = subject
        try:
            yield
        finally:
            self.subject = before


# The attribute of a Bot bound to an update that holds its scope (:func:`scoped_bot`).
_SCOPE = "scope"


def scoped_bot(bot: Bot, scope: Scope) -> Bot:
    """A Bot for one update: a shallow copy of the shared one (the same session, HTTP
    connector and token) that carries ``scope``, so the session's request middlewares under
    its methods read the update's scope from the Bot they are handed (bot/session.py)."""
    view = copy.copy(bot)
    vars(view)[_SCOPE] = scope
    return view


def scope_of(bot: Bot | None) -> Scope | None:
    """The scope a Bot carries (:func:`scoped_bot`); None for the shared Bot."""
    found = vars(bot).get(_SCOPE) if bot is not None and hasattr(bot, "__dict__") else None
    return found if isinstance(found, Scope) else None


def bind(obj: Any, bot: Bot | None) -> None:
    """Bind a Telegram object and every object inside it to ``bot`` (aiogram's ``as_``), so
    the shortcuts of the update's message, callback query and inline query call through the
    update's Bot. No validation: the fields Telegram sent are walked and re-pointed, nothing
    else (aiogram would validate the whole update again to bind it to another Bot)."""
    if isinstance(obj, TelegramObject):
        obj._bot = bot  # what ``as_`` does, without its call
        fields = obj.__dict__
        for name in obj.__pydantic_fields_set__:  # what Telegram sent: a few of its fields
            value = fields.get(name)
            if isinstance(value, _NESTED):
                bind(value, bot)
    elif isinstance(obj, list | tuple):
        for item in obj:
            if isinstance(item, _NESTED):
                bind(item, bot)


_NESTED = (TelegramObject, list, tuple)
