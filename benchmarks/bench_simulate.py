"""Speed of the coverage studies (judgestats.simulate.coverage), as ratios measured in one run.

1. Lee et al. v1 Fig. 4 design: 21 theta x 10,000 reps, n = 1000, m0 + m1 = 500, equal and adaptive
   (Algorithm 1) allocation, naive and Lang-Reiczigel intervals (best of 3), against a plain
   per-replication Python loop of the same study that calls scipy's ``norm.ppf`` once per
   interval like the paper's reference code (timed on ``--loop-reps`` replications per theta
   and scaled linearly to 10,000).
2. Bayesian coverage with the exact engine at one setting (21 theta, n = 1000, m0 = m1 = 100):
   timed on ``--bayes-reps`` replications per theta (default 1,000) and extrapolated linearly to
   10,000 (conservative: more replications share more calibration groups).
3. Dask: the same closed-form sweep on a LocalCluster with 1 and with 2 worker processes.

    python benchmarks/bench_simulate.py [--quick]

Prints a table and writes benchmarks/results/simulate.json.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import write_results  # noqa: E402

from judgestats.simulate import coverage  # noqa: E402

THETA = np.round(np.linspace(0, 1, 21), 10)
FIG4 = dict(theta=THETA, q0=0.7, q1=0.9, n=1000, m0=250, m1=250)
Z = 1.959963984540054


def timed(func):
    start = time.perf_counter()
    value = func()
    return time.perf_counter() - start, value


def fig4_vectorised(reps: int) -> dict[str, float]:
    """The four studies of Fig. 4 (b, c): naive/adjusted x equal/adaptive."""
    out = {}
    for allocation in ("fixed", "adaptive"):  # both intervals on the same simulated datasets
        ds = coverage(
            ["naive", "lang_reiczigel"],
            **FIG4,
            reps=reps,
            allocation=allocation,
            random_seed=1,
            progress=False,
        )
        for method in ds.interval.values:
            out[f"{method}/{allocation}"] = float(ds.coverage.sel(interval=method).mean())
    return out


def _paper_interval(p, q0, q1, n, m0, m1, norm, alpha=0.05):
    z = norm.ppf(1 - alpha / 2)  # once per interval, as the paper's reference code does
    z2 = z * z
    p, q0, q1 = (n * p + z2 / 2) / (n + z2), (m0 * q0 + 1) / (m0 + 2), (m1 * q1 + 1) / (m1 + 2)
    n, m0, m1 = n + z2, m0 + 2, m1 + 2
    th = (p + q0 - 1) / (q0 + q1 - 1)
    dth = 2 * z2 * (-(1 - th) * q0 * (1 - q0) / m0 + th * q1 * (1 - q1) / m1)
    se = math.sqrt(
        p * (1 - p) / n + (1 - th) ** 2 * q0 * (1 - q0) / m0 + th**2 * q1 * (1 - q1) / m1
    ) / (q0 + q1 - 1)
    return max(0.0, min(1.0, th + dth - z * se)), max(0.0, min(1.0, th + dth + z * se))


def fig4_loop(reps: int) -> int:
    """Per-replication Python loop of the same four studies (scalar draws, scalar intervals)."""
    from scipy.stats import norm

    rng = np.random.default_rng(1)
    hits = 0
    n, m, pilot = 1000, 500, 10
    for theta in THETA:
        p = theta * 0.9 + (1 - theta) * 0.3
        for _ in range(reps):
            for adaptive in (False, True):
                k = rng.binomial(n, p)
                if adaptive:
                    a0, a1 = rng.binomial(pilot, 0.7), rng.binomial(pilot, 0.9)
                    kappa = (1 - (a0 + 1) / (pilot + 2)) / (1 - (a1 + 1) / (pilot + 2))
                    ph = max(k / n, 1e-12)
                    m1 = min(
                        max(round(m / (1 + (1 / ph - 1) * math.sqrt(kappa))), pilot), m - pilot
                    )
                    m0 = m - m1
                    k0 = a0 + rng.binomial(m0 - pilot, 0.7)
                    k1 = a1 + rng.binomial(m1 - pilot, 0.9)
                else:
                    m0 = m1 = m // 2
                    k0, k1 = rng.binomial(m0, 0.7), rng.binomial(m1, 0.9)
                ph = k / n
                half = Z * math.sqrt(ph * (1 - ph) / n)
                hits += ph - half <= theta <= ph + half
                if k0 / m0 + k1 / m1 > 1:
                    low, high = _paper_interval(ph, k0 / m0, k1 / m1, n, m0, m1, norm)
                    hits += low <= theta <= high
    return hits


def bayes(reps: int, method: str) -> tuple[float, int]:
    from judgestats.simulate import simulate_counts

    seconds, _ = timed(
        lambda: coverage(
            method,
            theta=THETA,
            q0=0.7,
            q1=0.9,
            n=1000,
            m0=100,
            m1=100,
            reps=reps,
            random_seed=2,
            progress=False,
        )
    )
    ds = simulate_counts(
        theta=THETA, q0=0.7, q1=0.9, n=1000, m0=100, m1=100, reps=reps, random_seed=2
    )
    rows = np.stack([ds.k.values.ravel(), ds.k0.values.ravel(), ds.k1.values.ravel()], axis=1)
    return seconds, len(np.unique(rows, axis=0))


def dask_sweep(reps: int, workers: int, grid: dict) -> float:
    seconds, _ = timed(
        lambda: coverage(
            "lang_reiczigel",
            **grid,
            reps=reps,
            random_seed=3,
            client="local",
            n_workers=workers,
            progress=False,
        )
    )
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument("--loop-reps", type=int, default=None)
    parser.add_argument("--bayes-reps", type=int, default=None)
    parser.add_argument("--skip-dask", action="store_true")
    args = parser.parse_args()
    loop_reps = args.loop_reps or (100 if args.quick else 1000)
    bayes_reps = args.bayes_reps or (20 if args.quick else 1000)
    dask_reps = 1000 if args.quick else 10_000
    dask_grid = dict(
        theta=THETA,
        q0=[0.6, 0.7, 0.8, 0.9, 0.95],
        q1=[0.6, 0.7, 0.8, 0.9, 0.95],
        n=[200, 1000],
        m0=[50, 250],
        m1=100,
    )

    fig4_vectorised(100)  # warm-up: imports
    vec_s = min(timed(lambda: fig4_vectorised(10_000))[0] for _ in range(3))
    loop_s, _ = timed(lambda: fig4_loop(loop_reps))
    loop_full = loop_s * 10_000 / loop_reps
    rows = [("Fig. 4 design, 4 studies x 21 theta x 10,000 reps", vec_s, loop_full)]
    print(f"{'study':<55}{'judgestats s':>12}{'baseline s':>12}{'ratio':>9}")
    print(
        f"{rows[0][0]:<55}{vec_s:12.3f}{loop_full:12.1f}{loop_full / vec_s:9.0f}x"
        f"   (loop timed on {loop_reps} reps, scaled)"
    )
    payload = {
        "fig4": {
            "judgestats_s": vec_s,
            "loop_s_scaled": loop_full,
            "loop_reps_timed": loop_reps,
            "speedup": loop_full / vec_s,
        }
    }
    for method in ("bayes_eti", "bayes_hdi"):
        seconds, unique = bayes(bayes_reps, method)
        datasets = 21 * bayes_reps
        per_unique = seconds / unique
        scaled = seconds * 10_000 / bayes_reps
        print(
            f"{method + f' 21 theta x {bayes_reps} reps (n=1000, m=100/arm)':<55}"
            f"{seconds:12.2f}{'':>12}   {unique}/{datasets} distinct datasets, "
            f"{1 / per_unique:.0f}/s; 10,000 reps ~ {scaled / 60:.0f} min (linear)"
        )
        payload[method] = {
            "seconds": seconds,
            "reps": bayes_reps,
            "datasets": datasets,
            "distinct": unique,
            "distinct_per_s": 1 / per_unique,
            "extrapolated_10000_reps_s": scaled,
        }
    if not args.skip_dask:
        cells = 21 * 25 * 2 * 2
        one = dask_sweep(dask_reps, 1, dask_grid)
        two = dask_sweep(dask_reps, 2, dask_grid)
        print(
            f"{f'Dask LocalCluster, {cells} cells x {dask_reps} reps: 1 vs 2 workers':<55}"
            f"{two:12.1f}{one:12.1f}{one / two:9.2f}x"
        )
        payload["dask"] = {
            "cells": cells,
            "reps": dask_reps,
            "one_worker_s": one,
            "two_workers_s": two,
            "speedup": one / two,
        }
    path = write_results("simulate" + ("_quick" if args.quick else ""), payload)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
