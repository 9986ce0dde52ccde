"""CPU per ``/r 7 6`` in one process, with no network between the bot and Telegram.

Why it exists: ``e2e.py`` measures the real process against an echo bot, and on a machine
shared with other work its numbers move by ±0.1 from run to run. This one feeds parsed
updates to the real Dispatcher (every middleware, every router, the real ``Store`` on a
fresh ``redis-server``, the session's own middlewares with the send limits lifted) and
answers each Bot API call from memory, as aiohttp's session would after the HTTP exchange
(the request's form built, the answer's JSON parsed into its type; a sent message is
answered as Telegram answers it, with its entities, keyboard and the command it replies
to). ``time.process_time()`` over the updates, less the time spent making the answers,
counts our own CPU only, so it moves far less with the machine's load (read the best of
the rounds): a change to the hot path shows here first, then in ``e2e.py``.

```
.venv/bin/python bench/cpu.py [--updates 1000] [--rounds 5] [--profile out.prof] [--top 40]
```

``--profile`` writes cProfile's statistics of the measured updates (read them with
``python -m pstats``); ``--top`` prints the functions with the most time of their own.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import pstats
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from aiogram import Bot  # noqa: E402
from aiogram.methods import TelegramMethod  # noqa: E402
from aiogram.methods.base import TelegramType  # noqa: E402

import bot.session as session  # noqa: E402
from bot.app import create_dispatcher, make_bot  # noqa: E402
from bot.i18n import LOCALES_DIR, load_i18n  # noqa: E402
from bot.settings import Settings  # noqa: E402
from localapi.processes import RedisServer  # noqa: E402
from localapi.server import rendered_text  # noqa: E402
from table.store import Store  # noqa: E402

TOKEN = "123456:BENCH-token-of-the-in-process-session"
ROLL_TEXT = "/r 7 6"
CHATS = 8  # as e2e.py's 8 in flight, one chat each


class MemorySession(session.LeanAnswers):
    """Answers every method as a cooperative Telegram would, through aiogram's own request
    building and response parsing, so only the HTTP exchange itself is left out. The CPU
    spent making an answer is Telegram's, not ours: ``telegram`` sums it, to be taken off."""

    def __init__(self) -> None:
        super().__init__()
        self.message_id = 10_000
        self.sent = 0
        self.telegram = 0.0  # seconds of process time spent playing Telegram

    async def close(self) -> None:
        return None

    async def stream_content(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _result(self, method: TelegramMethod[Any], params: dict[str, Any]) -> Any:
        name = method.__api_method__
        if name == "getMe":
            return {"id": 123456, "is_bot": True, "first_name": "Dice", "username": "dice_bot"}
        if name == "sendMessage":
            self.message_id += 1
            self.sent += 1
            return self._message(params)
        return True

    def _message(self, params: dict[str, Any]) -> dict[str, Any]:
        """The sent message as Telegram answers it (and ``localapi``'s server): the text with
        the entities its HTML made, the keyboard, and the command it replies to."""
        chat = {"id": int(params["chat_id"]), "type": "supergroup", "title": "Bench"}
        text, entities = rendered_text(params["text"], params.get("parse_mode"), None)
        message: dict[str, Any] = {
            "message_id": self.message_id,
            "from": {"id": 123456, "is_bot": True, "first_name": "Dice", "username": "dice_bot"},
            "date": int(time.time()),
            "chat": chat,
            "text": text,
        }
        if "reply_parameters" in params:
            replied = json.loads(params["reply_parameters"])["message_id"]
            message["reply_to_message"] = {**raw_roll(replied, 0)["message"], "chat": chat}
        if entities:
            message["entities"] = entities
        if "reply_markup" in params:
            message["reply_markup"] = json.loads(params["reply_markup"])
        return message

    async def make_request(
        self,
        bot: Bot,
        method: TelegramMethod[TelegramType],
        timeout: int | None = None,  # noqa: ASYNC109 - BaseSession's signature
    ) -> TelegramType:
        form = self.build_form_data(bot, method)
        started = time.process_time()
        params = {name: value for name, value in form.items() if value is not None}
        body = json.dumps({"ok": True, "result": self._result(method, params)})
        self.telegram += time.process_time() - started
        response = self.check_response(bot=bot, method=method, status_code=200, content=body)
        return response.result  # type: ignore[return-value]

    def build_form_data(self, bot: Bot, method: TelegramMethod[Any]) -> dict[str, Any]:
        files: dict[str, Any] = {}
        return {
            key: self.prepare_value(value, bot=bot, files=files)
            for key, value in method.model_dump(warnings=False).items()
        }


def raw_roll(update_id: int, chat: int) -> dict[str, Any]:
    """A ``/r 7 6`` as getUpdates delivers it, in group ``chat`` from a player of its own."""
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "date": int(time.time()),
            "chat": {"id": -1000 - chat, "type": "supergroup", "title": f"Bench {chat}"},
            "from": {"id": 500 + chat, "is_bot": False, "first_name": f"P{chat}"},
            "text": ROLL_TEXT,
            "entities": [{"type": "bot_command", "offset": 0, "length": 2}],
        },
    }


async def measure(updates: int, repeat: int, profile_path: str | None, top: int) -> list[float]:
    session.GROUP_LIMIT = session.GLOBAL_LIMIT = 10**9
    with tempfile.TemporaryDirectory() as directory:
        server = RedisServer(Path(directory))
        await server.start()
        try:
            return await _measure(server.url, updates, repeat, profile_path, top)
        finally:
            await server.stop()


async def _measure(
    url: str, updates: int, repeat: int, profile_path: str | None, top: int
) -> list[float]:
    from aiogram.types import Update

    store = Store.from_url(url)
    await store.load_scripts()
    memory = MemorySession()
    session.install_middlewares(memory, store)
    bot = make_bot(TOKEN, memory)
    settings = Settings(_env_file=None)
    dispatcher = create_dispatcher(settings, store, load_i18n(LOCALES_DIR, "ru"))
    await bot.me()
    gc.collect()
    gc.freeze()
    next_id = 1

    async def run(count: int) -> None:
        nonlocal next_id

        async def chat_loop(chat: int, share: int) -> None:
            nonlocal next_id
            for _ in range(share):
                raw = raw_roll(next_id, chat)
                next_id += 1
                update = Update.model_validate(raw, context={"bot": bot})
                await dispatcher.feed_update(
                    bot,
                    update,
                    delivery_token="bench",
                    take_over=True,
                    attempt=0,
                    sent_before={},
                    inbox_entry=json.dumps(raw, ensure_ascii=False),
                    on_kept=lambda: None,
                )

        await asyncio.gather(*(chat_loop(chat, count // CHATS) for chat in range(CHATS)))

    await run(CHATS * 20)  # warm-up: caches, compiled scripts, pydantic's lazy schemas
    profiler = cProfile.Profile() if profile_path or top else None
    rounds: list[float] = []
    for _ in range(repeat):
        sent_before, telegram_before = memory.sent, memory.telegram
        start = time.process_time()
        if profiler is not None:
            profiler.enable()
        await run(updates)
        if profiler is not None:
            profiler.disable()
        spent = time.process_time() - start - (memory.telegram - telegram_before)
        replies = memory.sent - sent_before
        if replies != updates - updates % CHATS:
            raise SystemExit(f"expected {updates} replies, got {replies}")
        rounds.append(spent * 1000 / replies)
    await store.close()
    if profiler is not None:
        if profile_path:
            profiler.dump_stats(profile_path)
        if top:
            pstats.Stats(profiler).sort_stats("tottime").print_stats(top)
    return rounds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--updates", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5, help="rounds of --updates each")
    parser.add_argument("--profile", default=None, help="write cProfile statistics here")
    parser.add_argument("--top", type=int, default=0, help="print the N costliest functions")
    options = parser.parse_args(argv)
    rounds = asyncio.run(measure(options.updates, options.rounds, options.profile, options.top))
    note = " (under cProfile: slower than without)" if options.profile or options.top else ""
    shown = " ".join(f"{value:.3f}" for value in rounds)
    print(f"CPU per /r 7 6 reply, in process, ms: best {min(rounds):.3f}, rounds {shown}{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
