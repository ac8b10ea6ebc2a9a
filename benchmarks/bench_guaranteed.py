"""Width and speed of the guaranteed interval against Lang-Reiczigel (issue 12, item 1).

For every cell of a regime grid (n in {200, 1000, 10000}; m0 = m1 in {20, 50, 100, 200}; judges
(q0, q1) in {(0.6, 0.6), (0.7, 0.7), (0.7, 0.9), (0.8, 0.8), (0.9, 0.9), (0.95, 0.95)};
theta in {0.2, 0.5, 0.8}), the exact coverage of the 95% Lang-Reiczigel interval is computed
(``simulate.coverage(exact=True)``) and ``--datasets`` datasets are drawn. On each dataset both
intervals are computed and timed. The summary splits the cells into those where Lang-Reiczigel
covers (exact coverage >= 0.95) and those where it does not, and reports the median and 90th
percentile of the width ratio guaranteed / Lang-Reiczigel, the median guaranteed width where
Lang-Reiczigel undercovers (against 1, the trivial interval), and the time per interval.

    python benchmarks/bench_guaranteed.py [--datasets 10] [--seed 12]

Writes benchmarks/results/guaranteed.json.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import environment, write_results  # noqa: E402

from judgestats import JudgeStatsWarning, lang_reiczigel_ci  # noqa: E402
from judgestats.guaranteed import guaranteed_interval  # noqa: E402
from judgestats.simulate import coverage  # noqa: E402

N = [200, 1000, 10_000]
M = [20, 50, 100, 200]
JUDGES = [(0.6, 0.6), (0.7, 0.7), (0.7, 0.9), (0.8, 0.8), (0.9, 0.9), (0.95, 0.95)]
THETA = [0.2, 0.5, 0.8]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=10)
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    rows = []
    start = time.perf_counter()
    for n in N:
        for m in M:
            for q0, q1 in JUDGES:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", JudgeStatsWarning)
                    exact = coverage(
                        "lang_reiczigel", theta=THETA, q0=q0, q1=q1, n=n, m0=m, m1=m, exact=True
                    )["coverage"].values.ravel()
                for theta, lr_coverage in zip(THETA, exact, strict=True):
                    pi = theta * q1 + (1 - theta) * (1 - q0)
                    for _ in range(args.datasets):
                        k, k0, k1 = (
                            int(rng.binomial(n, pi)),
                            int(rng.binomial(m, q0)),
                            int(rng.binomial(m, q1)),
                        )
                        t0 = time.perf_counter()
                        g_low, g_high = guaranteed_interval(k, n, k0, m, k1, m, 0.95)
                        seconds = time.perf_counter() - t0
                        try:
                            with warnings.catch_warnings():
                                warnings.simplefilter("ignore", JudgeStatsWarning)
                                lr = lang_reiczigel_ci(k / n, k0 / m, k1 / m, n, m, m)
                            lr_width = float(lr.high - lr.low)
                        except ValueError:  # no correction: the estimated judge is at chance
                            lr_width = np.nan
                        rows.append(
                            {
                                "n": n,
                                "m": m,
                                "q0": q0,
                                "q1": q1,
                                "theta": theta,
                                "lr_coverage": float(lr_coverage),
                                "guaranteed_width": g_high - g_low,
                                "lr_width": lr_width,
                                "seconds": seconds,
                            }
                        )
    elapsed = time.perf_counter() - start
    covers = [r for r in rows if r["lr_coverage"] >= 0.95 and r["lr_width"] > 0]  # NaN: no
    under = [r for r in rows if r["lr_coverage"] < 0.95]
    ratio = np.array([r["guaranteed_width"] / r["lr_width"] for r in covers])
    seconds = np.array([r["seconds"] for r in rows])
    summary = {
        "environment": environment(),
        "datasets": len(rows),
        "elapsed_s": elapsed,
        "where_lr_covers": {
            "datasets": len(covers),
            "median_width_ratio": float(np.median(ratio)),
            "p90_width_ratio": float(np.quantile(ratio, 0.9)),
            "max_width_ratio": float(ratio.max()),
        },
        "where_lr_undercovers": {
            "datasets": len(under),
            "median_guaranteed_width": float(np.median([r["guaranteed_width"] for r in under])),
            "share_trivial_0_1": float(np.mean([r["guaranteed_width"] >= 1 - 1e-9 for r in under])),
            "median_lr_width": float(np.nanmedian([r["lr_width"] for r in under])),
            "lr_coverage_min": float(min(r["lr_coverage"] for r in under)),
        },
        "seconds_per_interval": {
            "median": float(np.median(seconds)),
            "p90": float(np.quantile(seconds, 0.9)),
            "max": float(seconds.max()),
        },
        "rows": rows,
    }
    write_results("guaranteed", summary)
    print({k: v for k, v in summary.items() if k not in ("rows", "environment")})


if __name__ == "__main__":
    main()
