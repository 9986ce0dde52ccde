"""Every button of the bot takes the runner's one road (ARCHITECTURE.md "The road a tap
travels"): a feature declares a ``Tap`` or a ``RecordTap`` and ``runner.register`` registers
it; no feature answers a callback query with a handler of its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from aiogram import Router

from bot.runner import on_the_road
from handlers import FEATURES

HANDLERS = Path(__file__).resolve().parents[2] / "handlers"


def _routers(router: Router) -> Iterator[Router]:
    yield router
    for sub in router.sub_routers:
        yield from _routers(sub)


def test_every_features_callback_handler_is_the_runners() -> None:
    found = 0
    for feature in FEATURES:
        for router in _routers(feature.make_router()):
            for handler in router.callback_query.handlers:
                found += 1
                assert on_the_road(handler.callback), (
                    f"{feature.name}: {handler.callback.__name__} answers buttons outside "
                    "bot.runner: declare a Tap or a RecordTap and runner.register it"
                )
    assert found >= 30  # every feature's buttons were looked at, not an empty list


def test_no_feature_registers_a_callback_by_hand() -> None:
    offenders = [
        f"{path.relative_to(HANDLERS.parent)}:{number}"
        for path in sorted(HANDLERS.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "callback_query.register" in line or "@router.callback_query" in line
    ]
    assert offenders == []
