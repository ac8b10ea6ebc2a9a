"""Coverage of the recommended interval, by simulation on the coverage table's regime grid.

Issue 12's acceptance check: the interval ``judgecal.crosscheck(...).recommended`` reports must
cover the true accuracy at least 94.5% of the time in every cell. For every cell of the grid of
``benchmarks/coverage_table.py`` (or the sub-grid chosen by ``--n`` / ``--arms``), ``--reps``
datasets are drawn with a seed independent of the table's, and the rule of
``judgecal.recommend`` is applied to each dataset exactly as the cross-check applies it
(``judgecal.recommend.choose``, on the Lang-Reiczigel interval and on the posterior intervals
where the table makes them eligible).

Where the rule falls back to the guaranteed interval, whether that interval covers is decided
by ``judgecal.guaranteed.guaranteed_covers`` (two exact tests at the true accuracy) on a random
subsample of at most ``--guaranteed-sample`` (``--guaranteed-sample-large`` for arms above 100
items) of those datasets per cell (the test takes 0.01-0.2 s per dataset). The cell's coverage
is then

    P(approximate interval chosen and covers) + P(fallback) * P(guaranteed covers | fallback),

the first two terms from all replications, the last from the subsample; the Monte Carlo
standard error combines both parts. A cell in which every replication falls back is not
sampled: its coverage is the guaranteed interval's, at least the level by construction (the
exact enumeration of ``tests/test_guaranteed.py``); the summary counts those cells apart.

    python benchmarks/recommendation_coverage.py [--reps 2000] [--n 1000] [--workers 2] [--tag T]

Writes benchmarks/results/recommendation_coverage[_T].json.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import write_results  # noqa: E402

LEVEL = 0.95


def evaluate_cell(cell: dict) -> dict:
    """Coverage of the recommended interval in one cell (see the module docstring)."""
    from judgecal import JudgeCalWarning
    from judgecal._coverage import interval_and_estimate
    from judgecal.frequentist import lang_reiczigel_ci
    from judgecal.guaranteed import guaranteed_covers
    from judgecal.recommend import CANDIDATES, choose, eligible, regime_coverage

    rng = np.random.default_rng([cell["seed"], int(cell["index"])])
    theta, q0, q1, n, m0, m1 = (cell[k] for k in ("theta", "q0", "q1", "n", "m0", "m1"))
    reps = cell["reps"]
    pi = theta * q1 + (1 - theta) * (1 - q0)
    k = rng.binomial(n, pi, reps)
    k0, k1 = rng.binomial(m0, q0, reps), rng.binomial(m1, q1, reps)
    counts = (k, np.full(reps, n), k0, np.full(reps, m0), k1, np.full(reps, m1))
    coverage = regime_coverage(counts, LEVEL)
    ok = eligible(coverage, LEVEL)
    intervals = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeCalWarning)
        low, high = lang_reiczigel_ci(k / n, k0 / m0, k1 / m1, counts[1], counts[3], counts[5])
    intervals["lang_reiczigel"] = (np.asarray(low), np.asarray(high))
    for j, key in enumerate(("bayes_eti", "bayes_hdi"), start=1):
        rows = np.flatnonzero(ok[:, j])       # the posterior only where the table allows it
        low, high = np.full(reps, np.nan), np.full(reps, np.nan)
        subset = dict(zip(("k", "n", "k0", "m0", "k1", "m1"), (c[rows] for c in counts),
                          strict=True))
        low[rows], high[rows], _ = interval_and_estimate(key, LEVEL, subset)
        intervals[key] = (low, high)
    choice, _ = choose(counts, intervals, LEVEL, coverage=coverage)
    covered = np.zeros(reps)
    for j, key in enumerate(CANDIDATES):
        rows = choice == j
        if rows.any():
            low, high = intervals[key]
            covered[rows] = (low[rows] <= theta) & (theta <= high[rows])
    fallback = np.flatnonzero(choice == -1)
    share = fallback.size / reps
    approx = covered.mean()
    g, g_se, sampled = np.nan, 0.0, 0
    by_construction = fallback.size == reps
    if by_construction:
        # every dataset got the guaranteed interval: the cell's coverage is that interval's,
        # at least the level by construction (proved by exact enumeration in the tests)
        return {**{k: cell[k] for k in ("theta", "q0", "q1", "n", "m0", "m1")},
                "coverage": None, "se": 0.0, "by_construction": True,
                "shares": {**{key: 0.0 for key in CANDIDATES}, "guaranteed": 1.0},
                "guaranteed_given_fallback": None, "guaranteed_sampled": 0}
    if fallback.size:
        sample = rng.choice(fallback, size=min(cell["sample"], fallback.size), replace=False)
        keys = np.stack([c[sample] for c in counts], axis=1)
        unique, inverse = np.unique(keys, axis=0, return_inverse=True)
        hits = np.array([guaranteed_covers(theta, *map(int, row), LEVEL) for row in unique])
        g = float(hits[inverse.ravel()].mean())
        sampled = sample.size
        g_se = np.sqrt(g * (1 - g) / sampled) if sampled < fallback.size else 0.0
    total = approx + (share * g if fallback.size else 0.0)
    per_dataset = np.where(choice >= 0, covered, 0.0 if np.isnan(g) else g)
    se = np.sqrt(np.var(per_dataset) / reps + (share * g_se) ** 2)
    shares = {key: float(np.mean(choice == j)) for j, key in enumerate(CANDIDATES)}
    shares["guaranteed"] = share
    return {**{k: cell[k] for k in ("theta", "q0", "q1", "n", "m0", "m1")},
            "coverage": float(total), "se": float(se), "by_construction": False,
            "shares": shares,
            "guaranteed_given_fallback": None if np.isnan(g) else g,
            "guaranteed_sampled": int(sampled)}


def main() -> None:
    from coverage_table import ARMS, THETA, N, Q

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--n", type=int, nargs="*", default=N)
    parser.add_argument("--arms", nargs="*", default=[f"{a}x{b}" for a, b in ARMS])
    parser.add_argument("--guaranteed-sample", type=int, default=100)
    parser.add_argument("--guaranteed-sample-large", type=int, default=40,
                        help="the subsample for arms above 100 items (0.1-0.2 s per dataset)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=777)
    parser.add_argument("--tag", default="", help="suffix of the JSON file (a sub-grid's run)")
    args = parser.parse_args()
    arms = [tuple(int(v) for v in a.split("x")) for a in args.arms]
    # a cell's random stream depends on its place in the full grid only, so a sub-grid run
    # draws the same datasets as the full run
    cells = [{"theta": t, "q0": a, "q1": b, "n": n, "m0": m0, "m1": m1, "reps": args.reps,
              "sample": (args.guaranteed_sample if max(m0, m1) <= 100
                         else args.guaranteed_sample_large), "seed": args.seed,
              "index": np.ravel_multi_index(
                  (ARMS.index((m0, m1)), N.index(n), Q.index(a), Q.index(b), THETA.index(t)),
                  (len(ARMS), len(N), len(Q), len(Q), len(THETA)))}
             for m0, m1 in arms for n in args.n for a in Q for b in Q for t in THETA]
    start = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(evaluate_cell, cells, chunksize=4))
    elapsed = time.perf_counter() - start
    measured = [r for r in results if not r["by_construction"]]
    values = np.array([r["coverage"] for r in measured])
    errors = np.array([r["se"] for r in measured])
    worst = int(np.argmin(values))
    below = [r for r in measured if r["coverage"] < 0.945]
    summary = {
        "cells": len(results), "reps": args.reps, "seconds": elapsed,
        "cells_all_guaranteed": len(results) - len(measured),
        "cells_measured": len(measured),
        "min_coverage": float(values[worst]), "min_cell": measured[worst],
        "cells_below_0.945": len(below),
        "below_within_2se": sum(r["coverage"] + 2 * r["se"] >= 0.945 for r in below),
        "median_se": float(np.median(errors)),
        "max_se": float(np.max(errors)),
        "share_by_method": {key: float(np.mean([r["shares"][key] for r in results]))
                            for key in results[0]["shares"]},
        "cells_detail": results,
    }
    write_results("recommendation_coverage" + (f"_{args.tag}" if args.tag else ""), summary)
    print({k: v for k, v in summary.items() if k != "cells_detail"})


if __name__ == "__main__":
    main()
