"""Coverage of the recommended interval, by simulation on the coverage table's regime grid.

Issue 12's acceptance check: the interval ``judgecal.crosscheck(...).recommended`` reports must
cover the true accuracy at least 94.5% of the time in every cell. For every cell of the grid of
``benchmarks/coverage_table.py`` (or the sub-grid chosen by ``--n`` / ``--arms``), ``--reps``
datasets are drawn with a seed independent of the table's, and the rule of
``judgecal.recommend`` is applied to each dataset exactly as the cross-check applies it
(``judgecal.recommend.choose``, on the Lang-Reiczigel interval and on the posterior intervals
where the table makes them eligible). A dataset that falls back gets the guaranteed interval
widened to contain Lang-Reiczigel, so it covers wherever Lang-Reiczigel covers. Each cell ends
in one of three states:

- ``by_construction``: every replication fell back; the (widened) guaranteed interval covers
  at least the level for every (theta, q0, q1) (the construction; exact enumeration in
  ``tests/test_guaranteed.py``).
- ``floor``: some replications fell back, and one of two lower bounds already reaches the
  level (cells whose bound lies between 0.945 and the level are measured instead):

      coverage >= level - P(an approximate interval is chosen and misses)

  (the recommended interval contains the guaranteed one except where an approximate interval
  is chosen, and there it loses at most the cases it misses), or ``base`` below (every
  fallback where Lang-Reiczigel misses counted as a miss). ``floor_se`` is the bound's Monte
  Carlo error.
- ``measured``: the coverage is estimated with the exact Lang-Reiczigel coverage of the cell
  (the shipped table) as a control variate,

      coverage = LR coverage + E[1(pick covers) - 1(LR covers)],

  where the difference is 0 wherever Lang-Reiczigel is picked or covers, is known from the
  replication where a posterior interval is picked (``base`` is LR coverage plus these), and
  is 1(guaranteed covers) on the fallbacks where Lang-Reiczigel misses. On those, whether the
  guaranteed interval covers is decided by ``judgecal.guaranteed.guaranteed_covers`` (two
  exact tests at the true accuracy, 0.01-0.15 s each) on a subsample enlarged in batches
  until the estimate is three standard errors from 0.945, ``--guaranteed-sample-max`` are
  tested, or all are. Counting a dataset as covered when either interval covers is a lower
  bound for the widened interval (their hull can also cover between two disjoint intervals).
  The standard error combines the replications' and the subsample's (one hit and one miss
  added to the subsample's variance, so a subsample that always covers is not taken as
  certain).

``--widening W`` also computes the guaranteed interval itself on W fallback datasets per cell
and reports how often, and by how much, containing Lang-Reiczigel widens it.

    python benchmarks/recommendation_coverage.py [--reps 10000] [--n 1000] [--widening 2]
        [--workers 2] [--tag T]

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
#: The acceptance threshold of issue 12: coverage >= 0.945 in every cell.
THRESHOLD = 0.945


def _cheap_part(cell: dict, rng: np.random.Generator) -> dict:
    """Draw the cell's datasets and apply the rule; cover/miss for the approximate picks."""
    from judgecal import JudgeCalWarning
    from judgecal._coverage import interval_and_estimate
    from judgecal.frequentist import lang_reiczigel_ci
    from judgecal.recommend import CANDIDATES, choose, eligible, regime_coverage

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
        if rows.size:
            low[rows], high[rows], _ = interval_and_estimate(key, LEVEL, subset)
        intervals[key] = (low, high)
    choice, _ = choose(counts, intervals, LEVEL, coverage=coverage)
    covered = np.zeros(reps, dtype=bool)
    for j, key in enumerate(CANDIDATES):
        rows = choice == j
        if rows.any():
            low, high = intervals[key]
            covered[rows] = (low[rows] <= theta) & (theta <= high[rows])
    shares = {key: float(np.mean(choice == j)) for j, key in enumerate(CANDIDATES)}
    shares["guaranteed"] = float(np.mean(choice == -1))
    lr_low, lr_high = intervals["lang_reiczigel"]
    lr_covers = (lr_low <= theta) & (theta <= lr_high)
    return {"counts": counts, "choice": choice, "covered": covered, "shares": shares,
            "lr_covers": lr_covers, "lr": (lr_low, lr_high)}


def _adjusted_variance(hits: int, size: int) -> float:
    """Variance of one sampled proportion, with one hit and one miss added (never 0)."""
    p = (hits + 1) / (size + 2)
    return p * (1 - p) / size


def _exact_lang_reiczigel(cell: dict) -> float:
    """The cell's exact Lang-Reiczigel coverage, from the shipped coverage table."""
    from judgecal.recommend import coverage_table

    table = coverage_table()
    arms = int(np.flatnonzero((table["arms"][:, 0] == cell["m0"])
                              & (table["arms"][:, 1] == cell["m1"]))[0])
    where = (arms, int(np.flatnonzero(table["n"] == cell["n"])[0]),
             int(np.flatnonzero(np.isclose(table["q"], cell["q0"]))[0]),
             int(np.flatnonzero(np.isclose(table["q"], cell["q1"]))[0]),
             int(np.flatnonzero(np.isclose(table["theta"], cell["theta"]))[0]))
    method = list(table["methods"]).index("lang_reiczigel")
    return float(table["coverage"][method][where])


def _guaranteed_part(cell: dict, cheap: dict, rows: np.ndarray, base: float,
                     rng: np.random.Generator) -> tuple[float, float, int]:
    """P(guaranteed covers) over ``rows`` (fallbacks where LR misses), by subsampling.

    The rows are shuffled once and tested from the front: ``sample_min`` first, then batches of
    ``batch``, until the cell's estimate ``base + share * P`` is three standard errors from
    0.945, ``sample_max`` rows are tested, or all of them are.
    """
    from judgecal.guaranteed import guaranteed_covers

    theta, counts = cell["theta"], cheap["counts"]
    order = rng.permutation(rows)
    share = rows.size / cheap["choice"].size
    hits = np.zeros(0, dtype=bool)
    size = min(rows.size, cell["sample_min"])
    while True:
        chosen = order[hits.size:size]
        keys = np.stack([c[chosen] for c in counts], axis=1)
        unique, inverse = np.unique(keys, axis=0, return_inverse=True)
        new = np.array([guaranteed_covers(theta, *map(int, row), LEVEL) for row in unique])
        hits = np.concatenate([hits, new[inverse.ravel()]])
        g = float(hits.mean())
        g_se = (np.sqrt(_adjusted_variance(int(hits.sum()), hits.size)
                        * (1 - hits.size / rows.size)))
        if (abs(base + share * g - THRESHOLD) >= 3 * share * g_se
                or hits.size >= cell["sample_max"] or hits.size == rows.size):
            return g, float(g_se), int(hits.size)
        size = min(rows.size, size + cell["batch"])


def _widening(cell: dict, cheap: dict, rng: np.random.Generator) -> list[list[float]]:
    """Guaranteed and widened widths on ``widening`` random fallback datasets of the cell."""
    from judgecal.guaranteed import guaranteed_ci
    from judgecal.recommend import widen

    rows = np.flatnonzero(cheap["choice"] == -1)
    if rows.size == 0 or cell["widening"] == 0:
        return []
    chosen = rng.choice(rows, size=min(rows.size, cell["widening"]), replace=False)
    out = []
    for row in chosen:
        k, n, k0, m0, k1, m1 = (int(c[row]) for c in cheap["counts"])
        low, high = guaranteed_ci(k, n, k0, m0, k1, m1)
        new_low, new_high, _ = widen(low, high, *(v[row] for v in cheap["lr"]))
        out.append([high - low, float(new_high - new_low)])
    return out


def evaluate_cell(cell: dict) -> dict:
    """Coverage of the recommended interval in one cell (see the module docstring)."""
    start = time.perf_counter()
    rng = np.random.default_rng([cell["seed"], int(cell["index"])])
    reps = cell["reps"]
    cheap = _cheap_part(cell, rng)
    # an independent stream, so that --widening leaves the coverage draws unchanged
    widths = _widening(cell, cheap, np.random.default_rng([cell["seed"], int(cell["index"]), 1]))
    choice, covered, lr_covers = cheap["choice"], cheap["covered"], cheap["lr_covers"]
    fallback = choice == -1
    share = float(np.mean(fallback))
    # the widened guaranteed interval contains Lang-Reiczigel: it covers where LR does
    covered = np.where(fallback, lr_covers, covered)
    # control variate: coverage = exact LR coverage + E[1(pick covers) - 1(LR covers)]; the
    # difference is 0 where LR is picked or covers, 1(guaranteed covers) on the other fallbacks
    difference = covered.astype(float) - lr_covers
    unknown = np.flatnonzero(fallback & ~lr_covers)
    lr_exact = _exact_lang_reiczigel(cell)
    base = lr_exact + float(difference.mean())
    # two floors, each a lower bound on the coverage: the guaranteed interval's level less what
    # the approximate picks miss, and the control variate with every unknown counted a miss
    miss = float(np.mean(~fallback & ~covered))
    floors = {"floor": max(LEVEL - miss, base),
              "floor_se": float(np.sqrt(miss * (1 - miss) / reps)) if LEVEL - miss >= base
              else float(np.std(difference) / np.sqrt(reps))}
    result = {**{k: cell[k] for k in ("theta", "q0", "q1", "n", "m0", "m1")},
              "reps": reps, "shares": cheap["shares"], "lr_exact": lr_exact, **floors,
              "widths_guaranteed_widened": widths,
              "coverage": None, "se": None, "guaranteed_given_unknown": None,
              "guaranteed_sampled": 0}
    if share == 1.0:
        # every dataset got the guaranteed interval: its coverage holds by construction
        return {**result, "status": "by_construction", "seconds": time.perf_counter() - start}
    if share > 0 and floors["floor"] >= LEVEL:      # below the level, measure it instead
        return {**result, "status": "floor", "seconds": time.perf_counter() - start}
    g, g_se, sampled = 0.0, 0.0, 0
    if unknown.size:
        g, g_se, sampled = _guaranteed_part(cell, cheap, unknown, base, rng)
        difference[unknown] = g
    unknown_share = unknown.size / reps
    se = float(np.hypot(np.std(difference) / np.sqrt(reps), unknown_share * g_se))
    return {**result, "status": "measured", "coverage": base + unknown_share * g, "se": se,
            "guaranteed_given_unknown": g if unknown.size else None,
            "guaranteed_sampled": sampled, "seconds": time.perf_counter() - start}


def summarise(results: list[dict], seconds: float, reps: int) -> dict:
    """The acceptance check over all cells: each cell's coverage, or its floor, >= 0.945."""
    status = [r["status"] for r in results]
    measured = [r for r in results if r["status"] == "measured"]
    floors = [r for r in results if r["status"] == "floor"]
    values = np.array([r["coverage"] for r in measured])
    errors = np.array([r["se"] for r in measured])
    worst = int(np.argmin(values)) if measured else None
    below = [r for r in measured if r["coverage"] < THRESHOLD]
    widths = np.array([w for r in results for w in r["widths_guaranteed_widened"]])
    widening = None
    if widths.size:
        ratio = widths[:, 1] / np.maximum(widths[:, 0], 1e-12)
        grown = ratio > 1 + 1e-9
        widening = {"fallback_datasets": int(widths.shape[0]),
                    "share_widened": float(np.mean(grown)),
                    "width_ratio_median": float(np.median(ratio)),
                    "width_ratio_p90": float(np.quantile(ratio, 0.9)),
                    "width_ratio_median_where_widened": (float(np.median(ratio[grown]))
                                                         if grown.any() else None),
                    "width_added_median_where_widened": (
                        float(np.median(widths[grown, 1] - widths[grown, 0]))
                        if grown.any() else None)}
    return {
        "cells": len(results), "reps": reps, "seconds": seconds, "widening": widening,
        "cells_all_guaranteed": status.count("by_construction"),
        "cells_floor": len(floors),
        "cells_measured": len(measured),
        "min_floor": min((r["floor"] for r in floors), default=None),
        "max_floor_se": max((r["floor_se"] for r in floors), default=None),
        "min_coverage": float(values[worst]) if measured else None,
        "min_cell": measured[worst] if measured else None,
        "cells_below_0.945": len(below),
        "below_within_2se": sum(r["coverage"] + 2 * r["se"] >= THRESHOLD for r in below),
        "median_se": float(np.median(errors)) if measured else None,
        "max_se": float(np.max(errors)) if measured else None,
        "guaranteed_evaluations": int(sum(r["guaranteed_sampled"] for r in results)),
        "share_by_method": {key: float(np.mean([r["shares"][key] for r in results]))
                            for key in results[0]["shares"]},
        "cells_detail": results,
    }


def main() -> None:
    from coverage_table import ARMS, THETA, N, Q

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10000)
    parser.add_argument("--n", type=int, nargs="*", default=N)
    parser.add_argument("--arms", nargs="*", default=[f"{a}x{b}" for a, b in ARMS])
    parser.add_argument("--guaranteed-sample-min", type=int, default=30,
                        help="first subsample of the fallbacks where Lang-Reiczigel misses")
    parser.add_argument("--guaranteed-sample-max", type=int, default=800,
                        help="most fallback datasets sampled per cell")
    parser.add_argument("--guaranteed-batch", type=int, default=80)
    parser.add_argument("--widening", type=int, default=0,
                        help="per cell, compute the guaranteed interval on this many fallback "
                        "datasets and report how much the widening adds (0.01-2 s each)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=777)
    parser.add_argument("--tag", default="", help="suffix of the JSON file (a sub-grid's run)")
    args = parser.parse_args()
    arms = [tuple(int(v) for v in a.split("x")) for a in args.arms]
    # a cell's random stream depends on its place in the full grid only, so a sub-grid run
    # draws the same datasets as the full run
    cells = [{"theta": t, "q0": a, "q1": b, "n": n, "m0": m0, "m1": m1, "reps": args.reps,
              "sample_min": args.guaranteed_sample_min, "batch": args.guaranteed_batch,
              "sample_max": args.guaranteed_sample_max, "widening": args.widening,
              "seed": args.seed,
              "index": np.ravel_multi_index(
                  (ARMS.index((m0, m1)), N.index(n), Q.index(a), Q.index(b), THETA.index(t)),
                  (len(ARMS), len(N), len(Q), len(Q), len(THETA)))}
             for m0, m1 in arms for n in args.n for a in Q for b in Q for t in THETA]
    start = time.perf_counter()
    results = []
    with ProcessPoolExecutor(args.workers) as pool:
        for result in pool.map(evaluate_cell, cells, chunksize=2):
            results.append(result)
            print(f"{len(results)}/{len(cells)} {time.perf_counter() - start:.0f} s "
                  f"{result['status']} {result['coverage']}", file=sys.stderr, flush=True)
    summary = summarise(results, time.perf_counter() - start, args.reps)
    write_results("recommendation_coverage" + (f"_{args.tag}" if args.tag else ""), summary)
    print({k: v for k, v in summary.items() if k != "cells_detail"})


if __name__ == "__main__":
    main()
