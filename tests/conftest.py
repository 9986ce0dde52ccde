"""Shared fixtures: an in-process Store for fast tests and a real redis-server when it matters.

The real server runs from Debian's binary on a random free port in a temporary directory, so
tests never touch a system Redis and can stop and restart it to play an outage. A real
three-node Redis Cluster (docs/product.md §5 "Scale") is made the same way, once per test session,
and emptied before each test that uses it.

Under pytest-xdist (scripts/test passes ``-n``) a test goes to whichever worker is free, except
those that share something costly to start, which stay together on one worker
(:func:`work_unit`): the cluster's tests, and each end-to-end file with its processes.

No test waits on a fixed wall: a limit is what an idle machine needs, times
``TEST_TIMEOUT_SCALE`` (:mod:`localapi.patience`, default 3), and a wait ends as soon as its
condition holds.
"""

from __future__ import annotations

import gc
import shutil
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import fakeredis
import pytest
from redis import Redis as SyncRedis
from redis.exceptions import RedisError

from localapi.patience import SCALE_ENV, patient, timeout_scale
from localapi.server import FakeBotApi
from table.store import Store

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def _read_handler_signatures_once() -> None:
    """aiogram reads the signature of every callback it wraps, and every Router makes one
    wrapped callback per update type: building the Dispatcher (``create_dispatcher``, which the
    handler tests do for every table, the property tests for every example) spent four fifths
    of its time in ``inspect.signature``. aiogram keeps only each parameter's name and kind,
    which a plain function's code object fixes, so in the test processes (not the bot's) the
    signature is read once per code object; anything else is read as before."""
    import inspect
    import types

    from aiogram.dispatcher.event import handler

    read = inspect.signature
    known: dict[types.CodeType, inspect.Signature] = {}

    def signature(callback: Any, **options: Any) -> inspect.Signature:
        plain = (
            type(callback) is types.FunctionType
            and not options
            and "__signature__" not in callback.__dict__
            and "__wrapped__" not in callback.__dict__
        )
        if not plain:
            return read(callback, **options)
        code = callback.__code__
        found = known.get(code)
        if found is None:
            found = known[code] = read(callback)
        return found

    def unwrap(callback: Any, **options: Any) -> Any:
        if not options and not hasattr(callback, "__wrapped__"):
            return callback  # what inspect.unwrap gives back for it, without its bookkeeping
        return inspect.unwrap(callback, **options)

    seen = types.ModuleType(inspect.__name__, inspect.__doc__)
    vars(seen).update(vars(inspect))
    vars(seen).update(signature=signature, unwrap=unwrap)
    handler.inspect = seen  # type: ignore[attr-defined]


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Everything imported and collected so far lives until the end: moved out of the
    collector's sight (``gc.freeze``), it is no longer walked by every full collection,
    which a test that makes many short-lived objects (a Dispatcher, a Hypothesis example)
    set off again and again: building a table took three times as long with it in view.
    The youngest generation is collected every 50,000 allocations rather than 700: a table or
    an example makes tens of thousands of short-lived objects, and a collection in the
    middle of each found little to free (a table took 19 ms with the default, 12 with this)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist the run's first process only hands out the tests: it starts the
    zygote every worker forks its test bots from (localapi/zygote.py), one warm interpreter
    for the run rather than one per worker, which warms up while the workers collect the
    tests; and it never imports aiogram (seconds of one core). A process that runs tests
    reads the handlers' signatures once (:func:`_read_handler_signatures_once`)."""
    workers = getattr(config.option, "numprocesses", None)
    if not hasattr(config, "workerinput") and isinstance(workers, int) and workers > 0:
        from localapi import zygote
        from localapi.processes import bot_environment

        zygote.start_shared(bot_environment())
    else:
        _read_handler_signatures_once()


def pytest_report_header() -> str:
    return f"waits: the idle machine's limits times {timeout_scale():g} ({SCALE_ENV})"


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """pytest-xdist's scheduler over our work units (:func:`work_unit`), taken in collection
    order: the end-to-end files come first (tests/e2e/conftest.py), the shared world's ahead
    of the rest, so a worker's long units start early and single tests fill the end."""
    from xdist.scheduler import LoadScopeScheduling

    class ByWorkUnit(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            """The next unit in order, unless the workers already waiting on processes fill
            their share (:func:`waiting_slots`): then the next unit that computes, so the
            cores are not left idle while every worker waits on a bot or a clock."""
            waiting = sum(
                1
                for units in self.assigned_work.values()
                for unit, tests in units.items()
                if is_waiting(unit) and not all(tests.values())
            )
            if waiting >= waiting_slots(len(self.nodes)):
                busy = next((unit for unit in self.workqueue if not is_waiting(unit)), None)
                if busy is not None:
                    self.workqueue.move_to_end(busy, last=False)
            super()._assign_work_unit(node)

    config.option.loadscopereorder = False
    return ByWorkUnit(config, log)


def is_waiting(unit: str) -> bool:
    """An end-to-end unit: its worker spends most of its time waiting on the processes it
    started (a bot's replies, Telegram's minute, an outage played out)."""
    return unit.startswith("tests/e2e/")


def waiting_slots(workers: int) -> int:
    """How many workers may wait on end-to-end units at once: half of them, so the others
    keep the cores busy with the units that compute."""
    return max(1, workers // 2)


# End-to-end files whose every test starts processes of its own (``bot_process``): nothing
# to share, so their long tests spread over the workers like any other.
ONE_BY_ONE = frozenset(
    {
        "tests/e2e/test_faults_e2e.py",
        "tests/e2e/test_scale_e2e.py",
        "tests/e2e/test_upgrade_e2e.py",
    }
)


# Files outside tests/e2e with tests that each take many seconds (Hypothesis over the whole
# dispatcher, processes started and waited on, exact probability grids). They are handed out
# right after the end-to-end files: started last, one of them would keep a worker busy while
# the others stand idle at the end of the run.
LONG_FILES = (
    "tests/handlers/test_fuzz_all.py",
    "tests/handlers/roll/test_properties.py",
    "tests/handlers/test_table_properties.py",
    "tests/bot/test_main.py",
    "tests/handlers/hidden/test_hidden.py",
    "tests/handlers/requests/test_requests.py",
    "tests/rules/test_probability.py",
    "tests/rules/test_d6_probability.py",
    "tests/localapi/test_processes.py",
    "tests/bot/test_parsing.py",
)


# End-to-end tests that wait longest (Telegram's minute in a group, an outage played out, a
# benchmark's rounds): started first among the waiting units, so none of them is left to run
# alone at the end while the other workers are done.
LONGEST_WAITS = (
    "tests/e2e/test_scale_e2e.py::test_a_replica_killed_mid_burst_under_flood_control",
    "tests/e2e/test_bench_combat_smoke.py",
    "tests/e2e/test_faults_e2e.py::test_redis_out_of_memory_for_ten_seconds",
    "tests/e2e/test_faults_e2e.py::test_a_cluster_s_inbox_primary_killed_mid_burst",
    "tests/e2e/test_faults_e2e.py::test_a_burst_survives_a_cluster_primary_down",
    "tests/e2e/test_faults_e2e.py::test_a_refused_result_is_sent_later",
    "tests/e2e/test_bench_smoke.py",
    "tests/e2e/test_bench_startup_smoke.py",
)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The shared world's end-to-end tests first (tests/e2e/conftest.py), then the other
    end-to-end units, the longest waits first (:data:`LONGEST_WAITS`), then the long files'
    tests (the longest file first), then the rest in their order. The scheduler
    (:func:`pytest_xdist_make_scheduler`) takes a unit that computes ahead of its turn when
    enough workers already wait on end-to-end units."""
    rank = {path: n for n, path in enumerate(LONG_FILES)}
    root = config.rootpath

    def long_rank(item: pytest.Item) -> int | None:
        path = item.path.relative_to(root).as_posix() if item.path.is_relative_to(root) else ""
        return rank.get(path)

    def wait_rank(item: pytest.Item) -> int:
        found = (n for n, prefix in enumerate(LONGEST_WAITS) if item.nodeid.startswith(prefix))
        return next(found, len(LONGEST_WAITS))

    shared = [i for i in items if "shared_world" in getattr(i, "fixturenames", ())]
    e2e = [i for i in items if "/tests/e2e/" in i.path.as_posix() and i not in shared]
    e2e.sort(key=wait_rank)  # stable: a file's tests stay together and in order
    long = sorted((i for i in items if long_rank(i) is not None), key=lambda i: long_rank(i) or 0)
    placed = {id(i) for i in (*shared, *e2e, *long)}
    items[:] = [*shared, *e2e, *long, *(i for i in items if id(i) not in placed)]


def work_unit(nodeid: str) -> str:
    """What one xdist worker runs together, one test after another: an end-to-end file (its
    module-scoped processes start once; the shared world's tests keep to their session loop),
    the Redis Cluster's tests (the session's one cluster); any other test alone."""
    path = nodeid.split("::", 1)[0]
    if path.startswith("tests/e2e/") and path not in ONE_BY_ONE:
        return path
    if "[redis-cluster" in nodeid:
        return "redis-cluster"
    return nodeid


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class RedisServer:
    """A redis-server process the test owns: ``stop()`` and ``start()`` play an outage."""

    directory: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    extra: tuple[str, ...] = ()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                REDIS_SERVER,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.directory),
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                *self.extra,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + patient(10)
        while time.monotonic() < deadline:
            try:
                with SyncRedis(port=self.port, socket_connect_timeout=0.2) as client:
                    if client.ping():
                        return
            except (OSError, RedisError):  # still booting
                pass
            time.sleep(0.01)
        self.stop()
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=patient(5))
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None


SLOTS = 16384


@dataclass
class RedisClusterNodes:
    """Three redis-server processes made one Redis Cluster with no replicas: each node gets a
    third of the 16384 slots (CLUSTER ADDSLOTS), they meet (CLUSTER MEET), and the cluster
    is ready once every node says ``cluster_state:ok`` and knows the other two."""

    directory: Path
    nodes: list[RedisServer] = field(default_factory=list)
    buses: list[int] = field(default_factory=list)  # each node's cluster bus port
    # How each node syncs its AOF: "always" for a test that kills a node and counts on no
    # write it acknowledged being lost (README.md, "Durability": REDIS_APPENDFSYNC).
    fsync: str = "everysec"

    @property
    def url(self) -> str:
        """REDIS_URL for the bot: any one node names the cluster."""
        return f"redis+cluster://127.0.0.1:{self.nodes[0].port}"

    def start(self, size: int = 3) -> None:
        for n in range(size):
            directory = self.directory / f"node-{n}"
            directory.mkdir(parents=True, exist_ok=True)
            bus = free_port()  # not port + 10000, which may be past 65535
            node = RedisServer(
                directory,
                extra=(
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    str(directory / "nodes.conf"),
                    "--cluster-port",
                    str(bus),
                    "--cluster-node-timeout",
                    "2000",
                    "--appendfsync",
                    self.fsync,
                ),
            )
            self.nodes.append(node)
            self.buses.append(bus)
            node.start()
        try:
            self._join()
        except BaseException:
            self.stop()
            raise

    def _join(self) -> None:
        share = SLOTS // len(self.nodes)
        for n, node in enumerate(self.nodes):
            last = SLOTS if n == len(self.nodes) - 1 else (n + 1) * share
            with SyncRedis(port=node.port) as client:
                client.execute_command("CLUSTER SET-CONFIG-EPOCH", n + 1)
                client.execute_command("CLUSTER ADDSLOTS", *range(n * share, last))
        with SyncRedis(port=self.nodes[0].port) as first:
            for node, bus in zip(self.nodes[1:], self.buses[1:], strict=True):
                first.execute_command("CLUSTER MEET", "127.0.0.1", node.port, bus)
        deadline = time.monotonic() + patient(20)
        while not all(self._ready(node) for node in self.nodes):
            if time.monotonic() > deadline:
                raise RuntimeError("the Redis Cluster did not come up")
            time.sleep(0.05)

    def _ready(self, node: RedisServer) -> bool:
        with SyncRedis(port=node.port, decode_responses=True) as client:
            info = client.cluster("INFO")  # parsed into a dict
        return bool(
            info.get("cluster_state") == "ok"
            and info.get("cluster_known_nodes") == str(len(self.nodes))
        )

    def flush(self) -> None:
        for node in self.nodes:
            with SyncRedis(port=node.port) as client:
                client.flushall()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisClusterNodes]:
    """One cluster for the session (making one takes a second or two), emptied per test by
    :func:`cluster_url`."""
    if not Path(REDIS_SERVER).exists():
        pytest.skip("redis-server is not installed")
    cluster = RedisClusterNodes(tmp_path_factory.mktemp("redis-cluster"))
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def cluster_url(redis_cluster: RedisClusterNodes) -> str:
    """REDIS_URL of the session's cluster, emptied for this test."""
    redis_cluster.flush()
    return redis_cluster.url


@pytest.fixture
async def cluster_store(cluster_url: str) -> AsyncIterator[Store]:
    store = Store.from_url(cluster_url)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    if not Path(REDIS_SERVER).exists():
        pytest.skip("redis-server is not installed")
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def shared_redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One redis-server for the session (one per xdist worker), for tests that only read and
    write through a Store: :func:`shared_real_store` empties it before each. A test that stops,
    freezes or reconfigures its server takes ``redis_server``, its own."""
    if not Path(REDIS_SERVER).exists():
        pytest.skip("redis-server is not installed")
    server = RedisServer(tmp_path_factory.mktemp("redis-shared"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def shared_real_store(shared_redis_server: RedisServer) -> AsyncIterator[Store]:
    """``real_store`` on the session's server, emptied first: the same server settings, without
    a process started and stopped for each of the Store's many tests."""
    with SyncRedis(port=shared_redis_server.port) as client:
        client.flushall()
    store = Store.from_url(shared_redis_server.url)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def fake_store() -> AsyncIterator[Store]:
    """A Store over fakeredis with Lua: the same semantics as production, no server."""
    store = Store(fakeredis.FakeAsyncRedis(decode_responses=True))
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def real_store(redis_server: RedisServer) -> AsyncIterator[Store]:
    store = Store.from_url(redis_server.url)
    try:
        yield store
    finally:
        await store.close()


@pytest.fixture
async def fake_api() -> AsyncIterator[FakeBotApi]:
    async with FakeBotApi() as api:
        yield api
    # Answers that do not match api.json are this fake's bugs; they must not pass silently.
    assert not api.internal_errors, api.internal_errors
