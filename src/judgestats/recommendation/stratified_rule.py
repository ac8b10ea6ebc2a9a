"""The stratified rule: the narrowest interval that measurably covers at the data's regime.

The cross-check computes several intervals; which one covers depends on the regime (arm sizes,
test size, the judge, the accuracy). The coverage table (``datasets/coverage_table.npz``, made by
``python benchmarks/coverage_table.py``) holds each interval's coverage over a regime grid:
exact for Lang-Reiczigel, 2,000 replications per cell for the posterior intervals, 20,000 for
PPI++ under the random design. The rule:

1. **The regime.** Arms: the atlas pair (m0', m1') with m0' <= m0 and m1' <= m1 and the most
   items in the smaller arm (the lookup errs towards small calibration). Test size: the atlas
   sizes bracketing n. Judge: every atlas value of q0 (and of q1) inside the 95% Clopper-Pearson
   interval of its arm, plus the value nearest the estimate. Accuracy: every atlas value of
   theta = (p + q0 - 1) / (q0 + q1 - 1) over the box of 95% Clopper-Pearson intervals for p, q0
   and q1 (all of [0, 1] when the box holds a judge no better than chance), plus the interior
   values bracketing that range; 0 and 1 only when the range reaches them. The lookup uses the
   counts only, so a coverage study can apply the rule without computing any interval first.
   The data are outside the atlas when an arm has fewer than 5 items, n < 50, the level is not
   95%, or a Clopper-Pearson interval reaches below q = 0.55 (a judge that may be close to
   chance).
2. **Eligible intervals.** Those whose *smallest* table coverage over the regime's cells, less
   two Monte Carlo standard errors (none for the exact Lang-Reiczigel column), is at least the
   level. Lang-Reiczigel is not eligible when it has no answer (J-hat <= 0). An interval of
   zero width (Lang-Reiczigel's (0, 0) when k = 0 clips the estimate) is never eligible,
   whatever its table coverage (earned on the cell's other datasets): it states no uncertainty
   about the accuracy; the reason names it. Conflicts that the posterior flags are named in the
   reason but change nothing (the table's simulations hold such datasets in their
   proportion). With a random labelled sample the candidates are Lang-Reiczigel (computed given
   the realised arms, where the stratified table applies) and PPI++.
3. **The pick.** The narrowest eligible interval on these data. If none is eligible, the
   guaranteed interval (:func:`judgestats.guaranteed_ci`: coverage at least the level for every
   accuracy and judge, by construction, over all datasets), widened where necessary to contain
   the Lang-Reiczigel interval.

Why the widening. A superset of the guaranteed interval covers whenever it does, so the
interval keeps its guarantee. Without the widening the choice itself costs coverage: the
datasets that fall back are those whose calibration looks unusual for their cell, and on those
the guaranteed interval can miss more often than Lang-Reiczigel (the guarantee holds over all
datasets, not over those that fall back). In one cell (100 per arm, n = 100,000, q0 = 0.7,
q1 = 0.99, theta = 0.5) Lang-Reiczigel covers 95.16% (exact), 16% of the datasets fall back,
the guaranteed interval covers 89% of those, and the rule without the widening covers
94.50% (Monte Carlo se 0.11%; 94.42% in the mirror-image cell), 0.7 points less. With the
widening, a dataset that falls back is covered whenever Lang-Reiczigel or the guaranteed
interval covers it. So in the stratified design, wherever the rule picks only between
Lang-Reiczigel and the fallback, the recommended interval covers at least as often as
Lang-Reiczigel. Where a posterior interval or PPI++ is picked, its coverage rests on the table's
simulations instead. ``benchmarks/recommendation_coverage.py`` measures the recommended interval
on the whole grid: at least 0.950 in every one of the 2,160 cells (``--plain`` for the rule
without the widening).

The rule never raises: where the closed form has no answer the recommendation is a posterior
interval or the guaranteed one, with the reason.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources

import numpy as np
from numpy.typing import ArrayLike

from judgestats._html import fmt_percent
from judgestats.data import JudgeData
from judgestats.recommendation.result import METHOD_LABELS, Recommendation

__all__ = [
    "CANDIDATES",
    "METHOD_LABELS",
    "Recommendation",
    "choose",
    "coverage_table",
    "eligible",
    "recommend",
    "regime_coverage",
    "widen",
]

#: The smallest q the atlas covers: a Clopper-Pearson interval below it leaves the atlas.
_Q_FLOOR_TOL = 1e-9


@functools.lru_cache(maxsize=1)
def coverage_table() -> dict[str, np.ndarray]:
    """The coverage table (see the module docstring and ``benchmarks/coverage_table.py``).

    Keys: ``methods``, ``arms`` (m0, m1 pairs), ``n``, ``q``, ``theta``, ``coverage`` and
    ``width_median`` (method, arms, n, q0, q1, theta), ``reps``, ``random_m``, ``ppi_coverage``
    and ``ppi_width`` (random m, n, q0, q1, theta), ``ppi_reps``, ``level``.
    """
    path = resources.files("judgestats.datasets").joinpath("coverage_table.npz")
    with path.open("rb") as handle, np.load(handle) as table:
        return {name: table[name] for name in table.files}


# ---------------------------------------------------------------------------------------------
# the regime of a dataset: index sets into the table
# ---------------------------------------------------------------------------------------------
def _bracket(value: float, grid: np.ndarray) -> np.ndarray | None:
    """Indices of the grid values bracketing ``value`` (one if it is on the grid)."""
    if value < grid[0]:
        return None
    below = np.flatnonzero(grid <= value)
    above = np.flatnonzero(grid >= value)
    index = {int(below[-1])} | ({int(above[0])} if above.size else set())
    return np.array(sorted(index))


def _plausible_rates(k: int, m: int, grid: np.ndarray) -> np.ndarray | None:
    """Grid rates inside the 95% Clopper-Pearson interval of k/m, plus the nearest to k/m."""
    from judgestats.guaranteed import clopper_pearson

    low, high = (float(v) for v in clopper_pearson(k, m, 0.95))
    if low < grid[0] - _Q_FLOOR_TOL:
        return None
    inside = set(np.flatnonzero((grid >= low) & (grid <= high)).tolist())
    inside.add(int(np.argmin(np.abs(grid - k / m))))
    return np.array(sorted(inside))


def plausible_accuracy_range(counts: tuple[ArrayLike, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Accuracies near the data: theta over the box of 95% Clopper-Pearson intervals.

    theta = (p + q0 - 1) / (q0 + q1 - 1) at the box's corners for p, q0 and q1 (arrays); [0, 1]
    where the box holds a judge no better than chance. Cheap and conservative: it decides which
    accuracies of the coverage table count as near the data.
    """
    from judgestats.guaranteed import clopper_pearson

    k, n, k0, m0, k1, m1 = (np.atleast_1d(np.asarray(c, dtype=float)) for c in counts)
    (p_lo, p_hi), (a_lo, a_hi), (b_lo, b_hi) = (
        clopper_pearson(k, n, 0.95),
        clopper_pearson(k0, m0, 0.95),
        clopper_pearson(k1, m1, 0.95),
    )
    from judgestats._closed_form import rogan_gladen_box

    return rogan_gladen_box((p_lo, p_hi), (a_lo, a_hi), (b_lo, b_hi))


def accuracy_mask(low: np.ndarray, high: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Plausible grid accuracies for intervals [low, high] (arrays): shape (datasets, grid).

    The grid values inside the interval, the interior values bracketing it (0 and 1 only when
    the interval reaches them).
    """
    low, high = np.atleast_1d(low)[:, None], np.atleast_1d(high)[:, None]
    mask = (grid >= low) & (grid <= high)
    interior = (grid > 0.0) & (grid < 1.0)
    values = np.where(interior, grid, np.nan)
    with np.errstate(invalid="ignore"):
        below = np.where(interior & (grid <= low), grid, -np.inf).max(axis=1, keepdims=True)
        above = np.where(interior & (grid >= high), grid, np.inf).min(axis=1, keepdims=True)
    below = np.where(np.isinf(below), np.nanmin(values), below)
    above = np.where(np.isinf(above), np.nanmax(values), above)
    mask |= (grid == below) | (grid == above)
    mask &= interior | ((grid == 0.0) & (low <= 0.0)) | ((grid == 1.0) & (high >= 1.0))
    return mask


def _atlas_arms(m0: int, m1: int, arms: np.ndarray) -> int | None:
    """Index of the atlas arm pair not above (m0, m1) with the largest smaller arm."""
    fits = np.flatnonzero((arms[:, 0] <= m0) & (arms[:, 1] <= m1))
    if fits.size == 0:
        return None
    score = np.minimum(arms[fits, 0], arms[fits, 1]) * 1e6 + arms[fits].sum(axis=1)
    return int(fits[np.argmax(score)])


@dataclass(frozen=True)
class Regime:
    """Where a dataset sits in the coverage table (index arrays), with a description."""

    arms: int
    n: np.ndarray
    q0: np.ndarray
    q1: np.ndarray
    theta: np.ndarray
    text: str
    random_design: bool

    def worst(self, method: str) -> float:
        """Smallest coverage of ``method`` over the regime's cells (NaN if not tabulated)."""
        table = coverage_table()
        if method == "ppi_pp":
            if not self.random_design:
                return math.nan
            coverage = table["ppi_coverage"]
        else:
            coverage = table["coverage"][list(table["methods"]).index(method)]
        block = coverage[self.arms][np.ix_(self.n, self.q0, self.q1, self.theta)]
        return float(np.min(block)) if not np.isnan(block).any() else math.nan


def regime(
    counts: tuple[int, ...], theta_mask: np.ndarray, *, random_design: bool = False
) -> Regime | str:
    """The table cells of one dataset ``(k, n, k0, m0, k1, m1)``, or why it is outside."""
    _, n, k0, m0, k1, m1 = counts
    table = coverage_table()
    q, theta = table["q"], table["theta"]
    if random_design:
        sizes = table["random_m"]
        fits = np.flatnonzero(sizes <= m0 + m1)
        if fits.size == 0:
            return (
                f"the labelled sample has {m0 + m1} items, fewer than the coverage table's "
                f"smallest ({sizes[0]})"
            )
        arms = int(fits[-1])
        arm_text = f"m = {sizes[arms]} labelled at random"
    else:
        index = _atlas_arms(m0, m1, table["arms"])
        if index is None:
            return (
                f"a calibration arm has fewer items (m0 = {m0}, m1 = {m1}) than the coverage "
                f"table's smallest ({int(table['arms'].min())})"
            )
        arms = index
        arm_text = f"m0 = {table['arms'][arms][0]}, m1 = {table['arms'][arms][1]}"
    n_index = _bracket(n, table["n"].astype(float))
    if n_index is None:
        return f"the test set (n = {n}) is smaller than the coverage table's ({table['n'][0]})"
    if m0 == 0 or m1 == 0:
        return "the labelled sample holds one true class only"
    q0 = _plausible_rates(k0, m0, q)
    q1 = _plausible_rates(k1, m1, q)
    if q0 is None or q1 is None:
        names = [
            name
            for name, value in (("specificity q0", q0), ("sensitivity q1", q1))
            if value is None
        ]
        return (
            f"the calibration allows a {' and a '.join(names)} below {q[0]:g} (95% "
            "Clopper-Pearson), a judge that may be close to chance, where the coverage "
            "table has no cells"
        )
    t = np.flatnonzero(theta_mask)

    def span(values: np.ndarray) -> str:
        return f"{values[0]:g}" if values.size == 1 else f"{values[0]:g}-{values[-1]:g}"

    text = (
        f"{arm_text}, n {span(table['n'][n_index])}, q0 {span(q[q0])}, q1 {span(q[q1])}, "
        f"theta {span(theta[t])}"
    )
    return Regime(arms, n_index, q0, q1, t, text, random_design)


# ---------------------------------------------------------------------------------------------
# the rule
# ---------------------------------------------------------------------------------------------
def monte_carlo_error(coverage: np.ndarray) -> np.ndarray:
    """Monte Carlo standard error of table coverages (columns of :data:`CANDIDATES`).

    sqrt(c (1 - c) / reps) for the simulated columns; 0 for the exact Lang-Reiczigel column.
    """
    table = coverage_table()
    reps = dict(zip(table["methods"].tolist(), table["reps"].tolist(), strict=True))
    reps["ppi_pp"] = int(table["ppi_reps"])
    count = np.array([reps.get(m, 0) for m in CANDIDATES], dtype=float)
    coverage = np.asarray(coverage, dtype=float)
    with np.errstate(invalid="ignore"):
        variance = np.clip(coverage * (1 - coverage), 0, None) / np.maximum(count, 1)
    return np.where(count > 0, np.sqrt(variance), 0.0)


#: The approximate intervals the rule can pick, in the order of the columns of :func:`choose`.
CANDIDATES = ("lang_reiczigel", "bayes_eti", "bayes_hdi", "ppi_pp")


def regime_coverage(
    counts: tuple[ArrayLike, ...], level: float, *, random_design: bool = False
) -> np.ndarray:
    """Each candidate's smallest table coverage over each dataset's regime.

    Returns an array (datasets, len(:data:`CANDIDATES`)); NaN where the dataset lies outside
    the table, for candidates the design does not allow, and for levels other than 95%.
    """
    arrays = tuple(np.atleast_1d(np.asarray(c, dtype=np.int64)) for c in counts)
    out = np.full((arrays[0].size, len(CANDIDATES)), np.nan)
    if abs(level - 0.95) > 1e-12 or arrays[0].size == 0:
        return out
    allowed = ("lang_reiczigel", "ppi_pp") if random_design else CANDIDATES[:3]
    table = coverage_table()
    low, high = plausible_accuracy_range(arrays)
    mask = accuracy_mask(low, high, table["theta"])
    keys = np.column_stack([np.stack(arrays[1:], axis=1), mask])
    unique, inverse = np.unique(keys, axis=0, return_inverse=True)
    coverage = np.full((unique.shape[0], len(CANDIDATES)), np.nan)
    for u, key in enumerate(unique):
        where = regime((0, *key[:5].tolist()), key[5:].astype(bool), random_design=random_design)
        if isinstance(where, Regime):
            coverage[u] = [where.worst(m) if m in allowed else np.nan for m in CANDIDATES]
    return coverage[inverse.ravel()]


def eligible(coverage: np.ndarray, level: float) -> np.ndarray:
    """Candidates whose table coverage less two Monte Carlo errors reaches ``level``."""
    with np.errstate(invalid="ignore"):
        return coverage - 2.0 * monte_carlo_error(coverage) >= level


def choose(
    counts: tuple[ArrayLike, ...],
    intervals: Mapping[str, tuple[ArrayLike, ArrayLike]],
    level: float,
    *,
    random_design: bool = False,
    coverage: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The rule for many datasets at once (the cross-check calls it with one).

    Parameters
    ----------
    counts : tuple of arrays
        k, n, k0, m0, k1, m1 (equal length).
    intervals : dict
        Key of :data:`CANDIDATES` -> (low, high) arrays; NaN where the interval does not exist.
        Missing keys are not candidates; nor is an interval of zero width (high <= low), which
        states no uncertainty at all, whatever its table coverage.
    level : float
    random_design : bool
    coverage : ndarray, optional
        :func:`regime_coverage` of these counts, if already computed.

    Returns
    -------
    choice : ndarray of int
        Index into :data:`CANDIDATES`, or -1 for the guaranteed interval.
    coverage : ndarray
        The chosen interval's smallest table coverage over its regime (NaN for -1).
    """
    arrays = tuple(np.atleast_1d(np.asarray(c, dtype=np.int64)) for c in counts)
    size = arrays[0].size
    lows = np.full((size, len(CANDIDATES)), np.nan)
    highs = np.full((size, len(CANDIDATES)), np.nan)
    for j, key in enumerate(CANDIDATES):
        if key in intervals:
            lows[:, j], highs[:, j] = (
                np.atleast_1d(np.asarray(a, dtype=float)) for a in intervals[key]
            )
    if coverage is None:
        coverage = regime_coverage(arrays, level, random_design=random_design)
    with np.errstate(invalid="ignore"):  # a zero-width interval is never recommended
        ok = eligible(coverage, level) & np.isfinite(lows) & (highs > lows)
    width = np.where(ok, highs - lows, np.inf)
    best = np.argmin(width, axis=1)
    rows = np.arange(size)
    picked = np.isfinite(width[rows, best])
    choice = np.where(picked, best, -1)
    worst = np.where(picked, coverage[rows, best], np.nan)
    return choice, worst


def _notes(no_closed_form: str | None, conflicts: tuple[str, ...]) -> list[str]:
    """Clauses the reason adds after the pick: no closed form, conflicting data."""
    notes = []
    if no_closed_form:
        notes.append(
            "the Rogan-Gladen estimate and Lang-Reiczigel interval have no answer here "
            "(see the no_closed_form note)"
        )
    if conflicts:
        notes.append(
            "the posterior flags a conflict in the data ("
            + ", ".join(conflicts)
            + "): check the calibration labels and that both sets come from one "
            "population"
        )
    return notes


def _zero_width(
    candidates: Mapping[str, tuple[float, float, float]], usable: np.ndarray
) -> tuple[list[str], str | None]:
    """Candidates eligible by coverage but of zero width, and the clause that says why they lose.

    A zero-width interval (high <= low, e.g. Lang-Reiczigel's (0, 0) when k = 0 and the
    Rogan-Gladen estimate is clipped) states no uncertainty; it may cover in simulations only
    because the true accuracy sits on the bound, and is never recommended.
    """
    keys = [
        key
        for j, key in enumerate(CANDIDATES)
        if usable[j]
        and key in candidates
        and all(math.isfinite(v) for v in candidates[key])
        and candidates[key][2] <= candidates[key][1]
    ]
    if not keys:
        return keys, None
    shown = ", ".join(
        f"the {METHOD_LABELS[key]} interval ({candidates[key][1]:.4f}, {candidates[key][2]:.4f})"
        for key in keys
    )
    return keys, (
        f"{shown} covered often enough in simulations but {'has' if len(keys) == 1 else 'have'} "
        "zero width, and a zero-width interval is never recommended: it states no uncertainty "
        "about the accuracy at all"
    )


def recommend(
    data: JudgeData,
    level: float,
    candidates: dict[str, tuple[float, float, float]],
    *,
    conflicts: tuple[str, ...] = (),
    no_closed_form: str | None = None,
    fallback_estimate: float | None = None,
) -> Recommendation:
    """Apply the rule of the module docstring to one dataset.

    Parameters
    ----------
    data : JudgeData
    level : float
    candidates : dict
        Key of :data:`CANDIDATES` -> (estimate, low, high) of the intervals already computed
        (NaN where a method has no answer).
    conflicts : tuple of str
        Posterior flags that say the data conflict; named in the reason (the pick rests on the
        coverage table, which already holds such datasets in their proportion).
    no_closed_form : str, optional
        Why Lang-Reiczigel has no answer (named in the reason).
    fallback_estimate : float, optional
        Point estimate to report with the guaranteed interval where the Rogan-Gladen estimate
        is undefined (the posterior median); it is clipped into the interval.
    """
    random_design = getattr(data, "design", "stratified") == "random"
    counts = (data.k, data.n, data.k0, data.m0, data.k1, data.m1)
    intervals = {key: (value[1], value[2]) for key, value in candidates.items()}
    coverage = regime_coverage(counts, level, random_design=random_design)
    choice, worst = choose(counts, intervals, level, random_design=random_design, coverage=coverage)
    usable = eligible(coverage, level)[0]
    zero, zero_note = _zero_width(candidates, usable)
    notes = ([zero_note] if zero_note else []) + _notes(no_closed_form, conflicts)
    mask = accuracy_mask(*plausible_accuracy_range(counts), coverage_table()["theta"])[0]
    if abs(level - 0.95) > 1e-12:
        where: Regime | str = f"the coverage table is for 95% intervals, not {fmt_percent(level)}"
    else:
        where = regime(counts, mask, random_design=random_design)
    if choice[0] >= 0:
        best = CANDIDATES[int(choice[0])]
        estimate, low, high = candidates[best]
        count = sum(
            1
            for j, key in enumerate(CANDIDATES)
            if usable[j]
            and key in candidates
            and key not in zero
            and all(math.isfinite(v) for v in candidates[key])
        )
        others = "" if count <= 1 else f", the narrowest of the {count} that did"
        text = where.text if isinstance(where, Regime) else where
        reason = (
            f"{your_values(data)}; in the nearby simulated regimes ({text}) the "
            f"{METHOD_LABELS[best]} "
            f"interval covered the true accuracy at least {worst[0]:.1%} of the time in "
            f"every cell{others}"
        )
        if notes:
            reason += "; " + "; ".join(notes)
        return Recommendation(
            float(estimate),
            float(low),
            float(high),
            best,
            level,
            reason + ".",
            coverage=float(worst[0]),
        )
    lang_reiczigel = candidates.get("lang_reiczigel")
    return _guaranteed(
        data, level, where, notes, fallback_estimate, lang_reiczigel, zero_width=bool(zero)
    )


def widen(
    low: ArrayLike, high: ArrayLike, other_low: ArrayLike, other_high: ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The smallest interval containing [low, high] and, where it exists, [other_low, other_high].

    Returns the new ends and whether anything changed (arrays); a NaN other interval changes
    nothing.
    """
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    other_low = np.asarray(other_low, dtype=float)
    other_high = np.asarray(other_high, dtype=float)
    exists = np.isfinite(other_low) & np.isfinite(other_high)
    new_low = np.where(exists, np.minimum(low, other_low), low)
    new_high = np.where(exists, np.maximum(high, other_high), high)
    return new_low, new_high, (new_low < low) | (new_high > high)


def your_values(data: JudgeData) -> str:
    """The user's own counts and rates, stated first in every reason of the rule."""
    rates = ", ".join(
        f"{name}-hat = {value:.2f}"
        for name, value in (("q0", data.q0), ("q1", data.q1))
        if math.isfinite(value)
    )
    return f"your data: m0 = {data.m0}, m1 = {data.m1}, n = {data.n}" + (
        f", {rates}" if rates else ""
    )


def _guaranteed(
    data: JudgeData,
    level: float,
    where: Regime | str,
    notes: list[str],
    fallback_estimate: float | None,
    lang_reiczigel: tuple[float, float, float] | None,
    *,
    zero_width: bool = False,
) -> Recommendation:
    from judgestats.frequentist import rogan_gladen
    from judgestats.guaranteed import guaranteed_interval

    # the unvalidated entry: the fallback must answer empty arms and judges worse than chance
    low, high = guaranteed_interval(data.k, data.n, data.k0, data.m0, data.k1, data.m1, level)
    widened = False
    if lang_reiczigel is not None:
        new_low, new_high, changed = widen(low, high, lang_reiczigel[1], lang_reiczigel[2])
        low, high, widened = float(new_low), float(new_high), bool(changed)
    estimate_from = None
    if data.m0 > 0 and data.m1 > 0 and data.q0 + data.q1 > 1.0:
        estimate = float(rogan_gladen(data.p, data.q0, data.q1, clip=True))
    elif fallback_estimate is None:
        estimate, estimate_from = 0.5 * (low + high), "midpoint"
    else:
        estimate, estimate_from = fallback_estimate, "posterior median"
    estimate = min(max(estimate, low), high)
    if isinstance(where, Regime) and zero_width:
        why = (
            f"{your_values(data)}; no approximate interval of positive width covered the true "
            f"accuracy at least {fmt_percent(level)} of the time in every nearby simulated cell "
            f"({where.text})"
        )
    elif isinstance(where, Regime):
        why = (
            f"{your_values(data)}; no approximate interval covered the true accuracy at least "
            f"{fmt_percent(level)} of the time in every nearby simulated cell ({where.text})"
        )
    else:
        why = f"{your_values(data)}; these data lie outside the coverage table ({where})"
    reason = (
        f"{why}; the guaranteed interval's coverage is at least {fmt_percent(level)} for "
        "every accuracy and judge, by construction"
    )
    if widened:
        reason += (
            ", and it is widened here to contain the Lang-Reiczigel interval, which "
            "reaches beyond it (a wider interval keeps the guarantee)"
        )
    if estimate_from is not None:
        notes.append(
            f"the point estimate is the {estimate_from}: the Rogan-Gladen estimate does not "
            "exist here (an empty arm, or q0-hat + q1-hat <= 1)"
        )
    if notes:
        reason += "; " + "; ".join(notes)
    return Recommendation(
        estimate, float(low), float(high), "guaranteed", level, reason + ".", widened=widened,
        estimate_from=estimate_from,
    )  # fmt: skip
