"""``python -m bot``: long polling, or a webhook server when WEBHOOK_URL is set
(bot/launch.py); ``python -m bot --version``; ``python -m bot playground``.

A wrong or missing setting ends the process before anything starts, with one line on stderr
and exit code 2, so a mistake in ``.env`` reads like a sentence and not like a traceback. It
is answered within a second: this module imports only the settings, the log setup and the
version (pydantic, the standard library); aiogram, the features and Redis, seconds of
imports on a small machine, come in with bot/launch.py once the settings are known good.
With LOG_LEVEL=DEBUG the traceback of a failed start-up is logged before that line.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import logging
import os
import sys
from typing import TYPE_CHECKING, NoReturn

from bot import logs
from bot.version import version

if TYPE_CHECKING:
    from bot.settings import Settings

log = logging.getLogger("bot")

EXIT_BAD_SETTINGS = 2  # bot.settings.EXIT_BAD_SETTINGS, here before the settings load
USAGE = "usage: python -m bot [--version | playground [--port P] [--no-browser]]"


def load_settings() -> Settings:
    """The settings, or exit 2 with one line naming what is wrong."""
    from pydantic import ValidationError

    from bot.settings import Settings, describe_error

    try:
        settings = Settings()
    except ValidationError as error:
        fail(describe_error(error), log_format=_format_asked())
    if settings.bot_token is None:
        fail(
            "invalid settings: BOT_TOKEN is required (ask @BotFather for one)",
            log_format=settings.log_format,
        )
    return settings


def _format_asked() -> logs.LogFormat:
    """LOG_FORMAT from the environment when the settings as a whole did not load."""
    return "json" if os.environ.get("LOG_FORMAT", "").strip().lower() == "json" else "text"


def fail(
    message: str, code: int = EXIT_BAD_SETTINGS, *, log_format: logs.LogFormat = "text"
) -> NoReturn:
    line = logs.failure_line(message, log_format)
    print(line, file=sys.stderr)  # noqa: T201 - the command line's own answer
    raise SystemExit(code)


def run_playground(args: list[str]) -> int:
    """``python -m bot playground`` (docs/product.md §4) lives in its own module,
    ``bot.playground``."""
    try:
        playground = importlib.import_module("bot.playground")
    except ModuleNotFoundError as error:
        if error.name not in ("bot.playground", "localapi", "localapi.playground"):
            raise
        fail("the playground is not part of this build")
    return int(playground.main(args))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-V"]):
        print(version())  # noqa: T201 - the command line's own answer
        return 0
    if args in (["--help"], ["-h"]):
        print(USAGE)  # noqa: T201 - the command line's own answer
        return 0
    if args[:1] == ["playground"]:
        return run_playground(args[1:])
    if args:
        fail(f"unknown arguments: {' '.join(args)} ({USAGE})")
    settings = load_settings()
    logs.setup(settings.log_level, settings.log_format)
    # What is built from here to the first poll lives as long as the process: no collection
    # until bot/launch.py freezes it all (bench/startup.py), whatever happens meanwhile.
    gc.disable()
    try:
        from bot.launch import run, startup_failure  # the heavy part, now that it will run

        asyncio.run(run(settings))
    except Exception as error:
        failure = startup_failure(error, settings)
        if failure is None:
            raise
        log.debug("start-up failed", exc_info=error)
        fail(failure[1], failure[0], log_format=settings.log_format)
    finally:
        gc.enable()
    return 0


if __name__ == "__main__":
    sys.exit(main())
