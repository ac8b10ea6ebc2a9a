"""Threads of the exact posterior engine: ``exact_quantiles`` on one batch at 1, 2, 4, ... threads.

The batch is what a Bayesian coverage chunk hands the engine: ``--datasets`` (default 2,000) draws
with n in {200, 1000, 5000}, theta in {0.1, ..., 0.9}, m0 = m1 = 100, q0 = 0.8, q1 = 0.9 (seed 0),
three quantiles each; BLAS on one thread (as in a chunk). Each thread count is timed once after a
warm-up; 1 thread is timed again at the end. The ratio to 1 thread is what the engine's default cap
(``judgestats._dask.ENGINE_MAX_THREADS``) rests on.

    python benchmarks/bench_engine_threads.py [--datasets 2000] [--threads 1,2,4,8,16]

Prints a table and writes benchmarks/results/engine_threads.json.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import write_results  # noqa: E402

from judgestats._dask import available_cpus  # noqa: E402
from judgestats.bayes.exact import exact_quantiles  # noqa: E402


def batch(size: int) -> list[np.ndarray]:
    """Counts (k, n, k0, m0, k1, m1) of ``size`` simulated datasets."""
    rng = np.random.default_rng(0)
    n = rng.choice([200, 1000, 5000], size).astype(float)
    theta = rng.choice(np.linspace(0.1, 0.9, 10), size)
    k0, k1 = rng.binomial(100, 0.8, size), rng.binomial(100, 0.9, size)
    k = rng.binomial(n.astype(int), theta * 0.9 + (1 - theta) * 0.2).astype(float)
    m = np.full(size, 100.0)
    return [k, n, k0, m, k1, m]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=2000)
    cpus = available_cpus()
    default = ",".join(str(t) for t in (1, 2, 4, 8, 16) if t <= cpus)
    parser.add_argument("--threads", default=default, help=f"default {default}")
    args = parser.parse_args()
    counts = batch(args.datasets)
    levels = [0.025, 0.5, 0.975]
    rows = []
    with threadpool_limits(1, user_api="blas"):
        exact_quantiles(*(c[:50] for c in counts), levels, workers=1)  # imports and caches
        for threads in [int(t) for t in args.threads.split(",")] + [1]:
            start = time.perf_counter()
            exact_quantiles(*counts, levels, workers=threads)
            rows.append({"threads": threads, "seconds": time.perf_counter() - start})
    one = min(row["seconds"] for row in rows if row["threads"] == 1)
    print(f"{'threads':>8}{'seconds':>10}{'1 thread / this':>17}")
    for row in rows:
        row["speedup_over_one"] = one / row["seconds"]
        print(f"{row['threads']:>8}{row['seconds']:>10.2f}{row['speedup_over_one']:>16.2f}x")
    print(f"load average {os.getloadavg()}")
    payload = {"datasets": args.datasets, "cpus": cpus, "rows": rows, "load": os.getloadavg()}
    print(f"wrote {write_results('engine_threads', payload)}")


if __name__ == "__main__":
    main()
