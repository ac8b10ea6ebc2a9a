"""The simulated cells of benchmarks/kclass_coverage.py and their evaluation.

The grid's design (judges, true shares, calibration and test sizes, the targets scored), the
datasets of a cell (one seeded stream per cell), the batched closed form that evaluates every
dataset of a cell at once (the functions ``kclass_estimate`` calls, with its definedness check
replicated per dataset) and the evaluation of one cell: the grid's (:func:`evaluate_cell`), the
posterior block's (:func:`evaluate_posterior_cell`) and the recommended block's
(:func:`evaluate_recommended_cell`). The script's module docstring describes the design.
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np

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


# -- the blocks' cells: their own streams -----------------------------------------------------
def block_datasets(cell: dict) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray], np.ndarray]:
    """A block cell's datasets (test, confusion) from its own stream, its targets, their truth.

    ``cell["spec"]`` is (K, judge, shares, m, n); the stream is ``cell_rng(seed, index)``.
    """
    size, judge, share, m, n = cell["spec"]
    test, confusion = simulate(
        size, judge, share, m, n, cell["reps"], cell_rng(cell["seed"], cell["index"])
    )
    pi = np.asarray(SHARES[size][share], dtype=float)
    weights = targets(size)
    truth = np.array([a @ pi for a in weights.values()])
    return test, confusion, weights, truth


# -- the posterior block -----------------------------------------------------------------------
#: Cells of the posterior block: (K, judge, shares, m, n).
POSTERIOR_CELLS = (
    (3, "medium", "skewed", 10, 5000),
    (3, "weak", "rare", 30, 5000),
    (5, "strong", "rare", 10, 5000),
    (5, "medium", "skewed", 30, 5000),
    (5, "weak", "balanced", 30, 5000),
)


def posterior_intervals(
    test: np.ndarray, confusion: np.ndarray, weights: dict[str, np.ndarray], cell: dict
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """kclass_posterior on every dataset: low, high, estimate (datasets, targets) and the ESS.

    Dataset r is seeded ``cell["seed"] + r`` and drawn with ``cell["proposals"]`` proposals.
    """
    from judgestats import JudgeStatsWarning
    from judgestats.kclass import KClassData, kclass_posterior

    size = cell["spec"][0]
    reps = cell["reps"]
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
    return low, high, point, ess


def same_dataset_coverage(
    posterior: tuple[np.ndarray, np.ndarray, np.ndarray],
    closed: dict[str, np.ndarray] | None,
    names: list[str],
    truth: np.ndarray,
    reps: int,
) -> dict[str, dict]:
    """Per target: the posterior's coverage (low, high, estimate) and the closed forms' beside it.

    ``closed`` is :func:`batched_intervals` on the defined datasets (None: none is defined).
    """
    low, high, point = posterior
    out: dict[str, dict] = {"posterior": {}, "adjusted_same_datasets": {}, "wald_same_datasets": {}}
    for t, name in enumerate(names):
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
    return out


def evaluate_posterior_cell(cell: dict) -> dict:
    """Coverage of kclass_posterior's 95% credible interval on the cell's first datasets.

    The datasets come from the cell's own stream (a smaller draw than the grid's, so not the
    grid's first datasets); the closed forms' coverage on exactly these datasets is reported
    beside the posterior's (over the datasets the closed form accepts; the posterior answers on
    all).
    """
    from judgestats.frequentist import z_quantile

    start = time.perf_counter()
    size, judge, share, m, n = cell["spec"]
    reps = cell["reps"]
    test, confusion, weights, truth = block_datasets(cell)
    low, high, point, ess = posterior_intervals(test, confusion, weights, cell)
    ok = defined_mask(test, confusion)
    closed = batched_intervals(test[ok], confusion[ok], z_quantile(LEVEL)) if ok.any() else None
    out = same_dataset_coverage((low, high, point), closed, list(weights), truth, reps)
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


def fallback_rows(data: object, weights: dict[str, np.ndarray], options: dict) -> tuple[list, str]:
    """The rule's steps after the closed form on one dataset: every target's row and the method.

    The posterior (computed once for every target, at ``posterior_probability(LEVEL)``) where it
    is usable, else ``kclass_recommended`` itself per target; ``options`` are the seed and
    proposals ``kclass_recommended`` would pass on.
    """
    from judgestats import JudgeStatsWarning
    from judgestats.kclass import kclass_posterior, kclass_recommended
    from judgestats.kclass.recommended import posterior_probability

    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        try:  # the rule's posterior step, computed once for every target
            post = kclass_posterior(data, prob=posterior_probability(LEVEL), **options)
        except ValueError:
            post = None
        usable = post is not None and "importance_heavy_tail" not in post.flags
        for a in weights.values():
            rows.append(post.functional(a) if usable else kclass_recommended(data, a, **options))
    return rows, "posterior" if usable else rows[-1].method


def recommended_intervals(
    test: np.ndarray, confusion: np.ndarray, weights: dict[str, np.ndarray], cell: dict
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, int]]:
    """kclass_recommended's interval of every target on every dataset.

    Returns low and high (datasets, targets), the mask of the datasets the closed form answers
    (defined, every class with at least CLOSED_FORM_MIN_M items; batched as in the grid) and
    how many of the others each fallback method answered.
    """
    from judgestats.frequentist import z_quantile
    from judgestats.kclass import KClassData
    from judgestats.kclass.recommended import CLOSED_FORM_MIN_M

    size = cell["spec"][0]
    closed = defined_mask(test, confusion) & (
        confusion.sum(axis=-1).min(axis=-1) >= CLOSED_FORM_MIN_M
    )
    low = np.full((cell["reps"], len(weights)), np.nan)
    high = np.full_like(low, np.nan)
    if closed.any():
        batch = batched_intervals(test[closed], confusion[closed], z_quantile(LEVEL))
        low[closed], high[closed] = batch["adjusted_low"], batch["adjusted_high"]
    methods: dict[str, int] = {}
    for r in np.flatnonzero(~closed):
        data = KClassData(CLASSES[size], test=test[r], confusion=confusion[r])
        options = {"random_seed": cell["seed"] + r, "proposals": cell["proposals"]}
        rows, method = fallback_rows(data, weights, options)
        for t, row in enumerate(rows):
            low[r, t], high[r, t] = row.low, row.high
        methods[method] = methods.get(method, 0) + 1
    return low, high, closed, methods


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
    start = time.perf_counter()
    size, judge, share, m, n = cell["spec"]
    test, confusion, weights, truth = block_datasets(cell)
    low, high, closed, methods = recommended_intervals(test, confusion, weights, cell)
    covered = (low <= truth) & (truth <= high)
    fallback = ~closed
    return {
        "K": size, "judge": judge, "shares_name": share, "m": m, "n": n, "reps": cell["reps"],
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
