"""``bench/combat.py`` runs to the end, so the benchmark cannot rot unnoticed; its own checks
(at most two new messages for a Mage round of six participants, a d6 round of six in at most
20 taps with no typed command, and at most three Redis round-trips for any tap with
``--strict``, docs/product.md §5) are the assertion."""

from __future__ import annotations

import sys

import pytest

from localapi.processes import REPO_ROOT, redis_server_binary, run_to_end

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(redis_server_binary() is None, reason="redis-server is not installed"),
]


async def test_the_combat_round_benchmark_runs_within_the_message_budget() -> None:
    finished = await run_to_end(
        [sys.executable, str(REPO_ROOT / "bench" / "combat.py"), "--strict"],
        timeout=240,
        cwd=REPO_ROOT,
        merge_stderr=True,
    )
    text = finished.stdout
    assert finished.returncode == 0, text
    assert "new messages in the round: 2 (target <= 2: met)" in text
    assert "«Новый раунд»" in text
    assert "(target <= 3: met)" in text
    assert "(target <= 20 for six with five attacks: met)" in text  # the d6 round
    assert (
        "CPU per tap, 20 fighters / 6 (the same mix of taps):" in text
    )  # a reading: the machine may be busy
