"""The d10 fight's handlers: the tracker's, the attack panel's, health's and the ambush's, in one
router."""

from __future__ import annotations

from aiogram import Router

from handlers.combat.ambush import router as ambush
from handlers.combat.attack import router as attack
from handlers.combat.health import router as health
from handlers.combat.tracker import router as tracker


def make_router() -> Router:
    router = Router(name="combat")
    router.include_routers(
        tracker.make_router(), attack.make_router(), health.make_router(), ambush.make_router()
    )
    return router
