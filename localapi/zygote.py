"""A warm interpreter that forks bot processes for the end-to-end tests.

Why: most of the CPU a ``python -m bot`` spends before its first poll goes to importing
aiogram (its types build several hundred pydantic models), aiohttp and redis-py, about three
seconds on a small machine; a test suite that starts fifty bots spends minutes of its two
cores on the same imports (README.md, the test section). This process imports those libraries
once and forks a child per bot. The child is the real bot: it imports the bot's own packages
afresh, runs ``bot/__main__.py`` as ``__main__`` with the test's arguments, environment,
working directory and log file, and exits with the bot's own exit code; only the third-party
imports are shared. The tests of import time and the start-up benchmark still start
``python -m bot`` from nothing.

Protocol, one Unix-socket connection per child: the test sends one JSON line (argv, env, cwd)
with the child's stdout and stderr descriptors attached (SCM_RIGHTS); the zygote answers
``pid N`` and, when the child exits, ``exit CODE`` (negative: killed by that signal).
"""

from __future__ import annotations

import array
import asyncio
import atexit
import contextlib
import ctypes
import importlib
import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from localapi.patience import patient

# The libraries the bot imports (pyproject's dependencies): their modules are shared by every
# child. The bot's own packages (bot, table, handlers, rules) are never imported here: some of
# their modules name the process as they load (the replica's token of bot/middlewares.py, the
# send budget's origin), and two replicas forked from one import would be one process to Redis.
WARM = (
    "aiogram",
    "aiogram.types",
    "aiogram.methods",
    "aiogram.client.bot",
    "aiogram.client.session.aiohttp",
    "aiogram.client.session.middlewares.base",
    "aiogram.dispatcher.dispatcher",
    "aiogram.dispatcher.middlewares.base",
    "aiogram.exceptions",
    "aiogram.filters",
    "aiogram.filters.callback_data",
    "aiogram.fsm.storage.base",
    "aiogram.utils.i18n",
    "aiogram.utils.keyboard",
    "aiogram.webhook.aiohttp_server",
    "aiohttp",
    "aiohttp.web",
    "babel.support",
    "dotenv",
    "prometheus_client",
    "pydantic",
    "pydantic_settings",
    "redis",
    "redis.asyncio",
    "redis.asyncio.cluster",
    "redis.exceptions",
    "yarl",
)
PR_SET_PDEATHSIG = 1


def _warm() -> None:
    for name in WARM:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


def _receive(connection: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """The request line and the descriptors that came with it (stdout, then stderr)."""
    data = b""
    descriptors: list[int] = []
    while not data.endswith(b"\n"):
        chunk, ancillary, _flags, _address = connection.recvmsg(65536, socket.CMSG_SPACE(4 * 2))
        if not chunk:
            raise ConnectionError("the test hung up before its request ended")
        data += chunk
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                descriptors.extend(array.array("i", payload[: len(payload) - len(payload) % 4]))
    if len(descriptors) != 2:
        for descriptor in descriptors:
            os.close(descriptor)
        raise ConnectionError("the request came without stdout's and stderr's descriptors")
    return json.loads(data), descriptors


def _become(request: dict[str, Any], output: list[int]) -> None:
    """In the child: this process turns into the bot the test asked for (and never returns
    to the zygote's loop: :func:`main` runs the bot next)."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with contextlib.suppress(OSError, AttributeError):  # the child dies with the zygote
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    stdout, stderr = output
    os.dup2(stdout, 1)
    os.dup2(stderr, 2)
    os.close(null)
    for descriptor in {stdout, stderr} - {1, 2}:
        os.close(descriptor)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.path[0] = request["cwd"]  # as ``python -m`` puts the working directory first


def serve(path: str) -> dict[str, Any] | None:
    """Fork children until stdin closes (the test process ended); in a child, the request it
    was forked for."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    children: dict[int, socket.socket] = {}
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(wake_read, selectors.EVENT_READ, "child")
    selector.register(sys.stdin, selectors.EVENT_READ, "parent")
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        for key, _events in selector.select():
            if key.data == "parent":
                if not os.read(0, 1):
                    for pid in children:
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(pid, signal.SIGKILL)
                    return None
            elif key.data == "child":
                with contextlib.suppress(BlockingIOError):
                    os.read(wake_read, 4096)
                _reap(children)
            else:
                connection, _ = listener.accept()
                try:
                    request, output = _receive(connection)
                except (ConnectionError, ValueError, OSError):
                    connection.close()
                    continue
                pid = os.fork()
                if pid == 0:
                    selector.close()
                    listener.close()
                    for other in (connection, *children.values()):
                        other.close()
                    os.close(wake_read)
                    os.close(wake_write)
                    _become(request, output)
                    return request
                for descriptor in output:
                    os.close(descriptor)
                children[pid] = connection
                with contextlib.suppress(OSError):
                    connection.sendall(f"pid {pid}\n".encode())


def _reap(children: dict[int, socket.socket]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        connection = children.pop(pid, None)
        if connection is None:
            continue
        code = os.waitstatus_to_exitcode(status)
        with contextlib.suppress(OSError):
            connection.sendall(f"exit {code}\n".encode())
        connection.close()


def main() -> None:
    _warm()
    request = serve(sys.argv[1])
    if request is None:
        return
    import runpy

    _dash_m, module, *arguments = request["argv"]  # what followed ``python``: -m bot ...
    sys.argv = [module, *arguments]  # the module's file takes the first place, as with -m
    runpy.run_module(module, run_name="__main__", alter_sys=True)


# The test's side: the run's shared zygote (:func:`start_shared`), or else one per test process and
# set of interpreter settings, started by the first bot it forks.

FORK_SETTING = "TEST_FORK_BOT"  # "0": every bot is started by exec, as ``python -m bot``
REPO_ROOT = Path(__file__).resolve().parents[1]


class Forked:
    """A bot the zygote forked, used as the tests use an asyncio subprocess: its pid, its
    exit code once it has exited (negative: the signal that ended it), ``wait``, signals."""

    def __init__(self, pid: int, connection: socket.socket, rest: bytes) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._connection = connection
        self._watch = asyncio.ensure_future(self._until_exit(rest))

    async def _until_exit(self, data: bytes) -> int:
        loop = asyncio.get_running_loop()
        try:
            while b"\n" not in data:
                chunk = await loop.sock_recv(self._connection, 64)
                if not chunk:
                    break
                data += chunk
        finally:
            self._connection.close()
        line = data.split(b"\n", 1)[0].decode()
        # Without its line the zygote itself is gone, and its children died with it.
        self.returncode = int(line.split()[1]) if line.startswith("exit ") else -signal.SIGKILL
        return self.returncode

    async def wait(self) -> int:
        return await asyncio.shield(self._watch)

    def send_signal(self, number: int) -> None:
        if self.returncode is not None:
            raise ProcessLookupError(self.pid)
        os.kill(self.pid, number)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class _Zygote:
    """The test process's zygote: started once, ended when the test process ends (its stdin
    closes, and it kills what it forked)."""

    def __init__(self, environment: Mapping[str, str]) -> None:
        self.environment = dict(environment)
        self.directory = tempfile.mkdtemp(prefix="zygote-")
        self.path = os.path.join(self.directory, "socket")
        self.ready = threading.Event()
        self.ok = False
        self.process = subprocess.Popen(
            [sys.executable, "-m", "localapi.zygote", self.path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=self.environment,
            cwd=REPO_ROOT,
        )
        threading.Thread(target=self._await_ready, daemon=True).start()
        atexit.register(self.close)

    def _await_ready(self) -> None:
        stdout = self.process.stdout
        self.ok = stdout is not None and stdout.readline().strip() == b"ready"
        self.ready.set()

    def close(self) -> None:
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(patient(5.0))
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        shutil.rmtree(self.directory, ignore_errors=True)


# One zygote per set of interpreter settings the test process starts bots with (the tests'
# PYTHONPATH may or may not carry what the caller's own has); a few at most.
_zygotes: dict[tuple[tuple[str, str], ...], _Zygote] = {}
MAX_ZYGOTES = 3
# Set by the test run's first process for the processes it starts (pytest-xdist's workers):
# the socket of a zygote they all share and the interpreter settings it serves, so the run
# warms one interpreter rather than one per worker.
SHARED_SETTING = "TEST_ZYGOTE"
_shared: _Zygote | None = None


def start_shared(environment: Mapping[str, str]) -> _Zygote | None:
    """Start the zygote this process's children (the test workers) fork their bots from, for
    bots started with ``environment``'s interpreter settings; it ends with this process.
    None when forking is switched off."""
    global _shared
    if os.environ.get(FORK_SETTING, "1") == "0":
        return None
    if _shared is None:
        _shared = _Zygote(environment)
        shared = {"path": _shared.path, "interpreter": _interpreter(environment)}
        os.environ[SHARED_SETTING] = json.dumps(shared)
    return _shared


def _shared_path(interpreter: dict[str, str]) -> str | None:
    """The shared zygote's socket when it serves these interpreter settings."""
    try:
        shared = json.loads(os.environ.get(SHARED_SETTING, ""))
    except ValueError:
        return None
    if not isinstance(shared, dict) or shared.get("interpreter") != interpreter:
        return None
    path = shared.get("path")
    return path if isinstance(path, str) else None


async def _connected(path: str, wait: float) -> socket.socket | None:
    """A connection to the zygote at ``path``; the shared one may still be warming up (its
    socket is made once its imports are done), so it is tried again for up to ``wait``
    seconds. None when there is none."""
    deadline = time.monotonic() + wait
    while True:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            connection.connect(path)
        except (FileNotFoundError, ConnectionRefusedError):
            connection.close()
            if time.monotonic() > deadline:
                return None
            await asyncio.sleep(0.05)
        except OSError:
            connection.close()
            return None
        else:
            return connection


def _named(interpreter: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(interpreter.items()))


_INERT = {"PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED"}


def _interpreter(environment: Mapping[str, str]) -> dict[str, str]:
    settings = {k: v for k, v in environment.items() if k.startswith("PYTHON") and k not in _INERT}
    path = [entry for entry in settings.pop("PYTHONPATH", "").split(os.pathsep) if entry]
    return {**settings, "PYTHONPATH": os.pathsep.join(path)}


async def fork(
    argv: Sequence[str],
    environment: Mapping[str, str],
    cwd: Path,
    stdout: int,
    stderr: int | None = None,
) -> Forked | None:
    """``python ARGV`` as a child of the zygote, writing to the descriptors ``stdout`` and
    ``stderr`` (by default the same); None when it cannot be (forking switched off, too many
    sets of interpreter settings, no zygote): then the caller starts the process itself. The
    interpreter reads its own settings (PYTHON*) once, at start, so a zygote serves only the
    settings it was started with; where compiled modules are kept and whether output is
    buffered change nothing a test sees."""
    if os.environ.get(FORK_SETTING, "1") == "0":
        return None
    loop = asyncio.get_running_loop()
    interpreter = _interpreter(environment)
    path = _shared_path(interpreter)
    if path is None:
        zygote = _zygotes.get(_named(interpreter))
        if zygote is None:
            if len(_zygotes) >= MAX_ZYGOTES:
                return None
            zygote = _zygotes[_named(interpreter)] = _Zygote(environment)
        if not await loop.run_in_executor(None, zygote.ready.wait, patient(60.0)) or not zygote.ok:
            return None
        path, wait = zygote.path, 0.0
    else:
        wait = patient(60.0)
    connection = await _connected(path, wait)
    if connection is None:
        return None
    request = json.dumps({"argv": list(argv), "env": dict(environment), "cwd": str(cwd)})
    output = array.array("i", [stdout, stdout if stderr is None else stderr])
    try:
        connection.sendmsg(
            [request.encode() + b"\n"],
            [(socket.SOL_SOCKET, socket.SCM_RIGHTS, output)],
        )
        connection.setblocking(False)
        data = b""
        while b"\n" not in data:
            chunk = await loop.sock_recv(connection, 64)
            if not chunk:
                raise ConnectionError("the zygote hung up")
            data += chunk
    except OSError:
        connection.close()
        return None
    line, rest = data.split(b"\n", 1)
    return Forked(int(line.split()[1]), connection, rest)


if __name__ == "__main__":
    main()
