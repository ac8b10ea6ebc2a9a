"""Coverage of the recommended interval, by simulation on the coverage table's regime grid.

Issue 12's acceptance check: the interval ``judgestats.crosscheck(...).recommended`` reports must
cover the true accuracy at least 94.5% of the time in every cell. For every cell of the grid of
``benchmarks/coverage_table.py`` (or the sub-grid chosen by ``--n`` / ``--arms``), ``--reps``
datasets are drawn with a seed independent of the table's, and the rule of
``judgestats.recommend`` is applied to each dataset exactly as the cross-check applies it
(``judgestats.recommendation.choose``, on the Lang-Reiczigel interval and on the posterior intervals
where the table makes them eligible; the Lang-Reiczigel candidate, as in the cross-check, does
not exist where the raw J-hat <= 0). A dataset that falls back gets the guaranteed interval
widened to contain Lang-Reiczigel. Each cell ends in one of three states:

- ``by_construction``: every replication fell back; the (widened) guaranteed interval covers
  at least the level for every (theta, q0, q1) (the construction; exact enumeration in
  ``tests/test_guaranteed.py``).
- ``floor``: some replications fell back, and one of two lower bounds (each a one-sided 97.5%
  confidence bound) already reaches the level (cells whose bound is lower are measured):

      coverage >= level - P(an approximate interval is chosen and misses)

  (the recommended interval contains the guaranteed one except where an approximate interval
  is chosen, and there it loses at most the cases it misses; the probability is replaced by its
  Clopper-Pearson upper bound), or the control variate below with every unknown row counted a
  miss, less two standard errors.
- ``measured``: the coverage is estimated with the exact Lang-Reiczigel coverage of the cell
  (the shipped table) as a control: the regression estimator

      coverage = mean(1(pick covers)) - beta (mean(1(LR covers)) - exact LR coverage),

  with beta fitted on the same replications (about 1 where Lang-Reiczigel is picked, where the
  two indicators agree and the Monte Carlo noise cancels; about 0 where the fallback covers
  regardless; reported as ``beta``; an estimate above 1 is reported as 1). Whether the pick
  covers is known from the replication where an approximate interval is picked or where the
  fallback's Lang-Reiczigel covers; on the other fallbacks (the cross-check's
  Lang-Reiczigel misses or does not exist: the "unknown" rows) it is 1(guaranteed covers),
  and on those rows, whether the
  guaranteed interval covers is decided by ``judgestats.guaranteed.guaranteed_covers`` (two
  exact tests at the true accuracy, 0.01-0.15 s each) on a subsample enlarged in batches until
  the estimate is three standard errors from 0.945, ``--guaranteed-sample-max`` are tested, or
  all are. Counting a dataset as covered when either interval covers is a lower bound for the
  widened interval (their hull can also cover between two disjoint intervals). The standard
  error is that of double sampling: the replications' variance (each unknown row's second
  moment imputed from the subsample) plus the subsample's (finite-population factor; one hit
  and one miss added, so a subsample that always covers is not taken as certain). The summary
  counts the cells whose estimate is below 0.945 and those whose estimate less two standard
  errors is.

``--widening W`` also computes the guaranteed interval itself on W fallback datasets per cell
and reports how often, and by how much, containing Lang-Reiczigel widens it.

    python benchmarks/recommendation_coverage.py [--reps 10000] [--n 1000] [--widening 2]
        [--workers 2] [--tag T]

Writes benchmarks/results/recommendation_coverage[_T].json.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import write_results  # noqa: E402

LEVEL = 0.95
#: The acceptance threshold of issue 12: coverage >= 0.945 in every cell.
THRESHOLD = 0.945


def _cheap_part(cell: dict, rng: np.random.Generator) -> dict:
    """Draw the cell's datasets and apply the rule; cover/miss for the approximate picks.

    Lang-Reiczigel enters twice: as the coverage table computed it (``lr_table_covers``, the
    control variate; ``lang_reiczigel_ci`` answers wherever the adjusted J is positive) and as
    the cross-check offers it (``lr_rule_covers``: no interval where the raw J-hat <= 0, since
    ``estimate`` refuses those data), which is the candidate and the interval the fallback is
    widened to.
    """
    from judgestats import JudgeStatsWarning
    from judgestats.frequentist import lang_reiczigel_ci
    from judgestats.recommendation import CANDIDATES, choose, eligible, regime_coverage
    from judgestats.simulate._kernels import interval_and_estimate

    theta, q0, q1, n, m0, m1 = (cell[k] for k in ("theta", "q0", "q1", "n", "m0", "m1"))
    reps = cell["reps"]
    pi = theta * q1 + (1 - theta) * (1 - q0)
    k = rng.binomial(n, pi, reps)
    k0, k1 = rng.binomial(m0, q0, reps), rng.binomial(m1, q1, reps)
    counts = (k, np.full(reps, n), k0, np.full(reps, m0), k1, np.full(reps, m1))
    coverage = regime_coverage(counts, LEVEL)
    ok = eligible(coverage, LEVEL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        lr_low, lr_high = (
            np.asarray(v, dtype=float)
            for v in lang_reiczigel_ci(k / n, k0 / m0, k1 / m1, counts[1], counts[3], counts[5])
        )
    lr_table_covers = (lr_low <= theta) & (theta <= lr_high)
    no_closed_form = k0 / m0 + k1 / m1 <= 1.0
    lr_low, lr_high = (
        np.where(no_closed_form, np.nan, lr_low),
        np.where(no_closed_form, np.nan, lr_high),
    )
    intervals = {"lang_reiczigel": (lr_low, lr_high)}
    for j, key in enumerate(("bayes_eti", "bayes_hdi"), start=1):
        rows = np.flatnonzero(ok[:, j])  # the posterior only where the table allows it
        low, high = np.full(reps, np.nan), np.full(reps, np.nan)
        subset = dict(
            zip(("k", "n", "k0", "m0", "k1", "m1"), (c[rows] for c in counts), strict=True)
        )
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
    return {
        "counts": counts,
        "choice": choice,
        "covered": covered,
        "shares": shares,
        "lr_table_covers": lr_table_covers,
        "lr_rule_covers": (lr_low <= theta) & (theta <= lr_high),
        "lr": (lr_low, lr_high),
    }


def _adjusted_variance(hits: int, size: int) -> float:
    """Variance of one sampled proportion, with one hit and one miss added (never 0)."""
    p = (hits + 1) / (size + 2)
    return p * (1 - p) / size


def _exact_lang_reiczigel(cell: dict) -> float:
    """The cell's exact Lang-Reiczigel coverage, from the shipped coverage table."""
    from judgestats.recommendation import coverage_table

    table = coverage_table()
    arms = int(
        np.flatnonzero((table["arms"][:, 0] == cell["m0"]) & (table["arms"][:, 1] == cell["m1"]))[0]
    )
    where = (
        arms,
        int(np.flatnonzero(table["n"] == cell["n"])[0]),
        int(np.flatnonzero(np.isclose(table["q"], cell["q0"]))[0]),
        int(np.flatnonzero(np.isclose(table["q"], cell["q1"]))[0]),
        int(np.flatnonzero(np.isclose(table["theta"], cell["theta"]))[0]),
    )
    method = list(table["methods"]).index("lang_reiczigel")
    return float(table["coverage"][method][where])


def _regression_estimate(
    covers: np.ndarray,
    unknown: np.ndarray,
    control: np.ndarray,
    control_mean: float,
    g: float,
    g_variance: float,
) -> tuple[float, float, float]:
    """Coverage by the regression estimator with the exact LR coverage as control.

    coverage = mean(y) - beta (mean(x) - mu), with y = 1(the pick covers) (``g`` on the
    ``unknown`` rows), x = 1(the table's LR covers) and mu = its exact mean. beta =
    cov(y, x) / var(x) on the same replications: about 1 where LR is picked (the pure control
    variate), about 0 where the fallback covers regardless (the plain mean). Standard error of
    double sampling, with d = y - beta x: the replications' variance of d, each unknown row's
    second moment imputed as E[(1(G) - beta x)^2] = g (1 - 2 beta x) + beta^2 x, plus the
    subsample's variance of g times the unknown rows' share squared. Returns (estimate, se,
    beta).
    """
    reps = covers.size
    x = control.astype(float)
    y = np.where(unknown, g, covers.astype(float))
    spread = float(x.var())
    beta = float(np.mean((y - y.mean()) * (x - x.mean())) / spread) if spread > 0 else 0.0
    d = y - beta * x
    second = np.where(unknown, g * (1 - 2 * beta * x) + beta**2 * x, d**2)
    mean = float(d.mean())
    phase_one = max(float(second.mean()) - mean**2, 0.0) / reps
    share = unknown.sum() / reps
    se = float(np.sqrt(phase_one + share**2 * g_variance))
    return mean + beta * control_mean, se, beta


def _guaranteed_part(
    cell: dict,
    cheap: dict,
    rows: np.ndarray,
    estimate: Callable[[float, float], tuple[float, float]],
    rng: np.random.Generator,
) -> tuple[float, float, int]:
    """P(guaranteed covers) over ``rows``, by a subsample, and the variance of that mean.

    The rows are shuffled once and tested from the front: ``sample_min`` first, then batches of
    ``batch``, until the cell's estimate (``estimate(g, variance)`` gives it and its standard
    error) is three standard errors from 0.945, ``sample_max`` rows are tested, or all of them
    are. The variance has one hit and one miss added (a subsample that always covers is not
    taken as certain) and the finite-population factor of the rows sampled from.
    ``guaranteed_covers`` counts a swapped-ends interval as not covering, which can only make
    the estimate pessimistic.
    """
    from judgestats.guaranteed import guaranteed_covers

    theta, counts = cell["theta"], cheap["counts"]
    order = rng.permutation(rows)
    hits = np.zeros(0, dtype=bool)
    size = min(rows.size, cell["sample_min"])
    while True:
        chosen = order[hits.size : size]
        keys = np.stack([c[chosen] for c in counts], axis=1)
        unique, inverse = np.unique(keys, axis=0, return_inverse=True)
        new = np.array([guaranteed_covers(theta, *map(int, row), LEVEL) for row in unique])
        hits = np.concatenate([hits, new[inverse.ravel()]])
        g = float(hits.mean())
        variance = _adjusted_variance(int(hits.sum()), hits.size) * (1 - hits.size / rows.size)
        value, se = estimate(g, variance)
        if (
            abs(value - THRESHOLD) >= 3 * se
            or hits.size >= cell["sample_max"]
            or hits.size == rows.size
        ):
            return g, variance, int(hits.size)
        size = min(rows.size, size + cell["batch"])


def _upper_bound(count: int, total: int) -> float:
    """One-sided 97.5% Clopper-Pearson upper bound of a proportion."""
    from scipy.stats import beta

    return 1.0 if count >= total else float(beta.ppf(0.975, count + 1, total - count))


def _widening(cell: dict, cheap: dict, rng: np.random.Generator) -> list[list[float]]:
    """Guaranteed and widened widths on ``widening`` random fallback datasets of the cell."""
    from judgestats.guaranteed import guaranteed_interval
    from judgestats.recommendation import widen

    rows = np.flatnonzero(cheap["choice"] == -1)
    if rows.size == 0 or cell["widening"] == 0:
        return []
    chosen = rng.choice(rows, size=min(rows.size, cell["widening"]), replace=False)
    out = []
    for row in chosen:
        k, n, k0, m0, k1, m1 = (int(c[row]) for c in cheap["counts"])
        low, high = guaranteed_interval(k, n, k0, m0, k1, m1, 0.95)
        new_low, new_high, _ = widen(low, high, *(v[row] for v in cheap["lr"]))
        out.append([high - low, float(new_high - new_low)])
    return out


def _plain_rule(cell: dict, cheap: dict, rng: np.random.Generator, start: float) -> dict:
    """The ablation ``--plain``: the rule with the unwidened guaranteed interval as fallback.

    Same control variate; the difference is 1(G covers) - 1(LR covers) on every fallback, so
    each stratum (the table's LR covers or not) is subsampled, ``sample_max`` datasets each.
    """
    reps, choice, table = cell["reps"], cheap["choice"], cheap["lr_table_covers"]
    fallback = choice == -1
    offset = table.astype(float)
    value = np.where(fallback, 0.0, cheap["covered"].astype(float) - offset)
    second = value**2  # each fallback row's second moment is imputed below
    strata, sampled, variance = {}, 0, 0.0
    for name, rows in (
        ("lr_covers", np.flatnonzero(fallback & table)),
        ("lr_misses", np.flatnonzero(fallback & ~table)),
    ):
        if rows.size == 0:
            continue
        g, g_variance, size = _guaranteed_part(cell, cheap, rows, lambda g, v: (math.inf, 0.0), rng)
        value[rows] = g - offset[rows]
        second[rows] = g * (1 - 2 * offset[rows]) + offset[rows]
        variance += (rows.size / reps) ** 2 * g_variance
        sampled += size
        strata[name] = {"share": rows.size / reps, "guaranteed_covers": g, "sampled": size}
    mean = float(value.mean())
    se = float(np.sqrt(max(float(second.mean()) - mean**2, 0.0) / reps + variance))
    lr_exact = _exact_lang_reiczigel(cell)
    return {
        **{k: cell[k] for k in ("theta", "q0", "q1", "n", "m0", "m1")},
        "reps": reps,
        "shares": cheap["shares"],
        "lr_exact": lr_exact,
        "status": "plain",
        "coverage": lr_exact + mean,
        "se": se,
        "fallback_strata": strata,
        "guaranteed_sampled": sampled,
        "seconds": time.perf_counter() - start,
    }


def evaluate_cell(cell: dict) -> dict:
    """Coverage of the recommended interval in one cell (see the module docstring)."""
    start = time.perf_counter()
    rng = np.random.default_rng([cell["seed"], int(cell["index"])])
    reps = cell["reps"]
    cheap = _cheap_part(cell, rng)
    # an independent stream, so that --widening leaves the coverage draws unchanged
    widths = _widening(cell, cheap, np.random.default_rng([cell["seed"], int(cell["index"]), 1]))
    choice, covered = cheap["choice"], cheap["covered"]
    table, rule = cheap["lr_table_covers"], cheap["lr_rule_covers"]
    fallback = choice == -1
    share = float(np.mean(fallback))
    if cell.get("plain"):
        return _plain_rule(cell, cheap, rng, start)
    # control variate: coverage = exact LR coverage + E[1(pick covers) - 1(LR covers)]. The
    # difference is 0 where LR is picked, known where a posterior interval is; on a fallback
    # the widened interval covers where the cross-check's LR does, and where that LR misses
    # (or does not exist) it covers when the guaranteed interval does: the unknown rows.
    offset = table.astype(float)
    unknown = fallback & ~rule
    known = np.where(fallback, np.where(rule, 1.0 - offset, np.nan), covered.astype(float) - offset)
    lr_exact = _exact_lang_reiczigel(cell)
    # two lower bounds (each one-sided 97.5%): the guaranteed interval's level less what the
    # approximate picks miss, and the control variate with every unknown row a miss
    misses = int(np.sum(~fallback & ~covered))
    pessimistic = np.where(unknown, -offset, known)
    floor_b = lr_exact + float(pessimistic.mean()) - 2 * float(np.std(pessimistic)) / np.sqrt(reps)
    floor = max(LEVEL - _upper_bound(misses, reps), floor_b)
    result = {
        **{k: cell[k] for k in ("theta", "q0", "q1", "n", "m0", "m1")},
        "reps": reps,
        "shares": cheap["shares"],
        "lr_exact": lr_exact,
        "floor": floor,
        "widths_guaranteed_widened": widths,
        "coverage": None,
        "se": None,
        "guaranteed_given_unknown": None,
        "guaranteed_sampled": 0,
    }
    if share == 1.0:
        # every dataset got the guaranteed interval: its coverage holds by construction
        return {**result, "status": "by_construction", "seconds": time.perf_counter() - start}
    if share > 0 and floor >= LEVEL:  # between 0.945 and the level, measure it instead
        return {**result, "status": "floor", "seconds": time.perf_counter() - start}

    covers = np.where(fallback, rule, covered)  # known wherever ``unknown`` is False

    def estimate(g: float, g_variance: float) -> tuple[float, float]:
        value, se, _ = _regression_estimate(covers, unknown, table, lr_exact, g, g_variance)
        return value, se

    g, g_variance, sampled = 0.0, 0.0, 0
    if unknown.any():
        g, g_variance, sampled = _guaranteed_part(
            cell, cheap, np.flatnonzero(unknown), estimate, rng
        )
    value, se, beta = _regression_estimate(covers, unknown, table, lr_exact, g, g_variance)
    return {
        **result,
        "status": "measured",
        "coverage": min(value, 1.0),
        "se": se,
        "beta": beta,
        "guaranteed_given_unknown": g if unknown.any() else None,
        "guaranteed_sampled": sampled,
        "seconds": time.perf_counter() - start,
    }


def summarise(results: list[dict], seconds: float, reps: int) -> dict:
    """The acceptance check over all cells: each cell's coverage, or its floor, >= 0.945."""
    status = [r["status"] for r in results]
    measured = [r for r in results if r["status"] in ("measured", "plain")]
    floors = [r for r in results if r["status"] == "floor"]
    values = np.array([r["coverage"] for r in measured])
    errors = np.array([r["se"] for r in measured])
    worst = int(np.argmin(values)) if measured else None
    below = [r for r in measured if r["coverage"] < THRESHOLD]
    widths = np.array([w for r in results for w in r.get("widths_guaranteed_widened", [])])
    widening = None
    if widths.size:
        ratio = widths[:, 1] / np.maximum(widths[:, 0], 1e-12)
        grown = ratio > 1 + 1e-9
        widening = {
            "fallback_datasets": int(widths.shape[0]),
            "share_widened": float(np.mean(grown)),
            "width_ratio_median": float(np.median(ratio)),
            "width_ratio_p90": float(np.quantile(ratio, 0.9)),
            "width_ratio_median_where_widened": (
                float(np.median(ratio[grown])) if grown.any() else None
            ),
            "width_added_median_where_widened": (
                float(np.median(widths[grown, 1] - widths[grown, 0])) if grown.any() else None
            ),
        }
    return {
        "cells": len(results),
        "reps": reps,
        "seconds": seconds,
        "widening": widening,
        "cells_all_guaranteed": status.count("by_construction"),
        "cells_floor": len(floors),
        "cells_measured": len(measured),
        "min_floor": min((r["floor"] for r in floors), default=None),
        "min_coverage": float(values[worst]) if measured else None,
        "min_cell": measured[worst] if measured else None,
        "cells_below_0.945": len(below),
        "below_within_2se": sum(r["coverage"] + 2 * r["se"] >= THRESHOLD for r in below),
        "cells_lower_2se_below_0.945": sum(
            r["coverage"] - 2 * r["se"] < THRESHOLD for r in measured
        ),
        "min_lower_2se": min((r["coverage"] - 2 * r["se"] for r in measured), default=None),
        "median_se": float(np.median(errors)) if measured else None,
        "max_se": float(np.max(errors)) if measured else None,
        "guaranteed_evaluations": int(sum(r["guaranteed_sampled"] for r in results)),
        "share_by_method": {
            key: float(np.mean([r["shares"][key] for r in results])) for key in results[0]["shares"]
        },
        "cells_detail": results,
    }


def main() -> None:
    from coverage_table import ARMS, THETA, N, Q

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10000)
    parser.add_argument("--n", type=int, nargs="*", default=N)
    parser.add_argument("--arms", nargs="*", default=[f"{a}x{b}" for a, b in ARMS])
    parser.add_argument(
        "--guaranteed-sample-min",
        type=int,
        default=30,
        help="first subsample of the fallbacks where Lang-Reiczigel misses",
    )
    parser.add_argument(
        "--guaranteed-sample-max",
        type=int,
        default=800,
        help="most fallback datasets sampled per cell",
    )
    parser.add_argument("--guaranteed-batch", type=int, default=80)
    parser.add_argument(
        "--plain",
        action="store_true",
        help="ablation: the rule without the widening (the unwidened guaranteed "
        "interval as fallback); samples --guaranteed-sample-max per stratum",
    )
    parser.add_argument("--q0", type=float, nargs="*", default=Q)
    parser.add_argument("--q1", type=float, nargs="*", default=Q)
    parser.add_argument("--theta", type=float, nargs="*", default=THETA)
    parser.add_argument(
        "--widening",
        type=int,
        default=0,
        help="per cell, compute the guaranteed interval on this many fallback "
        "datasets and report how much the widening adds (0.01-2 s each)",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=777)
    parser.add_argument("--tag", default="", help="suffix of the JSON file (a sub-grid's run)")
    args = parser.parse_args()
    arms = [tuple(int(v) for v in a.split("x")) for a in args.arms]
    # a cell's random stream depends on its place in the full grid only, so a sub-grid run
    # draws the same datasets as the full run
    cells = [
        {
            "theta": t,
            "q0": a,
            "q1": b,
            "n": n,
            "m0": m0,
            "m1": m1,
            "reps": args.reps,
            "sample_min": (
                args.guaranteed_sample_max if args.plain else args.guaranteed_sample_min
            ),
            "batch": args.guaranteed_batch,
            "sample_max": args.guaranteed_sample_max,
            "widening": args.widening,
            "plain": args.plain,
            "seed": args.seed,
            "index": np.ravel_multi_index(
                (ARMS.index((m0, m1)), N.index(n), Q.index(a), Q.index(b), THETA.index(t)),
                (len(ARMS), len(N), len(Q), len(Q), len(THETA)),
            ),
        }
        for m0, m1 in arms
        for n in args.n
        for a in args.q0
        for b in args.q1
        for t in args.theta
    ]
    start = time.perf_counter()
    results = []
    with ProcessPoolExecutor(args.workers) as pool:
        for result in pool.map(evaluate_cell, cells, chunksize=2):
            results.append(result)
            print(
                f"{len(results)}/{len(cells)} {time.perf_counter() - start:.0f} s "
                f"{result['status']} {result['coverage']}",
                file=sys.stderr,
                flush=True,
            )
    summary = summarise(results, time.perf_counter() - start, args.reps)
    write_results("recommendation_coverage" + (f"_{args.tag}" if args.tag else ""), summary)
    print({k: v for k, v in summary.items() if k != "cells_detail"})


if __name__ == "__main__":
    main()
