"""The expected-width engine of the planning functions (package-internal helpers).

What each method computes is described in :mod:`judgestats.planning.allocation`: the expectation of
the Lang-Reiczigel width (Lee et al., arXiv 2511.21140 v1, eqs. 5-7) over the binomial sampling
distribution of the counts, summarised by a quadrature over runs of equal probability
(``"frequentist"``); the width at the planning values (``"plugin"``); or the expected posterior
credible width (``"bayes"``).
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from judgestats.exceptions import JudgeStatsWarning
from judgestats.frequentist import lang_reiczigel_ci

if TYPE_CHECKING:  # pragma: no cover
    from judgestats.bayes.priors import Prior

WIDTH_METHODS = ("frequentist", "plugin", "bayes")
#: Groups per binomial count in the expected-width quadrature: (calibration arm, test set).
NODES = {"frequentist": (48, 16), "bayes": (6, 4)}


_PMF_FLOOR = 1e-12
#: Standard deviation above which Bin(size, prob) is summarised by its normal limit, so that the
#: cost of a node set does not grow with ``size`` (a budget or a test set of 10^12 items).
NORMAL_LIMIT_SD = 2_000.0


_EVAL_BLOCK = 1_000_000


@functools.lru_cache(maxsize=4096)
def binomial_nodes(size: float, prob: float, groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Counts and probabilities summarising Bin(size, prob) (see the module docstring).

    Outcomes with probability below 1e-12 are dropped and the rest renormalised; a support longer
    than ``groups`` is cut into ``groups`` runs of consecutive counts with equal probability, each
    represented by its conditional mean count. Beyond a standard deviation of
    :data:`NORMAL_LIMIT_SD` the runs are those of the normal limit (:func:`_normal_nodes`): the
    cost is then the same at every size.
    """
    from scipy.special import gammaln, xlog1py, xlogy

    if prob in (0.0, 1.0):
        return np.array([size * prob]), np.array([1.0])
    mean, sd = size * prob, math.sqrt(size * prob * (1.0 - prob))
    if sd > NORMAL_LIMIT_SD:
        return _normal_nodes(mean, sd, groups)
    counts = np.arange(
        max(0.0, math.floor(mean - 12 * sd - 12)), min(size, math.ceil(mean + 12 * sd + 12)) + 1.0
    )
    log_pmf = (
        gammaln(size + 1)
        - gammaln(counts + 1)
        - gammaln(size - counts + 1)
        + xlogy(counts, prob)
        + xlog1py(size - counts, -prob)
    )
    pmf = np.exp(log_pmf)
    keep = pmf >= _PMF_FLOOR
    counts, pmf = counts[keep], pmf[keep] / pmf[keep].sum()
    if counts.size <= groups:
        return counts, pmf
    middle = np.cumsum(pmf) - pmf / 2
    group = np.minimum((middle * groups).astype(int), groups - 1)
    weight = np.bincount(group, pmf, minlength=groups)
    used = weight > 0
    centre = np.bincount(group, pmf * counts, minlength=groups)[used] / weight[used]
    return centre, weight[used]


def _normal_nodes(mean: float, sd: float, groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Equal-probability runs of N(mean, sd^2): conditional means, weights 1 / groups.

    The run between the normal quantiles z_i and z_(i+1) has conditional mean
    ``mean + sd * groups * (phi(z_i) - phi(z_(i+1)))``. With sd > :data:`NORMAL_LIMIT_SD` the
    binomial's skewness is below 1/2000 and its distance to the normal (Berry-Esseen) below
    2.4e-4, far inside the quadrature's own error; the mean is at least sd^2 > 4 10^6 away from
    0 and from ``size``, so no run is cut by the ends.
    """
    from scipy.special import ndtri

    edges = ndtri(np.linspace(0.0, 1.0, groups + 1))  # -inf ... +inf
    density = np.exp(-0.5 * np.square(edges)) / math.sqrt(2.0 * math.pi)  # 0 at the infinite ends
    centre = mean + sd * groups * (density[:-1] - density[1:])
    return centre, np.full(groups, 1.0 / groups)


def integer_nodes(size: float, prob: float, groups: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`binomial_nodes` rounded to whole counts (duplicates merged) for the posterior."""
    centre, weight = binomial_nodes(size, prob, groups)
    counts, where = np.unique(np.round(centre), return_inverse=True)
    return counts, np.bincount(where.ravel(), weight)


@dataclass(frozen=True)
class PlanningSetting:
    """Planning values shared by every width evaluation."""

    p: float
    q0: float
    q1: float
    n: float
    level: float


class WidthModel:
    """Expected width as a function of the split, vectorised over arrays of (m0, m1)."""

    def __init__(
        self, setting: PlanningSetting, method: str, prior: Prior | None = None, kind: str = "eti"
    ) -> None:
        self.setting, self.method, self.prior, self.kind = setting, method, prior, kind

    def __call__(self, m0: Any, m1: Any) -> np.ndarray:
        m0, m1 = np.broadcast_arrays(np.asarray(m0, float), np.asarray(m1, float))
        if self.method == "plugin":
            s = self.setting
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", JudgeStatsWarning)
                low, high = lang_reiczigel_ci(
                    np.full(m0.shape, s.p), s.q0, s.q1, s.n, m0, m1, confidence_level=s.level
                )
            return np.nan_to_num(high - low, nan=1.0)
        if self.method == "bayes":
            return self._bayes(m0.ravel(), m1.ravel()).reshape(m0.shape)
        return self._frequentist(m0.ravel(), m1.ravel()).reshape(m0.shape)

    def test_nodes(self, groups: int, integer: bool) -> tuple[np.ndarray, np.ndarray]:
        s = self.setting
        if math.isinf(s.n):
            return np.array([s.p]), np.array([1.0])
        counts, weight = (integer_nodes if integer else binomial_nodes)(s.n, s.p, groups)
        return counts / s.n, weight

    def _frequentist(self, m0: np.ndarray, m1: np.ndarray) -> np.ndarray:
        s = self.setting
        arm_groups, test_groups = NODES["frequentist"]
        p_values, p_weight = self.test_nodes(test_groups, integer=False)
        out = np.zeros(m0.size)
        blocks: list[tuple[np.ndarray, ...]] = []
        pending = 0
        for i, (a, b) in enumerate(zip(m0, m1, strict=True)):
            c0, w0 = binomial_nodes(a, s.q0, arm_groups)
            c1, w1 = binomial_nodes(b, s.q1, arm_groups)
            grids = np.meshgrid(c0 / a, c1 / b, p_values, indexing="ij")
            weight = w0[:, None, None] * w1[None, :, None] * p_weight[None, None, :]
            blocks.append(
                (
                    grids[2].ravel(),
                    grids[0].ravel(),
                    grids[1].ravel(),
                    np.full(weight.size, a),
                    np.full(weight.size, b),
                    weight.ravel(),
                    np.full(weight.size, i),
                )
            )
            pending += weight.size
            if pending >= _EVAL_BLOCK or i == m0.size - 1:
                out += self._reduce(blocks, m0.size)
                blocks, pending = [], 0
        return out

    def _reduce(self, blocks: list[tuple[np.ndarray, ...]], size: int) -> np.ndarray:
        p, q0, q1, m0, m1, weight, index = (
            np.concatenate(parts) for parts in zip(*blocks, strict=True)
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JudgeStatsWarning)
            low, high = lang_reiczigel_ci(
                p, q0, q1, self.setting.n, m0, m1, confidence_level=self.setting.level
            )
        width = np.nan_to_num(high - low, nan=1.0)  # no interval: nothing learnt
        return np.bincount(index, weight * width, minlength=size)

    def _bayes(self, m0: np.ndarray, m1: np.ndarray) -> np.ndarray:
        from judgestats.bayes.exact import exact_interval

        s = self.setting
        arm_groups, test_groups = NODES["bayes"]
        k_values, k_weight = self.test_nodes(test_groups, integer=True)
        columns: list[list[np.ndarray]] = [[] for _ in range(7)]
        for i, (a, b) in enumerate(zip(m0, m1, strict=True)):
            c0, w0 = integer_nodes(a, s.q0, arm_groups)
            c1, w1 = integer_nodes(b, s.q1, arm_groups)
            grids = np.meshgrid(c0, c1, k_values * s.n, indexing="ij")
            weight = w0[:, None, None] * w1[None, :, None] * k_weight[None, None, :]
            for column, values in zip(
                columns,
                (
                    *grids,
                    np.full(weight.shape, a),
                    np.full(weight.shape, b),
                    weight,
                    np.full(weight.shape, i),
                ),
                strict=True,
            ):
                column.append(values.ravel())
        k0, k1, k, a, b, weight, index = (np.concatenate(column) for column in columns)
        low, high = exact_interval(
            np.round(k), s.n, k0, a, k1, b, prob=s.level, kind=self.kind, prior=self.prior
        )
        return np.bincount(index.astype(int), weight * (high - low), minlength=m0.size)


def width_model(
    setting: PlanningSetting, method: str, prior: Prior | None = None, kind: str = "eti"
) -> WidthModel:
    if method == "bayes" and math.isinf(setting.n):
        raise ValueError(
            "`n` (inf) must be a finite test-set size for method='bayes': the posterior is "
            "computed from counts. Give the planned number of test items."
        )
    return WidthModel(setting, method, prior, kind)


def width_floor(setting: PlanningSetting) -> float:
    """Expected width with unlimited calibration: what the test set alone leaves (0 if n = inf)."""
    if math.isinf(setting.n):
        return 0.0
    p_values, weight = WidthModel(setting, "plugin").test_nodes(
        NODES["frequentist"][1], integer=False
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        low, high = lang_reiczigel_ci(
            p_values, setting.q0, setting.q1, setting.n, 1e15, 1e15, confidence_level=setting.level
        )
    return float(np.sum(weight * np.nan_to_num(high - low, nan=1.0)))
