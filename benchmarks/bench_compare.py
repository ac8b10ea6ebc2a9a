"""Model comparison under shared vs model-specific calibration.

Reproduces the Sec. 5 study of "Bias and Uncertainty in LLM-as-a-Judge Estimation" (the follow-up
on bias and uncertainty).

The true gap theta_A - theta_B is fixed; the judge has q0 = q1 = (1 + J_X) / 2 for model X, with
J_A = J + dJ / 2 and J_B = J - dJ / 2 (model A easier to judge). Two sweeps: J with dJ fixed, and
dJ with J fixed (negative dJ: model B easier to judge, which pushes the shared-calibration bias
against the true gap and can flip its sign). Each replicate draws n paired test items (true
correctness of the two answers from fixed cell probabilities, verdicts independent given the
truth) and an m0 = m1 = m calibration set per model, then runs judgestats.compare with every
method. Reported per method: coverage of the true gap, mean interval width, bias, and the rate
of confident wrong signs (the interval excludes zero on the wrong side).

    python benchmarks/bench_compare.py                 # 400 replicates per scenario, no bayes
    python benchmarks/bench_compare.py --reps 100 --bayes-reps 10    # add the hierarchical model
    python benchmarks/bench_compare.py --timing        # seconds per compare(method="bayes") fit

Writes benchmarks/results/compare.json.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from _env import write_results

import judgestats as jc

#: True-correctness cells (both correct, A only, B only, neither): theta_A = 0.75, theta_B = 0.70.
TRUTH = np.array([0.62, 0.13, 0.08, 0.17])
GAP = (TRUTH[0] + TRUTH[1]) - (TRUTH[0] + TRUTH[2])
METHODS = {
    "naive (paired Wald on p)": None,
    "RG shared, delta": {"calibration": "shared", "method": "delta"},
    "RG model-specific, delta": {"calibration": "model_specific", "method": "delta"},
    "RG model-specific, bootstrap BCa": {
        "calibration": "model_specific",
        "method": "bootstrap",
        "bootstrap": {"n_resamples": 1000},
    },
    "hierarchical posterior": {
        "calibration": "model_specific",
        "method": "bayes",
        "bayes": {"draws": 500, "tune": 500, "chains": 2},
    },
}


def simulate(rng: np.random.Generator, n: int, m: int, j_a: float, j_b: float):
    """One replicate: paired ModelLabels of A and B with their own calibration sets."""
    truth = rng.choice(4, size=n, p=TRUTH)
    correct_a, correct_b = truth <= 1, (truth == 0) | (truth == 2)
    models = []
    for correct, j in ((correct_a, j_a), (correct_b, j_b)):
        q = (1 + j) / 2
        verdict = np.where(rng.random(n) < q, correct, ~correct).astype(int)
        k0, k1 = rng.binomial(m, q), rng.binomial(m, q)
        human = np.repeat([0, 1], m)
        judge = np.concatenate([np.repeat([0, 1], [k0, m - k0]), np.repeat([1, 0], [k1, m - k1])])
        models.append(jc.ModelLabels(verdict, human, judge))
    return models


def naive(a: jc.ModelLabels, b: jc.ModelLabels) -> tuple[float, float, float]:
    diff = a.test_judge - b.test_judge
    half = 1.959964 * diff.std() / np.sqrt(diff.size)
    return diff.mean(), diff.mean() - half, diff.mean() + half


def run_scenario(j: float, dj: float, args: argparse.Namespace, seed: int) -> dict[str, dict]:
    rng = np.random.default_rng(seed)
    rows: dict[str, list[tuple[float, float, float]]] = {name: [] for name in METHODS}
    failures = dict.fromkeys(METHODS, 0)
    seconds = dict.fromkeys(METHODS, 0.0)
    for rep in range(args.reps):
        a, b = simulate(rng, args.n, args.m, j + dj / 2, j - dj / 2)
        for name, options in METHODS.items():
            if options is None:
                rows[name].append(naive(a, b))
                continue
            if options["method"] == "bayes" and rep >= args.bayes_reps:
                continue
            start = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    r = jc.compare(a, b, random_seed=rng, **options)
                rows[name].append((r.estimate, *r.ci))
            except ValueError:  # a calibration draw with J <= 0: no correction exists
                failures[name] += 1
            seconds[name] += time.perf_counter() - start
    out = {}
    for name, values in rows.items():
        if not values:
            continue
        est, low, high = np.array(values).T
        wrong = (high < 0) if GAP > 0 else (low > 0)
        covered = (low <= GAP) & (GAP <= high)
        out[name] = {
            "reps": len(values),
            "failures": failures[name],
            "coverage": float(np.mean(covered)),
            "coverage_mcse": float(np.std(covered) / np.sqrt(len(values))),
            "seconds_per_fit": seconds[name] / (len(values) + failures[name]),
            "width": float(np.mean(high - low)),
            "bias": float(np.mean(est) - GAP),
            "wrong_sign": float(np.mean(wrong)),
        }
    return out


def _counts(a, b) -> dict:
    """The keyword arguments of build_compare_model for a pair (paired labels or counts)."""
    if isinstance(a, jc.ModelLabels):
        ya, yb = a.test_judge, b.test_judge
        both = int(np.sum(ya & yb))
        cells = (
            both,
            int(ya.sum()) - both,
            int(yb.sum()) - both,
            int(ya.size - ya.sum() - yb.sum() + both),
        )
        return {
            "cells": cells,
            "test": (int(ya.sum()), ya.size, int(yb.sum()), yb.size),
            "calib_a": a.calibration_counts(),
            "calib_b": b.calibration_counts(),
        }
    return {
        "cells": None,
        "test": (a.k, a.n, b.k, b.n),
        "calib_a": (a.k0, a.m0, a.k1, a.m1),
        "calib_b": (b.k0, b.m0, b.k1, b.m1),
    }


def rebuild_and_sample(a, b, seed: int) -> None:
    """Baseline: build the comparison model afresh and run pm.sample (compiles every time)."""
    import logging

    import pymc as pm

    from judgestats.bayes.compare_model import build_compare_model

    options = METHODS["hierarchical posterior"]["bayes"]
    logging.getLogger("pymc").setLevel(logging.ERROR)
    with build_compare_model(**_counts(a, b)):
        pm.sample(
            draws=options["draws"],
            tune=options["tune"],
            chains=options["chains"],
            cores=1,
            random_seed=seed,
            target_accept=0.9,
            progressbar=False,
            compute_convergence_checks=False,
        )


def timing(fits: int = 4, baseline_fits: int = 2) -> None:
    """Time compare(method="bayes"): the first (cold) fit and warm refits on new counts.

    Same settings as the benchmark's hierarchical posterior (2 chains x 500 draws, 500 tune);
    paired and unpaired designs, each refit on a freshly simulated replicate. Baseline, in the
    same run: building the model afresh and calling pm.sample for every fit (what
    compare(method="bayes") did before the compiled model was cached).
    """
    rng = np.random.default_rng(0)
    options = METHODS["hierarchical posterior"]
    rows = {}
    for design in ("paired", "unpaired"):
        seconds, baseline = [], []
        for fit in range(1 + fits + baseline_fits):
            a, b = simulate(rng, 1000, 100, 0.55, 0.45)
            if design == "unpaired":
                a, b = (
                    jc.JudgeData.from_labels(x.test_judge, x.calib_human, x.calib_judge)
                    for x in (a, b)
                )
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if fit <= fits:
                    jc.compare(a, b, random_seed=rng, **options)
                else:
                    rebuild_and_sample(a, b, seed=fit)
            (seconds if fit <= fits else baseline).append(time.perf_counter() - start)
        warm, rebuilt = float(np.median(seconds[1:])), float(np.median(baseline))
        rows[design] = {
            "cold_s": seconds[0],
            "warm_median_s": warm,
            "warm_s": seconds[1:],
            "rebuild_median_s": rebuilt,
            "rebuild_s": baseline,
            "speedup": rebuilt / warm,
        }
        print(
            f"{design:<9} first fit {seconds[0]:6.2f} s; warm refits (median of {fits}) "
            f"{warm:6.2f} s; rebuild + pm.sample (median of {baseline_fits}) {rebuilt:6.2f} s;"
            f" ratio {rebuilt / warm:4.1f}x"
        )
    path = write_results("compare_timing", {"fits": fits, "settings": options, "rows": rows})
    print(f"wrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--bayes-reps", type=int, default=0)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--m", type=int, default=100)
    parser.add_argument(
        "--timing",
        action="store_true",
        help="only time compare(method='bayes'): first fit and warm refits",
    )
    args = parser.parse_args()
    if args.timing:
        timing()
        return
    sweeps = {
        "J (dJ = 0.1)": [(j, 0.1) for j in (0.8, 0.6, 0.4, 0.25)],
        "dJ (J = 0.5)": [(0.5, dj) for dj in (-0.3, -0.15, 0.0, 0.1, 0.2, 0.3)],
    }
    start = time.perf_counter()
    results = []
    print(
        f"true gap theta_A - theta_B = {GAP:.3f}; n = {args.n} paired items, m0 = m1 = "
        f"{args.m} per model; {args.reps} replicates ({args.bayes_reps} for bayes)"
    )
    print(
        f"{'sweep':<14}{'J':>6}{'dJ':>6}  {'method':<34}{'reps':>5}{'cover':>7}{'width':>8}"
        f"{'bias':>8}{'wrong':>7}{'s/fit':>7}"
    )
    for seed, (sweep, scenario) in enumerate((s, sc) for s, grid in sweeps.items() for sc in grid):
        j, dj = scenario
        for name, row in run_scenario(j, dj, args, seed).items():
            results.append({"sweep": sweep, "J": j, "dJ": dj, "method": name, **row})
            print(
                f"{sweep:<14}{j:6.2f}{dj:6.2f}  {name:<34}{row['reps']:5d}{row['coverage']:7.3f}"
                f"{row['width']:8.3f}{row['bias']:+8.3f}{row['wrong_sign']:7.3f}"
                f"{row['seconds_per_fit']:7.3f}"
            )
    elapsed = time.perf_counter() - start
    path = write_results(
        "compare",
        {
            "gap": GAP,
            "n": args.n,
            "m": args.m,
            "reps": args.reps,
            "bayes_reps": args.bayes_reps,
            "seconds": elapsed,
            "rows": results,
        },
    )
    print(f"{elapsed:.1f} s; wrote {path}")


if __name__ == "__main__":
    main()
