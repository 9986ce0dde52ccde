"""What one update plays in and has done so far, in one explicit value (ARCHITECTURE.md,
"The update's scope").

An update carries more than its Telegram payload: the campaign it plays in, who sent it (the
actor a flow's step records), the languages it is drawn in, its journal and read-ahead
(table/store/journal.py), what it has sent and whom each message is about (bot/sent.py), the
command its messages reply to, its flood-wait budget and the callback queries it answered
(bot/session.py).

The state middleware (bot/middlewares.py) builds one :class:`Scope` per update and hands it
on by argument only: handlers get it as ``scope`` with a Store bound to it (``Store.bound``)
as ``store``, and a Bot bound to it (bot/scope.py) as ``bot``. Nothing is found by the running
task: a task started inside an update sees the scope only if it is handed it, and code
outside an update (start-up, the Mini App before it builds its own scope) sees an empty one.
It is the application's value, so it knows no Telegram type: the outbox it carries is
bot/sent.py's, which the sender checks for by its type.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from table.store.journal import Journal, Prefetch


class Subject(BaseModel):
    """Whom a bot message is about: the player whose command or tap it answers."""

    model_config = ConfigDict(frozen=True)

    user_id: int
    name: str
    username: str | None = None


class Person(Protocol):
    """Who sent an update, as the chat names them (a Telegram user has these)."""

    @property
    def id(self) -> int: ...
    @property
    def first_name(self) -> str: ...
    @property
    def full_name(self) -> str: ...


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
    """The game an update plays in: a chat, or a topic of a forum supergroup.

    ``thread_id`` is None for a chat's own game (a group, a private chat, a forum's
    General); a forum topic is a campaign of its own, ``Campaign(chat, thread)``.
    :attr:`key` is the text of the campaign's hash tag in its keys (table/store/base.py
    ``tag``): ``chat`` for the chat's own game, so what was stored before topics were
    campaigns stays the chat's (General's), and ``chat:thread`` for a topic, a slot of its
    own."""

    chat_id: int
    thread_id: int | None = None
    # the topic's name when the update showed it (said when a closed topic's answer goes to
    # General); no part of the campaign's identity
    name: str | None = field(default=None, compare=False, hash=False)

    @property
    def key(self) -> str:
        if self.thread_id is None:
            return str(self.chat_id)
        return f"{self.chat_id}:{self.thread_id}"

    def __str__(self) -> str:
        return self.key

    @classmethod
    def from_key(cls, text: str) -> Campaign | None:
        """The campaign whose :attr:`key` is ``text``; None for anything else."""
        chat, _, thread = text.partition(":")
        return cls.from_button(f"{chat}t{thread}" if thread else chat)

    def titled(self, chat_title: str) -> str:
        """How a list names the campaign: the chat's title, and its topic's name after it
        («Хроника › Маг») when it is a topic's."""
        if self.thread_id is None:
            return chat_title
        return f"{chat_title} › {self.name or '#' + str(self.thread_id)}"

    @property
    def button(self) -> str:
        """The campaign in a button's callback_data, whose fields ``:`` separates: the
        chat's id, and ``t`` and the topic's thread id for a topic (``-100123t45``)."""
        if self.thread_id is None:
            return str(self.chat_id)
        return f"{self.chat_id}t{self.thread_id}"

    @classmethod
    def from_button(cls, text: str) -> Campaign | None:
        """The campaign :attr:`button` wrote (or a chat's plain id, as older buttons carry
        it); None for anything else, a forged button's."""
        chat, marked, thread = text.partition("t")
        try:
            chat_id = int(chat)
            thread_id = int(thread) if marked else None
        except ValueError:
            return None
        if thread_id is not None and thread_id <= 1:
            return None
        return cls(chat_id, thread_id)

    @classmethod
    def of(
        cls, chat_id: int, thread_id: int | None, *, is_topic: bool | None, name: str | None = None
    ) -> Campaign:
        """The campaign a message plays in: its topic's when Telegram says it is a topic's
        message (``is_topic_message``), else its chat's. A reply in a non-forum group also
        carries a thread id (the replied-to thread) with no ``is_topic_message``: that is
        the group's own game. General has no thread id (Telegram's 1 is never one)."""
        if is_topic and thread_id is not None and thread_id > 1:
            return cls(chat_id, thread_id, name)
        return cls(chat_id)


# What an update is serialised by (bot/middlewares.py ``update_scope``): a chat's own game
# by its id (as before topics were campaigns), a topic by its campaign, an update outside a
# chat by its sender's id. ``table.store.base.tag`` reads either.
Serial = int | Campaign


def serial_of(campaign: Campaign) -> Serial:
    """The serialisation id of an update playing in ``campaign``: its chat's id for the
    chat's own game (the keys and queues it always had), the campaign for a topic."""
    return campaign.chat_id if campaign.thread_id is None else campaign


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
    def of(cls, user: Person) -> Actor:
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
    outbox: object | None = None  # what the update sent to its chat (bot/sent.py's Outbox)
    command: tuple[int, int] | None = None  # the group command its messages reply to
    flood_budget: FloodBudget | None = None  # seconds of 429 waits left (bot/session.py)
    answered: set[str] | None = None  # callback queries answered so far (bot/session.py)
    # how a command was read otherwise than typed («/к 7 6» as «/r 7 6», table/typos.py; a
    # name a slip away, bot/rolling.py): the chat and the words that say so, put at the top
    # of the first message sent there (bot/session.py)
    understood: tuple[int, str] | None = None
    hushed: bool = False  # a secret line (a hidden roll): nothing of it is said (table/typos.py)
    dice: Any = None  # the update's dice, a session's when one runs (table/fairness.py)

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
