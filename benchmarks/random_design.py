"""Random-design candidates and the recommended interval: coverage and width (issue 24).

Simulation: N = n + m items, each truly correct with probability theta; the judge says "correct"
with probability q1 on a correct item and 1 - q0 on an incorrect one; m items chosen at random
are labelled. Targets: ``population`` (theta) and ``items`` ((m1 + T_u) / N, the share of
correct items among the N). Grid: m in {10, 20, 50, 100, 200, 500}, n in {100, 1e3, 1e4, 1e6},
q0, q1 in {0.5, 0.7, 0.9, 0.97, 0.99} (J from 0 to 0.98), theta in {0.02, 0.1, 0.3, 0.5, 0.7,
0.9, 0.98}: 4,200 cells per target.

The closed-form candidates are numpy on arrays of counts over (q0, q1, theta, replications), so
the table holds 4,000 replications a cell (Monte Carlo SE 0.0034 at 0.95) in a few minutes. The
posterior intervals are simulated only with ``--posterior-reps`` > 0 (about 0.1 s a dataset, on
a small subgrid); with fewer than the rule's MIN_REPS they stay out of the rule.

Two passes with independent seeds: the first measures every closed-form candidate (labels-only
Clopper-Pearson and Blaker, PPI++ with t, ppi-python's PPI++) and, on a small subgrid, the
posterior intervals, and (``--table``) writes src/judgestats/datasets/random_coverage_table.npz;
the second applies the rule (judgestats.recommendation.random_rule.choose_random, reading that
table) to fresh data and measures the recommended interval. ppi-python's ``ppi_mean_ci``
(lam=None) is called on the first ``--ppi-py`` replications of every cell and must agree with
``ppi_counts(lam=None, adjust=False)``; the widths and coverages of "ppi_python" are that
formula's on every replication.

    python benchmarks/random_design.py [--reps 4000] [--rec-reps 1900] [--table] [--quick]

Writes benchmarks/results/random_design.json and random_design.md.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import RESULTS, write_results  # noqa: E402

M_GRID = np.array([10, 20, 50, 100, 200, 500])
N_GRID = np.array([100, 1_000, 10_000, 1_000_000])
Q_GRID = np.array([0.5, 0.7, 0.9, 0.97, 0.99])
THETA_GRID = np.array([0.02, 0.1, 0.3, 0.5, 0.7, 0.9, 0.98])
TARGETS = ("population", "items")
METHODS = ("labels_only_cp", "labels_only_blaker", "ppi_pp", "posterior_eti", "posterior_hdi")
POSTERIOR_CELLS = {  # the subgrid where the posterior is simulated (it costs ~0.1 s a dataset)
    "m": (20, 100),
    "n": (1_000,),
    "q": ((0.7, 0.7), (0.9, 0.9), (0.97, 0.7)),
    "theta": (0.1, 0.5, 0.9),
}
LEVEL = 0.95


def simulate(m, n, reps, rng):
    """Counts and both targets for every (q0, q1, theta) of the grid: arrays (Q, Q, T, reps)."""
    q0 = Q_GRID[:, None, None, None]
    q1 = Q_GRID[None, :, None, None]
    theta = THETA_GRID[None, None, :, None]
    shape = (Q_GRID.size, Q_GRID.size, THETA_GRID.size, reps)
    m1 = rng.binomial(m, np.broadcast_to(theta, shape))
    m0 = m - m1
    k1 = rng.binomial(m1, np.broadcast_to(q1, shape))
    k0 = rng.binomial(m0, np.broadcast_to(q0, shape))
    t_u = rng.binomial(n, np.broadcast_to(theta, shape))
    k = rng.binomial(t_u, np.broadcast_to(q1, shape)) + rng.binomial(
        n - t_u, np.broadcast_to(1 - q0, shape)
    )
    counts = (k, np.full(shape, n), k0, m0, k1, m1)
    truth = {
        "population": np.broadcast_to(theta, shape),
        "items": (m1 + t_u) / (n + m),
    }
    return counts, truth


@functools.lru_cache(maxsize=8)
def labels_only_lookup(m, n, target):
    """(low, high) of CP and Blaker for every m1 in 0..m: dict method -> (m + 1, 2)."""
    if target == "population" and n != 0:
        return labels_only_lookup(m, 0, target)  # the binomial interval ignores n
    from judgestats.designs.labels_only import labels_only_interval

    x = np.arange(m + 1)
    out = {}
    for name, method in (("labels_only_cp", "clopper_pearson"), ("labels_only_blaker", "blaker")):
        _, low, high = labels_only_interval(x, m, n, method=method, target=target)
        out[name] = np.stack([low, high], axis=1)
    return out


def closed_form(counts, m, n, target, lookup):
    """Every closed-form interval: dict name -> (low, high) arrays."""
    from judgestats.designs.prediction_powered import ppi_counts, ppi_pp_counts

    k, n_arr, k0, m0, k1, m1 = counts
    out = {name: (table[m1, 0], table[m1, 1]) for name, table in lookup.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, low, high, _ = ppi_pp_counts(*counts, target=target, confidence_level=LEVEL)
        out["ppi_pp"] = (low, high)
        _, ci, _, _ = ppi_counts(*counts, lam=None, adjust=False, confidence_level=LEVEL)
    out["ppi_python"] = (np.asarray(ci.low), np.asarray(ci.high))
    return out


def check_ppi_python(counts, intervals, calls):
    """Max |difference| between ppi-python's ppi_mean_ci and ppi_counts on ``calls`` datasets.

    The datasets are spread evenly over the flattened (q0, q1, theta, replication) array.
    """
    import ppi_py

    k, n, k0, m0, k1, m1 = (np.asarray(c).reshape(-1) for c in counts)
    low, high = (np.asarray(a).reshape(-1) for a in intervals)
    worst = 0.0
    for i in np.linspace(0, k.size - 1, calls).astype(int):
        y = np.r_[np.ones(m1[i]), np.zeros(m0[i])]
        yhat = np.r_[
            np.ones(k1[i]), np.zeros(m1[i] - k1[i]), np.ones(m0[i] - k0[i]), np.zeros(k0[i])
        ]
        unl = np.r_[np.ones(k[i]), np.zeros(n[i] - k[i])]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            lo, hi = ppi_py.ppi_mean_ci(y, yhat, unl, alpha=1 - LEVEL, lam=None)
        lo, hi = np.ravel(lo)[0], np.ravel(hi)[0]
        if np.isfinite(lo) and np.isfinite(hi):
            worst = max(worst, abs(float(lo) - low[i]), abs(float(hi) - high[i]))
    return worst


def posterior_intervals(counts, target, cells, rng):
    """Posterior ETI/HDI (low, high) for the listed flat cell indices; NaN elsewhere."""
    import judgestats as jc
    from judgestats.designs.random_candidates import random_design_candidates

    k, n, k0, m0, k1, m1 = (np.asarray(c).reshape(-1, c.shape[-1]) for c in counts)
    out = {name: (np.full(k.shape, np.nan), np.full(k.shape, np.nan)) for name in METHODS[3:]}
    for cell in cells:
        for r in range(k.shape[1]):
            data = jc.JudgeData(
                int(k[cell, r]), int(n[cell, r]), int(k0[cell, r]), int(m0[cell, r]),
                int(k1[cell, r]), int(m1[cell, r]), design="random",
            )  # fmt: skip
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                found = random_design_candidates(data, target=target, random_seed=rng, draws=500)
            for name in METHODS[3:]:
                _, lo, hi = found.intervals[name]
                out[name][0][cell, r], out[name][1][cell, r] = lo, hi
    shape = counts[0].shape
    return {name: (a.reshape(shape), b.reshape(shape)) for name, (a, b) in out.items()}


def posterior_cells(m, n):
    """Flat (q0, q1, theta) indices of the posterior subgrid for this (m, n), else empty."""
    if m not in POSTERIOR_CELLS["m"] or n not in POSTERIOR_CELLS["n"]:
        return []
    cells = []
    for q0, q1 in POSTERIOR_CELLS["q"]:
        for theta in POSTERIOR_CELLS["theta"]:
            i, j = int(np.flatnonzero(Q_GRID == q0)[0]), int(np.flatnonzero(Q_GRID == q1)[0])
            t = int(np.flatnonzero(THETA_GRID == theta)[0])
            cells.append(
                np.ravel_multi_index((i, j, t), (Q_GRID.size, Q_GRID.size, THETA_GRID.size))
            )
    return cells


def measure(intervals, truth):
    """Coverage and mean width over the last axis, per method."""
    out = {}
    for name, (low, high) in intervals.items():
        with np.errstate(invalid="ignore"):
            covered = (low <= truth + 1e-12) & (truth <= high + 1e-12)
        ok = np.isfinite(low) & np.isfinite(high)
        count = ok.sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[name] = (
                np.where(count > 0, (covered & ok).sum(axis=-1) / count, np.nan),
                np.where(count > 0, np.where(ok, high - low, 0).sum(axis=-1) / count, np.nan),
                count,
            )
    return out


def first_pass(reps, post_reps, ppi_py_reps, seed):
    """Coverage, width and reps of every candidate: arrays (target, method, m, n, q0, q1, theta)."""
    shape = (len(TARGETS), len(METHODS) + 1, M_GRID.size, N_GRID.size, Q_GRID.size, Q_GRID.size,
             THETA_GRID.size)  # fmt: skip
    coverage, width = np.full(shape, np.nan), np.full(shape, np.nan)
    count = np.zeros(shape)
    ppi_py_diff = 0.0
    names = (*METHODS, "ppi_python")
    for a, m in enumerate(M_GRID):
        for b, n in enumerate(N_GRID):
            rng = np.random.default_rng(np.random.SeedSequence([seed, int(m), int(n)]))
            counts, truth = simulate(int(m), int(n), reps, rng)
            cells = posterior_cells(int(m), int(n))
            for t, target in enumerate(TARGETS):
                lookup = labels_only_lookup(int(m), int(n), target)
                intervals = closed_form(counts, int(m), int(n), target, lookup)
                if t == 0 and ppi_py_reps:
                    diff = check_ppi_python(counts, intervals["ppi_python"], ppi_py_reps)
                    ppi_py_diff = max(ppi_py_diff, diff)
                if cells and post_reps:
                    small = tuple(c[..., :post_reps] for c in counts)
                    post = posterior_intervals(small, target, cells, rng)
                    for name, (lo, hi) in post.items():
                        pad = [(0, 0)] * 3 + [(0, reps - post_reps)]
                        intervals[name] = (
                            np.pad(lo, pad, constant_values=np.nan),
                            np.pad(hi, pad, constant_values=np.nan),
                        )
                for name, (cov, wid, cnt) in measure(intervals, truth[target]).items():
                    j = names.index(name)
                    coverage[t, j, a, b], width[t, j, a, b], count[t, j, a, b] = cov, wid, cnt
            print(f"  m = {m}, n = {n}: done", flush=True)
    return coverage, width, count, ppi_py_diff


def write_table(coverage, width, count):
    path = Path(__file__).resolve().parents[1] / "src/judgestats/datasets/random_coverage_table.npz"
    keep = len(METHODS)
    cov = np.where(count[:, :keep] > 0, coverage[:, :keep], np.nan)
    np.savez_compressed(
        path, targets=np.array(TARGETS), methods=np.array(METHODS), m=M_GRID, n=N_GRID,
        q=Q_GRID, theta=THETA_GRID, coverage=cov, width=width[:, :keep],
        reps=count[:, :keep].astype(np.int64), level=np.array(LEVEL),
    )  # fmt: skip
    return path


def second_pass(reps, seed):
    """The recommended interval on fresh data: coverage, width, share of labels-only picks."""
    from judgestats.recommendation.random_rule import choose_random, random_coverage_table

    random_coverage_table.cache_clear()
    shape = (len(TARGETS), M_GRID.size, N_GRID.size, Q_GRID.size, Q_GRID.size, THETA_GRID.size)
    cov, wid, exact_share = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    same = {
        name: np.zeros(shape) for name in ("labels_only_cp", "labels_only_blaker", "ppi_python")
    }
    for a, m in enumerate(M_GRID):
        for b, n in enumerate(N_GRID):
            rng = np.random.default_rng(np.random.SeedSequence([seed, 1, int(m), int(n)]))
            counts, truth = simulate(int(m), int(n), reps, rng)
            flat = tuple(c.reshape(-1) for c in counts)
            for t, target in enumerate(TARGETS):
                lookup = labels_only_lookup(int(m), int(n), target)
                intervals = closed_form(counts, int(m), int(n), target, lookup)
                pick = {k: (np.ravel(v[0]), np.ravel(v[1])) for k, v in intervals.items()
                        if k in ("labels_only_blaker", "ppi_pp")}  # fmt: skip
                choice, _ = choose_random(flat, pick, LEVEL, target)
                low = np.where(choice == 0, pick["ppi_pp"][0], pick["labels_only_blaker"][0])
                high = np.where(choice == 0, pick["ppi_pp"][1], pick["labels_only_blaker"][1])
                low, high = low.reshape(counts[0].shape), high.reshape(counts[0].shape)
                truth_t = truth[target]
                covered = (low <= truth_t + 1e-12) & (truth_t <= high + 1e-12)
                cov[t, a, b], wid[t, a, b] = covered.mean(-1), (high - low).mean(-1)
                exact_share[t, a, b] = (choice.reshape(counts[0].shape) < 0).mean(-1)
                for name, widths in same.items():
                    widths[t, a, b] = (intervals[name][1] - intervals[name][0]).mean(-1)
    return cov, wid, exact_share, same


def verdicts(first_cov, first_wid, rec_cov, rec_wid, reps, exact_share):
    """The issue's done-when targets, cell by cell, per target."""
    from scipy.special import ndtr

    se = float(np.sqrt(0.95 * 0.05 / reps))
    names = (*METHODS, "ppi_python")
    cp, blaker = names.index("labels_only_cp"), names.index("labels_only_blaker")
    ppi_py = names.index("ppi_python")
    youden = Q_GRID[:, None] + Q_GRID[None, :] - 1.0
    strong = np.broadcast_to((youden >= 0.8)[None, None, :, :, None], rec_cov.shape[1:])
    big_n = np.broadcast_to(
        (N_GRID[None, :] >= 10 * M_GRID[:, None])[:, :, None, None, None], rec_cov.shape[1:]
    )
    out = {}
    for t, target in enumerate(TARGETS):
        covers = rec_cov[t] >= 0.945
        narrower = rec_wid[t] <= first_wid[t, blaker] * (1 + 1e-9)
        peer_covers = first_cov[t, ppi_py] >= 0.945
        near_peer = rec_wid[t] <= 1.05 * first_wid[t, ppi_py]
        ratio = rec_wid[t] / first_wid[t, cp]
        select = strong & big_n
        worst = np.unravel_index(np.argmin(rec_cov[t]), rec_cov[t].shape)
        out[target] = {
            "cells": int(rec_cov[t].size),
            "recommended_covers_0.945": f"{int(covers.sum())}/{covers.size}",
            "recommended_min_coverage": float(rec_cov[t].min()),
            "recommended_min_coverage_cell": {
                "m": int(M_GRID[worst[0]]), "n": int(N_GRID[worst[1]]),
                "q0": float(Q_GRID[worst[2]]), "q1": float(Q_GRID[worst[3]]),
                "theta": float(THETA_GRID[worst[4]]),
            },
            "monte_carlo_se_at_0.95": se,
            "recommended_below_0.945": int((~covers).sum()),
            "expected_below_0.945_if_every_cell_were_0.95": float(
                covers.size * ndtr((0.945 - 0.95) / se)
            ),
            "recommended_below_0.95_minus_3se": int((rec_cov[t] < 0.95 - 3 * se).sum()),
            "expected_below_0.95_minus_3se_if_every_cell_were_0.95": float(
                covers.size * ndtr(-3.0)
            ),
            "ppi_pp_min_coverage": float(first_cov[t, 2].min()),
            "labels_only_picked_share": float(exact_share[t].mean()),
            "width_le_labels_only_blaker": f"{int(narrower.sum())}/{narrower.size}",
            "ppi_python_covers_0.945": f"{int(peer_covers.sum())}/{peer_covers.size}",
            "width_within_5pct_of_ppi_python_where_it_covers": (
                f"{int((near_peer & peer_covers).sum())}/{int(peer_covers.sum())}"
            ),
            "median_width_ratio_to_cp_strong_judge_n_ge_10m": float(np.median(ratio[select])),
            "cells_strong_judge_n_ge_10m": int(select.sum()),
            "ppi_pp_covers_0.945": f"{int((first_cov[t, 2] >= 0.945).sum())}/{covers.size}",
        }  # fmt: skip
    return out


def markdown(first_cov, first_wid, rec_cov, rec_wid, exact_share, summary):
    names = (*METHODS, "ppi_python")
    lines = ["# Random design: candidates and the recommended interval", ""]
    lines += ["Command: `python benchmarks/random_design.py " + summary["command"] + "`", ""]
    for target in TARGETS:
        lines += [f"## target = {target}", "", "```", json.dumps(summary["verdicts"][target],
                  indent=1), "```", ""]  # fmt: skip
        t = TARGETS.index(target)
        lines += [
            "| m | n | rec. min cov | rec. width / CP | rec. width / Blaker | rec. width / "
            "ppi-python | ppi-python min cov | PPI++ min cov | labels-only picked |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for a, m in enumerate(M_GRID):
            for b, n in enumerate(N_GRID):
                w = rec_wid[t, a, b]
                lines.append(
                    f"| {m} | {n} | {rec_cov[t, a, b].min():.3f} | "
                    f"{np.mean(w / first_wid[t, 0, a, b]):.3f} | "
                    f"{np.mean(w / first_wid[t, 1, a, b]):.3f} | "
                    f"{np.mean(w / first_wid[t, names.index('ppi_python'), a, b]):.3f} | "
                    f"{first_cov[t, names.index('ppi_python'), a, b].min():.3f} | "
                    f"{first_cov[t, 2, a, b].min():.3f} | {exact_share[t, a, b].mean():.0%} |"
                )
        lines.append("")
        lines += ["Posterior subgrid (coverage, mean width):", ""]
        for a, m in enumerate(M_GRID):
            for b, n in enumerate(N_GRID):
                for name in ("posterior_eti", "posterior_hdi"):
                    j = names.index(name)
                    c = first_cov[t, j, a, b]
                    peer = np.where(np.isfinite(c), first_cov[t, 2, a, b], np.nan)
                    if np.isfinite(c).any():
                        lines.append(
                            f"- {name}, m = {m}, n = {n}: coverage min {np.nanmin(c):.3f}, "
                            f"median {np.nanmedian(c):.3f}; PPI++ t on the same cells min "
                            f"{np.nanmin(peer):.3f}"
                        )
        lines.append("")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=4000, help="replications a table cell")
    parser.add_argument("--rec-reps", type=int, default=1900, help="second pass (the rule)")
    parser.add_argument("--posterior-reps", type=int, default=0)
    parser.add_argument("--ppi-py", type=int, default=20, help="ppi-python calls per (m, n)")
    parser.add_argument("--table", action="store_true", help="write the coverage table")
    parser.add_argument("--quick", action="store_true", help="300 reps, 20 posterior reps")
    parser.add_argument("--seed", type=int, default=24)
    args = parser.parse_args(argv)
    if args.quick:
        args.reps, args.rec_reps, args.posterior_reps, args.ppi_py = 1000, 300, 0, 10
    start = time.perf_counter()
    first_cov, first_wid, count, diff = first_pass(
        args.reps, args.posterior_reps, args.ppi_py, args.seed
    )
    if args.table:
        print(f"wrote {write_table(first_cov, first_wid, count)}")
    rec_cov, rec_wid, exact_share, same = second_pass(args.rec_reps, args.seed)
    for j, name in enumerate((*METHODS, "ppi_python")):  # widths on the second pass's data
        if name in same:
            first_wid[:, j] = same[name]
    summary = {
        "command": " ".join(argv if argv is not None else sys.argv[1:]),
        "reps": args.reps,
        "rec_reps": args.rec_reps,
        "posterior_reps": args.posterior_reps,
        "ppi_python_max_abs_difference": diff,
        "verdicts": verdicts(first_cov, first_wid, rec_cov, rec_wid, args.rec_reps, exact_share),
        "seconds": time.perf_counter() - start,
    }
    names = (*METHODS, "ppi_python")
    summary["cells"] = {
        target: {
            name: {"coverage": first_cov[t, j].tolist(), "width": first_wid[t, j].tolist()}
            for j, name in enumerate(names)
        }
        | {"recommended": {"coverage": rec_cov[t].tolist(), "width": rec_wid[t].tolist()}}
        for t, target in enumerate(TARGETS)
    }
    summary["grid"] = {"m": M_GRID.tolist(), "n": N_GRID.tolist(), "q": Q_GRID.tolist(),
                       "theta": THETA_GRID.tolist()}  # fmt: skip
    write_results("random_design", summary)
    text = markdown(first_cov, first_wid, rec_cov, rec_wid, exact_share, summary)
    (RESULTS / "random_design.md").write_text(text)
    print(json.dumps(summary["verdicts"], indent=1))
    print(f"ppi-python max |difference| {diff:.2e}; {summary['seconds']:.0f} s")


if __name__ == "__main__":
    main()
