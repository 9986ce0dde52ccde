"""Real processes for end-to-end tests: Debian's ``redis-server`` and the bot (``python -m bot``).

Why real ones: docs/product.md §5/§6 asks for proofs that only hold against the real things — a
Redis restart with AOF loses nothing, the bot process recovers when Redis returns, SIGTERM stops
it cleanly. Every process here gets a free port chosen by the OS and its own temporary
directory, so tests run in parallel and never touch a Redis they did not start. Waiting is
async, because the fake Bot API server lives in the same event loop as the test and must keep
answering the bot while the test waits.

Every limit here is what an idle machine needs, times ``TEST_TIMEOUT_SCALE``
(:mod:`localapi.patience`). A process that outlives its test is ended, its process group with
it, and its transport closed (:func:`end_process`): one left running would hold a port and CPU,
and its transport, collected later, would fail whichever test happened to be running then.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

import redis.asyncio as aioredis

from localapi import zygote
from localapi.patience import patient
from localapi.server import free_port

REPO_ROOT = Path(__file__).resolve().parents[1]
REDIS_SERVER_ENV = "REDIS_SERVER_BIN"
_BOT_SETTINGS = (
    "BOT_TOKEN",
    "TELEGRAM_API_URL",
    "REDIS_URL",
    "DEFAULT_LOCALE",
    "LOG_LEVEL",
    "WEBHOOK_URL",
    "WEBHOOK_SECRET",
    "WEBHOOK_HOST",
    "WEBHOOK_PORT",
    "WEBHOOK_PATH",
    "METRICS_PORT",
    "METRICS_HOST",
    "LOG_FORMAT",
)


def redis_server_binary() -> str | None:
    """Debian's redis-server, or one named by ``REDIS_SERVER_BIN``; None when absent."""
    configured = os.environ.get(REDIS_SERVER_ENV)
    if configured:
        return configured
    found = shutil.which("redis-server")
    if found:
        return found
    return "/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None


def _tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log)"


class Child(Protocol):
    """A process a test started: an asyncio subprocess, or a bot the zygote forked."""

    pid: int

    @property
    def returncode(self) -> int | None: ...

    async def wait(self) -> int: ...

    def send_signal(self, number: int) -> None: ...

    def terminate(self) -> None: ...

    def kill(self) -> None: ...


async def end_process(
    process: Child,
    *,
    grace: float = 0.0,
    group: bool = False,
) -> None:
    """Make sure ``process`` is gone: wait ``grace`` seconds (already scaled) for it to exit,
    then SIGKILL it (with ``group``, its whole process group: what it started dies with it),
    reap it and close its transport, so nothing of it reaches the next test."""
    if process.returncode is None and grace > 0:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), grace)
    if group:
        # Also when the leader is gone: its children may still be in the group.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
    transport = getattr(process, "_transport", None)  # closed by the exit; closing is idempotent
    if transport is not None:
        transport.close()


@dataclass(frozen=True)
class Finished:
    """A command run to its end: its exit code and what it wrote."""

    returncode: int
    stdout: str
    stderr: str


async def run_to_end(
    arguments: Sequence[str],
    *,
    timeout: float,  # noqa: ASYNC109 - expiry ends the process group and raises with its output
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    merge_stderr: bool = False,
    warm: bool = False,
) -> Finished:
    """Run ``arguments`` in a process group of its own until it exits, at most ``timeout``
    seconds (times the scale). Its output goes to files, not pipes, so a run cut short still
    shows what it said; however the wait ends (done, expired, cancelled), the group is killed
    and the transport closed. ``warm``: ``python -m bot ...`` (no interpreter options) is
    forked from the warm interpreter of :mod:`localapi.zygote` when it can be."""
    limit = patient(timeout)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process: Child | None = None
        if warm and list(arguments[1:3]) == ["-m", "bot"] and env is not None:
            where = Path.cwd() if cwd is None else cwd
            errors = out if merge_stderr else err
            process = await zygote.fork(arguments[1:], env, where, out.fileno(), errors.fileno())
        if process is None:
            process = await asyncio.create_subprocess_exec(
                *arguments,
                env=None if env is None else dict(env),
                cwd=cwd,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=out,
                stderr=out if merge_stderr else err,
                start_new_session=True,
            )
        try:
            await asyncio.wait_for(process.wait(), limit)
        except TimeoutError:
            expired = True
        else:
            expired = False
        finally:
            await end_process(process, group=True)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    if expired:
        said = "\n".join((stdout + stderr).splitlines()[-40:])
        raise AssertionError(f"{' '.join(arguments)} did not finish within {limit:g} s:\n{said}")
    assert process.returncode is not None
    return Finished(process.returncode, stdout, stderr)


class RedisServer:
    """One ``redis-server`` on 127.0.0.1 with its data in ``directory``.

    ``appendonly=True`` turns on AOF with ``appendfsync everysec`` — the production setting
    (docs/product.md §3) — so a restart test exercises the same durability the product promises.
    """

    def __init__(
        self,
        directory: Path,
        *,
        appendonly: bool = False,
        appendfsync: str = "everysec",
        extra: Sequence[str] = (),
    ) -> None:
        self.directory = directory
        self.appendonly = appendonly
        self.appendfsync = appendfsync  # with ``appendonly``: "everysec" or "always"
        self.extra = tuple(extra)  # more redis-server options ("--maxmemory", "1mb", ...)
        self.port = 0
        self.process: asyncio.subprocess.Process | None = None
        self.log_path = directory / "redis.log"

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _arguments(self) -> list[str]:
        durability = (
            ["--appendonly", "yes", "--appendfsync", self.appendfsync]
            if self.appendonly
            else ["--appendonly", "no"]
        )
        return [
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.directory),
            "--save",
            "",
            *durability,
            "--daemonize",
            "no",
            "--logfile",
            str(self.log_path),
            *self.extra,
        ]

    async def start(self, *, timeout: float = 10.0) -> None:  # noqa: ASYNC109
        """Start on a fresh port (or the previous one, for a restart keeping the URL); each
        try waits ``timeout`` seconds times the scale for a PING to be answered."""
        binary = redis_server_binary()
        if binary is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        keep_port = self.port != 0
        for _attempt in range(3):
            if not keep_port:
                self.port = free_port()
            self.process = await asyncio.create_subprocess_exec(
                binary,
                *self._arguments(),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )
            if await self._wait_ready(patient(timeout)):
                return
            await self._terminate()
            if keep_port:
                break  # the port is taken by someone else now; a restart cannot move
        raise RuntimeError(
            f"redis-server did not start on port {self.port}:\n{_tail(self.log_path)}"
        )

    async def _wait_ready(self, timeout: float) -> bool:  # noqa: ASYNC109
        deadline = time.monotonic() + timeout
        client = aioredis.Redis(host="127.0.0.1", port=self.port, socket_timeout=1)
        try:
            while time.monotonic() < deadline:
                if self.process is None or self.process.returncode is not None:
                    return False
                with contextlib.suppress(OSError, aioredis.RedisError):
                    if await client.ping():
                        return True
                await asyncio.sleep(0.02)
            return False
        finally:
            await client.aclose()

    async def stop(self) -> None:
        """SHUTDOWN NOSAVE: no RDB snapshot, but the AOF (if on) is flushed, as on a clean stop.

        Sent over a raw connection: a client library would treat the closed connection as a
        failure and retry with backoff, which only slows every test's teardown.
        """
        if self.process is None or self.process.returncode is not None:
            return
        with contextlib.suppress(OSError):
            _reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            writer.write(b"SHUTDOWN NOSAVE\r\n")
            await writer.drain()
            writer.close()
        await self._terminate(grace=patient(5.0))

    async def kill(self) -> None:
        """SIGKILL: a crash, for "Redis restart mid-flow loses nothing" with AOF everysec."""
        if self.process is not None:
            await end_process(self.process)

    async def restart(self) -> None:
        await self.stop()
        await self.start()

    def freeze(self) -> None:
        """SIGSTOP: the server holds every connection open and answers nothing (a stalled
        host or a long fork), until :meth:`thaw`."""
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGCONT)

    async def _terminate(self, grace: float = 0.0) -> None:
        """Wait ``grace`` seconds for the process to exit by itself, then SIGTERM, then SIGKILL."""
        process = self.process
        if process is None:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), grace)
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
        await end_process(process, grace=patient(5.0))


def bot_environment() -> dict[str, str]:
    """What a test's bot starts with before the test's own settings: this process's
    environment without the bot's settings (the bot must see only what the test gives it,
    not the developer's own), unbuffered, with the repository on its path."""
    inherited = {k: v for k, v in os.environ.items() if k not in _BOT_SETTINGS}
    python_path = os.pathsep.join(p for p in (str(REPO_ROOT), inherited.get("PYTHONPATH", "")) if p)
    return {**inherited, "PYTHONUNBUFFERED": "1", "PYTHONPATH": python_path}


class BotProcess:
    """The real bot, ``python -m bot``, configured only through its environment
    (docs/product.md §4).

    It runs in ``log_path``'s directory, not the checkout, so a developer's ``.env`` there
    cannot add settings the test did not choose. Its stdout and stderr go to ``log_path`` so a
    failing test can show what the bot said.
    """

    # Whether ``python -m bot`` may be forked from the tests' warm interpreter: a benchmark,
    # which measures the process, says no.
    warm = True

    def __init__(self, env: Mapping[str, str], log_path: Path) -> None:
        self.env = dict(env)
        self.log_path = log_path
        self.cwd = log_path.parent
        self.process: Child | None = None
        self._log: IO[bytes] | None = None
        self.started_at = 0.0

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    def log_tail(self, lines: int = 60) -> str:
        if self._log is not None:
            self._log.flush()
        return _tail(self.log_path, lines)

    def _environment(self) -> dict[str, str]:
        return {**bot_environment(), **self.env}

    def command_line(self, arguments: Sequence[str]) -> list[str]:
        """What follows ``python``: the bot's module and the test's arguments."""
        return ["-m", "bot", *arguments]

    async def start(self, *arguments: str) -> None:
        if self.running:
            raise RuntimeError("the bot is already running")
        command = self.command_line(arguments)
        self._log = self.log_path.open("ab")
        self._log.write(f"\n===== python {' '.join(command)} =====\n".encode())
        self._log.flush()
        self.started_at = time.monotonic()
        environment = self._environment()
        self.process = None
        if self.warm and command[:2] == ["-m", "bot"]:  # forked warm (localapi/zygote.py)
            self.process = await zygote.fork(command, environment, self.cwd, self._log.fileno())
        if self.process is None:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable,
                *command,
                cwd=self.cwd,
                env=environment,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=self._log,
                stderr=self._log,
            )

    async def wait_until(
        self,
        ready: Callable[[], bool],
        timeout: float = 15.0,  # noqa: ASYNC109 - expiry raises with the bot's log
        what: str = "ready",
    ) -> None:
        """Poll ``ready`` until true; if the bot dies or time runs out (``timeout`` times the
        scale), fail with its log."""
        limit = patient(timeout)
        deadline = time.monotonic() + limit
        while not ready():
            if not self.running:
                code = None if self.process is None else self.process.returncode
                raise AssertionError(f"the bot exited ({code}) before {what}:\n{self.log_tail()}")
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"the bot was not {what} within {limit:g} s:\n{self.log_tail()}"
                )
            await asyncio.sleep(0.02)

    async def stop(self, timeout: float = 10.0) -> int | None:  # noqa: ASYNC109
        """SIGTERM and wait ``timeout`` seconds times the scale (a graceful shutdown is part of
        what is tested); SIGKILL if stuck."""
        process = self.process
        if process is None:
            return None
        try:
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signal.SIGTERM)
            await end_process(process, grace=patient(timeout))
        finally:
            self._close_log()
        return process.returncode

    async def kill(self) -> None:
        """SIGKILL: a crash, for "state lives in Redis, a new process carries on"."""
        try:
            if self.process is not None:
                await end_process(self.process)
        finally:
            self._close_log()

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None
