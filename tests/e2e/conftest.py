"""Fixtures for end-to-end tests: the fake Bot API, a private redis-server, the bot process.

Everything is torn down even when the test fails: a process left behind would hold a port
and CPU on a machine shared by parallel runs. A test that only plays at a table in chats of
its own shares one world for the whole session (``shared_world``: the fake API, redis-server
and a polling bot started once; one per pytest-xdist worker), and those tests run first, one
after another, in the session's event loop; a test that stops, breaks or counts the bot's
processes, or needs other settings, starts its own (``bot_process``).

Every limit a test gives here is what an idle machine needs; the waits multiply it by
``TEST_TIMEOUT_SCALE`` (:mod:`localapi.patience`), so a slow start on a busy machine is waited
out, not failed on a fixed wall.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import pytest_asyncio
import redis.asyncio as aioredis

from localapi.patience import patient
from localapi.processes import BotProcess, RedisServer
from localapi.server import (
    ChatMessage,
    FakeBotApi,
    FakeChat,
    FakeUser,
    ForumTopic,
    GroupShape,
)
from table.store import inbox_key


@pytest.fixture
async def redis_factory(tmp_path: Path) -> AsyncIterator[Callable[..., RedisServer]]:
    """Make (not yet started) Redis servers: ``redis_factory(appendonly=True)`` for AOF tests."""
    servers: list[RedisServer] = []

    def make(*, appendonly: bool = False) -> RedisServer:
        directory = tmp_path / f"redis-{len(servers)}"
        directory.mkdir()
        server = RedisServer(directory, appendonly=appendonly)
        servers.append(server)
        return server

    yield make
    for server in servers:
        await server.stop()


@pytest.fixture
async def redis_server(redis_factory: Callable[..., RedisServer]) -> RedisServer:
    server = redis_factory()
    await server.start()
    return server


class BotLauncher:
    """Starts, stops and restarts ``python -m bot`` processes wired to the test's fakes.

    ``start()`` waits until the new process polls the fake API, which is the moment it can
    receive a test's first message. Several processes may run at once (replicas).
    """

    def __init__(self, api: FakeBotApi, redis: RedisServer, directory: Path) -> None:
        self.api = api
        self.redis = redis
        self.directory = directory
        self.processes: list[BotProcess] = []

    async def settled(self, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        """Back once every update the bot was given is finished: its reply may be out while
        its finishing script (what the next update reads: the player's last campaign, whom
        the reply is about) has yet to run, and a test acting at once would race it."""
        client = aioredis.Redis.from_url(self.redis.url)
        deadline = time.monotonic() + patient(timeout)
        try:
            while await client.hlen(inbox_key(self.api.bot.id)):
                if time.monotonic() > deadline:
                    raise AssertionError(f"updates still unfinished after {patient(timeout):g} s")
                await asyncio.sleep(0.02)
        finally:
            await client.aclose()

    def environment(self, **overrides: str) -> dict[str, str]:
        env = {
            "BOT_TOKEN": self.api.token,
            "TELEGRAM_API_URL": self.api.base_url,
            "REDIS_URL": self.redis.url,
            "DEFAULT_LOCALE": "ru",
            "LOG_LEVEL": "INFO",
        }
        env.update(overrides)
        return env

    async def start(
        self,
        *arguments: str,
        env: dict[str, str] | None = None,
        ready: Callable[[], bool] | None = None,
        timeout: float = 30.0,  # noqa: ASYNC109
    ) -> BotProcess:
        """Start a process; by default ready means it made a getUpdates call after starting.
        Importing aiogram alone takes seconds of CPU, and under pytest-xdist several workers
        start bots at once on two cores: a ready bot ends the wait at once, so the limit (times
        the scale) is only how long a stuck start takes to fail. One that never got ready is
        killed at once, not left to burn CPU until the test's teardown."""
        log_path = self.directory / f"bot-{len(self.processes)}.log"
        process = BotProcess(env or self.environment(), log_path)
        self.processes.append(process)
        since = time.monotonic()
        await process.start(*arguments)
        condition = ready or (lambda: any(c.at >= since for c in self.api.calls_to("getUpdates")))
        try:
            await process.wait_until(condition, timeout, what="polling")
        except BaseException:
            await process.kill()
            raise
        return process

    @property
    def current(self) -> BotProcess:
        if not self.processes:
            raise LookupError("no bot process was started")
        return self.processes[-1]

    async def stop(self) -> int | None:
        return await self.current.stop()

    async def restart(self) -> BotProcess:
        """Stop the latest process gracefully and start a fresh one with the same settings."""
        previous = self.current
        await previous.stop()
        return await self.start(env=previous.env)

    async def stop_all(self) -> None:
        """Stop every process, each even when stopping another failed or was cancelled."""
        errors: list[BaseException] = []
        for process in self.processes:
            try:
                await process.stop()
            except BaseException as error:  # the rest are stopped all the same
                errors.append(error)
                await process.kill()
        if errors:
            raise errors[0]

    def logs(self) -> str:
        return "\n".join(p.log_tail() for p in self.processes)


@pytest.fixture
async def bot_process(
    fake_api: FakeBotApi, redis_server: RedisServer, tmp_path: Path
) -> AsyncIterator[BotLauncher]:
    launcher = BotLauncher(fake_api, redis_server, tmp_path)
    try:
        yield launcher
    finally:
        await launcher.stop_all()
        # Shown by pytest only when the test failed: what the bot said is the first clue.
        print(launcher.logs())


@asynccontextmanager
async def module_bot(directory: Path, startup: float) -> AsyncIterator[BotLauncher]:
    """One fake Bot API, one redis-server and one polling bot process under ``directory``, for
    a module-scoped fixture: starting the bot costs seconds on a shared machine, a fresh chat
    per test costs nothing. On the way out, the fake's own bugs and any callback query the
    bot never answered (scenario 7) fail the module."""
    (directory / "redis").mkdir()
    redis = RedisServer(directory / "redis")
    async with FakeBotApi() as api:
        await redis.start()
        launcher = BotLauncher(api, redis, directory)
        try:
            await launcher.start(timeout=startup)
            yield launcher
        finally:
            await launcher.stop_all()
            await redis.stop()
    assert not api.internal_errors, api.internal_errors
    assert not api.unanswered_callback_queries()


HERE = Path(__file__).resolve().parent

# Starting ``python -m bot`` on an idle machine takes a few seconds; the shared world's first
# start also compiles the project. Times the scale, like every limit here.
SHARED_STARTUP = 45.0


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def shared_world(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[BotLauncher]:
    """The session's one fake Bot API, redis-server and polling bot; each test that uses it
    makes its own users and chats (the fake numbers them apart), so none sees another's."""
    async with module_bot(tmp_path_factory.mktemp("shared"), SHARED_STARTUP) as launcher:
        yield launcher


@pytest.fixture(autouse=True)
def own_sends_only(request: pytest.FixtureRequest) -> None:
    """A test in the shared world checks its own sends for repeats: an earlier test may have
    shown the same text twice on purpose (a sheet asked for twice)."""
    if "shared_world" in request.fixturenames:
        launcher = request.getfixturevalue("shared_world")
        launcher.api.duplicates_from = len(launcher.api.calls)


class SharedLauncher:
    """``bot_process`` for a test that plays in the shared world: the bot already polls, so
    ``start`` only hands back the running process."""

    def __init__(self, launcher: BotLauncher) -> None:
        self.launcher = launcher

    async def start(self, *_arguments: str, **_options: object) -> BotProcess:
        assert self.launcher.current.running, self.launcher.logs()
        return self.launcher.current

    def logs(self) -> str:
        return self.launcher.logs()

    async def settled(self, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        await self.launcher.settled(timeout)


class InChat:
    """One chat of the fake Bot API as a test plays in it: a line typed and the bot's answer,
    a line that edits a message of the bot's in place, a button pressed by its label.

    In a forum it plays in one topic (``topic``: a topic, its name or thread id; None:
    General): lines are typed there and only the bot's messages filed there answer them, as
    a player sees one topic at a time."""

    def __init__(
        self, api: FakeBotApi, chat: FakeChat, topic: ForumTopic | str | int | None = None
    ) -> None:
        self.api = api
        self.chat = chat
        self.topic = None if topic is None else self._find(topic)

    def _find(self, topic: ForumTopic | str | int) -> ForumTopic:
        if isinstance(topic, ForumTopic):
            return topic
        return self.chat.topic(topic)

    @property
    def thread_id(self) -> int | None:
        """The topic's thread id; None in General and outside forums."""
        return None if self.topic is None else self.topic.message_thread_id

    def in_topic(self, topic: ForumTopic | str | int | None) -> InChat:
        """The same chat played in another topic (None: General)."""
        return InChat(self.api, self.chat, topic)

    @property
    def messages(self) -> list[ChatMessage]:
        """What this topic (or chat, outside forums) shows, oldest first."""
        if not self.chat.is_forum:
            return list(self.chat.messages)
        return self.chat.thread_messages(self.thread_id)

    def type(
        self, user: FakeUser, text: str, *, reply_to: ChatMessage | int | None = None
    ) -> ChatMessage:
        """``user`` types ``text`` here (a reply goes to the replied message's topic)."""
        thread = self.thread_id if reply_to is None else None
        return self.api.send_text(self.chat, user, text, reply_to=reply_to, thread_id=thread)

    async def answer(
        self,
        *,
        after: ChatMessage | int | None = None,
        containing: str | None = None,
        timeout: float = 5.0,  # noqa: ASYNC109
    ) -> ChatMessage:
        """The bot's first message filed here (newer than ``after``)."""
        thread = self.thread_id
        return await self.api.wait_for_message(
            self.chat,
            after=after,
            containing=containing,
            predicate=lambda message: message.topic_id == thread,
            timeout=timeout,
        )

    async def say(self, user: FakeUser, text: str) -> ChatMessage:
        """``user`` types ``text``; the bot's first message after it."""
        typed = self.type(user, text)
        return await self.answer(after=typed)

    async def edit(self, message: ChatMessage, user: FakeUser, text: str) -> None:
        """``user`` types ``text``, which the bot answers by editing ``message``."""
        edits = message.edits
        self.type(user, text)
        await self.api.wait_for(lambda: message.edits > edits)

    async def press(
        self, user: FakeUser, message: ChatMessage, label: str, *, inaccessible: bool = False
    ) -> None:
        """``user`` presses the first button of ``message`` whose text holds ``label``; back
        once the tap is answered and the message redrawn. ``inaccessible``: Telegram hands
        the press without the message (an old one), so without its topic."""
        data = next(b["callback_data"] for b in message.buttons if label in b["text"])
        edits = message.edits
        query = self.api.press(self.chat, user, message, data, inaccessible=inaccessible)
        await self.api.wait_for_callback_answer(query)
        await self.api.wait_for(lambda: message.edits > edits)

    def close(self, by: FakeUser) -> ChatMessage:
        """``by`` (an admin) closes this topic mid-game; its service message."""
        assert self.topic is not None, "General is not closed this way"
        return self.api.close_topic(self.chat, self.topic, by)

    def reopen(self, by: FakeUser) -> ChatMessage:
        assert self.topic is not None, "General is not reopened this way"
        return self.api.reopen_topic(self.chat, self.topic, by)


def add_forum(
    api: FakeBotApi,
    title: str,
    *,
    owner: FakeUser,
    members: Iterable[FakeUser] = (),
    topics: Iterable[str] = ("Маг", "Тёмные века"),
    bot_is_admin: bool = True,
) -> FakeChat:
    """A forum supergroup the bot is in (an admin, as a club's bot is), with ``topics`` made
    by its owner: one per chronicle, as Russian role-playing clubs keep them. The bot gets the
    topics' service messages as Telegram sends them."""
    chat = api.add_group(
        title,
        owner=owner,
        members=members,
        bot_is_admin=bot_is_admin,
        shape=GroupShape(is_forum=True),
    )
    for name in topics:
        api.create_topic(chat, name, by=owner)
    return chat


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The shared world's tests first and together: its server runs in the session's loop,
    which stands still while a test of another loop runs. Then the other end-to-end tests,
    the long ones: with pytest-xdist each worker takes its end-to-end files first, so the
    shared world's never wait behind another loop's, and the short tests even out the end
    (tests/conftest.py)."""
    shared = [i for i in items if "shared_world" in getattr(i, "fixturenames", ())]
    e2e = [i for i in items if i not in shared and i.path.is_relative_to(HERE)]
    if shared or e2e:
        first = set(shared + e2e)
        items[:] = shared + e2e + [i for i in items if i not in first]
