"""Benchmark: exact d6 odds from ``rules.d6.probability`` against the icepool library.

The d6 system (docs/rules.md §D.3–§D.4) counts fives and sixes as measures of success; a special
effort rerolls every die that is not 5–6 once. For every chance 1–30, with and without the
effort, the full distribution of measures, P(fiasco) and P(success) for each required number
must agree with icepool to 1e-12. Both sides run cold in the same process and the time ratio is
printed; the exit status is 1 if any value differs, so CI can run it.

The icepool oracle is independent of the closed form: a d6 mapped to 0/1 measures, and for the
effort a d6 whose 1–4 faces are replaced by a fresh mapped d6, pooled and summed.

Run: ``.venv/bin/python bench/d6_probability.py``
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import icepool

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.d6 import probability

CHANCES = range(1, 31)
EFFORT = (False, True)
TOLERANCE = 1e-12


def oracle(n: int, effort: bool) -> icepool.Die:
    measure = icepool.d6.map(lambda f: 1 if f >= 5 else 0)
    die = icepool.d6.map(lambda f: 1 if f >= 5 else measure) if effort else measure
    return die.pool(n).sum()


def run_ours() -> dict[tuple[int, bool], list[float]]:
    out = {}
    for n in CHANCES:
        for effort in EFFORT:
            dist = probability.measures_distribution(n, effort)
            row = [float(p) for p in dist]
            row.append(float(probability.p_fiasco(n, effort)))
            row.extend(float(probability.p_success(n, k, effort)) for k in range(1, n + 1))
            out[n, effort] = row
    return out


def run_icepool() -> dict[tuple[int, bool], list[float]]:
    out = {}
    for n in CHANCES:
        for effort in EFFORT:
            die = oracle(n, effort)
            row = [float(die.probability(k)) for k in range(n + 1)]
            row.append(float(die.probability(0)))
            row.extend(float(die.probability(">=", k)) for k in range(1, n + 1))
            out[n, effort] = row
    return out


def main() -> int:
    t0 = time.perf_counter()
    ours = run_ours()
    t1 = time.perf_counter()
    theirs = run_icepool()
    t2 = time.perf_counter()
    worst = 0.0
    bad = []
    for key, row in ours.items():
        other = theirs[key]
        diff = max(abs(a - b) for a, b in zip(row, other, strict=True))
        worst = max(worst, diff)
        if diff > TOLERANCE:
            bad.append(key)
    cells = sum(len(r) for r in ours.values())
    print(f"d6 grid: chances 1-30 x effort {{no, yes}}: {cells} probabilities compared")
    print(f"max |ours - icepool| = {worst:.3g} (tolerance {TOLERANCE:g})")
    print(f"rules.d6.probability: {t1 - t0:.4f} s; icepool: {t2 - t1:.4f} s")
    print(f"speed ratio icepool/ours: {(t2 - t1) / max(t1 - t0, 1e-9):.1f}x")
    if bad:
        print(f"MISMATCH at {bad[:10]}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
