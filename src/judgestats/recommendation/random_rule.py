r"""The random-design rule: the narrowest interval that covers, never wider than the labels alone.

With a random labelled sample the labelled items measure the accuracy directly, so the honest
baseline is the exact interval from the labels alone (Blaker's, inside Clopper-Pearson;
:mod:`judgestats.designs.labels_only`). The judge earns its place only where an interval that
uses it is narrower *and* covers. The coverage table ``datasets/random_coverage_table.npz``
(made by ``python benchmarks/random_design.py --table``) holds each candidate's simulated
coverage over a regime grid, for both targets: labelled items m, unlabelled items n, the judge's
specificity q0 and sensitivity q1 (from chance, 0.5, to 0.97), and the accuracy theta (0.02 to
0.98). The rule:

1. **The regime** (counts only). m: the largest grid value not above the data's m (errs towards
   fewer labels). n: the grid values bracketing n. q0, q1: the grid values inside each arm's
   95% Clopper-Pearson interval; only where that interval holds no grid value, the grid values
   bracketing it (the lowest grid value, chance, stands for every judge below it; an empty arm
   allows every value). theta: likewise for the labelled share m1 / m. So the regime is the
   values the data make plausible, and a far-away extreme cell does not veto a candidate.
   Outside the table: m < 10, n < 100, a level other than 95%.
2. **Eligible**: a candidate whose table coverage in *every* cell of the regime is at least

   .. math:: c_{min} = \text{level} - 0.005 - 2\,\mathrm{SE}_{cell}, \qquad
             \mathrm{SE}_{cell} = \sqrt{\text{level}(1 - \text{level}) / R_{cell}},

   with R_cell the cell's replications (at least :data:`MIN_REPS`): half a point of
   tolerance (:data:`COVERAGE_SLACK`) and two Monte Carlo errors, so that a cell whose true
   coverage is the level is not read as failing by simulation noise. With 4,000 replications
   c_min = 0.938. The table's cells are independent simulations, so the minimum over a regime
   of many cells is already biased downwards; a requirement of 0.945 in every cell would
   exclude an interval of true coverage 0.95 in about a third of the cells by noise alone.
   Only PPI++ qualifies today: the posterior intervals are not in the table (no batched
   random-design posterior is cheap enough for thousands of replications per cell), so they
   are reported as candidates but never recommended.
3. **The pick**: the narrowest eligible interval on these data if it is at least
   :data:`PICK_MARGIN` (5%) narrower than the labels-only Blaker interval; otherwise the
   labels-only interval (exact: coverage at least the level for every accuracy, by
   construction). So the recommendation is never wider than the labels-only exact interval.
   The margin is what makes "narrower" mean "the judge helps": with a judge at chance PPI++
   reduces to the Agresti-Coull interval of the labelled share, an approximate interval 0-3%
   narrower than Blaker's exact one on the same labels, a gain owed to the approximation and
   not to the judge.

A random sample is an assumption. Where the class-balance test
(:func:`judgestats.class_balance_test`) rejects it at :data:`SAMPLING_ALPHA` (stricter than the
usual 5%, so that a genuine random sample leaves this rule once in a thousand rather than once
in twenty), the labelled items are not representative, the labels-only interval is not valid,
and the stratified rule (:mod:`judgestats.recommendation.stratified_rule`) applies, its reason
saying so.
"""

from __future__ import annotations

import functools
import math
from importlib import resources
from typing import Any

import numpy as np

from judgestats._html import fmt_percent
from judgestats.data import JudgeData
from judgestats.recommendation.result import METHOD_LABELS, Recommendation

__all__ = [
    "APPROXIMATE",
    "COVERAGE_SLACK",
    "EXACT",
    "MIN_REPS",
    "PICK_MARGIN",
    "SAMPLING_ALPHA",
    "choose_random",
    "random_coverage_table",
    "random_regime_coverage",
    "recommend_random",
]

#: The candidates whose coverage rests on the table, in column order.
APPROXIMATE = ("ppi_pp", "posterior_eti", "posterior_hdi")
#: The exact labels-only interval the rule never exceeds.
EXACT = "labels_only_blaker"
#: Class-balance p-value below which the random-sampling assumption is taken to fail.
SAMPLING_ALPHA = 0.001
#: How far below the level a table cell's coverage may lie, besides two Monte Carlo errors.
COVERAGE_SLACK = 0.005
#: Replications a table cell needs before its coverage counts.
MIN_REPS = 1000
#: How much narrower than the exact labels-only interval a judge-using interval must be.
PICK_MARGIN = 0.05
_TABLE = "random_coverage_table.npz"


@functools.lru_cache(maxsize=1)
def random_coverage_table() -> dict[str, np.ndarray]:
    """The random-design coverage table (module docstring).

    Keys: ``targets``, ``methods``, ``m``, ``n``, ``q``, ``theta``; ``coverage`` and
    ``width`` of shape (target, method, m, n, q0, q1, theta) (NaN where not simulated);
    ``reps`` of the same shape; ``level``.
    """
    path = resources.files("judgestats.datasets").joinpath(_TABLE)
    with path.open("rb") as handle, np.load(handle) as table:
        return {name: table[name] for name in table.files}


def _grid_mask(
    low: np.ndarray, high: np.ndarray, grid: np.ndarray, *, always: bool = False
) -> np.ndarray:
    """(datasets, grid): grid values in [low, high]; the bracketing ones if none (or ``always``)."""
    low, high = np.atleast_1d(low)[:, None], np.atleast_1d(high)[:, None]
    inside = (grid >= low) & (grid <= high)
    below = np.where(grid <= low, grid, -np.inf).max(axis=1, keepdims=True)
    above = np.where(grid >= high, grid, np.inf).min(axis=1, keepdims=True)
    below = np.where(np.isinf(below), grid[0], below)
    above = np.where(np.isinf(above), grid[-1], above)
    bracket = (grid == below) | (grid == above)
    if not always:
        bracket &= ~inside.any(axis=1, keepdims=True)
    return inside | bracket


def _features(counts: tuple[np.ndarray, ...], table: dict[str, np.ndarray]) -> np.ndarray:
    """Per dataset: m index, then masks over n, q0, q1 and theta (one int row each; -1 = out)."""
    from judgestats.guaranteed import clopper_pearson

    _, n, k0, m0, k1, m1 = counts
    m = m0 + m1
    m_index = np.searchsorted(table["m"], m, side="right") - 1
    n_grid = table["n"].astype(float)
    n_mask = _grid_mask(n.astype(float), n.astype(float), n_grid, always=True)
    q0_mask = _grid_mask(*clopper_pearson(k0, m0, 0.95), table["q"])
    q1_mask = _grid_mask(*clopper_pearson(k1, m1, 0.95), table["q"])
    t_mask = _grid_mask(*clopper_pearson(m1, m, 0.95), table["theta"])
    out = (m_index < 0) | (n < n_grid[0])
    m_index = np.where(out, -1, m_index)
    return np.column_stack([m_index, n_mask, q0_mask, q1_mask, t_mask]).astype(np.int64)


def _worst(key: np.ndarray, coverage: np.ndarray, reps: np.ndarray, level: float) -> np.ndarray:
    """(smallest coverage - c_min, smallest coverage) over the key's cells, per method.

    c_min is the cell's threshold of the module docstring; NaN where a cell has too few
    replications.
    """
    sizes = [coverage.shape[i] for i in (2, 3, 4, 5)]  # n, q0, q1, theta
    parts = np.split(key[1:].astype(bool), np.cumsum(sizes[:-1]))
    index = np.ix_(*(np.flatnonzero(p) for p in parts))
    out = np.full((2, coverage.shape[0]), math.nan)
    for j in range(coverage.shape[0]):
        block, count = coverage[j, key[0]][index], reps[j, key[0]][index]
        if np.isnan(block).any() or (count < MIN_REPS).any():
            continue
        floor = level - COVERAGE_SLACK - 2.0 * np.sqrt(level * (1.0 - level) / count)
        out[:, j] = float(np.min(block - floor)), float(np.min(block))
    return out


def random_regime_coverage(
    counts: tuple[Any, ...], level: float, target: str
) -> tuple[np.ndarray, np.ndarray]:
    """Each approximate candidate's worst table coverage over each dataset's regime.

    Returns ``(margin, raw)``: arrays (datasets, len(:data:`APPROXIMATE`)); ``raw`` is the
    smallest coverage, ``margin`` the smallest excess of a cell's coverage over its threshold
    c_min (module docstring; eligible where ``margin >= 0``). NaN outside the table and at
    levels other than 95%.
    """
    arrays = tuple(np.atleast_1d(np.asarray(c, dtype=np.int64)) for c in counts)
    size = arrays[0].size
    margin = np.full((size, len(APPROXIMATE)), np.nan)
    raw = margin.copy()
    if abs(level - 0.95) > 1e-12 or size == 0:
        return margin, raw
    table = random_coverage_table()
    t = list(table["targets"]).index(target)
    columns = [list(table["methods"]).index(name) for name in APPROXIMATE]
    coverage, reps = table["coverage"][t][columns], table["reps"][t][columns]
    keys = _features(arrays, table)
    unique, inverse = np.unique(keys, axis=0, return_inverse=True)
    for u, key in enumerate(unique):
        if key[0] < 0:
            continue
        rows = inverse.ravel() == u
        margin[rows], raw[rows] = _worst(key, coverage, reps, level)
    return margin, raw


def choose_random(
    counts: tuple[Any, ...],
    intervals: dict[str, tuple[Any, Any]],
    level: float,
    target: str,
) -> tuple[np.ndarray, np.ndarray]:
    """The rule for many datasets: index into :data:`APPROXIMATE`, or -1 for :data:`EXACT`.

    ``intervals`` maps candidate names (at least :data:`EXACT`) to (low, high) arrays. Returns
    the choice and the chosen candidate's worst table coverage (NaN for the exact interval).
    """
    margin, raw = random_regime_coverage(counts, level, target)
    exact_low, exact_high = (np.asarray(a, dtype=float) for a in intervals[EXACT])
    widths = np.full(margin.shape, np.inf)
    for j, name in enumerate(APPROXIMATE):
        if name in intervals:
            low, high = (np.asarray(a, dtype=float) for a in intervals[name])
            with np.errstate(invalid="ignore"):
                ok = (margin[:, j] >= 0.0) & np.isfinite(low) & np.isfinite(high)
            widths[:, j] = np.where(ok, high - low, np.inf)
    best = np.argmin(widths, axis=1)
    rows = np.arange(best.size)
    picked = widths[rows, best] <= (1.0 - PICK_MARGIN) * (exact_high - exact_low)
    return np.where(picked, best, -1), np.where(picked, raw[rows, best], np.nan)


def _user_values(data: JudgeData, target: str) -> str:
    what = (
        "the accuracy of the process"
        if target == "population"
        else f"the share of correct items among the {data.n + data.m} evaluated"
    )
    judge = (
        f"a judge with q0-hat {data.q0:.2f}, q1-hat {data.q1:.2f} (J-hat {data.youden:.2f})"
        if not data.one_class
        else "a judge measured on one true class only"
    )
    return (
        f"for {what}, with {data.m} labelled items ({data.m1} correct), {data.n} unlabelled "
        f"items and {judge}"
    )


def recommend_random(
    data: JudgeData,
    level: float,
    candidates: dict[str, tuple[float, float, float]],
    *,
    target: str = "population",
) -> Recommendation:
    """Apply the rule of the module docstring to one random-design dataset.

    ``candidates`` maps names of :func:`judgestats.random_design_candidates` to (estimate, low,
    high) for ``target``. The class-balance switch is made by the caller
    (:func:`judgestats.crosscheck`), which holds the stratified candidates.
    """
    counts = (data.k, data.n, data.k0, data.m0, data.k1, data.m1)
    intervals = {name: (value[1], value[2]) for name, value in candidates.items()}
    choice, worst = choose_random(counts, intervals, level, target)
    values = _user_values(data, target)
    if choice[0] >= 0:
        name = APPROXIMATE[int(choice[0])]
        estimate, low, high = candidates[name]
        reason = (
            f"{values}: in simulations of this regime the {METHOD_LABELS[name]} interval "
            f"covered at least {worst[0]:.1%} of the time in every cell, and it is narrower "
            f"than the exact interval from the {data.m} labelled items alone (by at least 5%)."
        )
        return Recommendation(
            float(estimate), float(low), float(high), name, level, reason,
            coverage=float(worst[0]), target=target,
        )  # fmt: skip
    estimate, low, high = candidates[EXACT]
    reason = (
        f"{values}: the judge adds no information here beyond the labels (no interval that "
        "uses it is known to cover in this regime and is at least 5% narrower); this interval "
        f"comes from the {data.m} labelled items alone (Blaker's exact interval: coverage at least "
        f"{fmt_percent(level)} for every accuracy, by construction)."
    )
    return Recommendation(
        float(estimate), float(low), float(high), EXACT, level, reason, target=target
    )
