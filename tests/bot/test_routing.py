"""bot/routing.py: a message skips only the routers whose filters would all refuse it."""

from __future__ import annotations

import re

from aiogram import F, Router
from aiogram.filters import Command, CommandStart
from aiogram.types import BotCommand, Message

from bot.routing import ANY, RoutedDispatcher, command_name, message_commands
from tests.bot.telegram_fakes import make_bot, text_update


def commands_router(name: str, seen: list[str], *commands: str | re.Pattern[str]) -> Router:
    router = Router(name=name)

    async def handle(message: Message) -> None:
        seen.append(f"{name}:{message.text}")

    router.message.register(handle, Command(*commands, ignore_case=True))
    return router


def catch_all(seen: list[str]) -> Router:
    router = Router(name="any")

    async def handle(message: Message) -> None:
        seen.append(f"any:{message.text}")

    router.message.register(handle)
    return router


def test_a_router_of_commands_is_keyed_by_their_names() -> None:
    router = commands_router("roll", [], "r", "Roll")
    router.message.register(lambda _m: None, CommandStart(), F.text)
    router.message.register(lambda _m: None, Command(BotCommand(command="Help", description="?")))
    assert message_commands(router) == frozenset({"r", "roll", "start", "help"})


def test_a_router_taking_other_messages_or_patterns_is_offered_everything() -> None:
    assert message_commands(catch_all([])) is ANY
    assert message_commands(commands_router("p", [], re.compile(r"r\d"))) is ANY
    filtered = commands_router("f", [], "r")
    filtered.message.filter(F.chat.type == "group")
    assert message_commands(filtered) is ANY


def test_sub_routers_count_with_their_parent() -> None:
    parent = Router(name="parent")
    parent.include_router(commands_router("a", [], "a"))
    assert message_commands(parent) == frozenset({"a"})
    parent.include_router(catch_all([]))
    assert message_commands(parent) is ANY


def test_command_name_reads_as_aiogram_does() -> None:
    assert command_name(text_update("/R@Dice_Bot 7 6").message) == "r"  # type: ignore[arg-type]
    assert command_name(text_update("   ").message) is None  # type: ignore[arg-type]
    assert command_name(text_update("seven dice").message) == "even"  # type: ignore[arg-type]


async def test_each_message_reaches_the_router_that_takes_it() -> None:
    seen: list[str] = []
    dispatcher = RoutedDispatcher()
    dispatcher.include_routers(
        commands_router("start", seen, "start"),
        commands_router("roll", seen, "r"),
        catch_all(seen),
        commands_router("late", seen, "late"),
    )
    bot, _session = make_bot()
    texts = ["/r 7 6", "/R 5", "/start", "hello", "/late", "/unknown", "/r@dice_test_bot 3"]
    for text in texts:
        await dispatcher.feed_update(bot, text_update(text))
    assert seen == [
        "roll:/r 7 6",
        "roll:/r 5",  # read as meant (table/typos.py), its command among the routers' names
        "start:/start",
        "any:hello",
        "any:/late",  # the catch-all stands before it, as with aiogram's own walk
        "any:/unknown",
        "roll:/r@dice_test_bot 3",
    ]


async def test_a_command_skips_the_routers_that_do_not_take_it() -> None:
    """The Dispatcher keys each router it includes by its commands: a ``/r`` is offered to
    the router of ``/r`` and to a catch-all before it, never to ``/start``'s or ``/late``'s."""
    offered: list[str] = []

    class Spied(Router):
        async def propagate_event(
            self, update_type: str, event: object, **kwargs: object
        ) -> object:
            offered.append(self.name)
            return await super().propagate_event(update_type, event, **kwargs)

    def spied(router: Router) -> Router:
        router.__class__ = Spied
        return router

    seen: list[str] = []
    dispatcher = RoutedDispatcher()
    dispatcher.include_routers(
        spied(commands_router("start", seen, "start")),
        spied(catch_all(seen)),
        spied(commands_router("roll", seen, "r")),
        spied(commands_router("late", seen, "late")),
    )
    assert dispatcher.known_commands() == frozenset({"start", "r", "late"})
    bot, _session = make_bot()
    await dispatcher.feed_update(bot, text_update("/r 7 6"))
    assert offered == ["any"]  # taken there, as aiogram's own walk would
    offered.clear()
    dispatcher.sub_routers.remove(dispatcher.sub_routers[1])
    await dispatcher.feed_update(bot, text_update("/r 7 6"))
    assert offered == ["roll"]
