"""``bench/e2e.py`` with a handful of requests, so the benchmark cannot rot unnoticed.

It starts the same real processes as the benchmark (the echo bot, our bot with the send
limiter lifted, redis-server) and checks what the script promises: every request
answered exactly once, the Redis accounting present and sane for ``/r 7 6``, and exit 0.
The numbers themselves are not asserted against targets here: a few requests on a shared
machine measure noise.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from localapi.patience import patient
from localapi.processes import REPO_ROOT, redis_server_binary, run_to_end

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(redis_server_binary() is None, reason="redis-server is not installed"),
]

SCRIPT = REPO_ROOT / "bench" / "e2e.py"


async def test_benchmark_runs_and_accounts_for_every_request(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    # The script and everything it starts (two bots, redis-server) are one process group,
    # killed whole if it overruns; its own waits take the same scale from the environment.
    finished = await run_to_end(
        [
            sys.executable,
            str(SCRIPT),
            "--requests=12",
            "--warmup=4",
            "--concurrency=3",
            "--rounds=1",
            "--shipped-requests=0",  # ``python -m bot`` itself is what the other E2E tests start
            "--sample=2",
            f"--timeout={patient(10):g}",
            f"--json={out}",
        ],
        timeout=60,
        cwd=REPO_ROOT,
        merge_stderr=True,
    )
    text = finished.stdout
    assert finished.returncode == 0, text

    summary = json.loads(out.read_text())
    runs = {run["name"]: run for run in summary["runs"]}
    assert set(runs) == {"echo (minimal aiogram)", "ours /r 7 6, limits lifted"}
    for run in runs.values():
        assert run["replies"] == run["requests"], run
        assert (run["lost"], run["malformed"], run["unexpected"]) == (0, 0, 0), run
        assert run["throughput"] > 0
        assert 0 < run["p50_ms"] <= run["p99_ms"]
    assert summary["failures"] == []
    assert summary["throughput_ratio"] > 0

    redis = summary["redis"]
    assert redis["rolls"] == 12
    # Whatever the store does, a roll must at least mark its update as taken and log itself.
    assert redis["commands_per_roll"] >= 2
    assert redis["round_trips_per_roll"] >= 1
    assert redis["sample_rolls"] == 2
    assert redis["one_roll"], redis
    assert redis["round_trips_per_roll"] >= redis["handling_round_trips_per_roll"]
    for line in (
        "throughput ours/echo",
        "bot CPU per reply ours/echo",
        "round-trips per roll, the inbox's write included",
        "p99 ms",
    ):
        assert line in text
    assert text.count("(target ") >= 3  # each target printed beside what was measured


async def test_footprint_bench_reports_bytes_per_roll_and_per_chat(tmp_path: Path) -> None:
    out = tmp_path / "footprint.json"
    finished = await run_to_end(
        [
            sys.executable,
            str(REPO_ROOT / "bench" / "footprint.py"),
            "--groups=1",
            "--players=2",
            "--rolls=4",
            f"--json={out}",
        ],
        timeout=90,
        cwd=REPO_ROOT,
        merge_stderr=True,
    )
    text = finished.stdout
    assert finished.returncode == 0, text
    summary = json.loads(out.read_text())
    assert summary["lost"] == 0
    assert summary["rolls"] == 4
    # A roll leaves at least its result's flow behind; the log line is counted apart.
    assert summary["growth_by_kind"]["flow"] > 0
    assert summary["bytes_per_roll"] > 0
    assert summary["bytes_per_chat"] > summary["bytes_per_roll"]
    assert "bytes retained per roll beyond its log line" in text
    assert "(target <= 600" in text
