"""The coverage table the cross-check's recommendation reads, and the atlas figure (issue 12).

Regime grid (stratified design): calibration arms (m0, m1) in {(5, 5), (10, 10), (20, 20),
(50, 50), (100, 100), (200, 200), (500, 500), (20, 100), (100, 20)}, test size n in {50, 1000,
100000}, judge q0, q1 in {0.55, 0.7, 0.85, 0.99} (all 16 pairs) and true accuracy theta in
{0, 0.1, 0.5, 0.9, 1}: 2,160 cells.

- ``lang_reiczigel``: exact coverage (the joint pmf summed over the data space,
  ``simulate.coverage(exact=True)``), no Monte Carlo error.
- ``bayes_eti`` / ``bayes_hdi``: the exact posterior's 95% equal-tailed and highest-density
  intervals (default prior), ``--bayes-reps`` replications per cell (default 2,000; Monte Carlo
  standard error 0.0049 at coverage 0.95), computed with Dask on ``--workers`` processes, for
  every cell, theta = 0 and 1 included (at those two the equal-tailed interval's simulated
  coverage is 0, as it must be: its ends are posterior quantiles strictly inside (0, 1)). Cells
  with q0 > q1 (and the arms (100, 20)) are the mirror images of computed cells: swapping what
  counts as correct maps (theta, q0, q1, m0, m1) to (1 - theta, q1, q0, m1, m0) and leaves the
  model, the prior and both intervals' coverage unchanged, so they are filled from their images.
  The part splits for parallel runs: ``--only bayes`` simulates the interior accuracies,
  ``--only bayes --bayes-edges`` theta = 0 and 1, each optionally for ``--bayes-arms``; a full
  run merges the pieces it finds in ``--cache``.
- ``guaranteed``: exact coverage by enumeration of every outcome, on the cells with n = 50 and
  m0 = m1 in {5, 10} (elsewhere its coverage is >= 0.95 by construction; see
  ``tests/test_guaranteed.py``).
- ``ppi_pp`` (random design: m = m0 + m1 labelled items drawn at random, m in {10, 20, 50, 100,
  200, 500}, same n, judges and theta): PPI++ (ppi-python's interval), ``--ppi-reps``
  replications (default 20,000).

    python benchmarks/coverage_table.py [--bayes-reps 2000] [--workers 2] [--cache DIR] [--quick]

On 2 cores the posterior part is the slow one: 45 min for the interior of the arms of 200 and
500 items and 50 min for theta = 0 and 1 over all arms (run side by side, one worker each),
15 + 18 min for the interior of the other arms; each part's time is recorded next to its cache
file and reported in the JSON summary.

Writes src/judgestats/datasets/coverage_table.npz (read by judgestats.crosscheck's recommendation),
benchmarks/results/coverage_table.json (summary) and benchmarks/results/coverage_atlas.png (the
README's heat maps). ``--quick`` runs a tiny grid with few replications into a temporary
directory (a smoke test; it writes nothing under src/).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import xarray as xr

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import RESULTS, write_results  # noqa: E402

from judgestats import JudgeStatsWarning  # noqa: E402
from judgestats.simulate import coverage, simulate_counts  # noqa: E402

ARMS = [
    (5, 5),
    (10, 10),
    (20, 20),
    (50, 50),
    (100, 100),
    (200, 200),
    (500, 500),
    (20, 100),
    (100, 20),
]
N = [50, 1000, 100_000]
Q = [0.55, 0.7, 0.85, 0.99]
THETA = [0.0, 0.1, 0.5, 0.9, 1.0]
RANDOM_M = [10, 20, 50, 100, 200, 500]
METHODS = ["lang_reiczigel", "bayes_eti", "bayes_hdi", "guaranteed"]
TABLE = (
    Path(__file__).resolve().parents[1] / "src" / "judgestats" / "datasets" / "coverage_table.npz"
)


def _arms(arms: list[tuple[int, int]]) -> tuple[xr.DataArray, xr.DataArray]:
    index = np.arange(len(arms))
    m0 = xr.DataArray([a[0] for a in arms], dims="arms", coords={"arms": index})
    m1 = xr.DataArray([a[1] for a in arms], dims="arms", coords={"arms": index})
    return m0, m1


def closed_form(grid: dict) -> np.ndarray:
    """Exact Lang-Reiczigel coverage and median width: (2, arms, n, q0, q1, theta)."""
    m0, m1 = _arms(grid["arms"])
    ds = coverage(
        "lang_reiczigel",
        theta=grid["theta"],
        q0=grid["q"],
        q1=grid["q"],
        n=grid["n"],
        m0=m0,
        m1=m1,
        exact=True,
    )
    order = ("arms", "n", "q0", "q1", "theta")
    return np.stack([ds[v].transpose(*order).values for v in ("coverage", "width_median")])


def bayesian(
    grid: dict,
    reps: int,
    workers: int,
    max_arm: int,
    only: list[tuple[int, int]] | None = None,
    *,
    edges: bool | None = None,
) -> np.ndarray:
    """ETI and HDI coverage and median width: (2 methods, 2 stats, arms, n, q0, q1, theta).

    Computes the cells with q0 <= q1 for equal arms and every judge for the first unequal pair;
    fills the rest from mirror images. ``edges``: False simulates the interior accuracies only,
    True theta = 0 and 1 only, None both (the two halves can run in parallel and be merged).
    """
    if edges is None:
        inner = bayesian(grid, reps, workers, max_arm, only, edges=False)
        return np.where(
            np.isnan(inner), bayesian(grid, reps, workers, max_arm, only, edges=True), inner
        )
    arms, q, theta = grid["arms"], grid["q"], grid["theta"]
    shape = (2, 2, len(arms), len(grid["n"]), len(q), len(q), len(theta))
    out = np.full(shape, np.nan)
    inner = [t for t in theta if (t in (0.0, 1.0)) == edges]
    inner_index = [theta.index(t) for t in inner]
    chosen = [
        i
        for i, (a, b) in enumerate(arms)
        if max(a, b) <= max_arm and (only is None or (a, b) in only or (b, a) in only)
    ]
    equal = [i for i in chosen if arms[i][0] == arms[i][1]]
    unequal = [i for i in chosen if arms[i][0] < arms[i][1]]
    pairs = [(i, j) for i in range(len(q)) for j in range(len(q)) if i <= j]
    jobs = [(equal, pairs), (unequal, [(i, j) for i in range(len(q)) for j in range(len(q))])]
    for index, judges in jobs:
        if not index:
            continue
        m0, m1 = _arms([arms[i] for i in index])
        judge = np.arange(len(judges))
        q0 = xr.DataArray([q[i] for i, _ in judges], dims="judge", coords={"judge": judge})
        q1 = xr.DataArray([q[j] for _, j in judges], dims="judge", coords={"judge": judge})
        ds = coverage(
            ["bayes_eti", "bayes_hdi"],
            theta=inner,
            q0=q0,
            q1=q1,
            n=grid["n"],
            m0=m0,
            m1=m1,
            reps=reps,
            random_seed=20261123,
            client="local" if workers > 1 else None,
            n_workers=workers,
            chunk_cells=1,
            progress=True,
        )
        order = ("interval", "arms", "n", "judge", "theta")
        values = np.stack(
            [ds[v].transpose(*order).values for v in ("coverage", "width_median")], axis=1
        )
        for a, arm in enumerate(index):
            for j, (i0, i1) in enumerate(judges):
                for ti, t_index in enumerate(inner_index):
                    out[:, :, arm, :, i0, i1, t_index] = values[:, :, a, :, j, ti]
    # mirror images: (theta, q0, q1, m0, m1) -> (1 - theta, q1, q0, m1, m0)
    flip = list(range(len(theta)))[::-1]
    if not np.allclose(np.asarray(theta)[flip], 1 - np.asarray(theta)):
        raise ValueError("the theta grid must be symmetric about 1/2 for the mirror images")
    for a, (m0_value, m1_value) in enumerate(arms):
        if (m1_value, m0_value) not in arms:
            continue
        image = arms.index((m1_value, m0_value))
        mirrored = np.swapaxes(out[:, :, image], 3, 4)[..., flip]
        missing = np.isnan(out[:, :, a])
        out[:, :, a][missing] = mirrored[missing]
    return out


def guaranteed_exact(grid: dict, designs: list[tuple[int, int]]) -> np.ndarray:
    """Exact coverage of the guaranteed interval on designs (n, m) with m0 = m1 = m."""
    from scipy.stats import binom

    from judgestats.guaranteed import guaranteed_interval

    q, theta = np.asarray(grid["q"]), np.asarray(grid["theta"])
    shape = (2, len(grid["arms"]), len(grid["n"]), len(q), len(q), len(theta))
    out = np.full(shape, np.nan)
    for n, m in designs:
        if (m, m) not in grid["arms"] or n not in grid["n"]:
            continue
        low = np.empty((n + 1, m + 1, m + 1))
        high = np.empty_like(low)
        for k in range(n + 1):
            for k0 in range(m + 1):
                for k1 in range(m + 1):
                    low[k, k0, k1], high[k, k0, k1] = guaranteed_interval(k, n, k0, m, k1, m, 0.95)
        width = high - low
        a, b = grid["arms"].index((m, m)), grid["n"].index(n)
        for i0, q0 in enumerate(q):
            for i1, q1 in enumerate(q):
                for t, th in enumerate(theta):
                    pi = th * q1 + (1 - th) * (1 - q0)
                    w = (
                        binom.pmf(np.arange(n + 1), n, pi)[:, None, None]
                        * binom.pmf(np.arange(m + 1), m, q0)[None, :, None]
                        * binom.pmf(np.arange(m + 1), m, q1)[None, None, :]
                    )
                    out[0, a, b, i0, i1, t] = w[(low <= th) & (th <= high)].sum()
                    order = np.argsort(width, axis=None)
                    cumulative = np.cumsum(w.ravel()[order])
                    out[1, a, b, i0, i1, t] = width.ravel()[order][
                        np.searchsorted(cumulative, 0.5 * cumulative[-1])
                    ]
    return out


def ppi_random(grid: dict, reps: int) -> np.ndarray:
    """PPI++ coverage and median width under the random design: (2, m, n, q0, q1, theta)."""
    from judgestats.designs.prediction_powered import ppi_counts

    m_values, q, theta = grid["random_m"], grid["q"], grid["theta"]
    out = np.full((2, len(m_values), len(grid["n"]), len(q), len(q), len(theta)), np.nan)
    rng = np.random.default_rng(20261124)
    for a, m in enumerate(m_values):
        for b, n in enumerate(grid["n"]):
            for i0, q0 in enumerate(q):
                for i1, q1 in enumerate(q):
                    for t, th in enumerate(theta):
                        d = simulate_counts(
                            theta=th,
                            q0=q0,
                            q1=q1,
                            n=n,
                            m0=m - m // 2,
                            m1=m // 2,
                            reps=reps,
                            design="random",
                            random_seed=rng,
                        )
                        k = np.asarray(d["k"]).ravel()
                        counts = [k, np.full(k.shape, n)] + [
                            np.asarray(d[name]).ravel()
                            for name in ("k0", "m0_drawn", "k1", "m1_drawn")
                        ]
                        _, ci, _, _ = ppi_counts(*counts, lam=None)
                        low, high = np.asarray(ci.low), np.asarray(ci.high)
                        out[0, a, b, i0, i1, t] = np.mean((low <= th) & (th <= high))
                        out[1, a, b, i0, i1, t] = np.nanmedian(high - low)
    return out


def heat_maps(table: dict, path: Path) -> None:
    """One panel per method and calibration size: minimum coverage over n and 0 < theta < 1.

    (At theta = 0 and 1 the equal-tailed interval never covers, by construction.)
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods = ["lang_reiczigel", "bayes_eti", "bayes_hdi"]
    arms = [tuple(a) for a in table["arms"]]
    shown = [i for i, (a, b) in enumerate(arms) if a == b]
    fig, axes = plt.subplots(
        len(methods) + 1, len(shown), figsize=(2.4 * len(shown), 10.5), squeeze=False
    )
    q = table["q"]
    inner = (table["theta"] > 0) & (table["theta"] < 1)
    image = None
    for r, method in enumerate(methods):
        block = table["coverage"][list(table["methods"]).index(method)][..., inner]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # arms not simulated: all NaN
            worst = np.nanmin(block, axis=(1, 4))
        for c, a in enumerate(shown):
            ax = axes[r, c]
            image = ax.imshow(worst[a], vmin=0.80, vmax=1.0, cmap="RdYlGn", origin="lower")
            for i in range(len(q)):
                for j in range(len(q)):
                    ax.text(j, i, f"{worst[a, i, j]:.2f}", ha="center", va="center", fontsize=6)
            ax.set_xticks(range(len(q)), [f"{v:g}" for v in q], fontsize=6)
            ax.set_yticks(range(len(q)), [f"{v:g}" for v in q], fontsize=6)
            if r == 0:
                ax.set_title(f"m0 = m1 = {arms[a][0]}", fontsize=8)
            if c == 0:
                ax.set_ylabel(f"{method}\nq0", fontsize=8)
            if r == len(methods):
                ax.set_xlabel("q1", fontsize=8)
    worst = np.nanmin(table["ppi_coverage"][..., inner], axis=(1, 4))
    for c in range(len(shown)):
        ax = axes[len(methods), c]
        if c < len(table["random_m"]):
            ax.imshow(worst[c], vmin=0.80, vmax=1.0, cmap="RdYlGn", origin="lower")
            for i in range(len(q)):
                for j in range(len(q)):
                    ax.text(j, i, f"{worst[c, i, j]:.2f}", ha="center", va="center", fontsize=6)
            ax.set_title(f"PPI++, random m = {table['random_m'][c]}", fontsize=7)
            ax.set_xticks(range(len(q)), [f"{v:g}" for v in q], fontsize=6)
            ax.set_yticks(range(len(q)), [f"{v:g}" for v in q], fontsize=6)
            ax.set_xlabel("q1", fontsize=8)
        else:
            ax.axis("off")
    fig.suptitle(
        "Coverage of 95% intervals: minimum over theta in {0.1, 0.5, 0.9} and n in "
        "{50, 1000, 100000}; rows q0, columns q1 (PPI++: random design, m labelled)",
        fontsize=9,
    )
    if image is not None:
        fig.colorbar(image, ax=axes, shrink=0.5, label="coverage")
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _recorded_seconds(piece: Path) -> float | None:
    """The run time saved next to a cached part (``.seconds``), or None if none was."""
    record = piece.with_suffix(".seconds")
    return float(record.read_text()) if record.exists() else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bayes-reps", type=int, default=2000)
    parser.add_argument("--ppi-reps", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--bayes-max-arm", type=int, default=500)
    parser.add_argument(
        "--bayes-arms",
        default=None,
        help="with --only bayes: a comma-separated subset of the arms, e.g. "
        "5x5,10x10 (saved as its own part, so subsets can run in parallel)",
    )
    parser.add_argument(
        "--bayes-edges",
        action="store_true",
        help="with --only bayes: simulate theta = 0 and 1 only (saved as its "
        "own part; without it --only bayes simulates the interior accuracies)",
    )
    parser.add_argument(
        "--only",
        choices=("lang_reiczigel", "bayes", "guaranteed", "ppi"),
        help="compute one part into --cache and stop (parts can run in parallel)",
    )
    parser.add_argument(
        "--cache",
        default=None,
        help="folder for each part's result: a rerun reuses the parts found there",
    )
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    grid = {"arms": ARMS, "n": N, "q": Q, "theta": THETA, "random_m": RANDOM_M}
    guaranteed_designs = [(50, 5), (50, 10)]
    table_path, results = TABLE, RESULTS
    if args.quick:
        grid = {
            "arms": [(5, 5), (20, 100), (100, 20)],
            "n": [50],
            "q": [0.7, 0.99],
            "theta": [0.0, 0.5, 1.0],
            "random_m": [10],
        }
        args.bayes_reps, args.ppi_reps, args.workers = 50, 500, 1
        guaranteed_designs = [(50, 5)]
        results = Path(tempfile.mkdtemp(prefix="judgestats_table_"))
        table_path = results / "coverage_table.npz"
    timings = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        subset = (
            None
            if args.bayes_arms is None
            else [tuple(int(v) for v in item.split("x")) for item in args.bayes_arms.split(",")]
        )
        parts = {
            "lang_reiczigel": lambda: closed_form(grid),
            "bayes": lambda: bayesian(
                grid,
                args.bayes_reps,
                args.workers,
                args.bayes_max_arm,
                subset,
                edges=(args.bayes_edges if args.only == "bayes" else None),
            ),
            "guaranteed": lambda: guaranteed_exact(grid, guaranteed_designs),
            "ppi": lambda: ppi_random(grid, args.ppi_reps),
        }
        computed = {}
        for name, compute in parts.items():
            if args.only is not None and name != args.only:
                continue
            stem = name
            if name == "bayes" and args.only == "bayes":
                stem = "bayes_" + ("edges" if args.bayes_edges else "interior")
                stem += "" if subset is None else "_" + args.bayes_arms
            cached = Path(args.cache) / f"{stem}.npy" if args.cache else None
            start = time.perf_counter()
            pieces = sorted(Path(args.cache).glob("bayes_*.npy")) if args.cache else []
            if name == "bayes" and args.only is None and pieces and not cached.exists():
                merged = np.load(pieces[0])  # subsets computed in parallel: merge them
                for piece in pieces[1:]:
                    other = np.load(piece)
                    merged = np.where(np.isnan(merged), other, merged)
                computed[name] = merged
                for piece in pieces:  # each piece's own run time, where it was recorded
                    timings[f"{piece.stem}_s"] = _recorded_seconds(piece)
                continue
            if cached is not None and cached.exists():
                computed[name] = np.load(cached)
                timings[f"{name}_s"] = _recorded_seconds(cached)
                continue
            computed[name] = compute()
            timings[f"{name}_s"] = time.perf_counter() - start
            if cached is not None:
                cached.parent.mkdir(parents=True, exist_ok=True)
                np.save(cached, computed[name])
                cached.with_suffix(".seconds").write_text(f"{timings[f'{name}_s']:.1f}\n")
        if args.only is not None:
            if not args.cache:
                raise SystemExit("--only needs --cache (where the part is saved)")
            print(f"{args.only}: {timings[args.only + '_s']:.0f} s, saved under {args.cache}")
            return
        lr, bayes, guaranteed, ppi = (computed[name] for name in parts)
    table = {
        "methods": np.array(METHODS),
        "arms": np.array(grid["arms"]),
        "n": np.array(grid["n"]),
        "q": np.array(grid["q"]),
        "theta": np.array(grid["theta"]),
        "coverage": np.stack([lr[0], bayes[0, 0], bayes[1, 0], guaranteed[0]]),
        "width_median": np.stack([lr[1], bayes[0, 1], bayes[1, 1], guaranteed[1]]),
        "reps": np.array([0, args.bayes_reps, args.bayes_reps, 0]),
        "bayes_max_arm": np.array(args.bayes_max_arm),
        "random_m": np.array(grid["random_m"]),
        "ppi_coverage": ppi[0],
        "ppi_width": ppi[1],
        "ppi_reps": np.array(args.ppi_reps),
        "level": np.array(0.95),
    }
    np.savez_compressed(table_path, **table)
    heat_maps(table, results / "coverage_atlas.png")
    if args.cache:
        timings["note"] = (
            "parts read from --cache report the run time recorded when they were computed "
            "(None where none was); parts computed in parallel shared the cores"
        )
    summary = {
        "timings_s": timings,
        "cells": int(np.prod(lr.shape[1:])),
        "min_coverage": {},
        "min_coverage_interior": {},
        "min_coverage_edges": {},
    }
    edge = np.isin(table["theta"], (0.0, 1.0))
    for key, where in (
        ("min_coverage", np.ones_like(edge)),
        ("min_coverage_interior", ~edge),
        ("min_coverage_edges", edge),
    ):
        for i, method in enumerate(METHODS):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # not simulated: all NaN
                by_arms = np.nanmin(table["coverage"][i][..., where], axis=(1, 2, 3, 4))
            summary[key][method] = {
                f"{a}x{b}": (None if np.isnan(v) else float(v))
                for (a, b), v in zip(grid["arms"], by_arms, strict=True)
            }
    summary["min_coverage"]["ppi_pp_random"] = {
        str(m): float(v)
        for m, v in zip(grid["random_m"], np.nanmin(ppi[0], axis=(1, 2, 3, 4)), strict=True)
    }
    if args.quick:
        print(summary)
        print(f"(quick run: written under {results})")
        return
    write_results("coverage_table", summary)
    print(summary)


if __name__ == "__main__":
    main()
