r"""The posterior of the judge model by deterministic numerical integration (no MCMC).

Model (the same as :mod:`judgestats.bayes.model`)::

    theta ~ Beta(a_t, b_t),  q0 ~ Beta(a0, b0),  q1 ~ Beta(a1, b1)   [q0 + q1 > 1 if truncated]
    p = theta q1 + (1 - theta)(1 - q0),  k ~ Bin(n, p),  k0 ~ Bin(m0, q0),  k1 ~ Bin(m1, q1).

Coordinates
-----------
The posterior is integrated in the coordinates ``(theta, p, J)`` with ``J = q0 + q1 - 1``
(Youden's J), i.e. ``q0 = 1 - p + theta J`` and ``q1 = p + (1 - theta) J``. The map from
``(theta, q0, q1)`` has Jacobian 1, so the posterior density there is

.. math:: f(\theta, p, J) \propto \pi(\theta)\; p^{k}(1-p)^{n-k}\;
          g_0(1 - p + \theta J)\; g_1(p + (1 - \theta) J),

with ``g0 = Beta(a0 + k0, b0 + m0 - k0)`` and ``g1 = Beta(a1 + k1, b1 + m1 - k1)`` (prior times
calibration likelihood) and the better-than-chance truncation ``q0 + q1 > 1`` becoming the fixed
boundary ``J > 0``. In these coordinates each factor is smooth and each sharp factor has one
variable of its own: the binomial kernel lives in p alone (width ``~ n^(-1/2)``), the calibration
Betas along the segment of J at fixed (theta, p) (width ``~ m^(-1/2)``), and the weak-judge corner
``J -> 0``, where theta = (p - 1 + q0) / J is ill-defined in (q0, q1), is an ordinary edge.

Quadrature
----------
Nested Gauss rules, each on the window where its integrand is not negligible:

* ``J`` (inner): ``J_ORDER`` Gauss-Legendre nodes on the J-segment where both calibration Betas
  lie inside their boxes (Beta quantiles at ``BOX_TAIL``) and ``J > 0`` if truncated;
* ``p`` (middle): two panels of ``P_ORDER`` nodes on the intersection of the binomial kernel's
  window (quantiles ``BOX_TAIL`` of Beta(k + 1, n - k + 1)) with the range of p that the
  calibration boxes allow at this theta, split at ``p = theta`` (where the density, integrated
  over J, has a kink when both Betas reach 1);
* ``theta`` (outer): ``THETA_PANELS`` panels of ``THETA_ORDER`` nodes on the support found by a
  cheaper scouting pass (log-density within ``SUPPORT_DROP`` of its maximum), with a panel edge
  at ``p-hat``; a panel next to an end where a theta prior with a parameter below 1 is unbounded
  uses a Gauss-Jacobi rule that absorbs the singular factor.

The theta marginal is tabulated at the outer nodes and held as a piecewise Legendre series
(:class:`judgestats.bayes._panels.PanelDensity`): CDF, density, moments and quantiles are
polynomial evaluations. The marginals of q0, q1, J and p are tabulated the same way from 2-D
integrals of their own (:mod:`judgestats.bayes._marginals`), so no summary is a node value. The
nested rule also gives the diagnostics' expectations (posterior predictive p-values, the
probability of a weak judge; :class:`~judgestats.bayes._quadrature.NestedRule`) and the joint
draws, by conditional inversion: theta from its marginal, then p given theta, then J given (theta,
p); the rule lives in :mod:`judgestats.bayes._quadrature`. Many datasets at once
(:func:`exact_quantiles`, :func:`exact_interval`, :mod:`judgestats.bayes.exact_vectorised`) share a
table per calibration group (:mod:`judgestats.bayes._batch`).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from judgestats._validate import as_generator, check_choice, check_level, check_open_probabilities
from judgestats.bayes._marginals import marginal
from judgestats.bayes._panels import PanelDensity
from judgestats.bayes._quadrature import (
    THETA_PANELS,
    InnerRule,
    NestedRule,
    conditional_draws,
    end_rising,
    inner_rule,
    log_likelihood,
    regular_log_prior,
    theta_density,
    theta_rule,
)
from judgestats.bayes._terms import P_ORDER, Rows, log_prior, rows_for
from judgestats.bayes.exact_vectorised import (
    check_arms,
    check_kind,
    exact_interval,
    exact_quantiles,
)
from judgestats.bayes.priors import Prior, as_prior
from judgestats.data import JudgeData

__all__ = ["ExactPosterior", "VARIABLES", "exact_interval", "exact_quantiles"]

#: Variables with an exact marginal.
VARIABLES = ("theta", "q0", "q1", "youden", "p")
#: The error of data whose posterior lies outside every window the quadrature can build.
_NOT_INTEGRABLE = (
    "`data` ({data!r}): the exact posterior could not be integrated: the test count and the "
    "calibration counts conflict so strongly that no (theta, q0, q1) in the quadrature's "
    "windows explains them together (with the better-than-chance prior, also calibration "
    "counts below chance), or the posterior of theta spreads over many orders of magnitude "
    "next to 0 or 1 (k = 0 or n with n huge); check the counts, or use method='nuts', "
    "Prior(better_than_chance=False) or judgestats.guaranteed_ci."
)
#: Panel doublings of the theta rule's check on conflicting data, and its tolerance.
REFINE_STEPS = 3
MAX_P_ORDER = 64
REFINE_TOLERANCE = 1e-2
#: Mass beyond an end of the theta support, relative to the mass inside, that counts as cut
#: off, and the points (1, 2, 4, ... support widths out) on which it is summed.
TAIL_MASS = 1e-4
TAIL_POINTS = 12
#: Nodes of the p and J rules behind the diagnostics (posterior predictive p-values, P(J < x)).
DIAGNOSTIC_ORDERS = (8, 24)


# ------------------------------------------------------------------------------------------------
# the public class
# ------------------------------------------------------------------------------------------------
class ExactPosterior:
    r"""Posterior of (theta, q0, q1, J, p) by deterministic quadrature (see the module docstring).

    Parameters
    ----------
    data : JudgeData
        The six counts. An empty calibration arm (``m0 = 0`` or ``m1 = 0``, possible in a random
        design) leaves that parameter to its prior.
    prior : Prior, optional
        Beta priors; ``None`` means ``Prior()`` (uniform, truncated to q0 + q1 > 1). For a
        random design pass the prior of :func:`judgestats.bayes.priors.random_design_prior`.

    Notes
    -----
    Every summary is computed from the nested Gauss rule, never from draws: quantiles agree with
    an independent brute-force integration to 1e-4 or better across weak judges, tiny and huge
    calibration sets, n up to 1e9 and estimates at 0 and 1 (tests/test_exact_reference.py);
    under the random design, where test and calibration counts conflict, to 3e-4, the
    refinement's tolerance (tests/test_random_posterior_reference.py).

    Examples
    --------
    >>> post = ExactPosterior(JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200))
    >>> round(post.mean(), 3), round(post.quantile(0.5, var="q0"), 4)
    (0.162, 0.6971)
    """

    def __init__(self, data: JudgeData, prior: Prior | None = None) -> None:
        if not isinstance(data, JudgeData):
            raise TypeError(f"`data` must be a JudgeData, got {type(data).__name__}.")
        _check_arms(data)
        self.data = data
        self.prior = as_prior(prior)
        k, n, k0, m0, k1, m1 = (
            np.array([float(getattr(data, name))]) for name in ("k", "n", "k0", "m0", "k1", "m1")
        )
        self._rows = rows_for(k, n, k0, m0, k1, m1, self.prior)
        (edges, t, log_w, powers), inner, density = _theta_marginal(self._rows, data)
        self._marginals = {"theta": density}
        # the diagnostics' expectations need less: the same theta rule, coarser p and J rules
        self._nested = NestedRule(
            inner_rule(self._rows, t, *DIAGNOSTIC_ORDERS),
            log_w + regular_log_prior(self._rows, t, powers),
        )

    def _marginal(self, var: str) -> PanelDensity:
        """The marginal of ``var`` as a piecewise Legendre series (built on first use)."""
        if var not in self._marginals:
            self._marginals[var] = marginal(self._rows, var)
        return self._marginals[var]

    # -- public API -----------------------------------------------------------------------------
    def cdf(self, x: Any, var: str = "theta") -> np.ndarray | float:
        """Posterior CDF ``P(var <= x)``, vectorised over ``x``."""
        arr = np.asarray(x, float)
        out = self._marginal(_check_var(var)).cdf_pdf(arr.reshape(1, -1))[0]
        return _shaped(out, arr.shape)

    def pdf(self, x: Any, var: str = "theta") -> np.ndarray | float:
        """Posterior density of ``var`` at ``x``, vectorised over ``x``."""
        arr = np.asarray(x, float)
        out = self._marginal(_check_var(var)).cdf_pdf(arr.reshape(1, -1))[1]
        return _shaped(out, arr.shape)

    def quantile(self, q: Any, var: str = "theta") -> np.ndarray | float:
        """Posterior quantile of ``var`` at probabilities ``q`` (vectorised)."""
        var = _check_var(var)
        arr = check_open_probabilities(q, "q")
        out = self._marginal(var).quantile(arr.reshape(1, -1))
        return _shaped(out, arr.shape)

    def mean(self, var: str = "theta") -> float:
        """Posterior mean of ``var``."""
        return float(self._marginal(_check_var(var)).mean_sd()[0][0])

    def sd(self, var: str = "theta") -> float:
        """Posterior standard deviation of ``var``."""
        return float(self._marginal(_check_var(var)).mean_sd()[1][0])

    def interval(
        self, prob: float = 0.95, kind: str = "eti", var: str = "theta"
    ) -> tuple[float, float]:
        """Credible interval of ``var``: equal-tailed (``"eti"``) or shortest (``"hdi"``)."""
        prob = check_level(prob, "prob")
        kind = check_kind(kind)
        density = self._marginal(_check_var(var))
        if kind == "eti":
            low, high = density.quantile(np.array([[(1 - prob) / 2, (1 + prob) / 2]]))[0]
            return float(low), float(high)
        low, high = density.shortest(prob)
        return float(low[0]), float(high[0])

    def expect(self, funcs: list, var: str) -> list[float]:
        """``[E[func(var)] for func in funcs]`` on the nested rule (:class:`NestedRule`).

        ``funcs`` are smooth vectorised functions on [0, 1]; ``var`` is p, q0, q1 or youden.
        """
        return self._nested.expect(funcs, var)

    def prob_youden_below(self, threshold: float) -> float:
        """Posterior probability that Youden's J lies below ``threshold`` (nested rule)."""
        return self._nested.youden_cdf(float(threshold))

    def mode(self) -> float:
        """Posterior mode of theta (maximiser of the marginal density; 0 or 1 at a bound)."""
        low, high = self._marginals["theta"].support
        grid = np.linspace(low[0], high[0], 513)
        dens = self._marginals["theta"].cdf_pdf(grid[None, :])[1][0]
        i = int(np.argmax(dens))
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
        ratio = (np.sqrt(5.0) - 1) / 2
        for _ in range(60):
            c, d = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
            fc, fd = self._marginals["theta"].cdf_pdf(np.array([[c, d]]))[1][0]
            hi, lo = (d, lo) if fc >= fd else (hi, c)
        return float((lo + hi) / 2)

    def sample(self, size: int, random_seed: Any = None) -> dict[str, np.ndarray]:
        """Draw ``size`` joint posterior draws of theta, q0, q1, youden and p.

        theta is drawn from its marginal, p from its conditional law given theta and J from its
        conditional law given (theta, p), each by inverting a CDF of the nested rule at uniform
        variates; q0 = 1 - p + theta J and q1 = p + (1 - theta) J. The draws are i.i.d. and
        continuous (no quadrature-node values).
        """
        if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 0:
            raise ValueError(f"`size` ({size!r}) must be a non-negative integer.")
        rng = as_generator(random_seed)
        u = rng.random((3, int(size)))
        theta = self._marginals["theta"].quantile(u[:1])[0] if size else np.empty(0)
        p, j = conditional_draws(self._rows, theta, u[1], u[2])
        return {
            "theta": theta,
            "q0": 1 - p + theta * j,
            "q1": p + (1 - theta) * j,
            "youden": j,
            "p": p,
        }

    def __repr__(self) -> str:
        return f"ExactPosterior(data={self.data!r}, prior={self.prior!r})"


def _check_arms(data: JudgeData) -> None:
    """:func:`~judgestats.bayes.exact_vectorised.check_arms`, its ValueError naming ``data``."""
    hint = "use judgestats.estimate (Lang-Reiczigel), whose interval holds at any size"
    try:
        check_arms(data.m0, data.m1, hint)
    except ValueError as error:
        raise ValueError(f"`data` ({data!r}): the calibration arm {error}") from None


def _shaped(out: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | float:
    out = np.asarray(out).reshape(shape)
    return float(out) if out.ndim == 0 else out


def _theta_marginal(rows: Rows, data: JudgeData) -> tuple[tuple, InnerRule, PanelDensity]:
    """The theta rule, its nested rule and the theta marginal, checked (ValueError if unusable).

    An end of the support where mass was cut off (:func:`_resolved`; the theta prior's box,
    which the likelihood can tilt the posterior past) is opened to 0 or 1 once. Where the data
    conflict (stretched boxes, :meth:`~judgestats.bayes._terms.Rows._bridge`) the rule is
    checked by doubling its theta panels and p nodes (up to ``MAX_P_ORDER``) until the 2.5%,
    50% and 97.5% quantiles move by less than ``REFINE_TOLERANCE`` of the 95% interval's width.
    """
    rule, inner, ok, cut = _checked_rule(rows, THETA_PANELS)
    if ok and cut.any():
        low, high = rows.box_t
        rows.box_t = (np.where(cut[0], 0.0, low), np.where(cut[1], 1.0, high))
        rule, inner, ok, cut = _checked_rule(rows, THETA_PANELS)
    if not ok or cut.any():
        raise ValueError(_NOT_INTEGRABLE.format(data=data))
    density = theta_density(rows, inner.log_l, rule[1], rule[0], rule[3])
    levels = np.array([[0.025, 0.5, 0.975]])
    settled = not bool(np.any(rows.conflict))
    panels, p_order = THETA_PANELS, P_ORDER
    while not settled and panels < THETA_PANELS * 2**REFINE_STEPS:
        panels, p_order = 2 * panels, min(2 * p_order, MAX_P_ORDER)
        finer = theta_rule(rows, panels=panels)
        finer_inner = inner_rule(rows, finer[1], p_order)
        finer_density = theta_density(rows, finer_inner.log_l, finer[1], finer[0], finer[3])
        old, new = density.quantile(levels)[0], finer_density.quantile(levels)[0]
        settled = bool(np.all(np.abs(new - old) <= REFINE_TOLERANCE * (new[2] - new[0])))
        if not settled:  # a settled rule is kept: the vectorised path computes the same
            rule, inner, density = finer, finer_inner, finer_density
    if not settled:
        raise ValueError(_NOT_INTEGRABLE.format(data=data))
    return rule, inner, density


def _checked_rule(rows: Rows, panels: int) -> tuple[tuple, InnerRule, bool, np.ndarray]:
    """The theta rule and its nested rule, with :func:`_resolved`'s verdict."""
    rule = theta_rule(rows, panels=panels)
    inner = inner_rule(rows, rule[1])
    log_f = inner.log_l + regular_log_prior(rows, rule[1], rule[3])
    ok, cut = _resolved(rows, rule[0], rule[2] + log_f)
    return rule, inner, ok, cut


def _resolved(rows: Rows, edges: np.ndarray, log_mass: np.ndarray) -> tuple[bool, np.ndarray]:
    """Whether the theta rule holds the posterior, and which ends cut mass off.

    Some node must be finite, with no needle beyond the outermost nodes
    (:func:`~judgestats.bayes._quadrature.end_rising`). Beyond an end of the support inside
    (0, 1) the density is summed (trapezoids) on points at 1, 2, 4, ... support widths out;
    an end past which this exceeds ``TAIL_MASS`` of the mass inside has cut mass off.
    ``log_mass`` holds the log weights plus log density of the rule's nodes.
    """
    inside_mass = float(np.max(log_mass))
    if not np.isfinite(inside_mass) or np.any(end_rising(rows, edges[:, 0], edges[:, -1])):
        return False, np.zeros(2, dtype=bool)
    inside_mass += float(np.log(np.sum(np.exp(log_mass - inside_mass))))
    low, high = float(edges[0, 0]), float(edges[0, -1])
    steps = (high - low) * np.concatenate([[0.0], 2.0 ** np.arange(TAIL_POINTS)])
    at, bt = rows.theta_prior
    cut = np.zeros(2, dtype=bool)
    for side, points in ((0, low - steps), (1, high + steps)):
        points = np.clip(points, 0.0, 1.0)
        if points[0] in (0.0, 1.0):  # an end at 0 or 1 is not checked
            continue
        t = np.unique(points)[None, :]
        log_f = log_likelihood(rows, t) + log_prior(at, bt, t, low=at >= 1, high=bt >= 1)
        f = np.exp(log_f[0] - inside_mass)
        tail = float(np.sum(np.diff(t[0]) * (f[1:] + f[:-1]) / 2))
        cut[side] = tail > TAIL_MASS
    return True, cut


def _check_var(var: Any) -> str:
    return check_choice(var, "var", VARIABLES)
