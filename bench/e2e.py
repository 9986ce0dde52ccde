"""End-to-end benchmark: ``/r 7 6`` through the real bot process, next to a minimal echo bot.

docs/product.md's quality bars ask two relative questions, and both need the real thing rather than
a handler called in-process:

* throughput — does ``python -m bot`` answer ``/r 7 6`` at no less than 85% of the rate of the
  smallest aiogram bot (``bench/echo_bot.py``) polling the same fake Bot API server in the same
  run, with at most 1.3 times its CPU per reply? Everything outside the bot (the fake server,
  the load, the machine) is shared, so the ratio is the cost of our middlewares, Redis, rules
  and rendering;
* Redis round-trips — at most 3 per simple roll, the inbox's write included (docs/product.md
  §5), since every round-trip is latency a player waits for and a chance to fail when Redis is
  slow.

Method. One fake Bot API server (``localapi/server.py``) runs in this script's event loop
and one fresh ``redis-server`` in a temporary directory. For each bot: start the process, wait
until it polls, warm up, then run a closed loop of ``--requests`` messages with
``--concurrency`` in flight — each in-flight slot is one user in their private chat who sends,
waits for the bot's reply, and sends again. Latency is from enqueueing the update (what
Telegram does when the user presses Send) to the bot's ``sendMessage`` for that chat reaching
the server; throughput is replies per second over the measured phase. The bot's CPU time
(``/proc``) is reported per reply because on a shared machine it is steadier than wall time.

Our bot runs twice: with Telegram's send limits lifted (the code's own cost, comparable with
the echo bot, which has no limiter) and as shipped, where ``bot.session``'s limiter keeps sends
under Telegram's 30 messages a second — a real bot is held to that by Telegram anyway.
Private chats are used because the per-group limit (20 a minute) would otherwise be the only
thing measured.

Redis, during the measured phase of the limits-lifted run: ``CONFIG RESETSTAT`` then
``INFO commandstats`` gives commands per roll (including those a Lua script runs on the
server), and ``INFO stats`` ``total_reads_processed`` counts the server's read events — one per
request the client writes, so one per round-trip (a pipeline is written at once). Then a
few rolls one at a time under ``MONITOR`` show the exact commands of one roll, and round-trips
are counted from them: each command the client sent is one, except that a MULTI…EXEC
transaction (redis-py sends a transactional pipeline in one write) is one.

Exit status: 0 if every request got exactly one valid reply, 1 otherwise (lost, duplicate or
malformed replies, or errors inside the fake server); ``--strict`` also fails on a missed
target. Run: ``.venv/bin/python bench/e2e.py`` (about a minute on 2 cores).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from localapi.processes import BotProcess, RedisServer  # noqa: E402
from localapi.server import FakeBotApi, FakeChat, FakeUser, JsonDict  # noqa: E402

# The targets (bench/README.md): ours/echo throughput of the best rounds, ours/echo CPU per
# reply (mean of rounds), and Redis round-trips per roll with the inbox's write.
THROUGHPUT_TARGET = 0.85
CPU_TARGET = 1.3
ROUND_TRIP_TARGET = 3.0
ROLL_TEXT = "/r 7 6"
ROLL_POOL = 7
ECHO_BOT = REPO_ROOT / "bench" / "echo_bot.py"
# ``python -m bot`` with bot.session's Telegram limits raised out of reach; everything else is
# the shipped code (the limiter still runs, it just never waits).
UNTHROTTLED_BOT = (
    "import sys\n"
    "import bot.session as session\n"
    "session.GROUP_LIMIT = session.GLOBAL_LIMIT = 10**9\n"
    "from bot.__main__ import main\n"
    "sys.exit(main([]))\n"
)
# ``--with-proposed-fix``: the same, plus the two changes this benchmark's findings propose for
# bot/, applied from outside so they can be measured
# before anyone edits the bot:
# 1. pydantic caches parametrised generic models in a WeakValueDictionary, and aiogram builds
#    ``Response[method.__returning__]`` for every API answer; once the garbage collector drops
#    the class it is rebuilt from its schema (milliseconds each time). A request middleware
#    keeping a strong reference to each ``Response[T]`` makes them permanent.
# 2. ``gc.freeze()`` once the Dispatcher is built: the start-up heap (aiogram's and our pydantic
#    models, catalogues, rules tables) leaves the collector's view, so a full collection walks
#    only what the bot allocated since, instead of stopping the loop for 100+ ms.
PROPOSED_FIX = """
import gc
from aiogram.client.session.middlewares.base import BaseRequestMiddleware
from aiogram.methods import Response
import bot.launch as entry
import bot.session as session

class PinResponseTypes(BaseRequestMiddleware):
    def __init__(self):
        self.pinned = {}

    async def __call__(self, make_request, bot, method):
        returning = method.__returning__
        if returning not in self.pinned:
            self.pinned[returning] = Response[returning]
        return await make_request(bot, method)

_install = session.install_middlewares
def install_middlewares(s, **options):
    _install(s, **options)
    s.middleware(PinResponseTypes())
session.install_middlewares = install_middlewares

_create = entry.create_dispatcher
def create_dispatcher(*args, **kwargs):
    dispatcher = _create(*args, **kwargs)
    gc.collect()
    gc.freeze()
    return dispatcher
entry.create_dispatcher = create_dispatcher
"""
# Commands this script sends to Redis itself; they are not the bot's.
# The delivery's inbox (bot/delivery.py): an update is kept there before Telegram is told it
# arrived — by the update's first step, or by a write of the fetch's own when its chat is busy
# — and the inbox is looked through for orphans every few seconds (docs/product.md §5 "nothing
# lost"). The fetch's own writes count in a roll's round-trips; the periodic look does not
# (it is one every few seconds, however many rolls).
INBOX_WRITE = re.compile(r'"hset" "sdb:inbox:', re.IGNORECASE)
INBOX_SCAN = re.compile(r'"hgetall" "sdb:inbox:', re.IGNORECASE)
HARNESS_COMMANDS = frozenset({"info", "config|resetstat", "config", "monitor", "ping"})
_MONITOR_LINE = re.compile(
    r'^\+?(?P<at>[\d.]+) \[(?P<db>\d+) (?P<client>[^\]]+)\] "(?P<cmd>[^"]+)"'
)


# --------------------------------------------------------------------------------------------
# Adapters over the e2e helpers (which belong to the e2e tests and are not edited here)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    at: float
    text: str


class BenchApi(FakeBotApi):
    """The fake server, plus a hook that hands each chat's next ``sendMessage`` to its waiter.

    Why a hook and not ``wait_for_message``: that one re-scans every chat on every server event
    from every waiter, which would put the harness's CPU into the measured latency.
    """

    def __init__(self) -> None:
        super().__init__()
        self.waiters: dict[int, asyncio.Future[Reply]] = {}
        self.unexpected: list[str] = []

    async def _send_message(self, params: JsonDict) -> JsonDict:
        result = await super()._send_message(params)
        now = time.monotonic()
        chat_id = params["chat_id"]
        waiter = self.waiters.pop(chat_id, None)
        if waiter is None or waiter.done():
            self.unexpected.append(f"chat {chat_id}: {result.get('text', '')[:80]!r}")
        else:
            waiter.set_result(Reply(now, str(result.get("text", ""))))
        return result


class CommandProcess(BotProcess):
    """:class:`BotProcess` (environment, log, SIGTERM stop) running any Python command line."""

    warm = False  # the process is what is measured: started as it would be

    def __init__(self, arguments: Sequence[str], env: dict[str, str], log_path: Path) -> None:
        super().__init__(env, log_path)
        self.arguments = list(arguments)

    def command_line(self, arguments: Sequence[str]) -> list[str]:
        return [*self.arguments, *arguments]

    def cpu_seconds(self) -> float | None:
        """utime + stime of the process so far, from /proc (None where there is no /proc)."""
        if self.process is None:
            return None
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None
        ticks = int(fields[11]) + int(fields[12])  # fields 14 and 15 of proc(5)
        return ticks / os.sysconf("SC_CLK_TCK")


# --------------------------------------------------------------------------------------------
# Load
# --------------------------------------------------------------------------------------------


@dataclass
class Phase:
    """One closed-loop phase: latencies of answered requests, and what went wrong."""

    sent: int = 0
    latencies: list[float] = field(default_factory=list)
    lost: int = 0
    malformed: list[str] = field(default_factory=list)
    started: float = 0.0
    finished: float = 0.0

    @property
    def replies(self) -> int:
        return len(self.latencies)

    @property
    def throughput(self) -> float:
        elapsed = self.finished - self.started
        return self.replies / elapsed if elapsed > 0 else 0.0

    def percentile(self, q: float) -> float:
        """Nearest-rank percentile in milliseconds (NaN without data)."""
        if not self.latencies:
            return math.nan
        ordered = sorted(self.latencies)
        rank = max(1, math.ceil(q / 100 * len(ordered)))
        return ordered[rank - 1] * 1000


def valid_roll(text: str) -> bool:
    """``/r 7 6`` answered as the outside check reads it: 7 faces 1–10 on line two."""
    lines = text.splitlines()
    if len(lines) < 3:
        return False
    faces = [int(f) for f in re.findall(r"\d+", lines[1])]
    return len(faces) == ROLL_POOL and all(1 <= f <= 10 for f in faces)


async def closed_loop(
    api: BenchApi,
    slots: Sequence[tuple[FakeChat, FakeUser]],
    requests: int,
    text: str,
    *,
    roll: bool,
    timeout: float,  # noqa: ASYNC109 - per reply; a lost reply is counted, not raised
) -> Phase:
    """``requests`` messages, one in flight per slot; each slot resends as soon as answered."""
    phase = Phase(started=time.monotonic())
    tickets: Iterator[int] = iter(range(requests))
    loop = asyncio.get_running_loop()

    async def user(chat: FakeChat, sender: FakeUser) -> None:
        for ticket in tickets:
            body = text if roll else f"{text} {ticket}"
            waiter: asyncio.Future[Reply] = loop.create_future()
            api.waiters[chat.id] = waiter
            phase.sent += 1
            sent_at = time.monotonic()
            api.send_text(chat, sender, body)
            try:
                reply = await asyncio.wait_for(waiter, timeout)
            except TimeoutError:
                api.waiters.pop(chat.id, None)
                phase.lost += 1
                return  # a late reply would be taken for the next request's
            phase.latencies.append(reply.at - sent_at)
            phase.finished = max(phase.finished, reply.at)
            ok = valid_roll(reply.text) if roll else reply.text == body
            if not ok:
                phase.malformed.append(reply.text[:120])

    await asyncio.gather(*(user(chat, sender) for chat, sender in slots))
    return phase


# --------------------------------------------------------------------------------------------
# Redis accounting
# --------------------------------------------------------------------------------------------


def bot_commands(commandstats: dict[str, Any]) -> Counter[str]:
    """Calls per command since the last reset, without this script's own INFO/CONFIG."""
    counts: Counter[str] = Counter()
    for key, value in commandstats.items():
        name = key.removeprefix("cmdstat_")
        if name in HARNESS_COMMANDS or name.startswith("config"):
            continue
        calls = value["calls"] if isinstance(value, dict) else int(str(value).split("=")[1])
        counts[name] = int(calls)
    return counts


@dataclass
class MonitorSample:
    rolls: int
    client_commands: int
    lua_commands: int
    round_trips: int
    one_roll: list[str]
    delivery_trips: int = 0  # the fetch's own inbox writes (a chat busy when it arrived)
    scans: int = 0  # the periodic looks through the inbox for orphans


def count_round_trips(lines: Sequence[str]) -> tuple[int, int, int, list[list[str]]]:
    """(client commands, Lua-run commands, round-trips, per-request command groups).

    A command the client sent is one round-trip, except MULTI…EXEC from one connection,
    which redis-py writes in one go. Lines tagged ``lua`` ran inside a script on the server.
    """
    client = lua = trips = 0
    groups: list[list[str]] = []
    in_multi: set[str] = set()
    for line in lines:
        match = _MONITOR_LINE.match(line)
        if match is None:
            continue
        command, source = match["cmd"].upper(), match["client"]
        if command in ("INFO", "MONITOR", "CONFIG"):
            continue
        if source == "lua":
            lua += 1
            if groups:
                groups[-1].append(f"  (lua) {command}")
            continue
        client += 1
        if source in in_multi:
            groups[-1].append(command)
            if command in ("EXEC", "DISCARD"):
                in_multi.discard(source)
            continue
        trips += 1
        groups.append([command])
        if command == "MULTI":
            in_multi.add(source)
    return client, lua, trips, groups


class Monitor:
    """A raw ``MONITOR`` connection collecting lines until closed."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.lines: list[str] = []
        self._task: asyncio.Task[None] | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def __aenter__(self) -> Monitor:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        self._writer = writer
        writer.write(b"MONITOR\r\n")
        await writer.drain()
        if (await reader.readline()).strip() != b"+OK":
            raise RuntimeError("MONITOR was refused")
        self._task = asyncio.create_task(self._read(reader))
        return self

    async def _read(self, reader: asyncio.StreamReader) -> None:
        while line := await reader.readline():
            self.lines.append(line.decode(errors="replace").rstrip("\r\n"))

    async def __aexit__(self, *exc_info: object) -> None:
        await asyncio.sleep(0.1)  # the last lines are in flight
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(OSError):
                await self._writer.wait_closed()


# --------------------------------------------------------------------------------------------
# Runs
# --------------------------------------------------------------------------------------------


@dataclass
class RunResult:
    name: str
    requests: int
    replies: int
    lost: int
    malformed: int
    unexpected: int
    throughput: float
    p50_ms: float
    p99_ms: float
    cpu_ms_per_reply: float | None
    redis: dict[str, Any] | None = None


@dataclass
class Options:
    requests: int
    shipped_requests: int
    warmup: int
    concurrency: int
    sample: int
    timeout: float
    rounds: int
    proposed_fix: bool = False


async def run_bot(
    name: str,
    arguments: Sequence[str],
    env: dict[str, str],
    api: BenchApi,
    slots: Sequence[tuple[FakeChat, FakeUser]],
    options: Options,
    work_dir: Path,
    *,
    roll: bool,
    requests: int,
    redis_port: int | None = None,
) -> RunResult:
    """Start, warm up, measure, (for our bot) count Redis work, stop."""
    log_path = work_dir / (re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") + ".log")
    process = CommandProcess(arguments, env, log_path)
    text = ROLL_TEXT if roll else "echo"
    unexpected_before = len(api.unexpected)
    since = time.monotonic()
    await process.start()
    try:
        await process.wait_until(
            lambda: any(c.at >= since for c in api.calls_to("getUpdates")), 30, what="polling"
        )
        warm = await closed_loop(
            api, slots, options.warmup, text, roll=roll, timeout=options.timeout
        )
        if warm.lost:
            raise AssertionError(f"{name}: lost replies while warming up:\n{process.log_tail()}")
        stats = aioredis.Redis(port=redis_port, decode_responses=True) if redis_port else None
        try:
            reads_before = 0
            if stats is not None:
                await stats.config_resetstat()
                reads_before = int((await stats.info("stats"))["total_reads_processed"])
            cpu_before = process.cpu_seconds()
            phase = await closed_loop(
                api, slots, requests, text, roll=roll, timeout=options.timeout
            )
            cpu_after = process.cpu_seconds()
            redis_report: dict[str, Any] | None = None
            if stats is not None and redis_port is not None:
                reads_after = int((await stats.info("stats"))["total_reads_processed"])
                commands = bot_commands(await stats.info("commandstats"))
                sample = await monitored_sample(api, slots[0], options, redis_port)
                redis_report = redis_summary(
                    phase.replies, commands, reads_after - reads_before - 1, sample
                )
        finally:
            if stats is not None:
                await stats.aclose()
    finally:
        code = await process.stop()
    if code not in (0, None, -15):
        print(f"warning: {name} exited with {code}; log: {log_path}", file=sys.stderr)
    cpu = None
    if cpu_before is not None and cpu_after is not None and phase.replies:
        cpu = (cpu_after - cpu_before) * 1000 / phase.replies
    if phase.lost or phase.malformed:
        print(f"--- {name}: log tail ---\n{process.log_tail()}", file=sys.stderr)
        for text_seen in phase.malformed[:3]:
            print(f"malformed reply: {text_seen!r}", file=sys.stderr)
    return RunResult(
        name=name,
        requests=requests,
        replies=phase.replies,
        lost=phase.lost + (requests - phase.sent),
        malformed=len(phase.malformed),
        unexpected=len(api.unexpected) - unexpected_before,
        throughput=phase.throughput,
        p50_ms=phase.percentile(50),
        p99_ms=phase.percentile(99),
        cpu_ms_per_reply=cpu,
        redis=redis_report,
    )


async def monitored_sample(
    api: BenchApi, slot: tuple[FakeChat, FakeUser], options: Options, redis_port: int
) -> MonitorSample:
    """A few rolls one at a time under MONITOR: what exactly one roll asks of Redis."""
    await asyncio.sleep(0.5)  # the measured phase's last updates finish before MONITOR starts
    async with Monitor(redis_port) as monitor:
        phase = await closed_loop(
            api, [slot], options.sample, ROLL_TEXT, roll=True, timeout=options.timeout
        )
    scans = sum(1 for line in monitor.lines if INBOX_SCAN.search(line))
    client, lua, trips, groups = count_round_trips(
        [line for line in monitor.lines if not INBOX_SCAN.search(line)]
    )
    delivery = sum(  # the fetch's own; the update's first step writes it from Lua
        1 for line in monitor.lines if INBOX_WRITE.search(line) and " lua]" not in line
    )
    rolls = phase.replies
    # One roll's requests: the first group is the update's EVALSHA, the next its log write.
    per_roll = math.ceil(trips / rolls) if rolls else 0
    one = [line for group in groups[:per_roll] for line in group]
    return MonitorSample(rolls, client, lua, trips, one, delivery, scans)


def redis_summary(
    rolls: int, commands: Counter[str], reads: int, sample: MonitorSample
) -> dict[str, Any]:
    total = sum(commands.values())
    return {
        "rolls": rolls,
        "commands": dict(commands.most_common()),
        "commands_per_roll": total / rolls if rolls else math.nan,
        "read_events_per_roll": reads / rolls if rolls else math.nan,
        "sample_rolls": sample.rolls,
        "client_commands_per_roll": sample.client_commands / max(sample.rolls, 1),
        "lua_commands_per_roll": sample.lua_commands / max(sample.rolls, 1),
        "round_trips_per_roll": sample.round_trips / max(sample.rolls, 1),
        "handling_round_trips_per_roll": (sample.round_trips - sample.delivery_trips)
        / max(sample.rolls, 1),
        "inbox_writes_per_roll": sample.delivery_trips / max(sample.rolls, 1),
        "inbox_scans": sample.scans,
        "one_roll": sample.one_roll,
    }


async def benchmark(options: Options, work_dir: Path) -> tuple[list[RunResult], list[str]]:
    results: list[RunResult] = []
    api = BenchApi()
    await api.start()
    try:
        redis_dir = work_dir / "redis"
        redis_dir.mkdir()
        redis = RedisServer(redis_dir)
        await redis.start()
        try:
            slots = []
            for index in range(options.concurrency):
                user = api.add_user(f"Player{index}", language_code="ru")
                slots.append((api.open_private_chat(user), user))
            echo_env = {"BOT_TOKEN": api.token, "TELEGRAM_API_URL": api.base_url}
            ours_env = {
                **echo_env,
                "REDIS_URL": redis.url,
                "DEFAULT_LOCALE": "ru",
                "LOG_LEVEL": "INFO",
            }

            async def measure(
                name: str,
                arguments: list[str],
                env: dict[str, str],
                *,
                roll: bool,
                requests: int,
                redis_port: int | None = None,
            ) -> None:
                # Every bot is measured against the same fake server, chats and options.
                result = await run_bot(
                    name,
                    arguments,
                    env,
                    api,
                    slots,
                    options,
                    work_dir,
                    roll=roll,
                    requests=requests,
                    redis_port=redis_port,
                )
                results.append(result)

            for round_number in range(options.rounds):
                suffix = f" #{round_number + 1}" if options.rounds > 1 else ""
                await measure(
                    f"echo (minimal aiogram){suffix}",
                    [str(ECHO_BOT)],
                    echo_env,
                    roll=False,
                    requests=options.requests,
                )
                await measure(
                    f"ours /r 7 6, limits lifted{suffix}",
                    ["-c", UNTHROTTLED_BOT],
                    ours_env,
                    roll=True,
                    requests=options.requests,
                    redis_port=redis.port if round_number == 0 else None,
                )
                if options.proposed_fix:
                    await measure(
                        f"ours, lifted + proposed fix{suffix}",
                        ["-c", PROPOSED_FIX + UNTHROTTLED_BOT],
                        ours_env,
                        roll=True,
                        requests=options.requests,
                    )
            if options.shipped_requests:
                await measure(
                    "ours /r 7 6, as shipped",
                    ["-m", "bot"],
                    ours_env,
                    roll=True,
                    requests=options.shipped_requests,
                )
        finally:
            await redis.stop()
    finally:
        await api.close()
    problems = [f"fake server: {e}" for e in api.internal_errors]
    problems += [f"unexpected reply: {u}" for u in api.unexpected]
    return results, problems


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------


def best(results: Sequence[RunResult], prefix: str) -> RunResult | None:
    """The round with the highest throughput: the least disturbed by the shared machine."""
    matching = [r for r in results if r.name.startswith(prefix)]
    return max(matching, key=lambda r: r.throughput) if matching else None


def paired_ratios(results: Sequence[RunResult]) -> list[float]:
    """Each round's throughput ours/echo, the two runs measured one after the other."""
    echoes = [r for r in results if r.name.startswith("echo")]
    ours = [r for r in results if r.name.startswith("ours /r 7 6, limits lifted")]
    return [
        o.throughput / e.throughput for e, o in zip(echoes, ours, strict=False) if e.throughput > 0
    ]


def mean_cpu(results: Sequence[RunResult], prefix: str) -> float | None:
    values = [
        r.cpu_ms_per_reply
        for r in results
        if r.name.startswith(prefix) and r.cpu_ms_per_reply is not None
    ]
    return sum(values) / len(values) if values else None


def report(results: Sequence[RunResult], options: Options) -> tuple[str, dict[str, Any]]:
    rows = [
        f"{'run':<34} {'sent':>5} {'ok':>5} {'lost':>4} {'replies/s':>9} "
        f"{'p50 ms':>7} {'p99 ms':>7} {'bot CPU ms/reply':>16}"
    ]
    for r in results:
        cpu = "-" if r.cpu_ms_per_reply is None else f"{r.cpu_ms_per_reply:.2f}"
        rows.append(
            f"{r.name:<34} {r.requests:>5} {r.replies - r.malformed:>5} {r.lost:>4} "
            f"{r.throughput:>9.1f} {r.p50_ms:>7.1f} {r.p99_ms:>7.1f} {cpu:>16}"
        )
    echo = best(results, "echo")
    ours = best(results, "ours /r 7 6, limits lifted")
    shipped = best(results, "ours /r 7 6, as shipped")
    summary: dict[str, Any] = {"options": asdict(options), "runs": [asdict(r) for r in results]}
    lines = [
        f"closed loop: {options.concurrency} in flight (one user per private chat), "
        f"{options.requests} measured requests after {options.warmup} warm-up ones",
        "",
        *rows,
        "",
    ]
    if echo and ours and echo.throughput > 0:
        ratio = ours.throughput / echo.throughput
        summary["throughput_ratio"] = ratio
        lines.append(
            f"throughput ours/echo (limits lifted, best rounds): {ratio:.2f}  "
            f"(target >= {THROUGHPUT_TARGET:.2f}: {_verdict(ratio >= THROUGHPUT_TARGET)})"
        )
        paired = paired_ratios(results)
        if len(paired) > 1:
            summary["paired_throughput_ratios"] = paired
            lines.append(
                f"  round by round (each against the echo run just before it): median "
                f"{statistics.median(paired):.2f}, {min(paired):.2f}–{max(paired):.2f}; a round "
                "the machine gave one side alone moves the best rounds' ratio, not this"
            )
        echo_cpu = mean_cpu(results, "echo")
        ours_cpu = mean_cpu(results, "ours /r 7 6, limits lifted")
        if echo_cpu and ours_cpu:
            cpu_ratio = ours_cpu / echo_cpu
            summary["cpu_ratio"] = cpu_ratio
            lines.append(
                f"bot CPU per reply ours/echo (mean of rounds): {cpu_ratio:.2f}  "
                f"(target <= {CPU_TARGET:.2f}: {_verdict(cpu_ratio <= CPU_TARGET)}; steadier "
                f"than wall time on a busy machine: 1/{cpu_ratio:.2f} = {1 / cpu_ratio:.2f} "
                "would be the throughput ratio if both were CPU-bound)"
            )
        fixed = best(results, "ours, lifted + proposed fix")
        if fixed:
            fixed_ratio = fixed.throughput / echo.throughput
            summary["fixed_throughput_ratio"] = fixed_ratio
            lines.append(f"throughput ours with the proposed fix/echo: {fixed_ratio:.2f}")
            fixed_cpu = mean_cpu(results, "ours, lifted + proposed fix")
            if echo_cpu and fixed_cpu:
                summary["fixed_cpu_ratio"] = fixed_cpu / echo_cpu
                lines.append(
                    f"bot CPU per reply ours with the proposed fix/echo: {fixed_cpu / echo_cpu:.2f}"
                )
        if shipped:
            shipped_ratio = shipped.throughput / echo.throughput
            summary["shipped_throughput_ratio"] = shipped_ratio
            lines.append(
                f"throughput ours/echo as shipped: {shipped_ratio:.2f}  "
                "(bot.session holds sends to Telegram's 30/s, the echo bot has no limiter)"
            )
    measured = next((r.redis for r in results if r.redis), None)
    if measured:
        summary["redis"] = measured
        trips = measured["round_trips_per_roll"]
        handling = measured["handling_round_trips_per_roll"]
        verdict = _verdict(trips <= ROUND_TRIP_TARGET)
        lines += [
            "",
            f"Redis per roll over {measured['rolls']} rolls (INFO commandstats, incl. commands "
            f"run inside Lua): {measured['commands_per_roll']:.2f} commands",
            "  " + ", ".join(f"{k} {v}" for k, v in measured["commands"].items()),
            f"Redis read events per roll (INFO stats total_reads_processed): "
            f"{measured['read_events_per_roll']:.2f}",
            f"MONITOR over {measured['sample_rolls']} rolls one at a time: "
            f"{measured['client_commands_per_roll']:.2f} commands sent by the bot + "
            f"{measured['lua_commands_per_roll']:.2f} run by Lua; "
            f"Redis round-trips per roll, the inbox's write included: {trips:.2f}  "
            f"(target <= {ROUND_TRIP_TARGET:.0f}: {verdict}); of which the fetch's own inbox "
            f"writes {trips - handling:.2f} (an update's first step keeps it in the inbox "
            f"unless its chat is busy); {measured['inbox_scans']} look(s) for orphans "
            "(every few seconds, not per roll) left out",
            "one roll: " + " | ".join(c.strip() for c in measured["one_roll"]),
        ]
    return "\n".join(lines), summary


def _verdict(held: bool) -> str:
    return "met" if held else "MISSED"


def parse_options(argv: Sequence[str] | None) -> tuple[Options, argparse.Namespace]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--requests", type=int, default=300, help="measured requests per run")
    parser.add_argument(
        "--shipped-requests",
        type=int,
        default=120,
        help="requests for the as-shipped run (capped at 30/s by design); 0 skips it",
    )
    parser.add_argument("--warmup", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=8, help="requests in flight")
    parser.add_argument("--sample", type=int, default=10, help="rolls under MONITOR")
    parser.add_argument("--rounds", type=int, default=3, help="echo/ours pairs, best is kept")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for a reply")
    parser.add_argument(
        "--with-proposed-fix",
        action="store_true",
        help="also run our bot with the fix proposed for bot/ (Response pinning, gc.freeze)",
    )
    parser.add_argument("--json", type=Path, help="also write the results here as JSON")
    parser.add_argument("--strict", action="store_true", help="exit 1 on a missed target too")
    parser.add_argument("--keep-logs", action="store_true", help="print where the logs are")
    args = parser.parse_args(argv)
    options = Options(
        requests=args.requests,
        shipped_requests=args.shipped_requests,
        warmup=args.warmup,
        concurrency=args.concurrency,
        sample=args.sample,
        timeout=args.timeout,
        rounds=args.rounds,
        proposed_fix=args.with_proposed_fix,
    )
    return options, args


def main(argv: Sequence[str] | None = None) -> int:
    options, args = parse_options(argv)
    started = time.monotonic()
    keep = tempfile.mkdtemp(prefix="bench-e2e-") if args.keep_logs else None
    with contextlib.ExitStack() as stack:
        work_dir = Path(keep or stack.enter_context(tempfile.TemporaryDirectory("-bench-e2e")))
        try:
            results, problems = asyncio.run(benchmark(options, work_dir))
        except AssertionError as error:  # a bot that does not start or a lost warm-up
            print(f"FAILED: {error}", file=sys.stderr)
            return 1
    text, summary = report(results, options)
    print(text)
    print(f"\n(total {time.monotonic() - started:.0f} s{f'; logs in {keep}' if keep else ''})")
    failed = [
        f"{r.name}: {r.lost} lost, {r.malformed} malformed, {r.unexpected} unexpected"
        for r in results
        if r.lost or r.malformed or r.unexpected
    ] + problems
    if args.strict:
        if summary.get("throughput_ratio", 0.0) < THROUGHPUT_TARGET:
            failed.append("throughput target missed")
        if summary.get("cpu_ratio", math.inf) > CPU_TARGET:
            failed.append("CPU target missed")
        redis = summary.get("redis", {})
        if redis.get("round_trips_per_roll", math.inf) > ROUND_TRIP_TARGET:
            failed.append("round-trip target missed")
    summary["failures"] = failed
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2, default=str))
    for failure in failed:
        print(f"FAILED: {failure}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
