"""Calibration planning (judgestats.planning): the figures of the planning issue, in one run.

1. Lee et al. v1 Fig. 4c: mean Lang-Reiczigel width (eqs. 5-7) under Algorithm 1's adaptive split
   (pilot of 10 per arm) and under the equal split m0 = m1 = 250, for theta = 0, 0.05, ..., 1,
   n = 1000, m = 500, q0 = 0.7, q1 = 0.9, ``--reps`` replications (default 10,000), seed 2026, by
   ``judgestats.simulate.coverage``. The same datasets are redrawn with ``simulate_counts`` (same
   seed, same per-cell streams) to get the paired Monte Carlo standard error of the difference
   (both designs draw the same test count k, then their own calibration counts). Beside them,
   without Monte Carlo error: the equal split summed exactly over the data space
   (``coverage(exact=True)``) and the expected widths ``optimal_allocation`` gives at the true p
   for the optimum, Algorithm 1 with the exact kappa, and Algorithm 1 with a 10-item pilot's
   Laplace smoothing (its kappa is 2, not 3).
2. ``optimal_allocation`` savings against the equal split and Algorithm 1 (exact kappa, and a
   10-item pilot) over a grid of theta x (q0, q1) x m at n = 1000, p from Lee et al. (ICML 2026)
   eq. (9).
3. ``required_calibration`` for the README example (width 0.1, p = 0.3, q0 = 0.7, q1 = 0.9) under
   each allocation rule and each method (frequentist and plugin with n = inf and n = 10,000;
   bayes with n = 10,000), with wall times.

``--quick`` (under a minute): 1,000 replications, no exact sums, and the Bayesian planner asked
for width 0.2 at n = 1000 (the exact posterior's cost grows with n).

    python benchmarks/bench_planning.py [--quick]

Prints tables and writes benchmarks/results/planning.json (planning_quick.json with --quick).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import write_results  # noqa: E402

from judgestats import JudgeStatsWarning  # noqa: E402
from judgestats.frequentist import lang_reiczigel_ci  # noqa: E402
from judgestats.planning import optimal_allocation, required_calibration  # noqa: E402
from judgestats.simulate import coverage, simulate_counts  # noqa: E402

THETA = np.round(np.linspace(0, 1, 21), 10)
FIG4 = dict(theta=THETA, q0=0.7, q1=0.9, n=1000, m0=250, m1=250)
M_PILOT = 10
SEED = 2026
GRID_THETA = (0.1, 0.3, 0.5, 0.7, 0.9)
GRID_Q = ((0.7, 0.9), (0.9, 0.7), (0.8, 0.8), (0.95, 0.85))
GRID_M = (100, 500)
RULES = ("equal", "algorithm1", "optimal")


def timed(func):
    start = time.perf_counter()
    value = func()
    return time.perf_counter() - start, value


def quiet(func, *args, **kwargs):
    """Call ``func`` with JudgeStatsWarning silenced (flags are recorded from the result)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        return func(*args, **kwargs)


# ---------------------------------------------------------------------------------------------
# 1. Fig. 4c
# ---------------------------------------------------------------------------------------------
def replication_widths(reps: int, allocation: str) -> np.ndarray:
    """Per-replication Lang-Reiczigel widths (theta x rep) of the datasets coverage() draws."""
    ds = simulate_counts(
        **FIG4, reps=reps, allocation=allocation, m_pilot=M_PILOT, random_seed=SEED
    )
    low, high = quiet(
        lang_reiczigel_ci,
        ds.k.values / 1000,
        ds.k0.values / ds.m0_drawn.values,
        ds.k1.values / ds.m1_drawn.values,
        1000,
        ds.m0_drawn.values,
        ds.m1_drawn.values,
    )
    return np.asarray(high) - np.asarray(low)


def planned_widths() -> dict[str, list[float]]:
    """Expected widths (no Monte Carlo) of each rule's split at the true p of every theta."""
    out: dict[str, list[float]] = {
        key: []
        for key in (
            "optimal",
            "optimal_m0",
            "algorithm1_exact_kappa",
            "algorithm1_pilot10",
            "algorithm1_pilot10_m0",
            "equal",
        )
    }
    for theta in THETA:
        p = theta * 0.9 + (1 - theta) * 0.3  # Lee et al. (ICML 2026) eq. (9)
        exact = quiet(optimal_allocation, 500, p, 0.7, 0.9, n=1000)
        pilot = quiet(optimal_allocation, 500, p, 0.7, 0.9, n=1000, m_pilot=M_PILOT)
        out["optimal"].append(exact.width)
        out["optimal_m0"].append(exact.m0)
        out["equal"].append(exact.alternative("equal").width)
        out["algorithm1_exact_kappa"].append(exact.alternative("algorithm1").width)
        out["algorithm1_pilot10"].append(pilot.alternative("algorithm1").width)
        out["algorithm1_pilot10_m0"].append(pilot.alternative("algorithm1").m0)
    return out


def figure_4c(reps: int, exact_sums: bool = True) -> dict[str, object]:
    """Fig. 4c by simulation, with the paired s.e. and the planner's Monte-Carlo-free widths."""
    seconds, (equal, adaptive) = timed(
        lambda: [
            coverage(
                "lang_reiczigel",
                **FIG4,
                reps=reps,
                allocation=allocation,
                m_pilot=M_PILOT,
                random_seed=SEED,
                progress=False,
            ).width_mean.values
            for allocation in ("fixed", "adaptive")
        ]
    )
    w_equal, w_adaptive = replication_widths(reps, "fixed"), replication_widths(reps, "adaptive")
    agree = max(
        np.nanmax(np.abs(np.nanmean(w_equal, 1) - equal)),
        np.nanmax(np.abs(np.nanmean(w_adaptive, 1) - adaptive)),
    )
    diff = w_adaptive - w_equal
    se = np.nanstd(diff, axis=1, ddof=1) / np.sqrt(np.sum(~np.isnan(diff), axis=1))
    exact_s, exact = 0.0, np.full(THETA.size, np.nan)  # --quick leaves the exact sums out
    if exact_sums:
        exact_s, exact = timed(
            lambda: coverage("lang_reiczigel", **FIG4, exact=True, progress=False).width_mean.values
        )
    planned_s, planned = timed(planned_widths)
    print(
        f"\n1. Lee et al. v1 Fig. 4c: mean Lang-Reiczigel width, n = 1000, m = 500, q0 = 0.7, "
        f"q1 = 0.9, {reps} reps, seed {SEED}"
    )
    print(
        f"{'theta':>6}{'equal':>9}{'Alg. 1':>9}{'diff':>9}{'se':>8}{'| exact':>9}{'optimum':>9}"
        f"{'opt m0':>7}{'A1 k=3':>9}{'A1 pilot':>9}{'A1 m0':>7}"
    )
    for i, theta in enumerate(THETA):
        print(
            f"{theta:6.2f}{equal[i]:9.4f}{adaptive[i]:9.4f}{adaptive[i] - equal[i]:+9.4f}"
            f"{se[i]:8.4f}{exact[i]:9.4f}{planned['optimal'][i]:9.4f}"
            f"{planned['optimal_m0'][i]:7d}{planned['algorithm1_exact_kappa'][i]:9.4f}"
            f"{planned['algorithm1_pilot10'][i]:9.4f}{planned['algorithm1_pilot10_m0'][i]:7d}"
        )
    print(
        "exact: equal split summed over the data space; optimum, A1 k=3 (Algorithm 1 with the "
        "true q's), A1 pilot (with a 10-item pilot's smoothing at the expected counts, kappa 2): "
        "expected widths from judgestats.planning at the true p"
    )
    longer = [float(t) for t, d in zip(THETA, adaptive - equal, strict=True) if d > 0]
    print(
        f"Algorithm 1 longer than the equal split at theta = {longer} "
        f"(by {np.max(adaptive - equal):+.4f} at most); simulation {seconds:.1f} s, exact sums "
        f"{exact_s:.1f} s, planner {planned_s:.1f} s; coverage() and the redrawn datasets "
        f"agree to {agree:.1e}"
    )
    return {
        "theta": THETA.tolist(),
        "reps": reps,
        "seed": SEED,
        "m_pilot": M_PILOT,
        "width_equal": equal.tolist(),
        "width_adaptive": adaptive.tolist(),
        "difference": (adaptive - equal).tolist(),
        "difference_se": se.tolist(),
        "theta_where_algorithm1_longer": longer,
        "width_equal_exact": exact.tolist() if exact_sums else None,
        "planned": planned,
        "seconds": {"simulation": seconds, "exact": exact_s, "planner": planned_s},
    }


# ---------------------------------------------------------------------------------------------
# 2. savings of the optimum
# ---------------------------------------------------------------------------------------------
def savings_grid() -> list[dict[str, object]]:
    """Savings over theta x (q0, q1) x m; p = theta q1 + (1 - theta)(1 - q0) (ICML 2026 eq. 9)."""
    rows = []
    print(
        "\n2. optimal_allocation, n = 1000: % shorter than the equal split and Algorithm 1 "
        "(exact kappa / 10-item pilot)"
    )
    print(
        f"{'theta':>6}{'p':>7}{'q0':>6}{'q1':>6}{'m':>5}{'m0*':>6}{'m1*':>6}{'width':>9}"
        f"{'vs equal':>10}{'vs A1':>8}{'vs A1 p10':>11}"
    )
    for m in GRID_M:
        for q0, q1 in GRID_Q:
            for theta in GRID_THETA:
                p = round(theta * q1 + (1 - theta) * (1 - q0), 12)
                exact = quiet(optimal_allocation, m, p, q0, q1, n=1000)
                pilot = quiet(optimal_allocation, m, p, q0, q1, n=1000, m_pilot=M_PILOT)
                row = {
                    "theta": theta,
                    "p": p,
                    "q0": q0,
                    "q1": q1,
                    "m": m,
                    "m0": exact.m0,
                    "m1": exact.m1,
                    "width": exact.width,
                    "vs_equal": exact.savings["equal"],
                    "vs_algorithm1": exact.savings["algorithm1"],
                    "vs_algorithm1_pilot10": pilot.savings["algorithm1"],
                }
                rows.append(row)
                print(
                    f"{theta:6.2f}{p:7.3f}{q0:6.2f}{q1:6.2f}{m:5d}{exact.m0:6d}{exact.m1:6d}"
                    f"{exact.width:9.4f}{100 * row['vs_equal']:9.1f}%"
                    f"{100 * row['vs_algorithm1']:7.1f}%"
                    f"{100 * row['vs_algorithm1_pilot10']:10.1f}%"
                )
    for key in ("vs_equal", "vs_algorithm1", "vs_algorithm1_pilot10"):
        values = np.array([row[key] for row in rows])
        print(
            f"  {key}: median {100 * np.median(values):.1f}%, max {100 * values.max():.1f}%, "
            f"min {100 * values.min():.2f}%"
        )
    return rows


# ---------------------------------------------------------------------------------------------
# 3. required budget
# ---------------------------------------------------------------------------------------------
def budgets(bayes_width: float, bayes_n: int) -> list[dict[str, object]]:
    cases = [(0.1, n, method) for n in (math.inf, 10_000) for method in ("frequentist", "plugin")]
    cases.append((bayes_width, bayes_n, "bayes"))
    rows = []
    print("\n3. required_calibration, p = 0.3, q0 = 0.7, q1 = 0.9")
    print(
        f"{'width':>6}{'n':>7}{'method':>13}{'rule':>12}{'m0':>6}{'m1':>6}{'total':>7}"
        f"{'E[width]':>10}{'seconds':>9}  flags"
    )
    for width, n, method in cases:
        for rule in RULES:
            seconds, plan = timed(
                partial(
                    quiet,
                    required_calibration,
                    width,
                    0.3,
                    0.7,
                    0.9,
                    n=n,
                    allocation=rule,
                    method=method,
                )
            )
            rows.append(
                {
                    "target": width,
                    "n": None if math.isinf(n) else n,
                    "method": method,
                    "rule": rule,
                    "m0": plan.m0,
                    "m1": plan.m1,
                    "total": plan.total,
                    "width": plan.width,
                    "seconds": seconds,
                    "flags": list(plan.flags),
                    "trace": [list(pair) for pair in plan.trace],
                }
            )
            n_text = "inf" if math.isinf(n) else str(n)
            print(
                f"{width:6.2f}{n_text:>7}{method:>13}{rule:>12}{plan.m0:6d}{plan.m1:6d}"
                f"{plan.total:7d}{plan.width:10.4f}{seconds:9.2f}  {','.join(plan.flags)}"
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="1,000 replications, no exact sums, "
        "Bayesian planner for width 0.2 at n = 1000 (under a minute)",
    )
    parser.add_argument("--reps", type=int, default=None, help="Monte Carlo replications")
    args = parser.parse_args()
    reps = args.reps or (1000 if args.quick else 10_000)
    bayes = (0.2, 1000) if args.quick else (0.1, 10_000)
    sections = {
        "figure_4c": lambda: figure_4c(reps, not args.quick),
        "savings": savings_grid,
        "required_calibration": lambda: budgets(*bayes),
    }
    payload: dict[str, object] = {}
    seconds: dict[str, float] = {}
    for name, section in sections.items():
        seconds[name], payload[name] = timed(section)
    print(
        "\nwall seconds: "
        + ", ".join(f"{k} {v:.0f}" for k, v in seconds.items())
        + f"; total {sum(seconds.values()):.0f}"
    )
    payload["section_seconds"] = seconds
    path = write_results("planning" + ("_quick" if args.quick else ""), payload)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
