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
#: Coverage below this counts as falling short (two Monte Carlo se under 0.95 at 10,000 reps).
TARGET = 0.94
SIZES = (3, 5)
JUDGE_NAMES = ("strong", "medium", "weak")
SHARE_NAMES = ("balanced", "skewed", "rare")
M = (10, 30, 100)
N = (500, 5000, 100000)
METHODS = ("adjusted", "wald", "naive")
#: The singular-matrix threshold of kclass_estimate (closed_form.SINGULAR_CONDITION).
SINGULAR_CONDITION = 1e10

CLASSES = {3: ("A", "B", "tie"), 5: (1, 2, 3, 4, 5)}

#: Confusion matrices, rows = true class. K = 3 (A, B, tie): the judge favours position A and
#: confuses ties with both sides; ``weak`` over-calls ties (a third of the decisive items are
#: judged tie) and sits near the dominance limit (tie column: 0.50 against 0.36 and 0.38).
JUDGES_3 = {
    "strong": ((0.92, 0.03, 0.05), (0.05, 0.88, 0.07), (0.06, 0.04, 0.90)),
    "medium": ((0.80, 0.06, 0.14), (0.10, 0.72, 0.18), (0.15, 0.10, 0.75)),
    "weak": ((0.58, 0.06, 0.36), (0.12, 0.50, 0.38), (0.28, 0.22, 0.50)),
}


def banded(offsets: dict[int, float], size: int = 5) -> np.ndarray:
    """A rubric judge: row i puts ``offsets[d]`` on score i + d, folding overflow onto the ends."""
    out = np.zeros((size, size))
    for i in range(size):
        for d, rate in offsets.items():
            out[i, min(size - 1, max(0, i + d))] += rate
    return out


#: K = 5 (scores 1-5): errors go to adjacent scores, more often upwards (a lenient judge);
#: ``weak``: diagonal 0.46 against 0.34 one score below in every column.
JUDGES_5 = {
    "strong": banded({-1: 0.03, 0: 0.90, 1: 0.06, 2: 0.01}),
    "medium": banded({-2: 0.02, -1: 0.08, 0: 0.75, 1: 0.12, 2: 0.03}),
    "weak": banded({-1: 0.12, 0: 0.46, 1: 0.34, 2: 0.08}),
}

SHARES = {
    3: {
        "balanced": (1 / 3, 1 / 3, 1 / 3),
        "skewed": (0.55, 0.30, 0.15),
        "rare": (0.50, 0.48, 0.02),  # ties almost never deserved
    },
    5: {
        "balanced": (0.2, 0.2, 0.2, 0.2, 0.2),
        "skewed": (0.05, 0.10, 0.20, 0.35, 0.30),
        "rare": (0.02, 0.08, 0.25, 0.35, 0.30),  # score 1 almost never deserved
    },
}


def judge_matrix(size: int, judge: str) -> np.ndarray:
    """The true confusion matrix of a judge (rows = true class)."""
    return np.asarray(JUDGES_3[judge] if size == 3 else JUDGES_5[judge], dtype=float)


def targets(size: int) -> dict[str, np.ndarray]:
    """The functionals a^T pi whose intervals are scored: every share, then the summaries."""
    eye = np.eye(size)
    out = {f"share_{c}": eye[i] for i, c in enumerate(CLASSES[size])}
    if size == 3:
        out["win_A"] = np.array([1.0, 0.0, 0.5])  # ties count half
    else:
        out["mean_score"] = np.arange(1.0, 6.0)
        out["top2"] = np.array([0.0, 0.0, 0.0, 1.0, 1.0])
    return out


# -- the batched closed form ---------------------------------------------------------------------
def _dominant(rates: np.ndarray) -> np.ndarray:
    """Per matrix: no off-diagonal entry reaches its column's diagonal (dominance_violation)."""
    size = rates.shape[-1]
    diagonal = np.diagonal(rates, axis1=-2, axis2=-1)[..., None, :]
    offending = (rates >= diagonal) & ~np.eye(size, dtype=bool)
    return ~offending.any(axis=(-2, -1))


def defined_mask(test: np.ndarray, confusion: np.ndarray) -> np.ndarray:
    """Which datasets ``kclass_estimate`` accepts (closed_form._check_data, per dataset)."""
    size = test.shape[-1]
    m = confusion.sum(axis=-1)
    ok = (m > 0).all(axis=-1)
    safe_m = np.where(m > 0, m, 1)
    raw = confusion / safe_m[..., :, None]
    smoothed = (confusion + 2.0 / size) / (m + 2.0)[..., :, None]
    for rates in (raw, smoothed):
        with np.errstate(invalid="ignore", divide="ignore"):
            cond = np.linalg.cond(rates)
        ok &= _dominant(rates) & (cond < SINGULAR_CONDITION) & (np.linalg.det(rates) > 0.0)
    return ok


def _truncated(
    middle: np.ndarray, variance: np.ndarray, a: np.ndarray, z: float
) -> tuple[np.ndarray, np.ndarray]:
    """``middle -/+ z sqrt(max(0, variance))`` truncated to [min a, max a] (closed_form)."""
    se = np.sqrt(np.maximum(0.0, variance))
    lo_end, hi_end = float(a.min()), float(a.max())
    return (
        np.minimum(hi_end, np.maximum(lo_end, middle - z * se)),
        np.minimum(hi_end, np.maximum(lo_end, middle + z * se)),
    )


def batched_intervals(test: np.ndarray, confusion: np.ndarray, z: float) -> dict[str, np.ndarray]:
    """Point estimates and every method's interval for every target, over stacked datasets.

    Returns ``shares`` (projected), ``shares_raw`` and, per method, ``low`` / ``high`` arrays of
    shape (datasets, targets) plus ``point`` (the method's point estimate of every target).
    Only datasets that :func:`defined_mask` accepts may be passed for the corrected methods.
    """
    from judgestats.kclass.matrix import (
        adjusted_parts,
        delta_covariance,
        matrix_rogan_gladen,
        simplex_projection,
    )

    size = test.shape[-1]
    weights = np.stack(list(targets(size).values()))  # (T, K)
    n = test.sum(axis=-1)
    m = confusion.sum(axis=-1)
    p = test / n[:, None]
    rates = confusion / m[..., :, None]
    raw = matrix_rogan_gladen(p, rates)
    shares = np.where((raw < 0.0).any(axis=-1, keepdims=True), simplex_projection(raw), raw)
    covariance = delta_covariance(raw, p, rates, n.astype(float), m)
    centre, cov_t = adjusted_parts(test.astype(np.float64), confusion.astype(np.float64), z)
    naive_cov = (p[:, :, None] * np.eye(size) - p[:, :, None] * p[:, None, :]) / n[:, None, None]
    out: dict[str, np.ndarray] = {"shares": shares, "shares_raw": raw}
    parts = {
        "adjusted": (centre, cov_t, shares),
        "wald": (raw, covariance, shares),
        "naive": (p, naive_cov, p),
    }
    for method, (middle, cov, point) in parts.items():
        lows, highs = [], []
        for a in weights:
            variance = np.einsum("j,...jk,k->...", a, cov, a)
            low, high = _truncated(middle @ a, variance, a, z)
            if method != "naive" and size > 2:  # kclass_estimate: the interval holds the estimate
                low, high = np.minimum(low, point @ a), np.maximum(high, point @ a)
            lows.append(low)
            highs.append(high)
        out[f"{method}_low"] = np.stack(lows, axis=-1)
        out[f"{method}_high"] = np.stack(highs, axis=-1)
        out[f"{method}_point"] = point @ weights.T
    return out


# -- data ------------------------------------------------------------------------------------------
def simulate(
    size: int, judge: str, share: str, m: int, n: int, reps: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``reps`` stratified datasets: test counts (reps, K) and confusion counts (reps, K, K)."""
    rates = judge_matrix(size, judge)
    pi = np.asarray(SHARES[size][share], dtype=float)
    confusion = rng.multinomial(m, rates, size=(reps, size))
    test = rng.multinomial(n, rates.T @ pi, size=reps)
    return test.astype(np.int64), confusion.astype(np.int64)


def cell_rng(seed: int, index: int) -> np.random.Generator:
    """One stream per cell of the full grid (independent of workers and sub-grids)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,)))


def cell_index(size: int, judge: str, share: str, m: int, n: int) -> int:
    """The cell's position in the full grid (its random stream)."""
    return int(
        np.ravel_multi_index(
            (
                SIZES.index(size),
                JUDGE_NAMES.index(judge),
                SHARE_NAMES.index(share),
                M.index(m),
                N.index(n),
            ),
            (len(SIZES), len(JUDGE_NAMES), len(SHARE_NAMES), len(M), len(N)),
        )
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


# -- one cell --------------------------------------------------------------------------------------
def _coverage(
    low: np.ndarray, high: np.ndarray, point: np.ndarray, truth: float, reps: int
) -> dict[str, float | int | None]:
    """Coverage, its Monte Carlo se, one-sided misses, width and point error of one target."""
    used = low.size
    if used == 0:
        return {"defined": 0, "coverage": None, "se": None, "coverage_all": 0.0}
    covered = (low <= truth) & (truth <= high)
    coverage = float(covered.mean())
    width = high - low
    error = point - truth
    return {
        "defined": int(used),
        "coverage": coverage,
        "se": math.sqrt(coverage * (1.0 - coverage) / used),
        "coverage_all": float(covered.sum() / reps),
        "interval_below_truth": float(np.mean(high < truth)),
        "interval_above_truth": float(np.mean(low > truth)),
        "width": float(width.mean()),
        "width_se": float(width.std(ddof=1) / math.sqrt(used)) if used > 1 else 0.0,
        "mean_error": float(error.mean()),
        "rmse": float(np.sqrt(np.mean(error**2))),
    }


def evaluate_cell(cell: dict) -> dict:
    """Draw ``reps`` datasets of one cell; coverage of every method and target."""
    from judgestats.frequentist import z_quantile

    start = time.perf_counter()
    size, judge, share = cell["size"], cell["judge"], cell["share"]
    reps = cell["reps"]
    rng = cell_rng(cell["seed"], cell["index"])
    test, confusion = simulate(size, judge, share, cell["m"], cell["n"], reps, rng)
    z = z_quantile(LEVEL)
    ok = defined_mask(test, confusion)
    pi = np.asarray(SHARES[size][share], dtype=float)
    weights = targets(size)
    truth = {name: float(a @ pi) for name, a in weights.items()}
    corrected = batched_intervals(test[ok], confusion[ok], z) if ok.any() else None
    naive = _naive_only(test, z)  # every dataset, defined or not
    methods: dict[str, dict] = {}
    for method in METHODS:
        source = naive if method == "naive" else corrected
        methods[method] = {}
        for t, name in enumerate(weights):
            if source is None:
                methods[method][name] = _coverage(np.empty(0), np.empty(0), np.empty(0), 0.0, reps)
                continue
            methods[method][name] = _coverage(
                source[f"{method}_low"][:, t],
                source[f"{method}_high"][:, t],
                source[f"{method}_point"][:, t],
                truth[name],
                reps,
            )
    projected = (
        float((corrected["shares_raw"] < 0).any(axis=-1).mean()) if corrected is not None else None
    )
    return {
        "K": size,
        "judge": judge,
        "shares_name": share,
        "m": cell["m"],
        "n": cell["n"],
        "pi": pi.tolist(),
        "C": judge_matrix(size, judge).tolist(),
        "truth": truth,
        "reps": reps,
        "undefined_fraction": float(1.0 - ok.mean()),
        "projected_fraction": projected,
        "methods": methods,
        "seconds": time.perf_counter() - start,
    }


def _naive_only(test: np.ndarray, z: float) -> dict[str, np.ndarray]:
    """The naive interval of every target on every dataset (no confusion matrix needed)."""
    size = test.shape[-1]
    n = test.sum(axis=-1)
    p = test / n[:, None]
    out: dict[str, list] = {"naive_low": [], "naive_high": [], "naive_point": []}
    for a in targets(size).values():
        middle = p @ a
        variance = (p @ (a * a) - middle**2) / n
        low, high = _truncated(middle, variance, a, z)
        out["naive_low"].append(low)
        out["naive_high"].append(high)
        out["naive_point"].append(middle)
    return {k: np.stack(v, axis=-1) for k, v in out.items()}


# -- the posterior block -----------------------------------------------------------------------
#: Cells of the posterior block: (K, judge, shares, m, n).
POSTERIOR_CELLS = (
    (3, "medium", "skewed", 10, 5000),
    (3, "weak", "rare", 30, 5000),
    (5, "strong", "rare", 10, 5000),
    (5, "medium", "skewed", 30, 5000),
    (5, "weak", "balanced", 30, 5000),
)


def evaluate_posterior_cell(cell: dict) -> dict:
    """Coverage of kclass_posterior's 95% credible interval on the cell's first datasets.

    The datasets come from the cell's own stream (a smaller draw than the grid's, so not the
    grid's first datasets); the closed forms' coverage on exactly these datasets is reported
    beside the posterior's (over the datasets the closed form accepts; the posterior answers on
    all).
    """
    from judgestats import JudgeStatsWarning
    from judgestats.frequentist import z_quantile
    from judgestats.kclass import KClassData, kclass_posterior

    start = time.perf_counter()
    size, judge, share, m, n = cell["spec"]
    reps = cell["reps"]
    test, confusion = simulate(
        size, judge, share, m, n, reps, cell_rng(cell["seed"], cell["index"])
    )
    pi = np.asarray(SHARES[size][share], dtype=float)
    weights = targets(size)
    truth = np.array([a @ pi for a in weights.values()])
    low = np.full((reps, len(weights)), np.nan)
    high = np.full_like(low, np.nan)
    point = np.full_like(low, np.nan)
    ess = np.zeros(reps)
    for r in range(reps):
        data = KClassData(CLASSES[size], test=test[r], confusion=confusion[r])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JudgeStatsWarning)
            post = kclass_posterior(
                data, prob=LEVEL, proposals=cell["proposals"], random_seed=cell["seed"] + r
            )
        ess[r] = post.ess
        for t, a in enumerate(weights.values()):
            row = post.functional(a)
            low[r, t], high[r, t], point[r, t] = row.low, row.high, row.estimate
    ok = defined_mask(test, confusion)
    closed = batched_intervals(test[ok], confusion[ok], z_quantile(LEVEL)) if ok.any() else None
    out = {"posterior": {}, "adjusted_same_datasets": {}, "wald_same_datasets": {}}
    for t, name in enumerate(weights):
        out["posterior"][name] = _coverage(low[:, t], high[:, t], point[:, t], truth[t], reps)
        for method in ("adjusted", "wald"):
            key = f"{method}_same_datasets"
            out[key][name] = (
                _coverage(
                    closed[f"{method}_low"][:, t],
                    closed[f"{method}_high"][:, t],
                    closed[f"{method}_point"][:, t],
                    truth[t],
                    reps,
                )
                if closed is not None
                else None
            )
    return {
        "K": size,
        "judge": judge,
        "shares_name": share,
        "m": m,
        "n": n,
        "reps": reps,
        "proposals": cell["proposals"],
        "undefined_fraction_closed_form": float(1.0 - ok.mean()),
        "ess_min": float(ess.min()),
        "ess_median": float(np.median(ess)),
        **out,
        "seconds": time.perf_counter() - start,
    }


# -- the recommended interval (kclass_recommended) over every dataset ---------------------------
#: Cells of the recommended block: (K, judge, shares, m, n); 8 labels per class lies below the
#: rule's CLOSED_FORM_MIN_M, so every dataset there goes to the posterior.
RECOMMENDED_CELLS = (
    (3, "weak", "balanced", 8, 5000),
    (3, "weak", "balanced", 10, 5000),
    (3, "weak", "rare", 30, 5000),
    (5, "weak", "balanced", 10, 5000),
    (5, "weak", "skewed", 30, 5000),
    (3, "medium", "skewed", 10, 5000),
)


def evaluate_recommended_cell(cell: dict) -> dict:
    """Coverage of kclass_recommended's interval counting every dataset of the cell.

    The closed form (batched, as in the grid) answers where the rule takes it: defined and every
    class with at least CLOSED_FORM_MIN_M items; every other dataset goes through
    the rule's next steps: the posterior (computed once per dataset for every target, with the
    seed ``kclass_recommended`` would get), else ``kclass_recommended`` itself. Reports the share of
    datasets that needed the fallback and, per target, the coverage over all datasets and over
    the fallback datasets alone. The cell's stream is its own (spawn key 10,000 + its position
    in :data:`RECOMMENDED_CELLS`), so m = 8 needs no place in the grid.
    """
    from judgestats import JudgeStatsWarning
    from judgestats.frequentist import z_quantile
    from judgestats.kclass import KClassData, kclass_posterior, kclass_recommended
    from judgestats.kclass.recommended import CLOSED_FORM_MIN_M, posterior_probability

    start = time.perf_counter()
    size, judge, share, m, n = cell["spec"]
    reps = cell["reps"]
    test, confusion = simulate(
        size, judge, share, m, n, reps, cell_rng(cell["seed"], cell["index"])
    )
    pi = np.asarray(SHARES[size][share], dtype=float)
    weights = targets(size)
    truth = np.array([a @ pi for a in weights.values()])
    closed = defined_mask(test, confusion) & (
        confusion.sum(axis=-1).min(axis=-1) >= CLOSED_FORM_MIN_M
    )
    low = np.full((reps, len(weights)), np.nan)
    high = np.full_like(low, np.nan)
    if closed.any():
        batch = batched_intervals(test[closed], confusion[closed], z_quantile(LEVEL))
        low[closed], high[closed] = batch["adjusted_low"], batch["adjusted_high"]
    methods: dict[str, int] = {}
    for r in np.flatnonzero(~closed):
        data = KClassData(CLASSES[size], test=test[r], confusion=confusion[r])
        options = {"random_seed": cell["seed"] + r, "proposals": cell["proposals"]}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JudgeStatsWarning)
            try:  # the rule's posterior step, computed once for every target
                post = kclass_posterior(data, prob=posterior_probability(LEVEL), **options)
            except ValueError:
                post = None
            usable = post is not None and "importance_heavy_tail" not in post.flags
            for t, a in enumerate(weights.values()):
                row = post.functional(a) if usable else kclass_recommended(data, a, **options)
                low[r, t], high[r, t] = row.low, row.high
        method = "posterior" if usable else row.method
        methods[method] = methods.get(method, 0) + 1
    covered = (low <= truth) & (truth <= high)
    fallback = ~closed
    return {
        "K": size, "judge": judge, "shares_name": share, "m": m, "n": n, "reps": reps,
        "proposals": cell["proposals"],
        "fallback_fraction": float(fallback.mean()),
        "fallback_methods": methods,
        "coverage_all": dict(zip(weights, covered.mean(axis=0).tolist(), strict=True)),
        "coverage_fallback": dict(
            zip(weights, (covered[fallback].mean(axis=0) if fallback.any() else truth * np.nan)
                .tolist(), strict=True)
        ),
        "width_all": dict(zip(weights, (high - low).mean(axis=0).tolist(), strict=True)),
        "seconds": time.perf_counter() - start,
    }  # fmt: skip


def print_recommended(rows: list[dict]) -> None:
    """Per cell: the fallback share, the smallest coverage over the targets (all datasets)."""
    print("\nrecommended interval (kclass_recommended), coverage counting every dataset:")
    for r in rows:
        worst = min(r["coverage_all"], key=r["coverage_all"].get)
        fall = [v for v in r["coverage_fallback"].values() if v == v]
        print(
            f"  K={r['K']} {r['judge']} {r['shares_name']} m={r['m']} n={r['n']} ({r['reps']} "
            f"datasets): fallback {r['fallback_fraction']:.3f} {r['fallback_methods']}; "
            f"min coverage {r['coverage_all'][worst]:.3f} ({worst}), mean "
            f"{np.mean(list(r['coverage_all'].values())):.3f}"
            + (f"; on the fallback datasets min {min(fall):.3f}" if fall else "")
        )


# -- printing --------------------------------------------------------------------------------------
def _summary_names(size: int) -> list[str]:
    return ["win_A"] if size == 3 else ["mean_score", "top2"]


def _min_share(method: dict) -> tuple[float | None, float | None]:
    """The smallest share coverage of a method in a cell, with its se."""
    rows = [v for k, v in method.items() if k.startswith("share_") and v["coverage"] is not None]
    if not rows:
        return None, None
    worst = min(rows, key=lambda v: v["coverage"])
    return worst["coverage"], worst["se"]


def print_table(results: list[dict]) -> None:
    """One line per cell: undefined share; per method the smallest share coverage ± se and the
    summaries' coverage (K = 3: win rate; K = 5: mean score, top-2 share), the summaries' widths."""
    head = (
        f"{'K':>1} {'judge':<6} {'shares':<8}{'m':>4}{'n':>7}{'undef%':>7}{'proj%':>6} | "
        f"{'adjusted: min share':>19} {'summaries':>11} {'width':>13} | "
        f"{'wald: min share':>15} {'summaries':>11} {'width':>13} | "
        f"{'naive: min sh':>13} {'summaries':>11}"
    )
    print(head)
    print("-" * len(head))
    for r in results:
        names = _summary_names(r["K"])
        cells = []
        for method in METHODS:
            values = r["methods"][method]
            low, se = _min_share(values)
            share_txt = "  -  " if low is None else f"{low:5.3f} ± {se:.3f}"
            covs = " ".join(
                "  -  " if values[k]["coverage"] is None else f"{values[k]['coverage']:5.3f}"
                for k in names
            )
            widths = " ".join(
                "  -   " if values[k]["coverage"] is None else f"{values[k]['width']:6.4f}"
                for k in names
            )
            cells.append((share_txt, covs, widths))
        proj = r["projected_fraction"]
        print(
            f"{r['K']:>1} {r['judge']:<6} {r['shares_name']:<8}{r['m']:>4}{r['n']:>7}"
            f"{100 * r['undefined_fraction']:7.1f}"
            f"{'-' if proj is None else f'{100 * proj:6.1f}':>6} | "
            f"{cells[0][0]:>19} {cells[0][1]:>11} {cells[0][2]:>13} | "
            f"{cells[1][0]:>15} {cells[1][1]:>11} {cells[1][2]:>13} | "
            f"{cells[2][0]:>13} {cells[2][1]:>11}"
        )


def summarise(results: list[dict]) -> dict:
    """Per method and target kind: the smallest coverage, the cells below TARGET, mean width."""

    def key(r: dict) -> str:
        return f"K={r['K']} {r['judge']} {r['shares_name']} m={r['m']} n={r['n']}"

    out: dict[str, object] = {"cells": len(results)}
    for method in METHODS:
        block: dict[str, object] = {}
        for kind in ("shares", "win_A", "mean_score", "top2"):
            rows = []
            for r in results:
                for name, v in r["methods"][method].items():
                    wanted = name.startswith("share_") if kind == "shares" else name == kind
                    if wanted and v["coverage"] is not None:
                        rows.append((key(r), name, v))
            if not rows:
                continue
            worst = min(rows, key=lambda row: row[2]["coverage"])
            below = [
                f"{cell} {name}: {v['coverage']:.4f} ± {v['se']:.4f}"
                for cell, name, v in rows
                if v["coverage"] < TARGET
            ]
            errors = [abs(v["mean_error"]) for _, _, v in rows]
            block[kind] = {
                "evaluated": len(rows),
                "max_abs_bias": max(errors),
                "median_abs_bias": float(np.median(errors)),
                "min_coverage": worst[2]["coverage"],
                "min_coverage_at": f"{worst[0]} {worst[1]}",
                "mean_coverage": float(np.mean([v["coverage"] for _, _, v in rows])),
                "below_target": len(below),
                "below_target_cells": below,
            }
        out[method] = block
    out["max_undefined_fraction"] = max(r["undefined_fraction"] for r in results)
    out["cells_with_undefined"] = [
        f"{key(r)}: {r['undefined_fraction']:.4f}" for r in results if r["undefined_fraction"] > 0
    ]
    return out


def print_summary(summary: dict) -> None:
    """Per method and target kind: min and mean coverage, cells below TARGET."""
    print(
        f"\n{'method':<9}{'target':<11}{'cells':>6}{'min cov':>9}{'mean cov':>9}"
        f"{'<' + str(TARGET):>7}{'max|bias|':>10}{'med|bias|':>10}  worst coverage at"
    )
    for method in METHODS:
        for kind, v in summary[method].items():
            print(
                f"{method:<9}{kind:<11}{v['evaluated']:>6}{v['min_coverage']:9.4f}"
                f"{v['mean_coverage']:9.4f}{v['below_target']:>7}{v['max_abs_bias']:10.4f}"
                f"{v['median_abs_bias']:10.4f}  {v['min_coverage_at']}"
            )
    print(
        "bias = mean error of the point estimate in a cell: adjusted and wald share the "
        "package's projected shares (over the defined datasets), naive is the judged shares "
        "(over every dataset)."
    )


def print_posterior(rows: list[dict]) -> None:
    """Posterior coverage per cell next to the closed form's on the same datasets."""
    print("\nposterior block (coverage on the same datasets; min over shares, then summaries):")
    for r in rows:
        names = _summary_names(r["K"])
        parts = []
        for label, block in (
            ("posterior", r["posterior"]),
            ("adjusted", r["adjusted_same_datasets"]),
            ("wald", r["wald_same_datasets"]),
        ):
            shares = [v["coverage"] for k, v in block.items() if k.startswith("share_") and v]
            summ = " ".join(f"{block[k]['coverage']:.3f}" for k in names if block[k])
            parts.append(f"{label} {min(shares):.3f} / {summ}" if shares else f"{label} -")
        print(
            f"  K={r['K']} {r['judge']} {r['shares_name']} m={r['m']} n={r['n']} "
            f"({r['reps']} datasets, undef {r['undefined_fraction_closed_form']:.3f}, "
            f"min ESS {r['ess_min']:.0f}): " + "; ".join(parts)
        )


# -- main -----------------------------------------------------------------------------------------
def main() -> int:
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
    args = parser.parse_args()
    reps = args.reps or (500 if args.quick else 10000)

    if self_check(args.check, args.seed) > 1e-12:
        print("self-check failed: the batched numbers are not kclass_estimate's", file=sys.stderr)
        return 1
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
    if args.skip_grid:
        cells = []
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

    posterior_rows: list[dict] | None = None
    posterior_seconds = None
    if args.posterior:
        try:
            from judgestats.kclass import kclass_posterior  # noqa: F401
        except ImportError:
            print("\nposterior block skipped: judgestats.kclass.kclass_posterior is not available")
        else:
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

    recommended_rows: list[dict] | None = None
    if args.recommended:
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
