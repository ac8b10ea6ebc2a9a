"""Coverage and width of the K-class closed-form intervals, by simulation.

Issue 15's evidence for K-class verdicts (``judgestats.kclass``): over a grid of pairwise
(A / B / tie, K = 3) and rubric (scores 1-5, K = 5) judges, calibration sizes and test sizes,
the coverage of three 95% intervals for every class share and for the functionals analysts
report (K = 3: the win rate of A with ties counted half; K = 5: the mean score and the share of
the top two scores):

* ``adjusted`` -- the generalised Lang-Reiczigel interval, ``kclass_estimate``'s default
  (``interval="lang_reiczigel"``): add-z^2 test smoothing, 2/K pseudo-counts per calibration
  cell, the centre the unsmoothed matrix Rogan-Gladen estimate (at K >= 3) shifted by
  ``2 z^2 C~^T v~`` (``judgestats.kclass.matrix.adjusted_parts``);
* ``wald`` -- the delta-method interval at the raw matrix Rogan-Gladen estimate
  (``interval="wald"``);
* ``naive`` -- no correction: the judged shares p-hat with a multinomial Wald interval
  ``a.p-hat -/+ z sqrt(a'(diag p-hat - p-hat p-hat')a / n)``.

Every interval is truncated to the functional's range ``[min a, max a]``, as the package does.
The point estimates compared are the package's (the projected matrix Rogan-Gladen shares) and
the naive judged shares: mean error (bias) and root mean squared error per target.

Design (stratified calibration): each dataset draws ``confusion[i] ~ Mult(m, C[i])`` for every
true class i (m items per true class) and ``test ~ Mult(n, C^T pi)``. A cell fixes K, the judge
(``strong``: diagonal about 0.9; ``medium``: about 0.75; ``weak``: close to the column-dominance
limit, with structured errors -- for K = 3 a judge that over-calls ties, confuses ties with both
sides and favours position A; for K = 5 a lenient judge whose errors go to adjacent scores,
mostly upwards), the true shares (``balanced``, ``skewed``, ``rare``: one share 0.02), m in
{10, 30, 100} and n in {500, 5000, 100000}. Every dataset of a cell is evaluated at once with the
batched functions of ``judgestats.kclass.matrix`` -- the same functions ``kclass_estimate`` calls;
before the grid, :func:`self_check` recomputes random datasets with ``kclass_estimate`` itself
and the script exits with status 1 if any number differs by more than 1e-12.

A dataset on which ``kclass_estimate`` raises (C-hat or its Laplace-smoothed version not
column-dominant, singular or with det <= 0; the check of ``closed_form._check_data`` is
replicated per dataset, and :func:`self_check` confirms it agrees) has no corrected interval:
it is counted in ``undef`` and left out of the corrected methods' coverage (``coverage_all`` in
the JSON counts it as a miss). The naive interval always exists and is evaluated on every
dataset. Monte Carlo standard errors are binomial, ``sqrt(c (1 - c) / reps_defined)``.

With ``--posterior`` (needs ``judgestats.kclass.kclass_posterior``) a small block adds the coverage
of the posterior's 95% equal-tailed credible interval (importance-sampling engine) on a few
cells, 200 datasets each, with the two closed-form intervals' coverage recomputed on exactly
those datasets beside it.

    python benchmarks/kclass_coverage.py [--quick] [--reps 10000] [--k 3 5]
        [--judges strong medium weak] [--shares balanced skewed rare] [--m 10 30 100]
        [--n 500 5000 100000] [--workers 2] [--seed 20261124] [--check 20] [--posterior]
        [--posterior-reps 200] [--proposals 200000] [--recommended] [--recommended-reps 200]
        [--skip-grid] [--tag T]

With ``--recommended`` a block measures ``judgestats.kclass.kclass_recommended`` (closed form
where defined and m >= 10, else the posterior, else a guaranteed interval) on the cells of
:data:`RECOMMENDED_CELLS` (weak judges, 8-30 labels per class), counting every dataset: the share
that needed the fallback and the coverage over all datasets (target 0.945). ``--skip-grid`` runs
the added blocks only.

Prints a table and writes benchmarks/results/kclass_coverage.json (kclass_coverage_quick.json
with ``--quick``: 500 replications per cell; ``--tag T`` appends ``_T``).

The cells (design, datasets, batched closed form, evaluation) live in ``_kclass_cells.py``, the
printed tables and the JSON's summary in ``_kclass_report.py``; this script checks, runs, writes.
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
from _kclass_cells import (  # noqa: E402
    CLASSES,
    JUDGE_NAMES,
    LEVEL,
    POSTERIOR_CELLS,
    RECOMMENDED_CELLS,
    SHARE_NAMES,
    SHARES,
    SIZES,
    TARGET,
    M,
    N,
    batched_intervals,
    cell_index,
    defined_mask,
    evaluate_cell,
    evaluate_posterior_cell,
    evaluate_recommended_cell,
    judge_matrix,
    simulate,
    targets,
)
from _kclass_report import (  # noqa: E402
    print_posterior,
    print_recommended,
    print_summary,
    print_table,
    summarise,
)


# -- the check against the package --------------------------------------------------------------
def self_check(datasets: int, seed: int) -> float:
    """Max |batched - kclass_estimate| over random datasets of random cells (inf: disagreement).

    Compares the projected and raw shares and, for both corrected intervals, the low and high
    end of every target; and that ``kclass_estimate`` raises exactly on the datasets that
    :func:`defined_mask` rejects.
    """
    from judgestats import JudgeStatsWarning
    from judgestats.frequentist import z_quantile
    from judgestats.kclass import KClassData, kclass_estimate

    rng = np.random.default_rng(seed)
    z = z_quantile(LEVEL)
    worst = 0.0
    undefined_seen = 0
    for _ in range(datasets):
        size = int(rng.choice(SIZES))
        judge = str(rng.choice(JUDGE_NAMES))
        share, m, n = str(rng.choice(SHARE_NAMES)), int(rng.choice(M)), int(rng.choice(N))
        test, confusion = simulate(size, judge, share, m, n, 1, rng)
        ok = bool(defined_mask(test, confusion)[0])
        data = KClassData(CLASSES[size], test=test[0], confusion=confusion[0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JudgeStatsWarning)
            try:
                estimates = {
                    kind: kclass_estimate(data, confidence_level=LEVEL, interval=kind)
                    for kind in ("lang_reiczigel", "wald")
                }
            except ValueError:
                estimates = None
        if (estimates is not None) != ok:
            print(f"definedness differs on {data!r}: batched {ok}", file=sys.stderr)
            return math.inf
        if estimates is None:
            undefined_seen += 1
            continue
        ours = batched_intervals(test, confusion, z)
        est = estimates["lang_reiczigel"]
        diffs = [ours["shares"][0] - est.shares, ours["shares_raw"][0] - est.shares_raw]
        for method, kind in (("adjusted", "lang_reiczigel"), ("wald", "wald")):
            for t, a in enumerate(targets(size).values()):
                row = estimates[kind].functional(a)
                diffs.append(np.array([ours[f"{method}_low"][0, t] - row.low]))
                diffs.append(np.array([ours[f"{method}_high"][0, t] - row.high]))
                diffs.append(np.array([ours[f"{method}_point"][0, t] - row.estimate]))
        worst = max(worst, float(np.max(np.abs(np.concatenate(diffs)))))
    print(
        f"self-check: {datasets} random datasets ({undefined_seen} undefined, rejected by both); "
        f"max |batched - kclass_estimate| = {worst:.3g}",
        flush=True,
    )
    return worst


# -- the blocks -----------------------------------------------------------------------------------
def grid_cells(args: argparse.Namespace, reps: int) -> list[dict]:
    """The grid's cells the options select, each with its stream (none with ``--skip-grid``)."""
    cells = [
        {
            "size": k,
            "judge": j,
            "share": s,
            "m": m,
            "n": n,
            "reps": reps,
            "seed": args.seed,
            "index": cell_index(k, j, s, m, n),
        }
        for k in args.k
        for j in args.judges
        for s in args.shares
        for m in args.m
        for n in args.n
    ]
    return [] if args.skip_grid else cells


def run_grid(args: argparse.Namespace, reps: int) -> tuple[list[dict], dict, float]:
    """Evaluate the grid's cells; print the table and the summary.

    Returns the cells' results, their summary ({} without cells) and the seconds taken.
    """
    cells = grid_cells(args, reps)
    start = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(evaluate_cell, cells, chunksize=4))
    seconds = time.perf_counter() - start
    summary = summarise(results) if results else {}
    if results:
        print_table(results)
        print(
            f"\n{len(cells)} cells x {reps} datasets in {seconds:.0f} s on {args.workers} "
            f"workers; level {LEVEL}. undef% = datasets kclass_estimate rejects (left out of "
            "the corrected methods' coverage); proj% = defined datasets whose raw shares were "
            "projected; min share = the smallest coverage over the K class shares ± its Monte "
            "Carlo se; summaries = win rate of A, ties half (K = 3) / mean score, top-2 share "
            "(K = 5)."
        )
        print_summary(summary)
    return results, summary, seconds


def run_posterior(args: argparse.Namespace) -> tuple[list[dict] | None, float | None]:
    """With ``--posterior``: the posterior block's rows, printed, and its seconds (else None)."""
    if not args.posterior:
        return None, None
    try:
        from judgestats.kclass import kclass_posterior  # noqa: F401
    except ImportError:
        print("\nposterior block skipped: judgestats.kclass.kclass_posterior is not available")
        return None, None
    pcells = [
        {
            "spec": spec,
            "reps": args.posterior_reps,
            "seed": args.seed,
            "index": cell_index(*spec),
            "proposals": args.proposals,
        }
        for spec in POSTERIOR_CELLS
    ]
    pstart = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        posterior_rows = list(pool.map(evaluate_posterior_cell, pcells))
    posterior_seconds = time.perf_counter() - pstart
    print_posterior(posterior_rows)
    print(f"posterior block: {posterior_seconds:.0f} s")
    return posterior_rows, posterior_seconds


def run_recommended(args: argparse.Namespace) -> list[dict] | None:
    """With ``--recommended``: the recommended block's rows, printed (else None)."""
    if not args.recommended:
        return None
    rcells = [
        {
            "spec": spec,
            "reps": args.recommended_reps,
            "seed": args.seed,
            "index": 10_000 + i,
            "proposals": args.proposals,
        }
        for i, spec in enumerate(RECOMMENDED_CELLS)
    ]
    rstart = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        recommended_rows = list(pool.map(evaluate_recommended_cell, rcells))
    print_recommended(recommended_rows)
    print(f"recommended block: {time.perf_counter() - rstart:.0f} s")
    return recommended_rows


# -- main -----------------------------------------------------------------------------------------
def parse_args() -> argparse.Namespace:
    """The command line (the module docstring's synopsis)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="500 replications per cell")
    parser.add_argument("--reps", type=int, default=None, help="default 10000 (quick: 500)")
    parser.add_argument("--k", type=int, nargs="*", default=list(SIZES), choices=list(SIZES))
    parser.add_argument("--judges", nargs="*", default=list(JUDGE_NAMES), choices=JUDGE_NAMES)
    parser.add_argument("--shares", nargs="*", default=list(SHARE_NAMES), choices=SHARE_NAMES)
    parser.add_argument("--m", type=int, nargs="*", default=list(M), choices=list(M))
    parser.add_argument("--n", type=int, nargs="*", default=list(N), choices=list(N))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20261124)
    parser.add_argument("--check", type=int, default=20, help="datasets of the self-check")
    parser.add_argument("--posterior", action="store_true", help="add the posterior block")
    parser.add_argument("--posterior-reps", type=int, default=200)
    parser.add_argument("--proposals", type=int, default=200_000, help="posterior proposals")
    parser.add_argument("--tag", default="", help="suffix of the JSON file (a sub-grid's run)")
    parser.add_argument(
        "--recommended", action="store_true", help="add the kclass_recommended block"
    )
    parser.add_argument("--recommended-reps", type=int, default=200)
    parser.add_argument("--skip-grid", action="store_true", help="run only the added blocks")
    return parser.parse_args()


def main() -> int:
    """Self-check, the grid, the added blocks; write the JSON (status 1: the self-check failed)."""
    args = parse_args()
    reps = args.reps or (500 if args.quick else 10000)
    if self_check(args.check, args.seed) > 1e-12:
        print("self-check failed: the batched numbers are not kclass_estimate's", file=sys.stderr)
        return 1
    results, summary, seconds = run_grid(args, reps)
    posterior_rows, posterior_seconds = run_posterior(args)
    recommended_rows = run_recommended(args)
    path = write_results(
        "kclass_coverage" + ("_quick" if args.quick else "") + (f"_{args.tag}" if args.tag else ""),
        {
            "level": LEVEL,
            "target": TARGET,
            "reps": reps,
            "seed": args.seed,
            "seconds": seconds,
            "judges": {
                "3": {k: judge_matrix(3, k).tolist() for k in JUDGE_NAMES},
                "5": {k: judge_matrix(5, k).tolist() for k in JUDGE_NAMES},
            },
            "shares": {str(k): v for k, v in SHARES.items()},
            "summary": summary,
            "cells_detail": results,
            "posterior": posterior_rows,
            "posterior_seconds": posterior_seconds,
            "recommended": recommended_rows,
        },
    )
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
