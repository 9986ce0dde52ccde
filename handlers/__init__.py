"""aiogram routers, one per feature; each module exposes ``make_router()``.

The last router answers any button that no feature recognised (garbled or forged
callback_data, or a button of a feature that no longer exists), so every callback query is
answered once and nothing raises.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery

from bot import render


def make_fallback_router() -> Router:
    router = Router(name="fallback")
    router.callback_query.register(unknown_tap)
    return router


async def unknown_tap(callback: CallbackQuery) -> None:
    await callback.answer(render.invalid_button_text(), show_alert=True)


def make_routers() -> list[Router]:
    """Feature routers in order; the fallback must stay last.

    The feature modules are imported here, not at the top, so that importing the pure
    ``bot.parsing`` (which ``bot.render`` reads problem codes from) loads no router.
    """
    from handlers import (
        extended,
        hidden,
        history,
        multi,
        opposed,
        prob,
        requests,
        roll,
        settings,
        setup,
        start,
        storyteller,
        teamwork,
    )
    from handlers import sheet as sheets

    return [
        hidden.make_router(),
        start.make_router(),
        settings.make_router(),
        roll.make_router(),
        prob.make_router(),
        extended.make_router(),
        opposed.make_router(),
        teamwork.make_router(),
        multi.make_router(),
        setup.make_router(),
        sheets.make_router(),
        requests.make_router(),
        storyteller.make_router(),
        history.make_router(),
        make_fallback_router(),
    ]
