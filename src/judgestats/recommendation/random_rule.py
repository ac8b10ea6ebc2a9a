r"""The random-design rule: the narrowest interval that covers, never wider than the labels alone.

With a random labelled sample the labelled items measure the accuracy directly, so the honest
baseline is the exact interval from the labels alone (Blaker's, inside Clopper-Pearson;
:mod:`judgestats.designs.labels_only`). The judge earns its place only where an interval that
uses it is narrower *and* covers. The coverage table ``datasets/random_coverage_table.npz``
(made by ``python benchmarks/random_design.py --table``) holds each candidate's simulated
coverage over a regime grid, for both targets: labelled items m, unlabelled items n, the judge's
specificity q0 and sensitivity q1 (from chance, 0.5, to 0.99), and the accuracy theta (0.02 to
0.98). The rule:

1. **The regime** (counts only). m: the largest grid value not above the data's m (errs towards
   fewer labels). n: the grid values bracketing n. q0, q1: the grid values inside each arm's
   Clopper-Pearson interval at :data:`REGIME_LEVEL` (99%); only where that interval holds no
   grid value, the grid values bracketing it (the lowest grid value, chance, stands for every
   judge below it; an empty arm allows every value). theta: likewise for the labelled share
   m1 / m: the values the data make plausible. Why 99%: a sample whose regime misses its own
   cell is judged by other cells, and such samples mislead (an arm that looks better than it
   is): at 95%, on a lopsided judge with 100 labels, PPI++ was picked for 1.5% of the samples
   and covered 0.22 of them (``benchmarks/random_rule_selection.py``).
   Outside the table: m < 10, n < 100, a level other than 95%; there the reason says so (not
   that the judge adds nothing), and below 95% the 95% pick is reported where it uses the judge
   and is narrower than the exact interval at the level asked (conservative).
2. **Eligible**: a candidate whose table coverage in *every* cell of the regime is at least

   .. math:: c_{min} = \text{level} - 0.005 - 2\,\mathrm{SE}_{cell}, \qquad
             \mathrm{SE}_{cell} = \sqrt{\text{level}(1 - \text{level}) / R_{cell}},

   with R_cell the cell's replications (at least :data:`MIN_REPS`): half a point of
   tolerance (:data:`COVERAGE_SLACK`) and two Monte Carlo errors, so that a cell whose true
   coverage is the level is not read as failing by simulation noise. With 4,000 replications
   c_min = 0.938. The table's cells are independent simulations, so the minimum over a regime
   of many cells is already biased downwards; a requirement of 0.945 in every cell would
   exclude an interval of true coverage 0.95 in about a third of the cells by noise alone.
   The table's per-candidate coverage cannot see selection: PPI++ is picked exactly when it
   happens to be narrow, and on a lopsided judge with few labels in one arm a narrow PPI++ is
   a too-small variance estimate. So ``benchmarks/random_design.py`` also simulates *the
   rule's own pick* in every cell. Every cell starts with PPI++ computed at the lowest of
   :data:`LEVEL_STEPS` (93%, 94%, 95%, ..., 99%: the table's ``steps``), and where the rule
   covers less than :data:`TUNED_COVERAGE` the level in that cell goes one step up, and past
   the last step PPI++ is banned there (the table's ``banned``), repeating on fixed seeds until
   no cell changes. A dataset's PPI++ is computed at the highest level of the cells of its
   regime, and PPI++ is ineligible where its regime holds a banned cell. So the level is
   calibrated by simulation: raised where the selection or a lopsided judge costs coverage,
   below 95% where PPI++'s small-sample correction is conservative in every cell of the
   regime (strong judges, many labels); the rule's simulated coverage vouches for the pick.
   A lowered PPI++ is compared with the exact interval at 95% (step 3) and reported lowered.
   The approximate candidate in the table is PPI++ with its small-sample
   correction (``ppi_pp``). PPI++ without it (ppi-python's interval) is in the table too but
   not a candidate: choosing per dataset the narrower of two approximate intervals is a second
   selection, and with both offered the rule undercovered in many more cells
   (``benchmarks/random_rule_selection.py``). The posterior intervals are not in the table
   (no batched random-design posterior is cheap enough for thousands of replications per
   cell), so they are reported as candidates but never recommended.
3. **The pick**: the narrowest eligible interval on these data if it is at least
   :data:`PICK_MARGIN` (5%) narrower than the narrowest exact interval, else that exact
   interval. The exact candidates (:data:`EXACT_CANDIDATES`, labels-only Blaker) need no
   table: coverage at least the level for every accuracy, by construction. The guaranteed
   interval that also uses the judge (``guaranteed_judge``) is reported beside them but not
   picked: taking per dataset the narrower of two valid intervals keeps only a 1 - 2 alpha
   guarantee (a union bound), and that choice has not been simulated. So the recommendation is
   never wider than the labels-only exact interval. The margin is what makes "narrower" mean
   "the judge helps": with a judge at chance (lambda = 0) PPI++ is an approximate interval for
   the labelled share alone, within a few percent of Blaker's width from 60 labels up (half
   correct: 1.02x at 60, 0.98x at 120, 1.00x at 300), a gain owed to the approximation.
4. **Never zero width** unless the truth is known (``target="items"`` with no unlabelled
   item, :func:`truth_known`): a zero-width candidate is passed over. Where Blaker's
   finite-population interval is itself one point (items target, one or two unlabelled items
   beside many labelled ones), Clopper-Pearson's (:data:`WIDEST_EXACT`) is used instead, and
   where that is one point too, every share the unlabelled items allow, [m1 / N, (m1 + n) / N]
   (:data:`BOUNDS`).

A random sample is an assumption. Where the class-balance test
(:func:`judgestats.class_balance_test`) rejects it at :data:`SAMPLING_ALPHA` (stricter than the
usual 5%), the labelled items are not representative, the labels-only interval is not valid,
and the stratified rule (:mod:`judgestats.recommendation.stratified_rule`) applies, its reason
saying so. The test is exact (Fisher's, on the judged-correct shares of the labelled and the
unlabelled items), so a genuine random sample leaves this rule at most once in a thousand
(``python benchmarks/class_balance_size.py`` compares it with the normal approximation).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from importlib import resources
from typing import Any, NamedTuple

import numpy as np

from judgestats._html import fmt_percent
from judgestats.data import JudgeData
from judgestats.recommendation._ppi_levels import (
    LEVEL_STEPS,
    NOMINAL_STEP,
    ppi_offers,
)
from judgestats.recommendation.result import METHOD_LABELS, Recommendation

Triple = tuple[float, float, float]

__all__ = [
    "APPROXIMATE",
    "BOUNDS",
    "CHOICES",
    "COVERAGE_SLACK",
    "EXACT",
    "EXACT_CANDIDATES",
    "LEVEL_STEPS",
    "MIN_REPS",
    "NOMINAL_STEP",
    "PICK_MARGIN",
    "REGIME_LEVEL",
    "RandomPick",
    "RegimeCoverage",
    "SAMPLING_ALPHA",
    "TUNED_COVERAGE",
    "choose_random",
    "random_coverage_table",
    "random_regime_coverage",
    "recommend_random",
    "truth_known",
    "WIDEST_EXACT",
]

#: The candidates whose coverage rests on the table, in column order.
APPROXIMATE = ("ppi_pp", "posterior_eti", "posterior_hdi")
#: The exact labels-only interval: always a candidate, and the last resort.
EXACT = "labels_only_blaker"
#: Candidates that cover by construction (no table needed); used where present and finite.
#: ``guaranteed_judge`` is not among them (module docstring, step 3).
EXACT_CANDIDATES = (EXACT,)
#: The exact interval used where every other exact one has zero width but the truth is unknown.
WIDEST_EXACT = "labels_only_cp"
#: What :func:`recommend_random` reports where every exact interval is one point but the truth
#: is unknown: [m1 / N, (m1 + n) / N], every share the unlabelled items allow.
BOUNDS = "labels_only_bounds"
#: What :func:`choose_random` indexes into.
CHOICES = (*APPROXIMATE, *EXACT_CANDIDATES, WIDEST_EXACT)
#: Class-balance p-value below which the random-sampling assumption is taken to fail.
SAMPLING_ALPHA = 0.001
#: How far below the level a table cell's coverage may lie, besides two Monte Carlo errors.
COVERAGE_SLACK = 0.005
#: Replications a table cell needs before its coverage counts.
MIN_REPS = 1000
#: Confidence of the Clopper-Pearson intervals that make a dataset's regime (step 1).
REGIME_LEVEL = 0.99
#: How much narrower than the narrowest exact interval a judge-using interval must be.
PICK_MARGIN = 0.05
#: The tuning raises a level (or bans) where the rule covers less than this: its floor per cell.
TUNED_COVERAGE = 0.946
_TABLE = "random_coverage_table.npz"


@functools.lru_cache(maxsize=1)
def random_coverage_table() -> dict[str, np.ndarray]:
    """The random-design coverage table (module docstring).

    Keys: ``targets``, ``methods``, ``m``, ``n``, ``q``, ``theta``; ``coverage`` and
    ``width`` of shape (target, method, m, n, q0, q1, theta) (NaN where not simulated);
    ``reps`` of the same shape; ``banned`` (bool, same shape: cells where the rule's own pick
    of that method undercovered, so the method is ineligible in every regime holding the
    cell); ``level``.
    """
    path = resources.files("judgestats.datasets").joinpath(_TABLE)
    with path.open("rb") as handle, np.load(handle) as table:
        return {name: table[name] for name in table.files}


def _broadcast_counts(counts: tuple[Any, ...]) -> tuple[np.ndarray, ...]:
    """The six counts as 1-D int64 arrays of one length (scalars broadcast against arrays)."""
    arrays = np.broadcast_arrays(*(np.asarray(c, dtype=np.int64) for c in counts))
    return tuple(np.atleast_1d(a).ravel() for a in arrays)


def truth_known(counts: tuple[Any, ...], target: str) -> np.ndarray:
    """Per dataset: True where the estimand is known exactly (``items`` with no unlabelled item).

    Only there may a zero-width interval be recommended.
    """
    n = np.atleast_1d(np.asarray(counts[1]))
    return np.broadcast_to(np.asarray(target == "items") & (n == 0), n.shape)


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

    def plausible(x: np.ndarray, size: np.ndarray, grid: np.ndarray) -> np.ndarray:
        # the Clopper-Pearson limits once per distinct (x, size): datasets repeat them
        pairs, inverse = np.unique(size * (1 << 32) + x, return_inverse=True)
        low, high = clopper_pearson(pairs % (1 << 32), pairs >> 32, REGIME_LEVEL)
        return _grid_mask(low, high, grid)[inverse.ravel()]

    _, n, k0, m0, k1, m1 = counts
    m = m0 + m1
    m_index = np.searchsorted(table["m"], m, side="right") - 1
    n_grid = table["n"].astype(float)
    n_mask = _grid_mask(n.astype(float), n.astype(float), n_grid, always=True)
    q0_mask = plausible(k0, m0, table["q"])
    q1_mask = plausible(k1, m1, table["q"])
    t_mask = plausible(m1, m, table["theta"])
    out = (m_index < 0) | (n < n_grid[0])
    m_index = np.where(out, -1, m_index)
    return np.column_stack([m_index, n_mask, q0_mask, q1_mask, t_mask]).astype(np.int64)


def _worst(key: np.ndarray, columns: tuple[np.ndarray, ...], level: float) -> np.ndarray:
    """(smallest coverage - c_min, smallest coverage, largest level step) over the key's cells.

    One column per method. c_min is the cell's threshold of the module docstring; NaN where a
    cell has too few replications or is banned.
    """
    coverage, reps, banned, steps = columns
    sizes = [coverage.shape[i] for i in (2, 3, 4, 5)]  # n, q0, q1, theta
    parts = np.split(key[1:].astype(bool), np.cumsum(sizes[:-1]))
    index = np.ix_(*(np.flatnonzero(p) for p in parts))
    out = np.full((3, coverage.shape[0]), math.nan)
    for j in range(coverage.shape[0]):
        block, count = coverage[j, key[0]][index], reps[j, key[0]][index]
        if np.isnan(block).any() or (count < MIN_REPS).any() or banned[j, key[0]][index].any():
            continue
        floor = level - COVERAGE_SLACK - 2.0 * np.sqrt(level * (1.0 - level) / count)
        step = int(steps[j, key[0]][index].max())
        out[:, j] = float(np.min(block - floor)), float(np.min(block)), step
    return out


def _table_columns(table: dict[str, np.ndarray], target: str) -> tuple[np.ndarray, ...]:
    """coverage, reps, banned and level steps of :data:`APPROXIMATE` for ``target``.

    Missing methods: NaN coverage; a table without ``banned`` or ``steps`` bans nothing and
    computes ``ppi_pp`` at 95% (:data:`NOMINAL_STEP`).
    """
    t = list(table["targets"]).index(target)
    methods = list(table["methods"])
    shape = (len(APPROXIMATE), *table["coverage"].shape[2:])
    coverage, reps = np.full(shape, np.nan), np.zeros(shape, dtype=np.int64)
    banned, steps = np.zeros(shape, dtype=bool), np.full(shape, NOMINAL_STEP, dtype=np.int64)
    for j, name in enumerate(APPROXIMATE):
        if name in methods:
            i = methods.index(name)
            coverage[j], reps[j] = table["coverage"][t, i], table["reps"][t, i]
            if "banned" in table:
                banned[j] = table["banned"][t, i]
            if "steps" in table:
                steps[j] = table["steps"][t, i]
    return coverage, reps, banned, steps


class RegimeCoverage(NamedTuple):
    """What the table says of each approximate candidate over each dataset's regime.

    Arrays (datasets, len(:data:`APPROXIMATE`)); NaN outside the table, at levels other than
    95%, and where the regime holds a banned cell.
    """

    #: The smallest excess of a cell's coverage over its threshold c_min (eligible where >= 0).
    margin: np.ndarray
    #: The smallest coverage.
    raw: np.ndarray
    #: The largest level step (an index into :data:`LEVEL_STEPS`).
    step: np.ndarray


def random_regime_coverage(
    counts: tuple[Any, ...],
    level: float,
    target: str,
    *,
    table: dict[str, np.ndarray] | None = None,
) -> RegimeCoverage:
    """Each approximate candidate's worst table coverage and level step over each regime.

    See :class:`RegimeCoverage` and the module docstring (steps 1-3). ``table`` defaults to
    :func:`random_coverage_table` (the benchmark passes the one it is building).
    """
    arrays = _broadcast_counts(counts)
    size = arrays[0].size
    out = np.full((3, size, len(APPROXIMATE)), np.nan)
    if abs(level - 0.95) > 1e-12 or size == 0:
        return RegimeCoverage(*out)
    table = random_coverage_table() if table is None else table
    columns = _table_columns(table, target)
    keys = _features(arrays, table)
    # one integer per distinct regime: the mask bits, then the m index (-1 = outside)
    packed = keys[:, 1:] @ (1 << np.arange(keys.shape[1] - 1, dtype=np.int64))
    packed = packed * 64 + keys[:, 0] + 1
    _, first, inverse = np.unique(packed, return_index=True, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(first.size + 1))
    for u, row in enumerate(first):
        if keys[row, 0] < 0:
            continue
        rows = order[bounds[u] : bounds[u + 1]]
        out[:, rows] = _worst(keys[row], columns, level)[:, None, :]
    return RegimeCoverage(*out)


def _widths(
    intervals: dict[str, tuple[Any, Any]], names: tuple[str, ...], size: int, allowed: np.ndarray
) -> np.ndarray:
    """(datasets, names): width where the candidate is present, finite and ``allowed``, else inf.

    A zero width is allowed only where the truth is known (:func:`truth_known`).
    """
    widths = np.full((size, len(names)), np.inf)
    for j, name in enumerate(names):
        if name not in intervals:
            continue
        low, high = (np.broadcast_to(np.asarray(a, dtype=float), (size,)) for a in intervals[name])
        with np.errstate(invalid="ignore"):
            width = high - low
            ok = allowed[:, j] & np.isfinite(low) & np.isfinite(high) & (width >= 0)
        widths[:, j] = np.where(ok, width, np.inf)
    return widths


class RandomPick(NamedTuple):
    """The rule's pick for many datasets (:func:`choose_random`); arrays over the datasets."""

    #: An index into :data:`CHOICES`.
    choice: np.ndarray
    #: The chosen candidate's worst table coverage over the regime; NaN for an exact pick and
    #: for ``ppi_pp`` at a level other than ``level`` (the table measured the rule's pick
    #: there, not it).
    coverage: np.ndarray
    #: The chosen interval: the candidate's as given, or ``ppi_pp`` at its regime's level.
    low: np.ndarray
    high: np.ndarray
    #: The confidence level the chosen interval is computed at (``level``, or the
    #: :data:`LEVEL_STEPS` value its regime's step sets for ``ppi_pp``).
    computed_at: np.ndarray


def choose_random(
    counts: tuple[Any, ...],
    intervals: dict[str, tuple[Any, Any]],
    level: float,
    target: str,
    *,
    table: dict[str, np.ndarray] | None = None,
) -> RandomPick:
    """The rule of the module docstring for many datasets.

    ``intervals`` maps candidate names (at least :data:`EXACT`) to (low, high) arrays at
    ``level``. The exact pick is the narrowest of :data:`EXACT_CANDIDATES` present with finite
    limits and a positive width (zero only where :func:`truth_known`; else :data:`EXACT`, and
    where that has zero width too, :data:`WIDEST_EXACT`, which is zero-width only where no total
    but the observed one passes its test). An approximate candidate replaces it where it is
    eligible in the table, has a positive width and is at least :data:`PICK_MARGIN` narrower;
    ``ppi_pp`` is compared, and returned, at the level its regime's step sets.
    """
    from judgestats.designs.labels_only import check_target

    target = check_target(target)
    counts = _broadcast_counts(counts)
    size = counts[0].size
    known = truth_known(counts, target)[:, None]
    exact = _widths(intervals, EXACT_CANDIDATES, size, np.ones((size, 2), dtype=bool))
    exact[:, 1:] = np.where(known | (exact[:, 1:] > 0), exact[:, 1:], np.inf)  # Blaker: last
    exact_best = np.argmin(exact, axis=1)
    rows = np.arange(size)
    exact_width = exact[rows, exact_best]
    if WIDEST_EXACT in intervals:  # Blaker's can be zero-width (items, n tiny): Clopper-Pearson
        cp = _widths(intervals, (WIDEST_EXACT,), size, np.ones((size, 1), dtype=bool))[:, 0]
        zero = (exact_width == 0) & ~known[:, 0] & np.isfinite(cp)
        exact_best = np.where(zero, len(EXACT_CANDIDATES), exact_best)
        exact_width = np.where(zero, cp, exact_width)
    regime = random_regime_coverage(counts, level, target, table=table)
    step, compared, offered = ppi_offers(
        counts, regime.step[:, APPROXIMATE.index("ppi_pp")], target, intervals
    )
    with np.errstate(invalid="ignore"):
        eligible = regime.margin >= 0.0
    widths = _widths(compared, APPROXIMATE, size, eligible)
    widths = np.where(widths > 0, widths, np.inf)  # never a zero-width approximate interval
    best = np.argmin(widths, axis=1)
    picked = widths[rows, best] <= (1.0 - PICK_MARGIN) * exact_width
    choice = np.where(picked, best, len(APPROXIMATE) + exact_best)
    low, high = np.full(size, np.nan), np.full(size, np.nan)
    for j, name in enumerate(CHOICES):
        if name in offered and (choice == j).any():
            given_low, given_high = (np.asarray(a, dtype=float) for a in offered[name])
            low = np.where(choice == j, given_low, low)
            high = np.where(choice == j, given_high, high)
    ppi = choice == CHOICES.index("ppi_pp")
    computed_at = np.where(ppi, np.asarray(LEVEL_STEPS)[step], level)
    # a pick at another level: its coverage is the rule's (module docstring, step 2)
    worst = np.where(picked & (computed_at == level), regime.raw[rows, best], np.nan)
    return RandomPick(choice, worst, low, high, computed_at)


def _user_values(data: JudgeData, target: str) -> str:
    from judgestats.designs.labels_only import describe_target

    what = describe_target(target, data.n + data.m)
    judge = (
        f"a judge with q0-hat {data.q0:.2f}, q1-hat {data.q1:.2f} (J-hat {data.youden:.2f})"
        if not data.one_class
        else "a judge measured on one true class only"
    )
    return (
        f"for {what}, with {data.m} labelled item{'s' * (data.m != 1)} ({data.m1} correct), "
        f"{data.n} unlabelled item{'s' * (data.n != 1)} and {judge}"
    )


def _outside_table(data: JudgeData, level: float) -> str | None:
    """Why the coverage table says nothing about these data (None where it applies)."""
    table = random_coverage_table()
    m_min, n_min = int(table["m"][0]), int(table["n"][0])
    if abs(level - 0.95) > 1e-12:
        return (
            f"the coverage table is simulated at the 95% level only, so at {fmt_percent(level)} "
            "no interval that uses the judge has a measured coverage"
        )
    if data.m < m_min or data.n < n_min:
        return (
            f"the coverage table starts at {m_min} labelled and {n_min} unlabelled items, so "
            "here no interval that uses the judge has a measured coverage"
        )
    return None


def _exact_reason(name: str, values: str, data: JudgeData, level: float, target: str) -> str:
    every = "number of correct items" if target == "items" else "accuracy"
    outside = _outside_table(data, level)
    why = (
        outside
        if outside is not None
        else "the judge adds no information here beyond the labels (no interval that uses it "
        "is known to cover in this regime and is at least 5% narrower)"
    )
    if name == EXACT:
        return (
            f"{values}: {why}; this interval comes from the {data.m} labelled items alone "
            f"(Blaker's exact interval: coverage at least {fmt_percent(level)} for every "
            f"{every}, by construction)."
        )
    if name == BOUNDS:
        return (
            f"{values}: every exact interval from the labels is a single point here, and the "
            "truth is not known, so the interval is every share the unlabelled items allow, "
            f"from all of them incorrect to all of them correct (coverage 100%); {why}."
        )
    return (
        f"{values}: the {METHOD_LABELS[name]} interval is the narrowest of the intervals that "
        f"cover by construction (at least {fmt_percent(level)} for every {every}); {why}."
    )


def recommend_random(
    data: JudgeData,
    level: float,
    candidates: dict[str, Triple],
    *,
    target: str = "population",
) -> Recommendation:
    """Apply the rule of the module docstring to one random-design dataset.

    ``candidates`` maps names of :func:`judgestats.random_design_candidates` to (estimate, low,
    high) for ``target`` (a ``guaranteed_judge`` key is ignored: step 3). The class-balance
    switch is made by the caller (:func:`judgestats.crosscheck`), which holds the stratified
    candidates. Below 95%, where the table says nothing, the 95% pick is reported instead where
    it uses the judge and is narrower (:func:`_from_95`). Where every exact interval is one
    point and the truth is unknown (items target, one or two unlabelled items), the interval is
    every share the unlabelled items allow (``labels_only_bounds``).
    """
    counts = (data.k, data.n, data.k0, data.m0, data.k1, data.m1)
    intervals = {name: (value[1], value[2]) for name, value in candidates.items()}
    pick = choose_random(counts, intervals, level, target)
    name = CHOICES[int(pick.choice[0])]
    values = _user_values(data, target)
    estimate, low, high = candidates[name]
    if name in APPROXIMATE:
        low, high = float(pick.low[0]), float(pick.high[0])
        return Recommendation(
            float(np.clip(estimate, low, high)), low, high, name, level,
            _approximate_reason(name, values, data, float(pick.coverage[0]),
                                float(pick.computed_at[0]), level),
            coverage=None if np.isnan(pick.coverage[0]) else float(pick.coverage[0]),
            target=target,
        )  # fmt: skip
    if level < 0.95:
        wider = _from_95(data, level, high - low, values, target)
        if wider is not None:
            return wider
    if high == low and not bool(truth_known(counts, target)[0]):
        evaluated = data.n + data.m
        name, low, high = BOUNDS, data.m1 / evaluated, (data.m1 + data.n) / evaluated
    reason = _exact_reason(name, values, data, level, target)
    return Recommendation(
        float(estimate), float(low), float(high), name, level, reason, target=target
    )


def _approximate_reason(
    name: str, values: str, data: JudgeData, worst: float, computed_at: float, level: float
) -> str:
    """The reason for a pick of an approximate candidate, at ``level`` or at its regime's level."""
    label = METHOD_LABELS[name]
    if computed_at < level:
        how = (
            f"in simulations of every cell of this regime the small-sample correction of the "
            f"{label} interval was conservative, so it is computed at the "
            f"{fmt_percent(computed_at)} level here, with which the recommended interval's "
            f"simulated coverage was at least {TUNED_COVERAGE:.1%} in every cell"
        )
    elif computed_at > level:
        how = (
            f"in simulations of this regime the {fmt_percent(level)} {label} interval fell "
            f"short of {fmt_percent(level)} coverage in some cells where this rule picked it, so "
            f"it is computed at the {fmt_percent(computed_at)} level here, with which the "
            f"recommended interval's simulated coverage was at least {TUNED_COVERAGE:.1%} in "
            "every cell"
        )
    else:
        how = f"in simulations of this regime the {label} interval covered at least {worst:.1%}"
        how += " of the time in every cell"
    return (
        f"{values}: {how}, and it is narrower than the exact interval from the {data.m} "
        "labelled items alone (by at least 5%)."
    )


def _from_95(
    data: JudgeData, level: float, exact_width: float, values: str, target: str
) -> Recommendation | None:
    """The 95% pick as the interval at ``level`` < 95%, where it uses the judge and is narrower.

    An interval whose coverage is at least 95% in every cell of the regime covers at least any
    lower level there too: conservative, but never wider than what the table cannot vouch for.
    """
    from judgestats.designs.random_candidates import count_candidates

    counts = (data.k, data.n, data.k0, data.m0, data.k1, data.m1)
    found = count_candidates(*counts, target=target, level=0.95)
    at95 = recommend_random(data, 0.95, found, target=target)
    if at95.method not in APPROXIMATE or at95.high - at95.low >= exact_width:
        return None
    label = METHOD_LABELS[at95.method]
    # coverage None: PPI++ at a level set by the tuning, where the table vouches for the pick
    covered = (
        f"the {label} 95% interval covered at least {at95.coverage:.1%} in every cell of this "
        "regime"
        if at95.coverage is not None
        else f"the rule's 95% pick, the {label} interval at a level set by simulation, had a "
        f"simulated coverage of at least {TUNED_COVERAGE:.1%} in every cell of this regime"
    )
    reason = (
        f"{values}: the coverage table is simulated at the 95% level only; in it {covered}, so "
        f"it covers at least {fmt_percent(level)} too, and it is narrower than the "
        f"{fmt_percent(level)} exact interval from the labels alone: it is reported as the "
        f"{fmt_percent(level)} interval (conservative)."
    )
    return dataclasses.replace(at95, level=level, reason=reason)
