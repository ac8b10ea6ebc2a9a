"""Coverage of the stratified closed form against the pooled correction, by simulation.

Issue 15's evidence for stratified calibration: over a grid of 2-6 strata whose judge quality
differs, the interval of ``judgestats.stratified.stratified_estimate`` (the overall row: the
strata's Lang-Reiczigel limits, with Agresti-Coull-adjusted calibration arms since issue 25,
combined by MOVER, the default; as ``stratified_summed``, the symmetric form, every stratum's
Lang-Reiczigel centre and variance summed with the test shares, from
``judgestats.stratified.closed_form.summed_interval``; and, as ``stratified_laplace``, MOVER
over the Laplace-adjusted limits, the default before issue 25) is compared with the pooled
binary correction (``judgestats.estimate`` on ``data.pooled()``: all counts summed, one
Rogan-Gladen estimate and Lang-Reiczigel interval), all at level 0.95. The target is the
overall accuracy ``theta = sum_s w_s theta_s`` with the realised test shares ``w_s = n_s / N``.

Every dataset is drawn stratum by stratum: ``k_s ~ Bin(n_s, theta_s q1_s + (1 - theta_s)(1 -
q0_s))``, ``k0_s ~ Bin(m, q0_s)``, ``k1_s ~ Bin(m, q1_s)``, with the same number ``m`` of
calibration items in each arm of each stratum (calibration drawn equally per stratum, as when a
fixed number of items per category is labelled), so that the calibration's mix of strata differs
from the test set's wherever the test shares are unequal. Each scenario fixes the test shares,
the true accuracies ``theta_s`` and the judge's ``(q0_s, q1_s)``; the grid crosses the scenarios
with ``m`` in {10, 30, 100} and the total test size ``N`` in {1000, 20000}.

Both intervals are the package's own, computed per dataset by the public functions (no
re-implementation). A dataset on which a method has no interval (the stratified estimate raises
``ValueError`` when some stratum's judge is no better than chance, J_s <= 0 raw or
Laplace-adjusted; the pooled correction when the summed judge is) is counted separately: the
table's coverage is over the datasets where the method answers, the fraction that do not is
reported beside it (``undef``), and ``coverage_all`` in the JSON counts them as misses. Monte
Carlo standard errors are binomial, ``sqrt(c (1 - c) / reps_defined)``, and ``std / sqrt(reps)``
for the mean width. The JSON also holds, per cell, the population bias of the pooled correction
(the limit of its estimate, computed here from the cell's parameters), the mean error of both
point estimates, the one-sided miss rates and the share of datasets that the package's
``pooled_biased`` diagnostic flags.

    python benchmarks/stratified_coverage.py [--quick] [--reps 10000] [--scenarios NAME ...]
        [--m 10 30 100] [--n 1000 20000] [--workers 2] [--seed 20250915] [--tag T]

Prints a table and writes benchmarks/results/stratified_coverage.json
(stratified_coverage_quick.json with ``--quick``: 200 replications per cell;
``--tag T`` appends ``_T`` to the name).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import write_results  # noqa: E402

LEVEL = 0.95
#: Issue 15's target: the stratified interval covers at least this often.
TARGET = 0.94
#: Issue 25's target for every cell, the weak-stratum cells (``weak_half_*``) included.
TARGET_25 = 0.945
M = (10, 30, 100)
N = (1000, 20000)

#: The scenarios: test shares, true accuracies and judge quality per stratum. Judges range from
#: weak (q0, q1) = (0.6, 0.65) to strong (0.95, 0.97). ``control`` has equal shares and one
#: judge quality (the pooled correction is unbiased there); the others have unequal shares and
#: unequal judges, so the equal-per-stratum calibration over-represents the small strata.
SCENARIOS: dict[str, dict[str, object]] = {
    "control": {
        "about": "3 strata, equal shares, one judge (0.85, 0.90) everywhere",
        "shares": (1 / 3, 1 / 3, 1 / 3),
        "theta": (0.3, 0.6, 0.9),
        "q0": (0.85, 0.85, 0.85),
        "q1": (0.90, 0.90, 0.90),
    },
    "mild": {
        "about": "2 strata 70/30, judges (0.90, 0.93) / (0.80, 0.85): a small pooled bias",
        "shares": (0.7, 0.3),
        "theta": (0.8, 0.5),
        "q0": (0.90, 0.80),
        "q1": (0.93, 0.85),
    },
    "two_weak_minor": {
        "about": "2 strata 80/20, strong judge on the large stratum, weak on the small",
        "shares": (0.8, 0.2),
        "theta": (0.9, 0.3),
        "q0": (0.95, 0.60),
        "q1": (0.97, 0.65),
    },
    "two_weak_major": {
        "about": "2 strata 80/20, weak judge on the large stratum, strong on the small",
        "shares": (0.8, 0.2),
        "theta": (0.3, 0.9),
        "q0": (0.60, 0.95),
        "q1": (0.65, 0.97),
    },
    "three": {
        "about": "3 strata 60/30/10, judges strong / medium / weak",
        "shares": (0.6, 0.3, 0.1),
        "theta": (0.9, 0.6, 0.3),
        "q0": (0.95, 0.80, 0.60),
        "q1": (0.97, 0.85, 0.65),
    },
    "three_weak_major": {
        "about": "3 strata 60/30/10, judges weak / medium / strong",
        "shares": (0.6, 0.3, 0.1),
        "theta": (0.9, 0.6, 0.3),
        "q0": (0.60, 0.80, 0.95),
        "q1": (0.65, 0.85, 0.97),
    },
    "six": {
        "about": "6 strata 35/25/15/12/8/5, judges from strong to weak as the share falls",
        "shares": (0.35, 0.25, 0.15, 0.12, 0.08, 0.05),
        "theta": (0.9, 0.8, 0.7, 0.6, 0.45, 0.3),
        "q0": (0.95, 0.90, 0.85, 0.75, 0.65, 0.60),
        "q1": (0.97, 0.93, 0.88, 0.80, 0.70, 0.65),
    },
    # issue 25 items 8 and 10: a weak stratum holding half the test items, its accuracy near 0
    # or 1 (its Lang-Reiczigel limits pass 0 or 1; cutting them before combining undercovered,
    # about 0.90; the uncut Laplace-adjusted limits 0.940-0.947, Agresti-Coull arms >= 0.95)
    "weak_half_near_0": {
        "about": "2 strata 50/50, weak judge (0.60, 0.65) on a stratum of accuracy 0.05",
        "shares": (0.5, 0.5),
        "theta": (0.05, 0.8),
        "q0": (0.60, 0.95),
        "q1": (0.65, 0.97),
    },
    "weak_half_near_1": {
        "about": "2 strata 50/50, weak judge (0.60, 0.65) on a stratum of accuracy 0.97",
        "shares": (0.5, 0.5),
        "theta": (0.97, 0.4),
        "q0": (0.60, 0.95),
        "q1": (0.65, 0.97),
    },
}


def apportion(shares: tuple[float, ...], total: int) -> np.ndarray:
    """Test sizes n_s summing to ``total``, proportional to ``shares`` (largest remainder)."""
    exact = np.asarray(shares, dtype=float) / float(np.sum(shares)) * total
    sizes = np.floor(exact).astype(np.int64)
    order = np.argsort(-(exact - sizes), kind="stable")
    sizes[order[: total - int(sizes.sum())]] += 1
    return sizes


def pooled_limit(w: np.ndarray, theta: np.ndarray, q0: np.ndarray, q1: np.ndarray) -> float:
    """The pooled correction's population value minus the true accuracy (equal calibration).

    With the same calibration size in every stratum, the pooled specificity and sensitivity
    converge to the plain means of q0_s and q1_s, and the pooled judged-correct rate to
    sum_s w_s (theta_s q1_s + (1 - theta_s)(1 - q0_s)); Rogan-Gladen of those, minus theta.
    """
    rate = float(np.sum(w * (theta * q1 + (1 - theta) * (1 - q0))))
    big_q0, big_q1 = float(np.mean(q0)), float(np.mean(q1))
    return (rate + big_q0 - 1) / (big_q0 + big_q1 - 1) - float(np.sum(w * theta))


def _method_summary(
    low: np.ndarray, high: np.ndarray, point: np.ndarray, theta: float
) -> dict[str, float | int | None]:
    """Coverage (over the datasets with an interval), its se, width and misses of one method."""
    reps = low.size
    defined = ~np.isnan(low)
    used = int(defined.sum())
    out: dict[str, float | int | None] = {
        "defined": used,
        "undefined_fraction": 1.0 - used / reps,
    }
    if used == 0:
        return {
            **out,
            **dict.fromkeys(
                (
                    "coverage",
                    "se",
                    "coverage_all",
                    "interval_below_theta",
                    "interval_above_theta",
                    "width",
                ),
                None,
            ),
            **dict.fromkeys(("width_se", "width_median", "mean_error"), None),
        }
    lo, hi, est = low[defined], high[defined], point[defined]
    covered = (lo <= theta) & (theta <= hi)
    coverage = float(covered.mean())
    width = hi - lo
    return {
        **out,
        "coverage": coverage,
        "se": math.sqrt(coverage * (1 - coverage) / used),
        "coverage_all": float(covered.sum() / reps),
        "interval_below_theta": float(np.mean(hi < theta)),
        "interval_above_theta": float(np.mean(lo > theta)),
        "width": float(width.mean()),
        "width_se": float(width.std(ddof=1) / math.sqrt(used)) if used > 1 else 0.0,
        "width_median": float(np.median(width)),
        "mean_error": float(np.mean(est - theta)),
    }


def laplace_mover(data, estimates: np.ndarray, z: float) -> tuple[float, float]:
    """MOVER over the strata's Laplace-adjusted Lang-Reiczigel limits (the default before issue 25).

    Each stratum's uncut limits ``c_s -/+ z se_s`` from the package's
    ``judgestats.frequentist.lang_reiczigel_parts`` (calibration arms (k + 1) / (m + 2)),
    combined by the package's ``mover_interval``: the "before" of issue 25 item 10 on the same
    datasets.
    """
    from judgestats.frequentist import lang_reiczigel_parts
    from judgestats.stratified.closed_form import mover_interval

    sizes = (data.n, data.m0, data.m1)
    n, m0, m1 = (x.astype(np.float64) for x in sizes)
    centre, se, _ = lang_reiczigel_parts(data.p, data.q0, data.q1, n, m0, m1, z, np.sqrt)
    ci = mover_interval(data.weights, estimates, centre - z * se, centre + z * se)
    return ci.low, ci.high


def evaluate_cell(cell: dict) -> dict:
    """Draw ``reps`` datasets of one cell and evaluate both intervals on each."""
    import judgestats
    from judgestats import JudgeStatsWarning
    from judgestats.frequentist import z_quantile
    from judgestats.stratified import StratifiedData, stratified_estimate
    from judgestats.stratified.closed_form import summed_interval

    start = time.perf_counter()
    spec = SCENARIOS[cell["scenario"]]
    theta_s = np.asarray(spec["theta"], dtype=float)
    q0, q1 = np.asarray(spec["q0"], dtype=float), np.asarray(spec["q1"], dtype=float)
    sizes = apportion(spec["shares"], cell["n"])
    w = sizes / sizes.sum()
    theta = float(np.sum(w * theta_s))
    reps, m, size = cell["reps"], cell["m"], theta_s.size
    names = tuple(f"s{i + 1}" for i in range(size))
    rng = np.random.default_rng(np.random.SeedSequence(cell["seed"], spawn_key=(cell["index"],)))
    rate = theta_s * q1 + (1 - theta_s) * (1 - q0)
    k = rng.binomial(sizes, rate, (reps, size))
    k0 = rng.binomial(m, q0, (reps, size))
    k1 = rng.binomial(m, q1, (reps, size))
    arm = np.full(size, m)
    strat = np.full((reps, 3), np.nan)  # low, high, point
    laplace = np.full((reps, 3), np.nan)
    summed = np.full((reps, 3), np.nan)
    z = z_quantile(LEVEL)
    pooled = np.full((reps, 3), np.nan)
    flagged = np.zeros(reps, dtype=bool)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        for r in range(reps):
            data = StratifiedData(strata=names, k=k[r], n=sizes, k0=k0[r], m0=arm, k1=k1[r], m1=arm)
            try:
                result = stratified_estimate(data, confidence_level=LEVEL)
            except ValueError:  # a stratum's judge is no better than chance: no estimate
                pass
            else:
                strat[r] = (result.ci.low, result.ci.high, result.theta)
                centre, se = summed_interval(data, z)
                rows = np.array([row.estimate for row in result.by_stratum])
                laplace[r] = (*laplace_mover(data, rows, z), result.theta)
                summed[r] = (
                    min(1.0, max(0.0, centre - z * se)),
                    min(1.0, max(0.0, centre + z * se)),
                    result.theta,
                )
                flagged[r] = result.diagnostic.flagged
            try:
                est = judgestats.estimate(data.pooled(), confidence_level=LEVEL)
            except ValueError:  # the summed judge is no better than chance
                continue
            pooled[r] = (est.ci.low, est.ci.high, est.theta_raw)
    defined = ~np.isnan(strat[:, 0])
    return {
        "scenario": cell["scenario"],
        "strata": size,
        "m": m,
        "n": int(cell["n"]),
        "n_s": sizes.tolist(),
        "weights": w.tolist(),
        "theta_s": theta_s.tolist(),
        "q0_s": q0.tolist(),
        "q1_s": q1.tolist(),
        "theta": theta,
        "pooled_population_bias": pooled_limit(w, theta_s, q0, q1),
        "reps": reps,
        "stratified": _method_summary(strat[:, 0], strat[:, 1], strat[:, 2], theta),
        "stratified_summed": _method_summary(summed[:, 0], summed[:, 1], summed[:, 2], theta),
        "stratified_laplace": _method_summary(laplace[:, 0], laplace[:, 1], laplace[:, 2], theta),
        "pooled": _method_summary(pooled[:, 0], pooled[:, 1], pooled[:, 2], theta),
        "pooled_biased_flag_rate": float(flagged[defined].mean()) if defined.any() else None,
        "seconds": time.perf_counter() - start,
    }


def _fmt(method: dict) -> str:
    """'coverage ± se  width  undef%' of one method, or dashes."""
    if method["coverage"] is None:
        return f"{'-':>15} {'-':>7} {100 * method['undefined_fraction']:6.1f}"
    return (
        f"{method['coverage']:7.3f} ± {method['se']:.3f} {method['width']:7.4f} "
        f"{100 * method['undefined_fraction']:6.1f}"
    )


def print_table(results: list[dict]) -> None:
    """One line per cell: both methods' coverage ± se, mean width and undefined share."""
    head = (
        f"{'scenario':<17}{'S':>2}{'m':>5}{'N':>7}{'bias':>8} | "
        f"{'stratified cov ± se':>19} {'width':>7} {'undef%':>6} | "
        f"{'summed cov ± se':>15} {'width':>7} | "
        f"{'laplace cov ± se':>15} {'width':>7} | "
        f"{'pooled cov ± se':>15} {'width':>7} {'undef%':>6} | {'flag':>5}"
    )
    print(head)
    print("-" * len(head))
    for r in results:
        flag = r["pooled_biased_flag_rate"]
        print(
            f"{r['scenario']:<17}{r['strata']:>2}{r['m']:>5}{r['n']:>7}"
            f"{r['pooled_population_bias']:+8.3f} |     {_fmt(r['stratified'])} | "
            f"{_fmt(r['stratified_summed'])[:-7]} | "
            f"{_fmt(r['stratified_laplace'])[:-7]} | "
            f"{_fmt(r['pooled'])} | {'-' if flag is None else f'{flag:5.2f}':>5}"
        )


def summarise(results: list[dict]) -> dict:
    """Where the target holds: stratified >= 0.94 in the cells where the pooled one is below."""

    def key(r: dict) -> str:
        return f"{r['scenario']} m={r['m']} N={r['n']}"

    strat_cov = {key(r): r["stratified"]["coverage"] for r in results}
    below = [
        {
            "cell": key(r),
            "coverage": r["stratified"]["coverage"],
            "se": r["stratified"]["se"],
            "undefined_fraction": r["stratified"]["undefined_fraction"],
        }
        for r in results
        if r["stratified"]["coverage"] is None or r["stratified"]["coverage"] < TARGET
    ]
    pooled_fails = [
        r for r in results if r["pooled"]["coverage"] is None or r["pooled"]["coverage"] < TARGET
    ]
    holds = [key(r) for r in pooled_fails if (strat_cov[key(r)] or 0.0) >= TARGET]
    values = [c for c in strat_cov.values() if c is not None]
    summed_cov = {key(r): r["stratified_summed"]["coverage"] for r in results}
    return {
        "cells": len(results),
        "stratified_min_coverage": min(values) if values else None,
        "stratified_cells_below_0.94": below,
        "pooled_cells_below_0.94": [key(r) for r in pooled_fails],
        "pooled_cells_below_0.5": [
            key(r) for r in results if (r["pooled"]["coverage"] or 0.0) < 0.5
        ],
        "summed_cells_below_0.94": [k for k, c in summed_cov.items() if c is None or c < TARGET],
        "summed_min_coverage": min(c for c in summed_cov.values() if c is not None),
        "target_holds_in": holds,
        "target_fails_in": [key(r) for r in pooled_fails if key(r) not in holds],
        "stratified_cells_below_0.945": [k for k, c in strat_cov.items() if (c or 0.0) < TARGET_25],
        "weak_half_cells": {k: c for k, c in strat_cov.items() if k.startswith("weak_half")},
        "stratified_max_undefined_fraction": max(
            r["stratified"]["undefined_fraction"] for r in results
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 replications per cell")
    parser.add_argument("--reps", type=int, default=None, help="default 10000 (quick: 200)")
    parser.add_argument("--scenarios", nargs="*", default=list(SCENARIOS), choices=list(SCENARIOS))
    parser.add_argument("--m", type=int, nargs="*", default=list(M), choices=list(M))
    parser.add_argument("--n", type=int, nargs="*", default=list(N), choices=list(N))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20250915)
    parser.add_argument("--tag", default="", help="suffix of the JSON file (a sub-grid's run)")
    args = parser.parse_args()
    reps = args.reps or (200 if args.quick else 10000)
    names = list(SCENARIOS)
    # a cell's random stream depends on its place in the full grid only, so a sub-grid run
    # draws the same datasets as the full run
    cells = [
        {
            "scenario": s,
            "m": m,
            "n": n,
            "reps": reps,
            "seed": args.seed,
            "index": int(
                np.ravel_multi_index(
                    (names.index(s), M.index(m), N.index(n)), (len(names), len(M), len(N))
                )
            ),
        }
        for s in args.scenarios
        for m in args.m
        for n in args.n
    ]
    start = time.perf_counter()
    results = []
    with ProcessPoolExecutor(args.workers) as pool:
        for result in pool.map(evaluate_cell, cells):
            results.append(result)
            print(
                f"{len(results)}/{len(cells)} {time.perf_counter() - start:.0f} s "
                f"{result['scenario']} m={result['m']} N={result['n']}",
                file=sys.stderr,
                flush=True,
            )
    seconds = time.perf_counter() - start
    summary = summarise(results)
    print_table(results)
    print(
        f"\n{len(cells)} cells x {reps} replications in {seconds:.0f} s; level {LEVEL}; "
        f"bias = the pooled correction's population bias; undef% = datasets without an "
        f"interval (excluded from the coverage); flag = share of the stratified datasets "
        f"that the pooled_biased diagnostic flags"
    )
    print(f"stratified coverage below {TARGET}:")
    for row in summary["stratified_cells_below_0.94"]:
        print(f"  {row}")
    below_25 = summary["stratified_cells_below_0.945"]
    print(f"stratified coverage below {TARGET_25} (issue 25): {below_25}")
    print(
        f"target holds in {len(summary['target_holds_in'])} of the "
        f"{len(summary['pooled_cells_below_0.94'])} cells where the pooled coverage < {TARGET}"
    )
    path = write_results(
        "stratified_coverage"
        + ("_quick" if args.quick else "")
        + (f"_{args.tag}" if args.tag else ""),
        {
            "level": LEVEL,
            "target": TARGET,
            "reps": reps,
            "seed": args.seed,
            "seconds": seconds,
            "scenarios": SCENARIOS,
            "summary": summary,
            "cells_detail": results,
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
