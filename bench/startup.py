"""Start-up benchmark: how long ``python -m bot`` takes from its launch to its first poll,
next to the bare aiogram echo bot (``bench/echo_bot.py``) on the same fake Bot API server.

Why: a restart (a deploy, a crash, a supervisor after exit 3) is time in which a table's
rolls wait; the bot should come back about as fast as any aiogram bot does (target: at most
1.3 times the echo bot's time). Both import aiogram, which is most of it; what is ours is
the features, the rules tables, the catalogues, the Redis checks and the start-up calls
(getMe, deleteWebhook, the command menus).

Method. One fake Bot API server (``localapi/server.py``) in this script's event loop and one
fresh ``redis-server``. Each round starts the echo bot, then our bot (``REDIS_URL`` set,
``--no-redis`` for the in-process store), and takes the time from the launch to the first
``getUpdates`` the server sees, and the process's CPU seconds by then (``/proc``, steadier
than wall time on a shared machine); the process is stopped before the next starts. The
median of the rounds is compared. Also printed: how long a wrong setting (no BOT_TOKEN) and
``--version`` take to be answered.

Run: ``.venv/bin/python bench/startup.py [--rounds 5] [--no-redis] [--strict]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from localapi.processes import BotProcess, RedisServer  # noqa: E402
from localapi.server import FakeBotApi  # noqa: E402

TARGET = 1.3
ECHO_BOT = REPO_ROOT / "bench" / "echo_bot.py"


class Command(BotProcess):
    """:class:`BotProcess` (environment, log, SIGTERM stop) running any Python command line."""

    warm = False  # the process is what is measured: started as it would be

    def __init__(self, arguments: Sequence[str], env: dict[str, str], log_path: Path) -> None:
        super().__init__(env, log_path)
        self.arguments = list(arguments)

    def command_line(self, arguments: Sequence[str]) -> list[str]:
        return [*self.arguments, *arguments]

    def cpu_seconds(self) -> float:
        """utime + stime of the process so far, from /proc (NaN where there is none)."""
        if self.process is None:
            return float("nan")
        try:
            stat = Path(f"/proc/{self.process.pid}/stat").read_text()
        except OSError:
            return float("nan")
        fields = stat.rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Start:
    seconds: float  # launch to the first getUpdates
    cpu: float  # the process's CPU seconds by then


async def first_poll(
    api: FakeBotApi, arguments: list[str], env: dict[str, str], log_path: Path
) -> Start:
    process = Command(arguments, env, log_path)
    since = time.monotonic()
    await process.start()
    try:
        await process.wait_until(
            lambda: any(c.at >= since for c in api.calls_to("getUpdates")), 120, what="polling"
        )
        took = time.monotonic() - since
        return Start(took, process.cpu_seconds())
    finally:
        await process.stop()


def answered(arguments: list[str], env: dict[str, str], cwd: Path) -> float:
    """Seconds ``python -m bot ARGS`` takes to answer and exit."""
    clean = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG"}}
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "bot", *arguments],
        env={**clean, "PYTHONPATH": str(REPO_ROOT), **env},
        cwd=cwd,
        capture_output=True,
        timeout=120,
        check=False,
    )
    return time.perf_counter() - started


async def benchmark(options: argparse.Namespace, work: Path) -> int:
    api = FakeBotApi()
    await api.start()
    redis: RedisServer | None = None
    try:
        base = {"BOT_TOKEN": api.token, "TELEGRAM_API_URL": api.base_url}
        ours_env = {**base, "DEFAULT_LOCALE": "ru", "LOG_LEVEL": "INFO"}
        if options.redis:
            (work / "redis").mkdir()
            redis = RedisServer(work / "redis")
            await redis.start()
            ours_env["REDIS_URL"] = redis.url
        echo: list[Start] = []
        ours: list[Start] = []
        for round_number in range(options.rounds):
            echo.append(
                await first_poll(api, [str(ECHO_BOT)], base, work / f"echo-{round_number}.log")
            )
            ours.append(
                await first_poll(api, ["-m", "bot"], ours_env, work / f"ours-{round_number}.log")
            )
            print(
                f"round {round_number + 1}: echo {echo[-1].seconds:.2f} s "
                f"({echo[-1].cpu:.2f} s CPU), ours {ours[-1].seconds:.2f} s "
                f"({ours[-1].cpu:.2f} s CPU)",
                flush=True,
            )
    finally:
        if redis is not None:
            await redis.stop()
        await api.close()

    echo_wall = statistics.median(s.seconds for s in echo)
    ours_wall = statistics.median(s.seconds for s in ours)
    echo_cpu = statistics.median(s.cpu for s in echo)
    ours_cpu = statistics.median(s.cpu for s in ours)
    ratio = ours_wall / echo_wall
    cpu_ratio = ours_cpu / echo_cpu if echo_cpu else float("nan")
    print()
    print(f"launch to first poll, median of {options.rounds} rounds")
    print(f"  echo bot (bare aiogram)  {echo_wall:6.2f} s  {echo_cpu:6.2f} s CPU")
    storage = "Redis" if options.redis else "in-process store"
    print(f"  python -m bot ({storage})  {ours_wall:6.2f} s  {ours_cpu:6.2f} s CPU")
    met = ratio <= TARGET
    print(
        f"  ratio ours/echo: {ratio:.2f} wall, {cpu_ratio:.2f} CPU "
        f"(target <= {TARGET}: {'met' if met else 'MISSED'})"
    )
    no_token = statistics.median(answered([], {}, work) for _ in range(3))
    version = statistics.median(answered(["--version"], {}, work) for _ in range(3))
    print(f"  a missing setting answered in {no_token:.2f} s, --version in {version:.2f} s")
    return 1 if options.strict and not met else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-redis", dest="redis", action="store_false")
    parser.add_argument("--strict", action="store_true", help="exit 1 if the target is missed")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as work:
        return asyncio.run(benchmark(options, Path(work)))


if __name__ == "__main__":
    sys.exit(main())
