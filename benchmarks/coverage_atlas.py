"""The coverage atlas: Lang-Reiczigel vs the Bayesian intervals across regimes (issue 4).

Closed form (naive and Lang-Reiczigel, same simulated datasets): calibration arms
m0 = m1 in {5, 10, 20, 30, 50, 100, 250}, judge (q0, q1) in {0.6, 0.7, 0.8, 0.9, 0.95}^2,
n in {200, 1000, 100000}, theta on 21 points, ``--reps`` replications (default 10,000).

Bayesian (exact posterior, ETI and HDI, posterior median as point estimate): a sub-grid
(theta in {0.1, 0.3, 0.5, 0.7, 0.9}, (q0, q1) in {0.6, 0.8, 0.95}^2, n = 1000, m in {5, 10, 20,
50, 100}) with ``--bayes-reps`` replications (default 400; about 14 min on one core, as the exact
engine handles a few hundred distinct datasets per second); the Lang-Reiczigel interval is
recomputed on the same sub-grid with the same seed for a like-for-like comparison.

    python benchmarks/coverage_atlas.py [--reps 10000] [--bayes-reps 400] [--client local]

Writes benchmarks/results/coverage_atlas.nc and coverage_atlas_bayes.nc (NetCDF) and a JSON
summary coverage_atlas.json.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import xarray as xr

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import RESULTS, write_results  # noqa: E402

from judgestats import JudgeStatsWarning  # noqa: E402
from judgestats.simulate import coverage  # noqa: E402

M = [5, 10, 20, 30, 50, 100, 250]
Q = [0.6, 0.7, 0.8, 0.9, 0.95]
N = [200, 1000, 100_000]
THETA = np.round(np.linspace(0, 1, 21), 10)


def closed_form(reps: int, client: str | None, progress: bool | None = None) -> xr.Dataset:
    m = xr.DataArray(M, dims="m", coords={"m": M})
    return coverage(
        ["naive", "lang_reiczigel"],
        theta=THETA,
        q0=Q,
        q1=Q,
        n=N,
        m0=m,
        m1=m,
        reps=reps,
        random_seed=2026,
        client=client,
        progress=progress,
    )


def bayesian(reps: int, client: str | None, progress: bool | None = None) -> xr.Dataset:
    m_values = [5, 10, 20, 50, 100]
    m = xr.DataArray(m_values, dims="m", coords={"m": m_values})
    grid = dict(
        theta=[0.1, 0.3, 0.5, 0.7, 0.9],
        q0=[0.6, 0.8, 0.95],
        q1=[0.6, 0.8, 0.95],
        n=1000,
        m0=m,
        m1=m,
        reps=reps,
        random_seed=2027,
        client=client,
        progress=progress,
    )
    return coverage(["lang_reiczigel", "bayes_eti", "bayes_hdi"], **grid)


def summary(ds: xr.Dataset) -> dict[str, object]:
    """Worst and typical coverage of each method per calibration size (over theta, q, n)."""
    out = {}
    for method in ds.interval.values:
        cov = ds.coverage.sel(interval=method)
        other = [d for d in cov.dims if d != "m"]
        out[str(method)] = {
            "min_coverage_by_m": dict(
                zip(map(int, cov.m.values), map(float, cov.min(other).values), strict=True)
            ),
            "median_coverage_by_m": dict(
                zip(map(int, cov.m.values), map(float, cov.median(other).values), strict=True)
            ),
            "mean_width_by_m": dict(
                zip(
                    map(int, cov.m.values),
                    map(float, ds.width_mean.sel(interval=method).mean(other).values),
                    strict=True,
                )
            ),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10_000)
    parser.add_argument("--bayes-reps", type=int, default=400)
    parser.add_argument("--client", default=None, help="'local' or a scheduler address")
    parser.add_argument("--skip-bayes", action="store_true")
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bars on stderr (default: drawn on a terminal)",
    )
    args = parser.parse_args()
    progress = False if args.no_progress else None
    RESULTS.mkdir(exist_ok=True)
    payload: dict[str, object] = {"reps": args.reps, "bayes_reps": args.bayes_reps}
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        closed = closed_form(args.reps, args.client, progress)
    payload["closed_form_seconds"] = time.perf_counter() - start
    closed.to_netcdf(RESULTS / "coverage_atlas.nc", engine="scipy")
    payload["closed_form"] = summary(closed)
    print(f"closed form: {payload['closed_form_seconds']:.1f} s")
    if not args.skip_bayes:
        start = time.perf_counter()
        bayes = bayesian(args.bayes_reps, args.client, progress)
        payload["bayes_seconds"] = time.perf_counter() - start
        bayes.to_netcdf(RESULTS / "coverage_atlas_bayes.nc", engine="scipy")
        payload["bayes"] = summary(bayes)
        print(f"Bayesian sub-grid: {payload['bayes_seconds']:.1f} s")
    print(f"wrote {write_results('coverage_atlas', payload)}")


if __name__ == "__main__":
    main()
