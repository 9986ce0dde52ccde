"""``/screen`` (ширма): the Storyteller's screen, in their private chat (docs/product.md §2b).

One message per campaign the user runs, each a flow of the private chat (its owner the
Storyteller) that names the campaign; its buttons take the runner's road (``tap.TAP``) and
read the campaign afresh at every press, so the screen always shows the sheets as they are.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.enums import ChatType
from aiogram.filters import Command
from aiogram.types import Message

from bot import runner
from bot.i18n import drawing
from handlers.screen import view
from handlers.screen.flow import SCREEN_TTL, ScreenFlow
from handlers.screen.table import read_campaign
from handlers.screen.tap import TAP
from handlers.screen.watch import Pointer, digest, redraw_open
from table.store import Store


def make_router() -> Router:
    router = Router(name="screen")
    router.message.register(screen_command, Command("screen"))
    runner.register(router, TAP)
    return router


async def screen_command(message: Message, store: Store, locale: str = "ru") -> None:
    user = message.from_user
    if message.chat.type != ChatType.PRIVATE or user is None:
        await message.answer(view.private_only_text())
        return
    _chosen, runs = await store.campaigns(user.id)
    shown = 0
    for chat_id, title in sorted(runs.items(), key=lambda item: item[1].casefold()):
        campaign = await read_campaign(store, chat_id, title)
        if not campaign.runs(user.id):
            continue
        roster = tuple(c.key for c in campaign.everyone)
        state = ScreenFlow(
            campaign=chat_id.chat_id, thread=chat_id.thread_id, title=title, roster=roster
        )
        state = state.model_copy(
            update={"opened": digest(view.screen_text(state, campaign, locale))}
        )
        flow = await store.create_flow(state, message.chat.id, user.id, ttl=SCREEN_TTL)
        with drawing(flow):
            text, markup = view.draw(flow, state, campaign, locale)
        sent = await message.answer(text, reply_markup=markup)
        # The campaign names its open screen, so the group's changes redraw it (watch.py).
        pointer = Pointer(message.chat.id, flow.id, sent.message_id)
        await store.update_chat(chat_id, screen=pointer.stored())
        # A change the group made between the drawing and that write found no screen named:
        # the screen catches up now (nothing is edited when nothing changed).
        if message.bot is not None:
            await redraw_open(message.bot, store, chat_id, pointer)
        shown += 1
    if not shown:
        await message.answer(view.no_campaign_text())
