"""What rolls leave in Redis: bytes retained per roll and per chat, by kind of key.

docs/product.md §5 asks the table's memory to stay small for a whole campaign: every roll keeps
its line in the chat's log (capped), and whatever else a finished update leaves behind — its
journal, the flow behind the result's buttons, whom the result is about — is paid for as
long as it lives. This script measures that on the real thing: the fake Bot API server
(``localapi/server.py``), a fresh ``redis-server`` and ``python -m bot`` (the send limits
lifted, as ``bench/e2e.py`` does), with ``--groups`` groups of ``--players`` players each
typing ``/r 7 6`` in turn.

Method. After a first round (one roll per player: the chats' settings, sheets and budgets
exist, every player has played), ``MEMORY USAGE`` of every key is summed by kind (the key's
second part: ``upd``, ``flow``, ``log``, …); then ``--rolls`` more rolls per group, and the
sum again once the inbox is empty (every update finished). Bytes retained per roll are the
growth over those rolls without the log's, divided by their number; bytes per chat are
everything a group keeps after the last roll, log included. Exit status 1 if a reply is lost
or ``--strict`` and the per-roll target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from bench.e2e import ROLL_TEXT, UNTHROTTLED_BOT, BenchApi, CommandProcess, closed_loop  # noqa: E402
from localapi.processes import RedisServer  # noqa: E402
from localapi.server import FakeChat, FakeUser  # noqa: E402

PER_ROLL_TARGET = 600  # bytes a finished roll keeps beyond its log line
LOG_KINDS = frozenset({"log"})
# The send budget's windows (table/store/budget.py) hold a send's slot for a second overall and
# a minute in a group, then let it go: shown, not retained.
TRANSIENT_KINDS = frozenset({"budget"})


async def memory_by_kind(redis: aioredis.Redis) -> Counter[str]:
    """Bytes (``MEMORY USAGE``, every element counted) per kind of key."""
    sizes: Counter[str] = Counter()
    async for key in redis.scan_iter(count=500):
        name = key.decode() if isinstance(key, bytes) else str(key)
        parts = name.split(":")
        kind = parts[1] if len(parts) > 1 else name
        used = await redis.memory_usage(name, samples=0)
        sizes[kind] += int(used or 0)
    return sizes


async def examples(redis: aioredis.Redis) -> dict[str, str]:
    """One key of each kind with what it holds, for ``--show``."""
    shown: dict[str, str] = {}
    async for key in redis.scan_iter(count=500):
        name = key.decode()
        kind = name.split(":")[1] if ":" in name else name
        if kind in shown:
            continue
        kind_of = (await redis.type(name)).decode()
        if kind_of == "hash":
            raw: Any = await redis.hgetall(name)
        elif kind_of == "string":
            raw = await redis.get(name)
        elif kind_of == "list":
            raw = await redis.lrange(name, 0, 0)
        elif kind_of == "zset":
            raw = await redis.zrange(name, 0, 0, withscores=True)
        else:
            raw = kind_of
        used = await redis.memory_usage(name, samples=0)
        shown[kind] = f"{name} ({kind_of}, {used} bytes): {raw!r}"
    return shown


async def settle(redis: aioredis.Redis, deadline: float = 10.0) -> None:
    """Wait until every update is finished (the inbox is empty)."""
    ends = time.monotonic() + deadline
    while time.monotonic() < ends:
        waiting = 0
        async for key in redis.scan_iter(match="sdb:inbox:*"):
            waiting += await redis.hlen(key)
        if not waiting:
            return
        await asyncio.sleep(0.1)


async def rolls(
    api: BenchApi, tables: Sequence[tuple[FakeChat, list[FakeUser]]], per_group: int
) -> int:
    """``per_group`` rolls in each group, its players in turn; how many went unanswered."""
    lost = 0
    players = max(len(users) for _chat, users in tables)
    for turn in range(per_group):
        slots = [(chat, users[turn % len(users)]) for chat, users in tables]
        phase = await closed_loop(api, slots, len(slots), ROLL_TEXT, roll=True, timeout=10)
        lost += phase.lost + len(phase.malformed)
    del players
    return lost


async def measure(options: argparse.Namespace, work_dir: Path) -> dict[str, Any]:
    api = BenchApi()
    await api.start()
    try:
        redis_dir = work_dir / "redis"
        redis_dir.mkdir()
        server = RedisServer(redis_dir)
        await server.start()
        client = aioredis.Redis(port=server.port)
        try:
            tables = []
            for number in range(options.groups):
                users = [
                    api.add_user(f"Player{number}x{index}", language_code="ru")
                    for index in range(options.players)
                ]
                chat = api.add_group(f"Table {number}", owner=users[0], members=users[1:])
                tables.append((chat, users))
            env = {
                "BOT_TOKEN": api.token,
                "TELEGRAM_API_URL": api.base_url,
                "REDIS_URL": server.url,
                "DEFAULT_LOCALE": "ru",
                "LOG_LEVEL": "WARNING",
            }
            process = CommandProcess(["-c", UNTHROTTLED_BOT], env, work_dir / "bot.log")
            since = time.monotonic()
            await process.start()
            try:
                await process.wait_until(
                    lambda: any(c.at >= since for c in api.calls_to("getUpdates")),
                    30,
                    what="polling",
                )
                lost = await rolls(api, tables, options.players)
                await settle(client)
                before = await memory_by_kind(client)
                lost += await rolls(api, tables, options.rolls)
                await settle(client)
                after = await memory_by_kind(client)
                shown = await examples(client) if options.show else {}
            finally:
                await process.stop()
        finally:
            await client.aclose()
            await server.stop()
    finally:
        await api.close()
    made = options.rolls * options.groups
    growth = {k: after[k] - before.get(k, 0) for k in after}
    kept = sum(v for k, v in growth.items() if k not in LOG_KINDS | TRANSIENT_KINDS)
    return {
        "groups": options.groups,
        "players": options.players,
        "rolls": made,
        "lost": lost,
        "bytes_by_kind": dict(after.most_common()),
        "growth_by_kind": dict(sorted(growth.items(), key=lambda kv: -kv[1])),
        "bytes_per_roll": kept / made if made else 0.0,
        "log_bytes_per_roll": sum(growth.get(k, 0) for k in LOG_KINDS) / made if made else 0.0,
        "bytes_per_chat": sum(v for k, v in after.items() if k not in TRANSIENT_KINDS)
        / options.groups,
        "target_bytes_per_roll": PER_ROLL_TARGET,
        "examples": shown,
    }


def report(summary: dict[str, Any]) -> str:
    per_roll = summary["bytes_per_roll"]
    verdict = "met" if per_roll <= PER_ROLL_TARGET else "MISSED"
    rows = [f"{'key kind':<12} {'bytes now':>10} {'growth':>8} {'per roll':>9}"]
    for kind, size in summary["bytes_by_kind"].items():
        grown = summary["growth_by_kind"].get(kind, 0)
        note = "  (the log line)" if kind in LOG_KINDS else ""
        note = "  (gone within a minute: not counted)" if kind in TRANSIENT_KINDS else note
        rows.append(f"{kind:<12} {size:>10} {grown:>8} {grown / summary['rolls']:>9.1f}{note}")
    return "\n".join(
        [
            f"{summary['groups']} groups of {summary['players']} players, "
            f"{summary['rolls']} measured rolls of {ROLL_TEXT!r} after one each",
            "",
            *rows,
            "",
            f"bytes retained per roll beyond its log line: {per_roll:.0f}  "
            f"(target <= {PER_ROLL_TARGET}: {verdict})",
            f"the log line itself: {summary['log_bytes_per_roll']:.0f} bytes per roll (capped "
            "per chat)",
            f"bytes per chat after the last roll, log included: {summary['bytes_per_chat']:.0f}"
            " (the send budget's windows left out)",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--groups", type=int, default=4)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rolls", type=int, default=40, help="measured rolls per group")
    parser.add_argument("--show", action="store_true", help="print one key of each kind")
    parser.add_argument("--json", type=Path, help="also write the results here as JSON")
    parser.add_argument("--strict", action="store_true", help="exit 1 on a missed target too")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory("-bench-footprint") as work:
        summary = asyncio.run(measure(args, Path(work)))
    print(report(summary))
    for example in summary["examples"].values():
        print(f"\n{example}")
    failed = [f"{summary['lost']} replies lost"] if summary["lost"] else []
    if args.strict and summary["bytes_per_roll"] > PER_ROLL_TARGET:
        failed.append("per-roll target missed")
    summary["failures"] = failed
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))
    for failure in failed:
        print(f"FAILED: {failure}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
