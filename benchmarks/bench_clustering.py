"""Repeated judging: coverage of the 95% interval with and without clustering by item.

Issue 13, item 3. Every item is judged E = 5 times (Inspect epochs): the item's correctness
Z_i ~ Bernoulli(theta) is fixed across epochs, and so is the judge's propensity for that item,

    u_i ~ Beta with mean q1 (Z_i = 1) or 1 - q0 (Z_i = 0) and intra-item correlation rho
          (Beta(mu s, (1 - mu) s) with s = (1 - rho) / rho; u_i = mu when rho = 0),

while each epoch's verdict is an independent Bernoulli(u_i). The verdicts of one item are then
correlated with correlation rho. The human label is Z_i. Test set: n = 200 items; stratified
calibration: m0 = m1 = 50 items, each judged E times as well.

Three ways to analyse the same data, each with the Rogan-Gladen estimate and a Lang-Reiczigel
interval (Lee et al., arXiv 2511.21140 v1, eqs. 4-7):

``clustered``
    ``judgestats.estimate_items`` on the items frame: all n E test and (m0 + m1) E calibration
    judgments, cluster-robust effective sizes (``judgestats.grouped.clusters``), vectorised here
    through the same functions.
``independent``
    every judgment as an independent item (what a user gets by dropping the ids): n E, m0 E,
    m1 E.
``one_epoch``
    the first epoch only: n, m0, m1.

Coverage of the true theta over ``--reps`` replications per cell (default 10,000) with its Monte
Carlo standard error sqrt(c (1 - c) / reps), and the median width. One ``SeedSequence`` per cell.

    python benchmarks/bench_clustering.py            # ~5 s on 2 cores
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import write_results  # noqa: E402

THETAS = (0.2, 0.5, 0.8)
RHOS = (0.0, 0.3, 0.7)
N, M0, M1, EPOCHS = 200, 50, 50, 5
Q0, Q1 = 0.8, 0.9
LEVEL = 0.95
METHODS = ("clustered", "independent", "one_epoch")


def propensities(rng: np.random.Generator, mean: np.ndarray, rho: float) -> np.ndarray:
    """Per-item judge propensities with the given means and intra-item correlation rho."""
    if rho == 0.0:
        return mean.astype(np.float64)
    scale = (1.0 - rho) / rho
    return rng.beta(mean * scale, (1.0 - mean) * scale)


def verdicts(rng: np.random.Generator, u: np.ndarray) -> np.ndarray:
    """(reps, items, epochs) verdicts 0/1, independent given the item's propensity."""
    return (rng.random((*u.shape, EPOCHS)) < u[..., None]).astype(np.int8)


def simulate(
    rng: np.random.Generator, theta: float, rho: float, reps: int
) -> dict[str, np.ndarray]:
    """Per-item verdict sums and first-epoch verdicts of the three arms."""
    truth = rng.random((reps, N)) < theta
    test = verdicts(rng, propensities(rng, np.where(truth, Q1, 1.0 - Q0), rho))
    class0 = verdicts(rng, propensities(rng, np.full((reps, M0), 1.0 - Q0), rho))
    class1 = verdicts(rng, propensities(rng, np.full((reps, M1), Q1), rho))
    return {"test": test, "class0": 1 - class0, "class1": class1}  # class 0: judged incorrect


def intervals(arms: dict[str, np.ndarray]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(low, high) of the three analyses, one per replication."""
    from judgestats.frequentist import lang_reiczigel_at_z, lang_reiczigel_ci, z_quantile
    from judgestats.grouped.clusters import ratio_design

    designs = [
        ratio_design(arms[k].sum(axis=-1), np.full(arms[k].shape[:2], float(EPOCHS)))
        for k in ("test", "class0", "class1")
    ]
    rates = [d.rate for d in designs]
    effective = [d.effective_size for d in designs]
    out = {"clustered": lang_reiczigel_at_z((*rates, *effective), z_quantile(LEVEL))}
    out["independent"] = lang_reiczigel_ci(
        *rates, N * EPOCHS, M0 * EPOCHS, M1 * EPOCHS, confidence_level=LEVEL
    )
    first = [arms[k][..., 0].mean(axis=-1) for k in ("test", "class0", "class1")]
    out["one_epoch"] = lang_reiczigel_ci(*first, N, M0, M1, confidence_level=LEVEL)
    return out


def cell(theta: float, rho: float, reps: int, seed: np.random.SeedSequence) -> dict[str, object]:
    """Coverage, its Monte Carlo SE and the median width of each analysis in one cell."""
    from judgestats.exceptions import JudgeStatsWarning

    rng = np.random.default_rng(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # NaN intervals count as misses
        found = intervals(simulate(rng, theta, rho, reps))
    row: dict[str, object] = {"theta": theta, "rho": rho}
    for name, (low, high) in found.items():
        covered = (low <= theta) & (theta <= high)  # NaN: not covered
        coverage = float(covered.mean())
        row[name] = {
            "coverage": coverage,
            "mc_se": float(np.sqrt(coverage * (1 - coverage) / reps)),
            "median_width": float(np.nanmedian(high - low)),
        }
    return row


def table(rows: list[dict[str, object]], reps: int) -> str:
    """The printed table."""
    head = f"{'theta':>6}{'rho':>6}" + "".join(f"{name:>24}" for name in METHODS)
    lines = [
        f"coverage of the nominal {LEVEL:.0%} interval (+- MC SE) and median width; "
        f"{reps} reps per cell, n = {N}, m0 = m1 = {M0} items, {EPOCHS} epochs, "
        f"q0 = {Q0}, q1 = {Q1}",
        head,
    ]
    for row in rows:
        cells = "".join(
            f"{row[m]['coverage']:>9.3f} +-{row[m]['mc_se']:.3f}  w {row[m]['median_width']:.3f}"
            for m in METHODS
        )
        lines.append(f"{row['theta']:>6.1f}{row['rho']:>6.1f}{cells}")
    return "\n".join(lines)


def main() -> None:
    """Run the grid, print the table, write benchmarks/results/clustering.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10_000, help="replications per cell")
    parser.add_argument("--seed", type=int, default=20251121)
    args = parser.parse_args()
    start = time.perf_counter()
    grid = [(theta, rho) for theta in THETAS for rho in RHOS]
    seeds = np.random.SeedSequence(args.seed).spawn(len(grid))
    rows = [
        cell(theta, rho, args.reps, seed) for (theta, rho), seed in zip(grid, seeds, strict=True)
    ]
    elapsed = time.perf_counter() - start
    print(table(rows, args.reps))
    print(f"({elapsed:.1f} s)")
    path = write_results(
        "clustering",
        {
            "description": "coverage with and without clustering by item id (issue 13, item 3)",
            "command": "python benchmarks/bench_clustering.py"
            + (f" --reps {args.reps}" if args.reps != 10_000 else ""),
            "settings": {
                "n": N,
                "m0": M0,
                "m1": M1,
                "epochs": EPOCHS,
                "q0": Q0,
                "q1": Q1,
                "level": LEVEL,
                "reps": args.reps,
                "seed": args.seed,
            },
            "seconds": elapsed,
            "cells": rows,
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
