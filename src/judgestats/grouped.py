"""Estimates from an items frame: repeated judging clustered by item, and grouped tables.

:func:`estimate_items` is the closed form of :func:`judgestats.estimate` (Rogan-Gladen estimate,
Lang-Reiczigel interval; Lee et al., "How to Correctly Report LLM-as-a-Judge Evaluations",
arXiv 2511.21140 v1, eqs. 4-7) taken straight from the items frame every :mod:`judgestats.io`
reader returns, with two additions the six counts cannot express:

**Repeated judging.** When item ids repeat (Inspect epochs, several samples per prompt) every row
is one judgment and the rows of one id form a cluster. The point estimate uses every row; the
variances are cluster-robust (:mod:`judgestats._cluster`), and the Lang-Reiczigel interval is
evaluated at the *effective* sizes ``n / d_p``, ``m0 / d_q0``, ``m1 / d_q1`` in place of
``n, m0, m1``. Lang-Reiczigel's variance is a sum of binomial variances ``r(1-r)/size``, so
dividing each size by its design effect turns each term into the cluster-robust variance of that
rate, while its Laplace smoothing (eq. 6: ``+1/+2`` pseudo-counts, ``+z^2/2`` on ``n``) is applied
on the same effective scale, as for a binomial count of that size. The public
:func:`~judgestats.lang_reiczigel_ci` validates its sizes as whole counts, so the effective (float)
sizes go to the same formula through its private kernel, which is written for floats. The
posterior does not cluster; :meth:`judgestats.JudgeData.from_items` keeps refusing repeated ids.

**Groups.** ``by="model"`` (or several columns) gives one row per group, with a multiplicity
correction across the groups (:class:`GroupedEstimates`). :func:`crosscheck_items` does the same
for :func:`judgestats.crosscheck` (the closed form and the posterior side by side,
:class:`GroupedCrossChecks`); as the posterior does not cluster, it refuses item ids that repeat
within a group.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from judgestats._cluster import ArmDesign, cluster_totals, ratio_design
from judgestats._validate import check_choice, check_level
from judgestats.data import JudgeData, binary_labels, check_design, items_source
from judgestats.exceptions import JudgeStatsWarning
from judgestats.frequentist import (
    SMALL_CALIBRATION,
    Estimate,
    estimate,
    lang_reiczigel_at_z,
    lang_reiczigel_formula,
    normal_quantile,
    rogan_gladen,
)
from judgestats.results import FLAG_MESSAGES, ConfidenceInterval, Result, forest_plot

if TYPE_CHECKING:  # pragma: no cover
    from typing import Unpack

    import pandas as pd
    from matplotlib.axes import Axes

    from judgestats._typing import PosteriorOptions, SeedLike
    from judgestats.bayes.priors import Prior
    from judgestats.crosschecking import CrossCheck

__all__ = [
    "CORRECTIONS",
    "ClusteredEstimate",
    "GroupCrossCheck",
    "GroupRow",
    "GroupedCrossChecks",
    "GroupedEstimates",
    "adjust_p_values",
    "crosscheck_items",
    "estimate_items",
    "lang_reiczigel_p_value",
]

#: Multiplicity corrections across groups.
CORRECTIONS = ("holm", "bonferroni", "none")

_ITEM_COLUMNS = ("id", "judge", "human")


# ---- the clustered closed form ----------------------------------------------------------------
@dataclass(frozen=True)
class ClusteredEstimate(Estimate):
    """The closed form on repeatedly judged items: an :class:`~judgestats.Estimate` plus the design.

    ``data`` counts judgments (rows), not items; ``naive_ci`` and ``ci`` use the effective sizes
    (see :mod:`judgestats.grouped`).

    Attributes
    ----------
    items : int
        Distinct item ids (clusters) in the frame.
    clusters : tuple of int
        Clusters with rows in the test arm, the class-0 and the class-1 calibration arms.
    design_effects : tuple of float
        Design effects of p-hat, q0-hat and q1-hat (each >= 1; :mod:`judgestats._cluster`).
    """

    title: ClassVar[str] = "judgestats estimate (clustered by item id)"

    items: int = 0
    clusters: tuple[int, int, int] = (0, 0, 0)
    design_effects: tuple[float, float, float] = (1.0, 1.0, 1.0)
    method: str = "rogan_gladen+lang_reiczigel (clustered by item id)"

    @property
    def effective_sizes(self) -> tuple[float, float, float]:
        """(n, m0, m1) divided by their design effects."""
        d = self.data
        return (
            d.n / self.design_effects[0],
            d.m0 / self.design_effects[1],
            d.m1 / self.design_effects[2],
        )

    def _design_line(self) -> str:
        effects = ", ".join(
            f"{name} {value:.2f}"
            for name, value in zip(("p", "q0", "q1"), self.design_effects, strict=True)
        )
        sizes = ", ".join(
            f"{name} {value:.1f}"
            for name, value in zip(("n", "m0", "m1"), self.effective_sizes, strict=True)
        )
        d = self.data
        return (
            f"{d.n + d.m} judgments of {self.items} items; design effects {effects}; "
            f"effective sizes {sizes}"
        )

    @property
    def flag_messages(self) -> list[str]:
        """The flags as sentences; ``clustered`` names the design effects."""
        return [
            FLAG_MESSAGES[flag] + (f" ({self._design_line()})" if flag == "clustered" else "")
            for flag in self.flags
        ]

    def to_dict(self) -> dict[str, Any]:
        """:meth:`Estimate.to_dict` plus the clusters, design effects and effective sizes."""
        out = super().to_dict()
        out["flags"] = dict(zip(self.flags, self.flag_messages, strict=True))
        out["clustered"] = {
            "items": self.items,
            "judgments": self.data.n + self.data.m,
            "clusters": dict(zip(("test", "class_0", "class_1"), self.clusters, strict=True)),
            "design_effects": dict(zip(("p", "q0", "q1"), self.design_effects, strict=True)),
            "effective_sizes": dict(zip(("n", "m0", "m1"), self.effective_sizes, strict=True)),
        }
        return out

    def __str__(self) -> str:
        text = super().__str__().splitlines()
        return "\n".join([text[0], f"  clustered     : {self._design_line()}", *text[1:]])


def _item_arrays(items: Any, source: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cluster code per row, judge 0/1, human 0/1 or -1) of a validated items frame."""
    no_verdict = items["judge"].isna()
    if no_verdict.any():
        ids = items["id"].astype(str)
        shown = ", ".join(map(repr, list(ids[no_verdict])[:3]))
        raise ValueError(
            f"{source}: {int(no_verdict.sum())} row(s) have no judge verdict "
            f"(ids {shown}); drop them first, e.g. items.dropna(subset=['judge'])."
        )
    codes = np.unique(items["id"].astype(str).to_numpy(), return_inverse=True)[1]
    judge = binary_labels(items["judge"], "judge")
    human = binary_labels(items["human"], "human", allow_missing=True)
    return codes.reshape(-1), judge, human


def _arms(
    codes: np.ndarray, judge: np.ndarray, human: np.ndarray, design: str
) -> tuple[ArmDesign, ArmDesign, ArmDesign]:
    """The test arm (p-hat) and both calibration arms (q0-hat, q1-hat) with their designs.

    Stratified and random designs split the rows alike: unlabelled rows are the test arm (a
    random design's ``k, n`` also count the unlabelled items only), labelled rows calibrate.
    """
    del design  # both designs split the rows alike (see above)
    n_clusters = int(codes.max()) + 1 if codes.size else 0
    test = cluster_totals(codes, judge, human < 0, n_clusters)
    class0 = cluster_totals(codes, 1 - judge, human == 0, n_clusters)
    class1 = cluster_totals(codes, judge, human == 1, n_clusters)
    return ratio_design(*test), ratio_design(*class0), ratio_design(*class1)


def _counts(judge: np.ndarray, human: np.ndarray) -> dict[str, int]:
    test = human < 0
    return {
        "k": int(judge[test].sum()),
        "n": int(test.sum()),
        "k0": int(np.count_nonzero((human == 0) & (judge == 0))),
        "m0": int(np.count_nonzero(human == 0)),
        "k1": int(np.count_nonzero((human == 1) & (judge == 1))),
        "m1": int(np.count_nonzero(human == 1)),
    }


def _clustered_estimate(
    codes: np.ndarray,
    judge: np.ndarray,
    human: np.ndarray,
    *,
    design: str,
    level: float,
    source: str,
) -> ClusteredEstimate:
    """The closed form with cluster-robust effective sizes (module docstring)."""
    data = _judge_data(_counts(judge, human), design, source)
    if data.one_class:  # random design with one labelled class: estimate() explains
        estimate(data, confidence_level=level)
    arms = _arms(codes, judge, human, design)
    p, q0, q1 = data.p, data.q0, data.q1
    n_eff, m0_eff, m1_eff = (arm.effective_size for arm in arms)
    z = normal_quantile(0.5 + level / 2.0)
    theta_raw = rogan_gladen(p, q0, q1, clip=False)  # raises for J <= 0
    theta = min(1.0, max(0.0, theta_raw))
    ci = lang_reiczigel_at_z(
        tuple(np.asarray(v, dtype=np.float64) for v in (p, q0, q1, n_eff, m0_eff, m1_eff)), z
    )
    half = z * math.sqrt(p * (1.0 - p) / n_eff)
    naive_ci = ConfidenceInterval(max(0.0, p - half), min(1.0, p + half))
    flags = ["clustered"]
    if theta != theta_raw:
        flags.append("clipped")
    if ci.high - ci.low == 0.0:
        flags.append("zero_width")
    if min(m0_eff, m1_eff) < SMALL_CALIBRATION:
        flags.append("small_calibration")
    if not 1.0 - q0 <= p <= q1:
        flags.append("p_outside_judge_range")
    return ClusteredEstimate(
        data=data,
        confidence_level=level,
        naive=p,
        naive_ci=naive_ci,
        theta_raw=theta_raw,
        theta=theta,
        ci=ci,
        youden=data.youden,
        flags=tuple(flags),
        items=int(codes.max()) + 1,
        clusters=(int(arms[0].clusters), int(arms[1].clusters), int(arms[2].clusters)),
        design_effects=(
            float(arms[0].design_effect),
            float(arms[1].design_effect),
            float(arms[2].design_effect),
        ),
    )


def _judge_data(counts: dict[str, int], design: str, source: str) -> JudgeData:
    """The counts as JudgeData; the errors of :meth:`JudgeData.from_items`, naming ``source``."""
    if counts["m0"] + counts["m1"] == 0:
        raise ValueError(
            f"{source}: no item has a human label, so the judge's error rates "
            "cannot be measured; label some items (join a label file on the "
            "item id)."
        )
    if counts["n"] == 0:
        raise ValueError(
            f"{source}: every row has a human label, so no test items are left "
            "for the judge; the unlabelled rows are the test set."
        )
    if design == "stratified":
        for arm, word in (("m0", "incorrect (human label 0)"), ("m1", "correct (human label 1)")):
            if counts[arm] == 0:
                raise ValueError(
                    f"{source}: the calibration set has no truly {word} items, so "
                    f"{'q0' if arm == 'm0' else 'q1'} cannot be estimated; label "
                    "at least one item of each class."
                )
    return JudgeData(**counts, design=design)


def estimate_items(
    items: pd.DataFrame,
    *,
    by: str | Sequence[str] | None = None,
    design: str = "stratified",
    confidence_level: float = 0.95,
    correction: str = "holm",
    null: float | None = None,
) -> Estimate | ClusteredEstimate | GroupedEstimates:
    """The closed-form estimate from an items frame: clustered by item id, optionally grouped.

    Parameters
    ----------
    items : pandas.DataFrame
        An items frame (a :mod:`judgestats.io` reader's result): columns ``id``, ``judge``,
        ``human`` and metadata such as ``epoch``, ``model``, ``task``. Rows with a human label
        calibrate the judge, the others are the test set (as in
        :meth:`~judgestats.JudgeData.from_items`). Not modified.
    by : str or sequence of str, optional
        Metadata column(s) to group by: one estimate per group, in a
        :class:`GroupedEstimates` table. Missing values form a group of their own.
    design : {"stratified", "random"}, default "stratified"
        How the labelled items were chosen (:class:`~judgestats.JudgeData`).
    confidence_level : float, default 0.95
        Level of the interval; with ``by``, the family-wise level of the table (see
        ``correction``).
    correction : {"holm", "bonferroni", "none"}, default "holm"
        With ``by``: multiplicity correction across the G groups. "holm" and "bonferroni" give
        simultaneous intervals (Bonferroni: each at ``1 - alpha / G``; Holm's step-down has no
        simple interval counterpart, so its intervals are Bonferroni's) and Holm- or
        Bonferroni-adjusted p-values; "none" gives marginal intervals and raw p-values.
    null : float in [0, 1], optional
        With ``by``: the accuracy theta0 of the null hypothesis ``theta_g = theta0`` tested in
        every group (:func:`lang_reiczigel_p_value`), with a ``reject`` column at
        ``alpha = 1 - confidence_level``.

    Returns
    -------
    Estimate or ClusteredEstimate or GroupedEstimates
        Without ``by``: exactly ``judgestats.estimate(JudgeData.from_items(items))`` when no id
        repeats; a :class:`ClusteredEstimate` (flag ``clustered``) when ids repeat. With
        ``by``: a :class:`GroupedEstimates`, each group estimated as here.

    Raises
    ------
    TypeError
        If ``items`` is not a data frame, ``by``, ``correction`` or ``null`` has a wrong type.
    ValueError
        Naming the source: missing columns, rows without a judge verdict, no labelled or no test
        rows, a class missing from a stratified calibration set, a judge no better than chance
        (without ``by``; a group gets NaN and a flag instead); an unknown ``by`` column, an
        unknown ``correction``, ``null`` outside [0, 1], a level outside (0, 1), ``null``
        without ``by``.

    Examples
    --------
    >>> import judgestats as jc, judgestats.io as jio  # doctest: +SKIP
    >>> items = jio.read_inspect("run.eval")  # doctest: +SKIP
    >>> jc.estimate_items(items, by="model", null=0.5)  # doctest: +SKIP
    """
    source = items_source(items)
    design = check_design(design)
    level = check_level(confidence_level)
    correction = _check_correction(correction)
    null = _check_null(null)
    if by is None:
        if null is not None:
            raise ValueError(
                f"`null` ({null!r}) tests one hypothesis per group; give `by` as "
                "well, or read the interval of the single estimate."
            )
        return _estimate_frame(items, source=source, design=design, level=level)
    columns = _check_by(by, items, source)
    return _grouped(
        items, columns, source=source, design=design, level=level, correction=correction, null=null
    )


def _estimate_frame(items: Any, *, source: str, design: str, level: float) -> Estimate:
    codes, judge, human = _item_arrays(items, source)
    if codes.max() + 1 == codes.size:  # no id repeats: the plain closed form, unchanged
        data = JudgeData.from_items(items, design=design)
        return estimate(data, confidence_level=level)
    result = _clustered_estimate(codes, judge, human, design=design, level=level, source=source)
    warnings.warn("; ".join(result.flag_messages) + ".", JudgeStatsWarning, stacklevel=3)
    return result


# ---- validation -------------------------------------------------------------------------------
def _check_by(by: Any, items: Any, source: str) -> tuple[str, ...]:
    columns = (by,) if isinstance(by, str) else by
    if (
        not isinstance(columns, Sequence)
        or isinstance(columns, bytes)
        or not columns
        or not all(isinstance(c, str) for c in columns)
    ):
        raise TypeError(f"`by` must be a column name or a non-empty list of them, got {by!r}.")
    available = [str(c) for c in items.columns if str(c) not in _ITEM_COLUMNS]
    for column in columns:
        if column in _ITEM_COLUMNS:
            raise ValueError(
                f"`by` ({column!r}) must name a metadata column, not one of "
                f"{', '.join(_ITEM_COLUMNS)}; {source} has "
                f"{', '.join(map(repr, available)) or 'none'}."
            )
        if column not in items.columns:
            raise ValueError(
                f"`by` ({column!r}) is not a column of {source}; its metadata "
                f"columns are {', '.join(map(repr, available)) or 'none'}."
            )
    if len(set(columns)) != len(columns):
        raise ValueError(f"`by` ({list(columns)!r}) names a column twice.")
    return tuple(columns)


def _check_correction(correction: Any) -> str:
    return check_choice(correction, "correction", CORRECTIONS)


def _check_null(null: Any) -> float | None:
    if null is None:
        return None
    if isinstance(null, (bool, np.bool_)) or not isinstance(null, (int, float, np.number)):
        raise TypeError(f"`null` must be an accuracy in [0, 1] or None, got {null!r}.")
    value = float(null)
    if not 0.0 <= value <= 1.0:  # also rejects NaN
        raise ValueError(f"`null` ({null!r}) must be an accuracy in [0, 1], e.g. 0.5.")
    return value


# ---- p-values and their adjustment ------------------------------------------------------------
#: The p-value search scans z on this grid (step 0.05, up to z = 12, two-sided p ~ 3.6e-33)
#: for the first interval that reaches theta0, then bisects within the step.
_Z_GRID = np.linspace(0.0, 12.0, 241)


def lang_reiczigel_p_value(
    p: Any, q0: Any, q1: Any, n: Any, m0: Any, m1: Any, theta0: float
) -> np.ndarray:
    """P-value of H0: theta = theta0 by inverting the Lang-Reiczigel interval family.

    The p-value is ``1 - L*`` for the level ``L*`` at which the interval (Lee et al. v1
    eqs. 5-7, truncated to [0, 1]) first reaches ``theta0`` as the level grows; in z,
    ``p = 2 Phi(-z*)`` for the smallest ``z*`` whose interval contains ``theta0``. It is found by
    scanning z in steps of 0.05 up to 12 and then bisecting (50 halvings) inside the step where
    containment starts, all elements at once. The scan matters: the interval's centre moves
    with z^2 (eq. 7's d-theta~), so for very large z an interval can drift away from ``theta0``
    again and containment is not monotone over all z; the first crossing is the one that
    inverts the nested intervals of practical levels. The interval at level ``1 - p`` then has
    ``theta0`` at one end. Sizes may be floats (the effective sizes of clustered data).

    An interval that contains ``theta0`` already at z = 0 (its smoothed centre) gives
    ``p = 1``; one that does not reach it by z = 12 gives ``p = 2 Phi(-12)``, an upper bound
    (about 3.6e-33); elements whose Laplace-adjusted judge is no better than chance give NaN.

    Parameters
    ----------
    p, q0, q1 : array_like
        Judged-correct rate, specificity, sensitivity (validated by the caller).
    n, m0, m1 : array_like
        Sizes (positive; floats allowed).
    theta0 : float
        The hypothesised accuracy, in [0, 1].

    Returns
    -------
    ndarray
        Two-sided p-values, one per broadcast element.
    """
    from scipy.special import ndtr

    inputs = [np.asarray(v, dtype=np.float64) for v in (p, q0, q1, n, m0, m1)]
    shape = np.broadcast_shapes(*(v.shape for v in inputs))
    args = [np.broadcast_to(v, shape).reshape(-1, 1) for v in inputs]
    p_b, q0_b, q1_b, n_b, m0_b, m1_b = args

    def contains(z: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            low, high, _ = lang_reiczigel_formula(p_b, q0_b, q1_b, n_b, m0_b, m1_b, z, np.sqrt)
        return (np.clip(low, 0.0, 1.0) <= theta0) & (theta0 <= np.clip(high, 0.0, 1.0))

    scan = contains(_Z_GRID[None, :])  # (elements, grid)
    found = scan.any(axis=1)
    first = np.argmax(scan, axis=1)
    high_z = _Z_GRID[first][:, None]
    low_z = _Z_GRID[np.maximum(first - 1, 0)][:, None]
    for _ in range(50):
        middle = (low_z + high_z) / 2.0
        inside = contains(middle)
        high_z = np.where(inside, middle, high_z)
        low_z = np.where(inside, low_z, middle)
    values = np.where(found, 2.0 * ndtr(-high_z[:, 0]), 2.0 * ndtr(-_Z_GRID[-1]))
    values = np.where(scan[:, 0], 1.0, values)
    q0_t = (args[4][:, 0] * args[1][:, 0] + 1) / (args[4][:, 0] + 2)
    q1_t = (args[5][:, 0] * args[2][:, 0] + 1) / (args[5][:, 0] + 2)
    values = np.where(q0_t + q1_t - 1.0 > 0.0, values, np.nan)
    return values.reshape(shape)


def adjust_p_values(
    p_values: Any, correction: str, *, family_size: int | None = None
) -> np.ndarray:
    """Adjust p-values for multiplicity: Holm's step-down, Bonferroni, or none.

    Holm (Scand. J. Statist. 6, 1979): with the m p-values sorted, p_(1) <= ... <= p_(m), the
    adjusted value of p_(i) is ``max_{j <= i} min(1, (m - j + 1) p_(j))`` (monotone in i).
    Bonferroni: ``min(1, m p)``. NaN p-values (groups without an estimate) stay NaN and count in
    the family as if they were 1 (never rejected; they then do not change the others).

    Parameters
    ----------
    p_values : array_like
        Raw p-values in [0, 1] (NaN allowed).
    correction : {"holm", "bonferroni", "none"}
        The adjustment.
    family_size : int, optional
        m; by default the number of p-values.

    Returns
    -------
    ndarray
        Adjusted p-values, in the input order.
    """
    correction = _check_correction(correction)
    raw = np.asarray(p_values, dtype=np.float64).reshape(-1)
    m = raw.size if family_size is None else int(family_size)
    if correction == "none" or raw.size == 0:
        return raw.copy()
    filled = np.where(np.isnan(raw), 1.0, raw)
    if correction == "bonferroni":
        adjusted = np.minimum(1.0, m * filled)
    else:
        order = np.argsort(filled, kind="stable")
        steps = np.minimum(1.0, (m - np.arange(raw.size)) * filled[order])
        adjusted = np.empty_like(filled)
        adjusted[order] = np.maximum.accumulate(steps)
    return np.where(np.isnan(raw), np.nan, adjusted)


# ---- grouped estimates ------------------------------------------------------------------------
@dataclass(frozen=True)
class GroupRow:
    """One group of a :class:`GroupedEstimates` table.

    ``counts`` are those of :class:`~judgestats.JudgeData` (rows, i.e. judgments); ``items`` the
    distinct ids; ``result`` the group's :class:`~judgestats.Estimate` (a
    :class:`ClusteredEstimate` where ids repeat), None where the group has no estimate
    (``theta``, ``low``, ``high`` NaN and a flag saying why).
    """

    key: tuple[Any, ...]
    counts: dict[str, int]
    items: int
    result: Estimate | None
    p_value: float = math.nan
    p_adjusted: float = math.nan
    reject: bool | None = None
    flags: tuple[str, ...] = ()

    @property
    def theta(self) -> float:
        """The Rogan-Gladen estimate (NaN without an estimate)."""
        return math.nan if self.result is None else self.result.theta

    @property
    def ci(self) -> ConfidenceInterval:
        """The group's interval at the table's per-group level (NaN without an estimate)."""
        return ConfidenceInterval(math.nan, math.nan) if self.result is None else self.result.ci

    @property
    def design_effects(self) -> tuple[float, float, float]:
        """Design effects of p, q0, q1 (1 where no id repeats; NaN without an estimate)."""
        if isinstance(self.result, ClusteredEstimate):
            return self.result.design_effects
        return (math.nan,) * 3 if self.result is None else (1.0, 1.0, 1.0)


@dataclass(frozen=True)
class GroupedEstimates(Result):
    """One closed-form estimate per group, with a multiplicity correction across the groups.

    Attributes
    ----------
    by : tuple of str
        The grouping column(s).
    rows : tuple of GroupRow
        One per group, in sorted group order.
    confidence_level : float
        The family-wise level asked for (1 - alpha).
    interval_level : float
        The level of each group's interval: ``1 - alpha / G`` for "holm" and "bonferroni",
        ``confidence_level`` for "none".
    correction : str
        "holm", "bonferroni" or "none".
    null : float or None
        theta0 of the tests, if any.
    design : str
        The calibration design.
    source : str
        Where the items came from.
    flags : tuple of str
        The flag keys of every group, once each (a group's own are in ``rows[i].flags``).
    """

    title: ClassVar[str] = "judgestats estimate by group"

    by: tuple[str, ...]
    rows: tuple[GroupRow, ...]
    confidence_level: float
    interval_level: float
    correction: str
    null: float | None = None
    design: str = "stratified"
    source: str = field(default="`items`")
    flags: tuple[str, ...] = field(default=(), init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "flags", _union_flags(self.rows))

    @property
    def alpha(self) -> float:
        """The family-wise error rate, 1 - confidence_level."""
        return 1.0 - self.confidence_level

    @property
    def statement(self) -> str:
        """The correction in words, as printed under the table."""
        text = _interval_statement(self.correction, self.interval_level, len(self.rows))
        if self.null is not None:
            how = {
                "holm": "Holm-adjusted",
                "bonferroni": "Bonferroni-adjusted",
                "none": "unadjusted",
            }[self.correction]
            text += (
                f"; p-values of H0: theta = {self.null:g} {how}, reject at alpha = {self.alpha:g}"
            )
        return text

    def summary(self) -> pd.DataFrame:
        """A DataFrame with one row per group (index: the group key(s))."""
        import pandas as pd

        records = []
        for row in self.rows:
            record = dict(zip(self.by, row.key, strict=True)) | dict(row.counts)
            record |= {
                "items": row.items,
                "estimate": row.theta,
                "low": row.ci.low,
                "high": row.ci.high,
                "level": self.interval_level,
            }
            record |= dict(zip(("deff_p", "deff_q0", "deff_q1"), row.design_effects, strict=True))
            if self.null is not None:
                record |= {
                    "p_value": row.p_value,
                    "p_adjusted": row.p_adjusted,
                    "reject": row.reject,
                }
            record["flags"] = ", ".join(row.flags)
            records.append(record)
        return pd.DataFrame.from_records(records).set_index(list(self.by))

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict: the correction, its statement, and one entry per group."""
        groups = []
        for row in self.rows:
            entry: dict[str, Any] = {
                "group": {c: _json_value(v) for c, v in zip(self.by, row.key, strict=True)},
                **row.counts,
                "items": row.items,
                "estimate": _json_float(row.theta),
                "low": _json_float(row.ci.low),
                "high": _json_float(row.ci.high),
                "design_effects": dict(
                    zip(("p", "q0", "q1"), map(_json_float, row.design_effects), strict=True)
                ),
                "flags": {flag: _flag_message(row, flag) for flag in row.flags},
            }
            if self.null is not None:
                entry |= {
                    "p_value": _json_float(row.p_value),
                    "p_adjusted": _json_float(row.p_adjusted),
                    "reject": row.reject,
                }
            groups.append(entry)
        return {
            "method": "rogan_gladen+lang_reiczigel by group",
            "by": list(self.by),
            "source": self.source,
            "design": self.design,
            "confidence_level": self.confidence_level,
            "interval_level": self.interval_level,
            "correction": self.correction,
            "null": self.null,
            "alpha": self.alpha,
            "statement": self.statement,
            "groups": groups,
        }

    def _table(self) -> tuple[list[str], list[list[str]]]:
        header = [" / ".join(self.by), "k/n", "k0/m0", "k1/m1", "estimate", "low", "high"]
        if any(isinstance(row.result, ClusteredEstimate) for row in self.rows):
            header.append("items")
        if self.null is not None:
            header += ["p", "p adj", "reject"]
        cells = []
        for row in self.rows:
            c = row.counts
            line = [
                " / ".join(map(str, row.key)),
                f"{c['k']}/{c['n']}",
                f"{c['k0']}/{c['m0']}",
                f"{c['k1']}/{c['m1']}",
                *(_fmt(v) for v in (row.theta, *row.ci)),
            ]
            if "items" in header:
                line.append(str(row.items))
            if self.null is not None:
                line += [
                    _fmt_p(row.p_value),
                    _fmt_p(row.p_adjusted),
                    "" if row.reject is None else ("yes" if row.reject else "no"),
                ]
            cells.append(line)
        return header, cells

    def _notes(self) -> list[tuple[str, str]]:
        return [
            (f"{' / '.join(map(str, row.key))}: {flag}", _flag_message(row, flag))
            for row in self.rows
            for flag in row.flags
        ]

    def __str__(self) -> str:
        g = len(self.rows)
        lines = [
            f"judgestats estimate by {', '.join(self.by)} ({g} group{'s' * (g != 1)}, "
            f"{_percent(self.confidence_level)} family-wise; {self.source})",
            *_aligned(*self._table()),
            f"  {self.statement}",
        ]
        lines += [f"  warning ({label}): {message}" for label, message in self._notes()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """Rich display: the printed table, the correction and every group's flags (escaped)."""
        from judgestats._html import result_block

        header, cells = self._table()
        title = f"judgestats estimate by {', '.join(self.by)}: {self.statement}"
        return result_block(title, header, cells, self._notes())

    def plot(self, ax: Axes | None = None) -> Axes:
        """Forest plot: each group's estimate with its (corrected) interval; returns the Axes.

        A group without an estimate shows its label only; ``null``, if given, is a dashed line.
        """
        import pandas as pd

        frame = pd.DataFrame(
            [(row.theta, row.ci.low, row.ci.high) for row in self.rows],
            index=[_group_label(row.key) for row in self.rows],
            columns=["estimate", "low", "high"],
        )
        ax = forest_plot(frame, ax=ax, title=f"{self.title} ({self.statement})")
        ax.set_xlabel(f"accuracy, {_percent(self.interval_level)} interval per group")
        if self.null is not None:
            ax.axvline(self.null, color="0.5", linestyle="--", lw=1)
        return ax


def _union_flags(rows: Sequence[GroupRow] | Sequence[GroupCrossCheck]) -> tuple[str, ...]:
    """The flag keys of all rows, each once, in order of first appearance."""
    return tuple(dict.fromkeys(flag for row in rows for flag in row.flags))


def _grouped(
    items: Any,
    by: tuple[str, ...],
    *,
    source: str,
    design: str,
    level: float,
    correction: str,
    null: float | None,
) -> GroupedEstimates:
    codes, judge, human = _item_arrays(items, source)  # whole-frame checks raise here
    groups = items.groupby(list(by), sort=True, dropna=False).indices
    interval_level = _family_level(level, correction, len(groups))
    rows = []
    for key, positions in groups.items():
        key = key if isinstance(key, tuple) else (key,)
        rows.append(
            _group_row(
                tuple(_plain(k) for k in key),
                codes[positions],
                judge[positions],
                human[positions],
                design=design,
                level=interval_level,
                source=f"{source} ({_label(by, key)})",
            )
        )
    if null is not None:
        rows = _with_tests(rows, null, correction, level)
    return GroupedEstimates(
        by=by,
        rows=tuple(rows),
        confidence_level=level,
        interval_level=interval_level,
        correction=correction,
        null=null,
        design=design,
        source=source,
    )


def _group_row(
    key: tuple[Any, ...],
    codes: np.ndarray,
    judge: np.ndarray,
    human: np.ndarray,
    *,
    design: str,
    level: float,
    source: str,
) -> GroupRow:
    """One group's estimate, or NaN with a flag where the group cannot be estimated."""
    counts = _counts(judge, human)
    codes = np.unique(codes, return_inverse=True)[1].reshape(-1)
    items = int(codes.max()) + 1
    reason = _not_estimable(counts)
    if reason is not None:
        return GroupRow(key, counts, items, None, flags=(reason,))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JudgeStatsWarning)  # flags go into the row
            if items == codes.size:
                result = estimate(JudgeData(**counts, design=design), confidence_level=level)
            else:
                result = _clustered_estimate(
                    codes, judge, human, design=design, level=level, source=source
                )
    except ValueError:  # the Laplace-adjusted judge is no better than chance (eq. 6)
        return GroupRow(key, counts, items, None, flags=("no_better_than_chance",))
    return GroupRow(key, counts, items, result, flags=result.flags)


def _not_estimable(counts: dict[str, int]) -> str | None:
    """The flag of a group without an estimate (checked before estimating), else None."""
    if counts["m0"] == 0 or counts["m1"] == 0:
        return "missing_class"
    if counts["n"] == 0:
        return "no_test_items"
    if counts["k0"] / counts["m0"] + counts["k1"] / counts["m1"] - 1.0 <= 0.0:
        return "no_better_than_chance"
    return None


def _with_tests(rows: list[GroupRow], null: float, correction: str, level: float) -> list[GroupRow]:
    """Rows with raw and adjusted p-values of H0: theta = null, and the decision at alpha."""
    raw = np.full(len(rows), np.nan)
    for index, row in enumerate(rows):
        if row.result is not None:
            d = row.result.data
            n, m0, m1 = (
                row.result.effective_sizes
                if isinstance(row.result, ClusteredEstimate)
                else (d.n, d.m0, d.m1)
            )
            raw[index] = float(lang_reiczigel_p_value(d.p, d.q0, d.q1, n, m0, m1, null))
    adjusted = adjust_p_values(raw, correction)
    alpha = 1.0 - level
    return [
        GroupRow(
            row.key,
            row.counts,
            row.items,
            row.result,
            p_value=float(p),
            p_adjusted=float(a),
            reject=None if math.isnan(a) else bool(a <= alpha),
            flags=row.flags,
        )
        for row, p, a in zip(rows, raw, adjusted, strict=True)
    ]


# ---- formatting -------------------------------------------------------------------------------
def _family_level(level: float, correction: str, groups: int) -> float:
    """Each group's interval level: Bonferroni's ``1 - alpha / G``, or ``level`` for "none"."""
    return level if correction == "none" else 1.0 - (1.0 - level) / groups


def _interval_statement(correction: str, interval_level: float, groups: int) -> str:
    """What the intervals of a grouped table are, in words (simultaneous or marginal)."""
    if correction == "none":
        return (
            f"intervals marginal at {100 * interval_level:g}% each, not corrected for the "
            f"{groups} groups"
        )
    text = (
        f"intervals simultaneous over {groups} group{'s' * (groups != 1)} (Bonferroni, each "
        f"at {_percent(interval_level)}"
    )
    return text + (
        "; Holm's step-down has no interval counterpart)" if correction == "holm" else ")"
    )


def _aligned(header: Sequence[str], cells: Sequence[Sequence[str]]) -> list[str]:
    """A text table: the first column left-aligned, the others right-aligned, indented by 2."""
    widths = [max(len(h), *(len(line[i]) for line in cells)) for i, h in enumerate(header)]
    fmt = "  " + "  ".join(
        f"{{:<{widths[0]}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths)
    )
    return [fmt.format(*header), *(fmt.format(*line) for line in cells)]


def _flag_message(row: GroupRow, flag: str) -> str:
    if isinstance(row.result, ClusteredEstimate) and flag == "clustered":
        return row.result.flag_messages[row.result.flags.index(flag)]
    return FLAG_MESSAGES[flag]


def _label(by: tuple[str, ...], key: tuple[Any, ...]) -> str:
    return ", ".join(f"{c} = {v}" for c, v in zip(by, key, strict=True))


def _plain(value: Any) -> Any:
    value = value.item() if isinstance(value, np.generic) else value
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _percent(level: float) -> str:
    return f"{100 * level:.4g}%"


def _fmt(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.4f}"


def _fmt_p(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    return f"{value:.4f}" if value >= 1e-4 else f"{value:.1e}"


def _json_float(value: float) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value


def _json_value(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


# ---- grouped cross-check ----------------------------------------------------------------------
#: Columns of the cross-check table (after the group and the counts): row key of
#: :attr:`judgestats.CrossCheck.rows` and position in its (estimate, low, high) triple.
_CROSSCHECK_COLUMNS = (
    ("RG", "rogan_gladen", 0),
    ("LR low", "rogan_gladen", 1),
    ("LR high", "rogan_gladen", 2),
    ("median", "posterior_eti", 0),
    ("ETI low", "posterior_eti", 1),
    ("ETI high", "posterior_eti", 2),
    ("mode", "posterior_hdi", 0),
    ("HDI low", "posterior_hdi", 1),
    ("HDI high", "posterior_hdi", 2),
)
_NAN3 = (math.nan, math.nan, math.nan)


@dataclass(frozen=True)
class GroupCrossCheck:
    """One group of a :class:`GroupedCrossChecks` table.

    ``counts`` are those of the group's :class:`~judgestats.JudgeData`; ``result`` the group's
    :class:`~judgestats.CrossCheck` at the table's per-group level, or None where the group has no
    data to cross-check (then every number is NaN and ``flags`` says why); ``flags`` holds the
    flag keys, ``messages`` maps each to its sentence (the cross-check's own notes, with their
    advice).
    """

    key: tuple[Any, ...]
    counts: dict[str, int]
    result: CrossCheck | None
    flags: tuple[str, ...]
    messages: dict[str, str] = field(default_factory=dict)

    def row(self, name: str) -> tuple[float, float, float]:
        """(estimate, low, high) of one cross-check row (:data:`judgestats.crosschecking.ROWS`)."""
        if self.result is None:
            return _NAN3
        found = self.result.rows[name]
        return (found.estimate, found.low, found.high)

    @property
    def agree(self) -> bool | None:
        """Whether the Lang-Reiczigel and equal-tailed ends lie within the tolerance.

        None where there is no closed form (or no cross-check) to compare.
        """
        if self.result is None or self.result.estimate is None:
            return None
        return bool(self.result.max_difference <= self.result.tolerance)


@dataclass(frozen=True)
class GroupedCrossChecks(Result):
    """One cross-check per group (closed form and posterior), corrected across the groups.

    Attributes
    ----------
    by : tuple of str
        The grouping column(s).
    rows : tuple of GroupCrossCheck
        One per group, in sorted group order.
    confidence_level : float
        The family-wise level asked for (1 - alpha).
    interval_level : float
        The level of every interval of every group: ``1 - alpha / G`` for "holm" and
        "bonferroni", ``confidence_level`` for "none".
    correction : str
        "holm", "bonferroni" or "none".
    method : str
        How each posterior was computed ("exact" or "nuts").
    tolerance : float
        Agreement tolerance of each cross-check.
    design : str
        The calibration design.
    source : str
        Where the items came from.
    flags : tuple of str
        The flag keys of every group, once each (a group's own are in ``rows[i].flags``).
    """

    title: ClassVar[str] = "judgestats cross-check by group"

    by: tuple[str, ...]
    rows: tuple[GroupCrossCheck, ...]
    confidence_level: float
    interval_level: float
    correction: str
    method: str = "exact"
    tolerance: float = 0.02
    design: str = "stratified"
    source: str = field(default="`items`")
    flags: tuple[str, ...] = field(default=(), init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "flags", _union_flags(self.rows))

    @property
    def alpha(self) -> float:
        """The family-wise error rate, 1 - confidence_level."""
        return 1.0 - self.confidence_level

    @property
    def statement(self) -> str:
        """The correction in words, as printed under the table."""
        return _interval_statement(self.correction, self.interval_level, len(self.rows))

    @property
    def legend(self) -> str:
        """What the columns of the printed table are."""
        return (
            f"RG, LR: Rogan-Gladen estimate and Lang-Reiczigel interval; median + ETI, mode "
            f"+ HDI: the posterior ({self.method}) with its equal-tailed and highest-density "
            f"intervals; agree: LR and ETI ends within {self.tolerance:g}"
        )

    @property
    def table_title(self) -> str:
        """The table's first line (without the source)."""
        g = len(self.rows)
        return (
            f"judgestats cross-check by {', '.join(self.by)} ({g} group{'s' * (g != 1)}, "
            f"{_percent(self.confidence_level)} family-wise; posterior by {self.method})"
        )

    @property
    def heading(self) -> str:
        """The table's first line, as printed: :attr:`table_title` with the source."""
        return f"{self.table_title[:-1]}; {self.source})"

    def summary(self) -> pd.DataFrame:
        """A DataFrame with one row per group (index: the group key(s)).

        Columns: the six counts; ``<row>``, ``<row>_low``, ``<row>_high`` for each cross-check
        row (naive, rogan_gladen, posterior_eti, posterior_hdi); ``max_difference``,
        ``agree``, ``prob_weak_judge``, ``level`` and the flag keys.
        """
        import pandas as pd

        from judgestats.crosschecking import ROWS

        records = []
        for row in self.rows:
            record: dict[str, Any] = dict(zip(self.by, row.key, strict=True)) | dict(row.counts)
            for name in ROWS:
                record |= dict(
                    zip((name, f"{name}_low", f"{name}_high"), row.row(name), strict=True)
                )
            record |= {
                "max_difference": _max_difference(row),
                "agree": row.agree,
                "prob_weak_judge": (math.nan if row.result is None else row.result.prob_weak_judge),
                "level": self.interval_level,
                "flags": ", ".join(row.flags),
            }
            records.append(record)
        return pd.DataFrame.from_records(records).set_index(list(self.by))

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict: the correction, its statement, and one entry per group."""
        from judgestats.crosschecking import ROWS

        groups = []
        for row in self.rows:
            groups.append(
                {
                    "group": {c: _json_value(v) for c, v in zip(self.by, row.key, strict=True)},
                    **row.counts,
                    "rows": {
                        name: dict(
                            zip(
                                ("estimate", "low", "high"),
                                map(_json_float, row.row(name)),
                                strict=True,
                            )
                        )
                        for name in ROWS
                    },
                    "max_difference": _json_float(_max_difference(row)),
                    "agree": row.agree,
                    "prob_weak_judge": (
                        None if row.result is None else _json_float(row.result.prob_weak_judge)
                    ),
                    "flags": dict(row.messages),
                    "recommended": (
                        None
                        if row.result is None or row.result.recommended is None
                        else row.result.recommended.to_dict()
                    ),
                }
            )
        return {
            "method": "crosscheck by group",
            "posterior_method": self.method,
            "by": list(self.by),
            "source": self.source,
            "design": self.design,
            "confidence_level": self.confidence_level,
            "interval_level": self.interval_level,
            "correction": self.correction,
            "alpha": self.alpha,
            "tolerance": self.tolerance,
            "statement": self.statement,
            "groups": groups,
        }

    def _table(self) -> tuple[list[str], list[list[str]]]:
        header = [
            " / ".join(self.by),
            "k/n",
            "k0/m0",
            "k1/m1",
            *(name for name, _, _ in _CROSSCHECK_COLUMNS),
            "agree",
        ]
        cells = []
        for row in self.rows:
            c = row.counts
            agree = "n/a" if row.agree is None else ("yes" if row.agree else "no")
            cells.append(
                [
                    _group_label(row.key),
                    f"{c['k']}/{c['n']}",
                    f"{c['k0']}/{c['m0']}",
                    f"{c['k1']}/{c['m1']}",
                    *(_fmt(row.row(name)[i]) for _, name, i in _CROSSCHECK_COLUMNS),
                    agree,
                ]
            )
        return header, cells

    def _notes(self) -> list[tuple[str, str]]:
        return [
            (f"{_group_label(row.key)}: {flag}", message)
            for row in self.rows
            for flag, message in row.messages.items()
        ]

    def _recommended(self) -> list[tuple[str, str]]:
        """Each group's recommended interval (at the per-group level), in one line."""
        out = []
        for row in self.rows:
            rec = None if row.result is None else row.result.recommended
            if rec is not None:
                out.append(
                    (
                        _group_label(row.key),
                        f"{rec.label} {rec.estimate:.4f} ({rec.low:.4f}, {rec.high:.4f}), "
                        f"{_percent(rec.level)} interval",
                    )
                )
        return out

    def __str__(self) -> str:
        lines = [self.heading]
        lines += [f"  recommended ({label}): {text}" for label, text in self._recommended()]
        lines += [*_aligned(*self._table()), f"  {self.statement}", f"  {self.legend}"]
        lines += [f"  note ({label}): {message}" for label, message in self._notes()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """Rich display: the printed table, recommendations, legend and notes (escaped)."""
        from judgestats._html import result_block

        header, cells = self._table()
        title = f"{self.table_title}: {self.statement}"
        recommended = [(f"recommended ({label})", text) for label, text in self._recommended()]
        return result_block(title, header, cells, [*recommended, ("", self.legend), *self._notes()])

    def plot(self, ax: Axes | None = None) -> Axes:
        """Forest plot: each group's Lang-Reiczigel and equal-tailed intervals; returns the Axes.

        Per group the Rogan-Gladen estimate with its interval (upper) and the posterior median
        with its equal-tailed interval (lower); a row without an answer is left out.
        """
        import matplotlib.pyplot as plt

        from judgestats.crosschecking import ROW_LABELS

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 0.8 + 0.6 * max(len(self.rows), 1)))
        positions = list(range(len(self.rows)))[::-1]
        for offset, name, colour in (
            (0.15, "rogan_gladen", "tab:blue"),
            (-0.15, "posterior_eti", "tab:orange"),
        ):
            for index, (y, row) in enumerate(zip(positions, self.rows, strict=True)):
                estimate, low, high = row.row(name)
                label = ROW_LABELS[name] if index == 0 else None
                ax.plot([low, high], [y + offset] * 2, color=colour, lw=2.5, label=label)
                ax.plot([estimate], [y + offset], "o", color=colour, ms=4)
        ax.set_yticks(positions, [_group_label(row.key) for row in self.rows])
        ax.set_ylim(-0.7, len(self.rows) - 0.3)
        ax.set_xlabel(f"accuracy, {_percent(self.interval_level)} interval per group")
        ax.set_title(f"{self.title} ({self.statement})")
        ax.legend(fontsize="small")
        return ax


def _group_label(key: tuple[Any, ...]) -> str:
    return " / ".join(map(str, key))


def _max_difference(row: GroupCrossCheck) -> float:
    if row.result is None or row.result.estimate is None:
        return math.nan
    return row.result.max_difference


def crosscheck_items(
    items: pd.DataFrame,
    *,
    by: str | Sequence[str],
    design: str = "stratified",
    confidence_level: float = 0.95,
    correction: str = "holm",
    prior: Prior | None = None,
    method: str = "exact",
    tolerance: float = 0.02,
    random_seed: SeedLike = None,
    **posterior_options: Unpack[PosteriorOptions],
) -> GroupedCrossChecks:
    """The cross-check of every group of an items frame, at a family-adjusted level.

    Each group is cross-checked as :func:`judgestats.crosscheck` does for one dataset: the naive
    rate, the Rogan-Gladen estimate with the Lang-Reiczigel interval (Lee et al., "How to
    Correctly Report LLM-as-a-Judge Evaluations", arXiv 2511.21140 v1, eqs. 4-7), and the
    posterior's median with the equal-tailed interval and mode with the highest-density
    interval, with the cross-check's notes. Every interval of every group has the same level:
    Bonferroni's ``1 - alpha / G`` for G groups (so the G intervals of one method hold
    simultaneously with probability at least ``1 - alpha``), or ``confidence_level`` itself
    with ``correction="none"``.

    Parameters
    ----------
    items : pandas.DataFrame
        An items frame (a :mod:`judgestats.io` reader's result): columns ``id``, ``judge``,
        ``human`` and metadata. Rows with a human label calibrate the judge; the others are
        the test set. Within a group every item id must occur once (the posterior does not
        cluster repeated judging); ids may repeat across groups. Not modified.
    by : str or sequence of str
        Metadata column(s) to group by. Missing values form a group of their own.
    design : {"stratified", "random"}, default "stratified"
        How the labelled items were chosen (:class:`~judgestats.JudgeData`).
    confidence_level : float, default 0.95
        The family-wise level of the table (see ``correction``).
    correction : {"holm", "bonferroni", "none"}, default "holm"
        "holm" and "bonferroni" give simultaneous intervals, each at ``1 - alpha / G`` (Holm's
        step-down adjusts tests and has no interval counterpart, so its intervals are
        Bonferroni's, as in :func:`estimate_items`); "none" gives marginal intervals.
    prior : Prior, optional
        Prior of every group's posterior (uniform, judge better than chance, by default).
    method : {"exact", "nuts"}, default "exact"
        How each posterior is computed (:func:`judgestats.posterior`).
    tolerance : float, default 0.02
        Agreement tolerance of each cross-check (:func:`judgestats.crosscheck`).
    random_seed : int or numpy.random.Generator, optional
        Seed of the posterior draws; each group's cross-check receives it as given (an int
        seeds every group alike, so a group's row equals ``judgestats.crosscheck`` of that group
        with the same seed).
    **posterior_options
        Passed to :func:`judgestats.posterior` (e.g. ``draws``, ``chains``, ``progressbar``).

    Returns
    -------
    GroupedCrossChecks
        A group whose counts admit no cross-check (a stratified group missing a labelled class,
        no labelled items, or no test items) gets NaN and a flag; a group whose judge is no
        better than chance gets the posterior rows and the cross-check's ``no_closed_form``
        note. Flags are not warned about; they are in the table.

    Raises
    ------
    TypeError
        If ``items`` is not a data frame, or ``by`` or ``correction`` has a wrong type.
    ValueError
        Naming the source: missing columns, rows without a judge verdict, no labelled or no
        test rows at all, an item id repeated within a group, an unknown ``by`` column, an
        unknown ``correction``, a level outside (0, 1), or an invalid posterior option.

    Examples
    --------
    >>> import judgestats as jc, judgestats.io as jio  # doctest: +SKIP
    >>> items = jio.read_inspect("run.eval")  # doctest: +SKIP
    >>> jc.crosscheck_items(items[items["epoch"] == 1], by="model")  # doctest: +SKIP
    """
    source = items_source(items)
    design = check_design(design)
    level = check_level(confidence_level)
    correction = _check_correction(correction)
    columns = _check_by(by, items, source)
    codes, judge, human = _item_arrays(items, source)
    _judge_data(_counts(judge, human), design, source)  # whole-frame checks, as estimate_items
    groups = items.groupby(list(columns), sort=True, dropna=False).indices
    _check_unique_ids(groups, codes, columns, source, "epoch" in items.columns)
    interval_level = _family_level(level, correction, len(groups))
    options = {
        "prior": prior,
        "method": method,
        "tolerance": tolerance,
        "random_seed": random_seed,
        **posterior_options,
    }
    rows = []
    for key, positions in groups.items():
        key = tuple(_plain(k) for k in (key if isinstance(key, tuple) else (key,)))
        rows.append(
            _crosscheck_row(
                key,
                _counts(judge[positions], human[positions]),
                design=design,
                level=interval_level,
                options=options,
            )
        )
    checked = next((row.result for row in rows if row.result is not None), None)
    return GroupedCrossChecks(
        by=columns,
        rows=tuple(rows),
        confidence_level=level,
        interval_level=interval_level,
        correction=correction,
        method=method if checked is None else checked.posterior.method,
        tolerance=float(tolerance),
        design=design,
        source=source,
    )


def _check_unique_ids(
    groups: dict[Any, np.ndarray],
    codes: np.ndarray,
    by: tuple[str, ...],
    source: str,
    has_epoch: bool,
) -> None:
    """Refuse item ids repeated within a group: the posterior counts each row as an item."""
    for key, positions in groups.items():
        group_codes = codes[positions]
        counts = np.unique(group_codes, return_counts=True)[1]
        if (counts > 1).any():
            key = key if isinstance(key, tuple) else (key,)
            label = _label(by, tuple(_plain(k) for k in key))
            select = (
                "one epoch, e.g. items[items['epoch'] == 1] (--epoch 1 on the command line)"
                if has_epoch
                else "one row per item, e.g. items.drop_duplicates('id')"
            )
            raise ValueError(
                f"{source}: {int((counts > 1).sum())} item id(s) occur more than once within "
                f"the group {label} (items judged several times). The cross-check's posterior "
                f"does not cluster repeated judging: select {select}, or use "
                "judgestats.estimate_items (`judgestats estimate --by ...`), which clusters the "
                "rows by item id."
            )


def _crosscheck_row(
    key: tuple[Any, ...],
    counts: dict[str, int],
    *,
    design: str,
    level: float,
    options: dict[str, Any],
) -> GroupCrossCheck:
    """One group's cross-check, or NaN with a flag where its counts admit none."""
    from judgestats.crosschecking import crosscheck

    reason = None
    if counts["n"] == 0:
        reason = "no_test_items"
    elif counts["m0"] + counts["m1"] == 0 or (
        design == "stratified" and min(counts["m0"], counts["m1"]) == 0
    ):
        reason = "missing_class"
    if reason is not None:
        return GroupCrossCheck(key, counts, None, (reason,), {reason: FLAG_MESSAGES[reason]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # the flags go into the row
        result = crosscheck(JudgeData(**counts, design=design), confidence_level=level, **options)
    messages = dict(zip(result.flags, result.flag_messages, strict=True))
    return GroupCrossCheck(key, counts, result, result.flags, messages)
