"""The end-to-end tests' own machinery: one factor scales every wait, and a process that
outlives its wait is ended with everything it started, its transport closed, so nothing of a
failed test reaches the next one."""

from __future__ import annotations

import asyncio
import gc
import os
import re
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

import pytest

from localapi import patience, zygote
from localapi.processes import (
    REPO_ROOT,
    BotProcess,
    RedisServer,
    bot_environment,
    redis_server_binary,
    run_to_end,
)
from localapi.server import FakeBotApi
from tests.e2e import conftest as e2e

# A process that starts a child of its own, says both pids, and then never ends.
FAMILY = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
print(f"pids {child.pid}", flush=True)
time.sleep(120)
"""


def gone(pid: int) -> bool:
    """The process no longer runs (reaped, or a zombie its new parent has not reaped yet)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "State:\tZ" in status


def test_one_factor_scales_every_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(patience.SCALE_ENV, raising=False)
    assert patience.patient(10) == 10 * patience.DEFAULT_SCALE
    assert patience.DEFAULT_SCALE >= 2  # generous unless told otherwise
    monkeypatch.setenv(patience.SCALE_ENV, "0.5")
    assert patience.patient(10) == 5
    for wrong in ("0", "-1", "soon", "inf", "nan"):
        monkeypatch.setenv(patience.SCALE_ENV, wrong)
        with pytest.raises(ValueError, match=patience.SCALE_ENV):
            patience.patient(1)


async def test_a_wait_for_the_fake_api_takes_the_factor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(patience.SCALE_ENV, "4")
    async with FakeBotApi() as api:
        began = time.monotonic()
        with pytest.raises(AssertionError, match=r"within 0\.8 s"):
            await api.wait_for(lambda: False, timeout=0.2)
        assert time.monotonic() - began >= 0.8


async def test_a_command_that_overruns_dies_with_its_children(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The limit is scaled as every wait is: the command must have started and said its
    # child's pid before it is cut short, which takes a while on a busy machine.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(AssertionError, match=r"did not finish within") as failed:
            await run_to_end([sys.executable, "-c", FAMILY], timeout=2)
        gc.collect()
    said = str(failed.value)
    shown = re.search(r"^pids (\d+)$", said, re.M)  # what it wrote before it was cut short
    assert shown is not None, said
    child = int(shown[1])
    deadline = time.monotonic() + patience.patient(5)
    while not gone(child):
        assert time.monotonic() < deadline, f"the child {child} outlived its group"
        await asyncio.sleep(0.02)
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)], caught


async def test_a_command_that_ends_gives_its_code_and_output() -> None:
    done = await run_to_end(
        [
            sys.executable,
            "-c",
            "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)",
        ],
        timeout=30,
    )
    assert (done.returncode, done.stdout, done.stderr) == (3, "out\n", "err\n")


class Sleeper(BotProcess):
    """A "bot" that never polls: the start-up that a test gives up on."""

    def command_line(self, arguments: Sequence[str]) -> list[str]:
        return ["-c", "import time; time.sleep(120)"]


async def test_a_bot_that_never_gets_ready_is_killed_at_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    if redis_server_binary() is None:
        pytest.skip("redis-server is not installed")
    monkeypatch.setenv(patience.SCALE_ENV, "1")
    monkeypatch.setattr(e2e, "BotProcess", Sleeper)
    redis = RedisServer(tmp_path)
    async with FakeBotApi() as api:
        await redis.start()
        try:
            launcher = e2e.BotLauncher(api, redis, tmp_path)
            with pytest.raises(AssertionError, match=r"not polling within 0\.5 s"):
                await launcher.start(timeout=0.5)
            process = launcher.current
            assert not process.running
            assert process.process is not None
            assert gone(process.process.pid)
        finally:
            await redis.stop()
    assert redis.process is not None
    assert redis.process.returncode is not None
    with pytest.raises(ProcessLookupError):
        os.kill(redis.process.pid, 0)


async def test_a_forked_bot_is_the_real_bot_in_a_process_of_its_own(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The bot forked warm (localapi/zygote.py) reads only its own environment, writes to its
    own log, exits with its own code, and dies of the signal it is sent."""
    monkeypatch.delenv(zygote.FORK_SETTING, raising=False)
    missing = BotProcess({}, tmp_path / "missing.log")
    await missing.start()
    assert isinstance(missing.process, zygote.Forked)
    assert await missing.process.wait() == 2
    assert "BOT_TOKEN is required" in missing.log_tail()
    unreachable = BotProcess(
        {"BOT_TOKEN": "123:abc", "TELEGRAM_API_URL": "http://127.0.0.1:9"},
        tmp_path / "unreachable.log",
    )
    await unreachable.start()
    assert isinstance(unreachable.process, zygote.Forked)
    assert unreachable.process.pid != missing.process.pid
    assert unreachable.running
    await unreachable.kill()
    assert unreachable.process.returncode == -9
    assert gone(unreachable.process.pid)
    assert "BOT_TOKEN is required" not in unreachable.log_tail()


async def test_without_forking_the_bot_is_started_as_python_m_bot(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(zygote.FORK_SETTING, "0")
    process = BotProcess({}, tmp_path / "bot.log")
    await process.start()
    assert process.process is not None
    assert not isinstance(process.process, zygote.Forked)
    assert await process.process.wait() == 2


async def test_bots_started_with_other_interpreter_settings_are_forked_too(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A test may start its bot with a PYTHONPATH of its own (the start-up tests do): that bot
    comes from a zygote started with those settings, and the usual ones still from theirs."""
    monkeypatch.delenv(zygote.FORK_SETTING, raising=False)
    usual = BotProcess({}, tmp_path / "usual.log")
    await usual.start()
    other = BotProcess({"PYTHONPATH": f"{REPO_ROOT}{os.pathsep}{tmp_path}"}, tmp_path / "o.log")
    await other.start()
    assert isinstance(usual.process, zygote.Forked)
    assert isinstance(other.process, zygote.Forked)
    assert await usual.process.wait() == 2
    assert await other.process.wait() == 2
    assert "BOT_TOKEN is required" in other.log_tail()


async def test_the_bots_of_every_worker_come_from_the_run_s_one_zygote(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The run's first process starts one zygote and its workers fork from it: a worker's bot
    is that zygote's child, and is the real bot all the same."""
    monkeypatch.delenv(zygote.FORK_SETTING, raising=False)
    monkeypatch.delenv(zygote.SHARED_SETTING, raising=False)
    monkeypatch.setattr(zygote, "_shared", None)
    shared = zygote.start_shared(bot_environment())
    assert shared is not None
    try:
        process = BotProcess(
            {"BOT_TOKEN": "123:abc", "TELEGRAM_API_URL": "http://127.0.0.1:9"},
            tmp_path / "bot.log",
        )
        await process.start()
        assert isinstance(process.process, zygote.Forked)
        assert parent_of(process.process.pid) == shared.process.pid
        await process.kill()
        assert process.process.returncode == -9
    finally:
        shared.close()


def parent_of(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])
