"""``/log`` and ``/stats``: the chat's recent rolls and whether its dice look fair.

``/log`` reads the roll log and the chat's hidden rolls in one round-trip; a hidden roll shows
as «тайный бросок» until it is revealed (``merge_history``). ``/stats`` reads the counters kept
for the whole campaign as the dice are rolled, where a hidden roll counts from its reveal; it is
docs/product.md's promise that anyone can check the dice: ``bot.stats`` runs the chi-square
test, the view says its verdict in a sentence.
"""

from __future__ import annotations

from typing import Any

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import Message

from bot import hidden_rolls, render, runner
from bot.runner import Keep
from bot.stats import from_counters
from bot.store import LOG_CAP, Store
from handlers.history import view
from handlers.history.callbacks import LogCallback
from rules.errors import ErrorCode, RulesInputError


def make_router() -> Router:
    router = Router(name="history")
    router.message.register(log_command, Command("log"))
    router.message.register(stats_command, Command("stats"))
    runner.register(router, LOG_TAP)
    return router


async def log_command(message: Message, store: Store) -> None:
    entries, hidden = await store.history(message.chat.id)
    merged = hidden_rolls.merge_history(entries, hidden)
    text, shown = view.log_page(merged)
    await message.answer(text, reply_markup=view.log_keyboard(0, shown, len(merged)))


Log = list[dict[str, Any]]


async def load_log(pressed: runner.Pressed[LogCallback]) -> Log | runner.Refuse:
    """The log as it is now, hidden rolls merged: the log moves on between presses, so a page
    is «the entries from the n-th newest», which is what the button says."""
    message = pressed.message
    if message is None:
        return runner.refuse(render.invalid_button_text)
    entries, hidden = await pressed.store.history(message.chat.id)
    return hidden_rolls.merge_history(entries, hidden)


def log_step(merged: Log, data: LogCallback, actor: runner.Actor, seen: runner.Seen[None]) -> Keep:
    """A page of the log, for anyone: stateless, so any copy of any page may be pressed."""
    if not 0 <= data.o < LOG_CAP:
        raise RulesInputError(ErrorCode.RANGE, "offset", str(data.o))
    return Keep()


def log_view(merged: Log, data: LogCallback, seen: runner.Seen[None]) -> runner.Drawn:
    offset = min(data.o, max(0, len(merged) - 1))
    text, shown = view.log_page(merged, offset)
    return text, view.log_keyboard(offset, shown, len(merged))


LOG_TAP: runner.RecordTap[Log, LogCallback, None] = runner.RecordTap(
    name="log", callback=LogCallback, load=load_log, step=log_step, view=log_view
)


async def stats_command(message: Message, store: Store) -> None:
    """The whole campaign's counters, one read (ARCHITECTURE.md "Statistics of a whole
    campaign"); a hidden roll counts from its reveal."""
    counters = await store.campaign_counters(message.chat.id, hidden_rolls.older_tally)
    await message.answer(view.stats_text(from_counters(counters)))
