"""What ``appendfsync always`` costs against ``everysec`` (README "Durability").

Starts two redis-servers with the append-only file on, one with ``appendfsync always`` and
one with ``everysec``, in directories on the same disk as the temporary directory, and
measures each:

1. the bot's writes alone: MULTI/EXEC transactions like an update's (a hash field and an
   expiry), 8 in flight, as writes per second and their p50/p99 latency;
2. the real ``python -m bot`` (Telegram's limits lifted, as in ``e2e.py``) answering
   ``/r 7 6`` in a closed loop with 8 in flight through the fake Bot API: rolls per second
   and p50/p99 from command to reply. Rounds alternate between the two servers.

It prints each and the ratio always/everysec. With ``always`` every write waits for the disk
(fsync before the reply), so the ratio is the disk's: on a tmpfs it is near 1, on a real
disk each write's latency grows by an fsync, and a roll's by three (its three round-trips
all write).

    .venv/bin/python bench/appendfsync.py [--writes 2000] [--requests 200] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import redis.asyncio as aioredis

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from bench.e2e import (  # noqa: E402
    ROLL_TEXT,
    UNTHROTTLED_BOT,
    BenchApi,
    CommandProcess,
    Phase,
    closed_loop,
)
from localapi.processes import RedisServer  # noqa: E402
from localapi.server import FakeChat, FakeUser  # noqa: E402

MODES = ("everysec", "always")
IN_FLIGHT = 8


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q / 100))] if ordered else 0.0


async def writes(url: str, count: int) -> tuple[float, float, float]:
    """Writes per second, p50 and p99 ms of ``count`` update-like transactions, 8 in flight."""
    client = aioredis.Redis.from_url(url)
    latencies: list[float] = []
    tickets = iter(range(count))

    async def writer() -> None:
        for ticket in tickets:
            started = time.perf_counter()
            async with client.pipeline(transaction=True) as pipe:
                pipe.hset(f"sdb:upd:1:{{{ticket % 64}}}:{ticket}", "fx:1", "x" * 120)
                pipe.expire(f"sdb:upd:1:{{{ticket % 64}}}:{ticket}", 86_400)
                await pipe.execute()
            latencies.append((time.perf_counter() - started) * 1000)

    try:
        started = time.perf_counter()
        await asyncio.gather(*(writer() for _ in range(IN_FLIGHT)))
        elapsed = time.perf_counter() - started
    finally:
        await client.aclose()
    return count / elapsed, percentile(latencies, 50), percentile(latencies, 99)


async def rolls_through_the_bot(
    api: BenchApi,
    slots: Sequence[tuple[FakeChat, FakeUser]],
    env: dict[str, str],
    work: Path,
    args: argparse.Namespace,
    mode: str,
) -> Phase:
    """Start the bot on the server of ``mode``, warm it up, measure a closed loop of rolls.
    The start may take long on a busy machine: importing aiogram alone is seconds of CPU."""
    process = CommandProcess(["-c", UNTHROTTLED_BOT], env, work / f"bot-{mode}.log")
    since = time.monotonic()
    await process.start()
    try:
        await process.wait_until(
            lambda: any(c.at >= since for c in api.calls_to("getUpdates")), 180, what="polling"
        )
        await closed_loop(api, slots, 20, ROLL_TEXT, roll=True, timeout=30)
        return await closed_loop(api, slots, args.requests, ROLL_TEXT, roll=True, timeout=30)
    finally:
        await process.stop()


async def bench(args: argparse.Namespace, work: Path) -> int:
    servers: dict[str, RedisServer] = {}
    for mode in MODES:
        (work / mode).mkdir()
        servers[mode] = RedisServer(work / mode, appendonly=True, appendfsync=mode)
        await servers[mode].start()
    api = BenchApi()
    await api.start()
    failed = False
    try:
        print(f"data on {work} ({IN_FLIGHT} in flight)\n")
        print("1. update-like writes (MULTI hset+expire)")
        measured: dict[str, list[tuple[float, float, float]]] = {m: [] for m in MODES}
        for _round in range(args.rounds):
            for mode in MODES:
                measured[mode].append(await writes(servers[mode].url, args.writes))
        best = {m: max(measured[m]) for m in MODES}
        for mode in MODES:
            rate, p50, p99 = best[mode]
            print(f"   {mode:9} {rate:8.0f} writes/s   p50 {p50:6.2f} ms   p99 {p99:6.2f} ms")
        ratio = best["always"][0] / best["everysec"][0]
        print(f"   throughput always/everysec: {ratio:.2f}")
        print(f"   p50 latency always/everysec: {best['always'][1] / best['everysec'][1]:.2f}\n")

        print("2. /r 7 6 through the real bot (limits lifted)")
        slots = []
        for index in range(IN_FLIGHT):
            user = api.add_user(f"Player{index}", language_code="ru")
            slots.append((api.open_private_chat(user), user))
        rolls: dict[str, list[Phase]] = {m: [] for m in MODES}
        for _round in range(args.rounds):
            for mode in MODES:
                env = {
                    "BOT_TOKEN": api.token,
                    "TELEGRAM_API_URL": api.base_url,
                    "REDIS_URL": servers[mode].url,
                    "REDIS_APPENDFSYNC": mode,
                    "DEFAULT_LOCALE": "ru",
                    "LOG_LEVEL": "WARNING",
                }
                result = await rolls_through_the_bot(api, slots, env, work, args, mode)
                failed = failed or bool(result.lost or result.malformed)
                rolls[mode].append(result)
        top = {m: max(rolls[m], key=lambda r: r.throughput) for m in MODES}
        for mode in MODES:
            r = top[mode]
            p50s = statistics.median(x.percentile(50) for x in rolls[mode])
            print(
                f"   {mode:9} {r.throughput:8.1f} rolls/s   p50 {r.percentile(50):6.1f} ms   "
                f"p99 {r.percentile(99):6.1f} ms   (median p50 of rounds {p50s:.1f} ms)"
            )
        roll_ratio = top["always"].throughput / top["everysec"].throughput
        p50_ratio = top["always"].percentile(50) / top["everysec"].percentile(50)
        print(f"   throughput always/everysec: {roll_ratio:.2f}")
        print(f"   p50 latency always/everysec: {p50_ratio:.2f}")
    finally:
        await api.close()
        for server in servers.values():
            await server.stop()
    if failed:
        print("FAILED: replies lost or malformed", file=sys.stderr)
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--writes", type=int, default=2000, help="transactions per round")
    parser.add_argument("--requests", type=int, default=200, help="rolls per round")
    parser.add_argument("--rounds", type=int, default=2, help="rounds per mode, best is kept")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory("-bench-fsync") as work:
        return asyncio.run(bench(args, Path(work)))


if __name__ == "__main__":
    sys.exit(main())
