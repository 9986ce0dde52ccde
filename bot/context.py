"""The running update's own state, in one explicit record (ARCHITECTURE.md, "Per-update context").

An update carries more than its Telegram payload: who sent it (the actor a flow's step
records), the languages it is drawn in, its journal and read-ahead (bot/store/journal.py),
what it has sent and whom each message is about (bot/sent.py), the command its messages
reply to, its flood-wait budget and the callback queries it answered (bot/session.py).

The middlewares fill one :class:`UpdateContext` per update and hand it to handlers as
``ctx`` through aiogram's dependency injection. What cannot take an argument — the Store
under a feature's call, a request middleware under aiogram's ``Bot`` methods, a view drawing
in a message's language — finds it by the asyncio task that runs the update: the middleware
registers the record for its task on entry and removes it on exit (:func:`using`). Nothing is
copied implicitly: a task started inside an update sees no context unless it is handed one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.sent import Outbox
    from bot.session import FloodBudget
    from bot.store.journal import Journal, Prefetch
    from bot.store.updates import Subject


@dataclass(slots=True)
class UpdateContext:
    """What the running update knows beyond its payload; empty outside an update.

    Mutable on purpose: the layers of an update fill it in turn (the delivery its flood-wait
    budget, the state middleware its journal and actor, the locale middleware its languages),
    and :func:`using` puts back what a layer changed when it is done.
    """

    actor: int = 0  # who sent the update: the actor of a flow's step (bot/taps.py)
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


# The context of each task running an update. A plain dict the middlewares fill and empty:
# the only way in is :func:`using`, so whatever is here was put here by name.
_running: dict[asyncio.Task[Any] | None, UpdateContext] = {}


def _task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # no event loop: a synchronous test
        return None


def current() -> UpdateContext:
    """The running update's context; an empty, throw-away one outside an update."""
    found = _running.get(_task())
    return found if found is not None else UpdateContext()


@contextmanager
def using(**fields: Any) -> Iterator[UpdateContext]:
    """Set ``fields`` of the running update's context for the block, then put the old values
    back; outside an update, a context for this task is made for the block's length."""
    task = _task()
    ctx = _running.get(task)
    made = ctx is None
    if ctx is None:
        ctx = _running[task] = UpdateContext()
    before = {name: getattr(ctx, name) for name in fields}
    for name, value in fields.items():
        setattr(ctx, name, value)
    try:
        yield ctx
    finally:
        for name, value in before.items():
            setattr(ctx, name, value)
        if made:
            del _running[task]


def note_understood(chat_id: int, note: str) -> None:
    """Say ``note`` (made in the reader's language) at the top of the update's first message
    to ``chat_id``, after any note already waiting; nothing outside an update."""
    ctx = _running.get(_task())
    if ctx is None or ctx.hushed:
        return
    held = ctx.understood
    ctx.understood = (chat_id, note if held is None else held[1] + "\n" + note)


def hush() -> None:
    """The rest of the running update says nothing of how its line was read: a hidden roll's
    group must not learn its pool from «Поняли как /h 7 6»."""
    ctx = _running.get(_task())
    if ctx is not None:
        ctx.hushed = True
        ctx.understood = None
