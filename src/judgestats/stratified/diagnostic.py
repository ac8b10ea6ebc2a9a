r"""When is the pooled (unstratified) correction biased? The diagnostic and its size.

The pooled correction sums every stratum's counts and applies one Rogan-Gladen correction
(Lee et al., arXiv 2511.21140 v1, eq. 4). Its judged-correct rate is
:math:`\hat P = \sum_s w_s \hat p_s` (test shares :math:`w_s = n_s / N`), but its specificity
and sensitivity are averages over the *calibration* mix of strata:
:math:`\hat Q_0 = \sum_s a_s \hat q_{0s}` with :math:`a_s = m_{0s} / M_0` and
:math:`\hat Q_1 = \sum_s b_s \hat q_{1s}` with :math:`b_s = m_{1s} / M_1`. The pooled test set,
however, meets the judge with the specificity of its own truly-incorrect items,
:math:`Q_0^* = \sum_s w_s (1 - \theta_s) q_{0s} / (1 - \theta)`, and the sensitivity of its
truly-correct items, :math:`Q_1^* = \sum_s w_s \theta_s q_{1s} / \theta`. Solving the pooled
equation with :math:`(\hat Q_0, \hat Q_1)` in place of :math:`(Q_0^*, Q_1^*)` gives the exact
identity (derivation in the module's tests)

.. math::
    \theta_\text{pooled} - \theta = \frac{(1 - \theta)(Q_0 - Q_0^*) - \theta (Q_1 - Q_1^*)}
    {Q_0 + Q_1 - 1},

so the pooled correction is biased exactly when the judge's specificity or sensitivity differs
across strata *and* the calibration's mix of truly-incorrect (truly-correct) items over the
strata differs from the test set's. A calibration set drawn at random from the test items has
the test set's mix (no bias); one that labels a fixed number of items per class in each stratum
generally does not.

:func:`pooled_bias` estimates :math:`\hat\theta_\text{pooled} - \hat\theta_\text{stratified}`
(both unclipped) with a delta-method standard error that linearises the difference in all 3S
independent binomial rates, so the correlation between the two estimators (they share the data)
is accounted for. At the estimates, the identity above holds exactly; its two terms (the
specificity term and the sensitivity term) say which error rate causes the bias.

Rule: the flag ``pooled_biased`` is raised when :math:`|\text{bias}| > 2\,\text{se}` **and**
:math:`|\text{bias}| \ge 0.01` (:data:`POOLED_BIAS_Z`, :data:`POOLED_BIAS_MIN`): the difference is
both statistically clear and large enough to change a reported accuracy at two decimals.

What it cannot see: with small calibration arms ``se`` is large and a real bias of several
points goes unflagged (``benchmarks/stratified_coverage.py``: 0% flagged at 10-30 labels per
arm where the pooled interval covered 0.03-0.55). :attr:`PooledBias.undetectable` is
:math:`2\,\text{se}`, the size below which a bias is not flagged; when the flag is off and
that exceeds :data:`POOLED_BIAS_MIN`, the printed diagnostic says so next to the estimate, so an
absent flag is not read as "the pooled correction is fine".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from judgestats._json import to_json
from judgestats._validate import check_level, no_correction_message
from judgestats.frequentist import rogan_gladen_raw, z_quantile
from judgestats.results import FLAG_MESSAGES, ConfidenceInterval, Result, register_flags
from judgestats.stratified.data import StratifiedData

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "POOLED_BIAS_MIN",
    "POOLED_BIAS_Z",
    "STRATIFIED_FLAGS",
    "PooledBias",
    "pooled_bias",
]

#: The flag raises when |bias| exceeds this many standard errors ...
POOLED_BIAS_Z = 2.0
#: ... and is at least this large (an accuracy difference visible at two decimals).
POOLED_BIAS_MIN = 0.01

#: The flags of :mod:`judgestats.stratified`
#: (registered in :data:`judgestats.results.FLAG_MESSAGES`).
STRATIFIED_FLAGS = register_flags(
    {
        "pooled_biased": "the pooled (unstratified) correction differs from the stratified one "
        f"by more than {POOLED_BIAS_Z:g} standard errors and by at least {POOLED_BIAS_MIN:g}: "
        "the judge's error rates differ between strata and the calibration set mixes the "
        "strata differently from the test set, so the pooled number is biased; report the "
        "stratified estimate",
        "small_stratum_calibration": "a stratum's calibration arm has fewer than 30 items; the "
        "summed normal approximation is rough there; the hierarchical posterior "
        "(judgestats.stratified.stratified_posterior) borrows strength across strata",
    }
)


@dataclass(frozen=True)
class PooledBias(Result):
    """The pooled correction minus the stratified one, with its standard error and causes.

    Attributes
    ----------
    bias : float
        theta-hat_pooled - theta-hat_stratified, both unclipped (NaN when the pooled judge is
        no better than chance, q0 + q1 - 1 <= 0 on the summed counts).
    se : float
        Its delta-method standard error (every stratum's p, q0, q1 linearised).
    ci : ConfidenceInterval
        ``bias -/+ z se`` at ``confidence_level`` (not truncated: a difference).
    confidence_level : float
        Level of ``ci``.
    pooled_raw, stratified_raw : float
        The two unclipped estimates.
    q0_calibration, q0_test : float
        Pooled specificity as the calibration measures it (sum_s m0_s q0_s / M0) and as the
        test set's truly-incorrect items meet it (sum_s w_s (1 - theta_s) q0_s / (1 - theta)).
    q1_calibration, q1_test : float
        The same for the sensitivity (truly-correct items).
    specificity_term, sensitivity_term : float
        (1 - theta)(Q0 - Q0*) / J_pooled and -theta (Q1 - Q1*) / J_pooled: they sum to ``bias``.
    flags : tuple of str
        ``("pooled_biased",)`` when the rule of the module docstring fires.
    """

    title: ClassVar[str] = "pooled minus stratified correction"

    bias: float
    se: float
    ci: ConfidenceInterval
    confidence_level: float
    pooled_raw: float
    stratified_raw: float
    q0_calibration: float
    q0_test: float
    q1_calibration: float
    q1_test: float
    specificity_term: float
    sensitivity_term: float
    flags: tuple[str, ...] = ()

    @property
    def flagged(self) -> bool:
        """Whether the pooled correction is judged biased (flag ``pooled_biased``)."""
        return "pooled_biased" in self.flags

    @property
    def undetectable(self) -> float:
        """The bias size the rule cannot flag: ``POOLED_BIAS_Z * se`` (NaN without an se)."""
        return POOLED_BIAS_Z * self.se

    @property
    def blind(self) -> bool:
        """Unflagged, yet unable to see a bias of :data:`POOLED_BIAS_MIN` or more."""
        return not self.flagged and not self.undetectable < POOLED_BIAS_MIN  # NaN: blind

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict of every number and the flags."""
        out: dict[str, Any] = {
            name: getattr(self, name)
            for name in (
                "bias",
                "se",
                "confidence_level",
                "pooled_raw",
                "stratified_raw",
                "q0_calibration",
                "q0_test",
                "q1_calibration",
                "q1_test",
                "specificity_term",
                "sensitivity_term",
            )
        }
        out.update(low=self.ci.low, high=self.ci.high, undetectable=self.undetectable)
        out["flags"] = {flag: FLAG_MESSAGES[flag] for flag in self.flags}
        return to_json(out)

    def summary(self) -> pd.DataFrame:
        """One row, ``pooled - stratified``: estimate, low, high, width, se."""
        import pandas as pd

        return pd.DataFrame(
            [[self.bias, self.ci.low, self.ci.high, self.ci.high - self.ci.low, self.se]],
            index=pd.Index(["pooled - stratified"], name="quantity"),
            columns=["estimate", "low", "high", "width", "se"],
        )

    def __str__(self) -> str:
        return (
            f"pooled minus stratified: {self.bias:+.4f} (se {self.se:.4f}; pooled "
            f"{self.pooled_raw:.4f}, stratified {self.stratified_raw:.4f})\n"
            f"  cause: q0 {self.q0_calibration:.4f} in the calibration mix vs {self.q0_test:.4f} "
            f"in the test mix ({self.specificity_term:+.4f}), q1 {self.q1_calibration:.4f} vs "
            f"{self.q1_test:.4f} ({self.sensitivity_term:+.4f})"
        ) + (
            f"\n  not flagged, but it cannot see a pooled bias smaller than about "
            f"{self.undetectable:.3f} with calibration arms this small (interval "
            f"({self.ci.low:+.3f}, {self.ci.high:+.3f})): the pooled correction may be off by "
            "that much unseen; the stratified estimate above does not depend on it"
            if self.blind
            else ""
        )


def pooled_bias(data: StratifiedData, *, confidence_level: float = 0.95) -> PooledBias:
    """Estimate the bias of the pooled correction against the stratified one.

    Parameters
    ----------
    data : StratifiedData
        The counts per stratum.
    confidence_level : float, default 0.95
        Level of the interval around the difference.

    Returns
    -------
    PooledBias

    Raises
    ------
    TypeError
        If ``data`` is not a :class:`StratifiedData`.
    ValueError
        If the level is invalid, or a stratum's judge is no better than chance (the stratified
        estimate, hence the difference, does not exist; the message names the stratum).

    Examples
    --------
    >>> from judgestats.stratified import StratifiedData, pooled_bias
    >>> data = StratifiedData(
    ...     strata=("easy", "hard"), k=[688, 92], n=[800, 200],
    ...     k0=[95, 70], m0=[100, 100], k1=[95, 70], m1=[100, 100],
    ... )
    >>> result = pooled_bias(data)
    >>> round(result.bias, 4), result.flags
    (0.1308, ('pooled_biased',))
    """
    check_data(data)
    level = check_level(confidence_level)
    z = z_quantile(level)
    theta_s = stratum_thetas(data)
    w = data.weights
    a, b = data.m0 / data.m0.sum(), data.m1 / data.m1.sum()
    q0, q1 = data.q0, data.q1
    theta = float(np.sum(w * theta_s))
    big_q0, big_q1 = float(np.sum(a * q0)), float(np.sum(b * q1))
    pooled, j_pooled = (
        float(x) for x in rogan_gladen_raw(float(np.sum(w * data.p)), big_q0, big_q1)
    )
    se = _difference_se(data, theta_s, pooled, j_pooled)
    spec = float(np.sum((a * (1.0 - theta) - w * (1.0 - theta_s)) * q0)) / j_pooled
    sens = -float(np.sum((b * theta - w * theta_s) * q1)) / j_pooled
    bias = pooled - theta
    flags = (
        ("pooled_biased",)
        if abs(bias) > POOLED_BIAS_Z * se and abs(bias) >= POOLED_BIAS_MIN
        else ()
    )
    return PooledBias(
        bias=bias,
        se=se,
        ci=ConfidenceInterval(bias - z * se, bias + z * se),
        confidence_level=level,
        pooled_raw=pooled,
        stratified_raw=theta,
        q0_calibration=big_q0,
        q0_test=_share_mean(w * (1.0 - theta_s), q0),
        q1_calibration=big_q1,
        q1_test=_share_mean(w * theta_s, q1),
        specificity_term=spec,
        sensitivity_term=sens,
        flags=flags,
    )


def _share_mean(mass: np.ndarray, rate: np.ndarray) -> float:
    """sum(mass * rate) / sum(mass); NaN when the mass is zero (no item of that class)."""
    total = float(np.sum(mass))
    return float(np.sum(mass * rate)) / total if total != 0.0 else math.nan


def _difference_se(
    data: StratifiedData, theta_s: np.ndarray, pooled: float, j_pooled: float
) -> float:
    r"""Delta-method se of theta-hat_pooled - theta-hat_stratified (both unclipped).

    With :math:`D = (\hat P + \hat Q_0 - 1)/\hat J_P - \sum_s w_s \hat\theta_s`, the partial
    derivatives are :math:`w_s (1/J_P - 1/J_s)` in :math:`\hat p_s`,
    :math:`a_s (1 - \theta_P)/J_P - w_s (1 - \theta_s)/J_s` in :math:`\hat q_{0s}` and
    :math:`-b_s \theta_P / J_P + w_s \theta_s / J_s` in :math:`\hat q_{1s}`; the variance sums
    their squares times the binomial variances :math:`r(1 - r)/\text{size}`.
    """
    if not j_pooled > 0.0:
        return math.nan
    w, j_s = data.weights, data.youden
    a, b = data.m0 / data.m0.sum(), data.m1 / data.m1.sum()
    p, q0, q1 = data.p, data.q0, data.q1
    d_p = w * (1.0 / j_pooled - 1.0 / j_s)
    d_q0 = a * (1.0 - pooled) / j_pooled - w * (1.0 - theta_s) / j_s
    d_q1 = -b * pooled / j_pooled + w * theta_s / j_s
    variance = np.sum(
        d_p**2 * p * (1.0 - p) / data.n
        + d_q0**2 * q0 * (1.0 - q0) / data.m0
        + d_q1**2 * q1 * (1.0 - q1) / data.m1
    )
    return math.sqrt(float(variance))


def check_data(data: Any) -> StratifiedData:
    """Raise TypeError unless ``data`` is a :class:`StratifiedData`."""
    if not isinstance(data, StratifiedData):
        raise TypeError(
            f"`data` must be a StratifiedData, got {type(data).__name__}; build one with "
            "judgestats.stratified.StratifiedData(strata=..., k=..., n=..., k0=..., m0=..., "
            "k1=..., m1=...) or StratifiedData.from_counts({...})."
        )
    return data


def stratum_thetas(data: StratifiedData) -> np.ndarray:
    """Every stratum's unclipped Rogan-Gladen estimate (eq. 4); raise naming a chance-level judge.

    A stratum whose judge is no better than chance (q0-hat + q1-hat - 1 <= 0) has no
    correction, so neither has the overall accuracy: ValueError naming the stratum.
    """
    theta, youden = rogan_gladen_raw(data.p, data.q0, data.q1)
    bad = youden <= 0.0
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        message = no_correction_message(
            float(data.q0[index]), float(data.q1[index]), smoothed=False
        )
        raise ValueError(no_overall_message(data.strata[index], message))
    return np.asarray(theta, dtype=np.float64)


def no_overall_message(stratum: str, reason: str) -> str:
    """The error for a stratum without a correction: names it and says the total has none."""
    return (
        f"`data`: stratum {stratum!r}: {reason} The overall accuracy sums every stratum's "
        "correction, so it does not exist either: merge the stratum with a similar one or label "
        "more of its items."
    )
