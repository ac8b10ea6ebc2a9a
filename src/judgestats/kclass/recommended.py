r"""One interval to report for a K-class functional, for every dataset: :func:`kclass_recommended`.

The binary cross-check always gives an answer; so does this. For a functional
:math:`a^\top\pi` (a share, the win rate with ties as half, the mean score) the rule is:

1. **The closed form** (:func:`judgestats.kclass.kclass_estimate`, generalised Lang-Reiczigel)
   where it is defined and the data lie in the regime where ``benchmarks/kclass_coverage.py``
   measured its coverage: every true class has at least :data:`CLOSED_FORM_MIN_M` calibration
   items (the smallest calibration size of the benchmark's grid; over its 162 cells, 10,000
   datasets each, the 95% interval covered at least 0.945 for every share and summary, over the
   datasets it is defined on).
2. **Else the posterior** (:func:`judgestats.kclass.kclass_posterior`, ``method="auto"``:
   exact at K = 2, importance sampling up to K = 5, NUTS beyond): its equal-tailed credible
   interval at probability :func:`posterior_probability` (0.99 for a 95% interval). The datasets
   that reach this step are the hard ones, and there the credible interval at the nominal level
   undercovers: in ``benchmarks/kclass_coverage.py``'s weak-judge, rare-class cell (K = 3, 30
   labels per class) the 95% credible interval covered a rare class's share 0.74 and another
   share 0.79 on the datasets the closed form left (0.98 and 0.95 at probability 0.99). The
   closed form is undefined where C-hat (or its smoothed
   version) is not column-dominant or is singular, which happens to a weak judge with few
   calibration items; the posterior answers on every such dataset, with the identifiability
   constraint in its prior. Its interval is not used when the importance weights are
   heavy-tailed (``importance_heavy_tail``).
3. **Else a guaranteed interval**: with a random calibration sample (``design="random"``), the
   labels alone: simultaneous Clopper-Pearson intervals for every class share (Bonferroni,
   each at level :math:`1 - \alpha/K`) and the range of :math:`a^\top\pi` over that box on the
   simplex (a linear programme, solved exactly by filling the box greedily); its coverage is at
   least the level by construction. With a stratified calibration the labelled items say
   nothing about the shares, and the only interval guaranteed without the judge is the
   functional's whole range :math:`[\min a, \max a]`.

:func:`kclass_recommended` never raises on valid data; the result says which step answered and
why (``reason``), with the flags of the estimate it reports. ``benchmarks/kclass_coverage.py
--recommended`` measures the rule's coverage over every dataset (fallbacks included).
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from judgestats._html import fmt_percent
from judgestats._json import to_json
from judgestats._validate import check_level
from judgestats.exceptions import JudgeStatsWarning
from judgestats.kclass.data import KClassData
from judgestats.kclass.functionals import check_weights
from judgestats.results import ConfidenceInterval, EndpointsResult, IntervalResult

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "CLOSED_FORM_MIN_M",
    "KCLASS_METHOD_LABELS",
    "KClassRecommendation",
    "kclass_recommended",
    "posterior_probability",
]

#: The smallest calibration rows of the benchmark's grid (``benchmarks/kclass_coverage.py``).
CLOSED_FORM_MIN_M = 10

#: The posterior step's credible probability leaves this share of the nominal miss rate.
POSTERIOR_MISS_SHARE = 0.2


def posterior_probability(level: float) -> float:
    r"""Credible probability of the posterior step: :math:`1 - (1 - \text{level}) / 5`."""
    return 1.0 - (1.0 - level) * POSTERIOR_MISS_SHARE


#: Display names of the intervals the rule can pick.
KCLASS_METHOD_LABELS = {
    "closed_form": "matrix Rogan-Gladen + generalised Lang-Reiczigel",
    "posterior": "posterior mean + equal-tailed credible interval",
    "labels_only": "labels only, simultaneous Clopper-Pearson (exact)",
    "full_range": "the functional's whole range (no information)",
}


@dataclass(frozen=True)
class KClassRecommendation(EndpointsResult):
    """The K-class interval to report, and why.

    Attributes
    ----------
    estimate, low, high : float
        Point estimate and interval of ``weights . pi``.
    weights : tuple of float
        The functional.
    method : str
        Key of :data:`KCLASS_METHOD_LABELS`: ``closed_form``, ``posterior``, ``labels_only`` or
        ``full_range``.
    level : float
        Confidence (or credibility) level.
    reason : str
        Plain sentences: which step answered and why the earlier ones did not.
    flags : tuple of str
        The flags of the estimate reported (closed form or posterior).
    name : str or None
        The functional's label, if given.
    """

    title: ClassVar[str] = "judgestats K-class recommended interval"

    estimate: float
    low: float
    high: float
    weights: tuple[float, ...]
    method: str
    level: float
    reason: str
    flags: tuple[str, ...] = ()
    name: str | None = None

    @property
    def label(self) -> str:
        """Display name of the method."""
        return KCLASS_METHOD_LABELS[self.method]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of every field."""
        return to_json(
            {
                "name": self.name,
                "weights": list(self.weights),
                "method": self.method,
                "label": self.label,
                "estimate": self.estimate,
                "low": self.low,
                "high": self.high,
                "width": self.width,
                "level": self.level,
                "reason": self.reason,
                "flags": list(self.flags),
            }
        )

    def summary(self) -> pd.DataFrame:
        """One row, indexed by the functional's name: estimate, low, high, width, method."""
        import pandas as pd

        return pd.DataFrame(
            [[self.estimate, self.low, self.high, self.width, self.level, self.method]],
            index=pd.Index([self.name or "a . pi"], name="functional"),
            columns=["estimate", "low", "high", "width", "level", "method"],
        )

    def __str__(self) -> str:
        return (
            f"recommended ({self.name or 'a . pi'}): {self.label} {self.estimate:.4f} "
            f"({self.low:.4f}, {self.high:.4f}), {fmt_percent(self.level)} interval\n"
            f"  why: {self.reason}"
        )


def _first_clause(error: Exception) -> str:
    """An error's message up to its first sentence or semicolon, without the argument prefix."""
    text = str(error).removeprefix("`data`: ").removeprefix("`data`:").strip()
    return re.split(r"(?<!e\.g)\. |; ", text, maxsplit=1)[0].rstrip(".")


def _closed_form(
    data: KClassData, weights: np.ndarray, level: float
) -> tuple[IntervalResult | None, str]:
    """The closed form's interval where the rule trusts it, else None and why not."""
    from judgestats.kclass.closed_form import kclass_estimate

    if data.empty_classes:
        return None, "a true class has no calibration item, so the closed form is undefined"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        try:
            est = kclass_estimate(data, confidence_level=level)
        except ValueError as error:
            return None, f"the closed form is undefined here ({_first_clause(error)})"
    if int(data.m.min()) < CLOSED_FORM_MIN_M:
        return None, (
            f"a true class has {int(data.m.min())} calibration items, fewer than the "
            f"{CLOSED_FORM_MIN_M} from which the benchmark measured the closed form's coverage"
        )
    return est.functional(weights), ""


def _posterior(
    data: KClassData, weights: np.ndarray, level: float, options: dict[str, Any]
) -> tuple[IntervalResult | None, str]:
    """The posterior's equal-tailed interval, else None and why not."""
    from judgestats.kclass.bayesian import kclass_posterior

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        try:
            post = kclass_posterior(data, prob=posterior_probability(level), **options)
        except ValueError as error:
            return None, f"the posterior has no answer ({_first_clause(error)})"
    if "importance_heavy_tail" in post.flags:
        return None, (
            "the posterior's importance weights are heavy-tailed (Pareto k-hat above 0.7), so "
            "its interval is unreliable"
        )
    return post.functional(weights), ""


def labels_only_interval(data: KClassData, weights: np.ndarray, level: float) -> ConfidenceInterval:
    r"""Guaranteed interval of ``weights . pi`` from a random labelled sample's true classes.

    Each share gets a two-sided Clopper-Pearson interval at level :math:`1 - \alpha/K`
    (Bonferroni: all K hold together with probability at least the level); the ends are the
    smallest and largest :math:`a^\top\pi` over that box intersected with the simplex, found
    exactly by starting every share at its lower end and giving the rest to the classes with
    the smallest (largest) weights first, each up to its upper end.
    """
    from judgestats.guaranteed import clopper_pearson

    size, total = data.size, int(data.m.sum())
    lows, highs = (
        np.asarray(v, dtype=float)
        for v in clopper_pearson(data.m, np.full(size, total), 1.0 - (1.0 - level) / size)
    )

    def extreme(order: np.ndarray) -> float:
        shares = lows.copy()
        left = 1.0 - shares.sum()
        for k in order:
            step = min(highs[k] - lows[k], max(left, 0.0))
            shares[k] += step
            left -= step
        return float(weights @ shares)

    ascending = np.argsort(weights, kind="stable")
    low, high = extreme(ascending), extreme(ascending[::-1])
    return ConfidenceInterval(min(low, high), max(low, high))


def _guaranteed(
    data: KClassData, weights: np.ndarray, level: float
) -> tuple[str, float, ConfidenceInterval, str]:
    """The last step: labels only (random design) or the whole range (stratified)."""
    if data.design == "random" and int(data.m.sum()) > 0:
        ci = labels_only_interval(data, weights, level)
        estimate = float(weights @ (data.m / data.m.sum()))
        text = (
            f"the {int(data.m.sum())} labelled items are a random sample, so their true classes "
            f"alone give an interval whose coverage is at least {fmt_percent(level)} whatever "
            "the class shares, by construction"
        )
        return "labels_only", min(max(estimate, ci.low), ci.high), ci, text
    ci = ConfidenceInterval(float(weights.min()), float(weights.max()))
    text = (
        "the calibration items were chosen by true class, so without a usable judge model "
        "they say nothing about the class shares: only the functional's whole range is "
        "guaranteed"
    )
    return "full_range", 0.5 * (ci.low + ci.high), ci, text


def kclass_recommended(
    data: KClassData,
    functional: Any,
    *,
    confidence_level: float = 0.95,
    name: str | None = None,
    random_seed: Any = None,
    **posterior_options: Any,
) -> KClassRecommendation:
    """One interval to report for a functional of the class shares (module docstring).

    Parameters
    ----------
    data : KClassData
        The test verdict counts and the calibration confusion counts.
    functional : array-like of float or mapping
        The weights ``a`` of ``a . pi``: one per class (class order) or a mapping from class
        names to weights (see :meth:`judgestats.kclass.KClassEstimate.functional`).
    confidence_level : float, default 0.95
        Level of the interval (the credible interval's probability on the posterior step).
    name : str, optional
        A label for the functional (e.g. ``"win rate of A"``).
    random_seed : int or numpy.random.Generator, optional
        Seed of the posterior step.
    **posterior_options
        Passed to :func:`judgestats.kclass.kclass_posterior` (e.g. ``proposals``, ``draws``).

    Returns
    -------
    KClassRecommendation
        Never raises on valid data; ``method`` says which step answered, ``reason`` why.

    Raises
    ------
    TypeError
        If ``data`` is not a KClassData or ``functional`` is not a weight vector or mapping.
    ValueError
        For a level outside (0, 1) or weights of the wrong length.

    Examples
    --------
    >>> from judgestats.kclass import KClassData, kclass_recommended
    >>> data = KClassData(("A", "B", "tie"), test=[420, 380, 200],
    ...                   confusion=[[50, 4, 6], [5, 48, 7], [6, 5, 29]])
    >>> rec = kclass_recommended(data, {"A": 1, "tie": 0.5}, name="win rate of A")
    >>> rec.method, round(rec.low, 4), round(rec.high, 4)
    ('closed_form', 0.4331, 0.5854)
    """
    if not isinstance(data, KClassData):
        raise TypeError(
            f"`data` must be a judgestats.kclass.KClassData, got {type(data).__name__}."
        )
    weights = check_weights(data.classes, functional, "functional")
    level = check_level(confidence_level)
    shown = tuple(float(w) for w in weights)

    def result(
        values: Any, method: str, reason: str, flags: tuple[str, ...] = ()
    ) -> KClassRecommendation:
        estimate, low, high = (float(v) for v in values)
        return KClassRecommendation(
            estimate, low, high, shown, method, level, reason, tuple(flags), name
        )

    row, why_not = _closed_form(data, weights, level)
    if row is not None:
        reason = (
            f"the closed form is defined and every true class has at least {CLOSED_FORM_MIN_M} "
            "calibration items, the regime where benchmarks/kclass_coverage.py measured its "
            f"{fmt_percent(level)} interval covering at least 94.5% in every cell."
        )
        return result(row, "closed_form", reason, row.flags)
    why = [why_not]
    row, why_not = _posterior(
        data, weights, level, {"random_seed": random_seed, **posterior_options}
    )
    if row is not None:
        reason = (
            f"{why[0]}; the posterior answers on every dataset (the judge's identifiability "
            "constraint is in its prior), and its equal-tailed credible interval of probability "
            f"{fmt_percent(posterior_probability(level))} is reported (at "
            f"{fmt_percent(level)} it undercovered on such datasets in "
            "benchmarks/kclass_coverage.py)."
        )
        return result(row, "posterior", reason, row.flags)
    why.append(why_not)
    method, estimate, ci, text = _guaranteed(data, weights, level)
    return result((estimate, *ci), method, "; ".join([*why, text]) + ".")
