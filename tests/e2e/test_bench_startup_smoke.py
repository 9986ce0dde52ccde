"""``bench/startup.py`` for one round, so the benchmark cannot rot unnoticed: both bots
reach their first poll and the ratio is printed. The number itself is not asserted: one
round on a shared machine measures noise."""

from __future__ import annotations

import asyncio
import re
import sys

import pytest

from localapi.processes import REPO_ROOT

pytestmark = pytest.mark.e2e

SCRIPT = REPO_ROOT / "bench" / "startup.py"


async def test_the_startup_benchmark_runs_and_prints_its_ratio() -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SCRIPT),
        "--rounds=1",
        "--no-redis",
        cwd=REPO_ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), 240)
    text = output.decode(errors="replace")
    assert process.returncode == 0, text
    ratio = re.search(r"ratio ours/echo: (\d+\.\d+) wall", text)
    assert ratio is not None, text
    assert float(ratio.group(1)) > 0
    assert "a missing setting answered in" in text
