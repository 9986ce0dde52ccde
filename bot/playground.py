"""``python -m bot playground [--port P] [--no-browser]``: the bot in a browser in a minute
(docs/product.md §4), with no token, no Redis and nothing from the internet.

One process runs the real bot — the same Dispatcher, handlers, middlewares and embedded
in-process store as ``python -m bot`` without ``REDIS_URL``, polling through the same
delivery — against the local Bot API server of ``localapi`` (the one the tests use, which
checks every call against the vendored Bot API schema), and that server also serves a page
that looks and behaves like a Telegram group (``localapi/playground.py``).

Everything lives in memory on purpose: the start line says so once, instead of the store's
warning for a bot that was meant to keep its state. The bot's limiter tells the page when
Telegram's 20 messages a minute in a group hold replies back, so a silent bot is explained.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import webbrowser
from collections.abc import Iterator
from contextlib import contextmanager

from aiohttp import web

from bot.app import create_dispatcher, make_bot
from bot.i18n import LOCALES_DIR, load_i18n
from bot.session import RateLimitMiddleware, make_session
from bot.settings import Settings
from localapi.playground import BOT_NAMES, MINIAPP_PATH, Playground
from localapi.server import FakeBotApi
from table.store import Store

log = logging.getLogger("bot.playground")

DEFAULT_PORT = 8321


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bot playground",
        description="The bot in a local Telegram-like page: no token, no Redis, no internet.",
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="the page's port")
    parser.add_argument(
        "--no-browser", action="store_true", help="print the address, do not open a browser"
    )
    return parser.parse_args(argv)


async def run(port: int, browser: bool) -> None:
    # Imported here: bot.launch is the heavy part of python -m bot, and its poll() is the one road
    # of updates, signals and shutdown that the playground must share.
    from bot.launch import poll
    from bot.miniapp.server import MiniApp, mount

    api = FakeBotApi(bot_name=BOT_NAMES["ru"])
    playground = Playground(api)
    miniapps: list[MiniApp] = []  # the bot's Mini App, once the bot exists

    def routes(app: web.Application) -> None:
        playground.routes(app)
        # The page beside the chat, served by the bot's code as its own process would; the
        # playground's own route at MINIAPP_PATH signs the launch data as Telegram does.
        mount(app, MINIAPP_PATH, lambda: miniapps[0] if miniapps else None, index=False)

    await api.start(port=port, routes=routes)
    url = f"http://127.0.0.1:{api.port}/"
    try:
        settings = Settings(
            _env_file=None,
            bot_token=api.token,
            telegram_api_url=api.base_url,
            redis_url=None,
            webhook_url=None,
            log_level="WARNING",
            miniapp_url=url.rstrip("/") + MINIAPP_PATH,
            miniapp_name="sheet",
        )
        with _quiet("table.store"):
            store = Store.from_url(None)
        dispatcher = create_dispatcher(settings, store, load_i18n(LOCALES_DIR, "ru"))
        limiter = RateLimitMiddleware(on_hold=playground.hold)
        bot = make_bot(api.token, make_session(settings, limiter=limiter))
        i18n = dispatcher.workflow_data["i18n"]
        miniapps.append(MiniApp(bot, store, api.token, i18n, dispatcher))
        playground.miniapp = True
        print(  # noqa: T201 - the playground tells its user where the page is
            f"playground: {url}  (kept in memory, forgotten when it stops; Ctrl+C stops it)",
            flush=True,
        )
        if browser:
            webbrowser.open(url)
        await poll(dispatcher, bot, store, miniapps[0])
    finally:
        for miniapp in miniapps:
            await miniapp.close()
        await api.close()


@contextmanager
def _quiet(logger: str) -> Iterator[None]:
    """Only errors from ``logger`` inside the block."""
    quieted = logging.getLogger(logger)
    level = quieted.level
    quieted.setLevel(logging.ERROR)
    try:
        yield
    finally:
        quieted.setLevel(level)


def main(argv: list[str] | None = None) -> int:
    options = parse(argv or [])
    logging.basicConfig(level="WARNING", format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    asyncio.run(run(options.port, not options.no_browser))
    return 0
