"""The d6 fight's handlers: the tracker's, the attacks' and the wounds', in one router; each
answers only in a d6 chat (``bot.features.in_game``)."""

from __future__ import annotations

from aiogram import Router

from handlers.d6combat.attack import router as attack
from handlers.d6combat.tracker import router as tracker
from handlers.d6combat.wounds import router as wounds


def make_router() -> Router:
    router = Router(name="d6combat")
    router.include_routers(tracker.make_router(), attack.make_router(), wounds.make_router())
    return router
