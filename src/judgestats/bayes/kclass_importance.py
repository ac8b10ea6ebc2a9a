r"""Importance sampling of the K-class posterior (:mod:`judgestats.bayes.kclass_model`'s model).

**Importance sampling** (``method="importance"`` of
:func:`judgestats.kclass.kclass_posterior`, K <= 5; exact in distribution as the number of
draws grows). The proposal draws C and p independently:
C_i ~ Dirichlet(beta + confusion_i) (the conjugate calibration posterior; draws outside D are
discarded, so C has the density prior x calibration likelihood on D) and
p ~ Dirichlet(1 + test) (the flat-prior posterior of the judged shares); then
:math:`\pi = C^{-\top} p`. Because C 1 = 1, the map :math:`\pi \mapsto C^\top \pi` keeps the
sum of a vector, so it maps the simplex's plane onto itself and its Jacobian there is the
determinant of C restricted to the sum-zero subspace, which equals det C (the induced map on
the quotient by that subspace is the identity). The proposal density of (C, pi) is therefore
q(C) Dir(C^T pi; 1 + test) |det C|, the target density is
q(C) prod_j p_j^test_j prod_i pi_i^(alpha - 1) [prod_i pi_i^m_i] on the simplex, and the
importance weight is

.. math::
    w = \mathbf 1[\pi \in \Delta_K] \prod_i \pi_i^{\alpha - 1}
        \prod_i \pi_i^{m_i [\text{random design}]} \big/ |\det C|.

Weighted means and quantiles (:func:`weighted_quantile`) of the draws estimate the posterior;
their precision is set by the effective sample size (sum w)^2 / sum w^2, reported as ``ess``
and flagged (``low_importance_ess``) below ``min_ess``. The weights' tail is checked too:
the Pareto shape k-hat of the largest weights (Pareto-smoothed importance sampling, Vehtari et
al., "Pareto smoothed importance sampling", arXiv 1507.02646, computed by
``arviz.psislw``) is reported as ``diagnostics["pareto_k"]`` and flagged
(``importance_heavy_tail``) above 0.7, where the weights' variance is so large that the ESS
itself is unreliable. Draws are made in chunks of
:data:`CHUNK` to bound memory, from one seeded generator.

The data are read from any object with ``test``, ``confusion``, ``m`` and ``design``
(:class:`judgestats.kclass.KClassData`); nothing is imported from :mod:`judgestats.kclass`.
arviz is imported inside :func:`pareto_k` only.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from judgestats.bayes._quiet import quiet_import
from judgestats.results import ConfidenceInterval, IntervalResult

if TYPE_CHECKING:  # pragma: no cover
    from judgestats.bayes.priors import DirichletPrior
    from judgestats.kclass.data import KClassData

__all__ = [
    "CHUNK",
    "MAX_TRIES",
    "PARETO_K_LIMIT",
    "ImportanceDraws",
    "importance_draws",
    "in_identifiable_set",
    "pareto_k",
    "weighted_interval",
    "weighted_quantile",
]

#: Proposal draws made at once (memory: CHUNK x K x K floats).
CHUNK = 65_536
#: Proposal draws tried at most, as a multiple of ``proposals``, before giving up on D.
MAX_TRIES = 20
#: Pareto k-hat above which the importance weights are flagged (Vehtari et al.'s threshold).
PARETO_K_LIMIT = 0.7


def weighted_quantile(values: np.ndarray, weights: np.ndarray, q: Any) -> np.ndarray:
    """Quantiles of a weighted sample (the empirical CDF with each draw at its mid-mass).

    Draw i of the sorted sample sits at cumulative probability
    ``(W_i - w_i / 2) / W`` (W_i the running sum of the weights), and the quantile function
    interpolates linearly between those points; with equal weights this is Hazen's rule
    (``np.quantile(..., method="hazen")``).

    Parameters
    ----------
    values : ndarray, shape (S,)
    weights : ndarray, shape (S,)
        Non-negative, not all zero.
    q : float or array_like
        Probabilities in [0, 1].

    Returns
    -------
    ndarray
        The quantiles, shaped like ``q``.
    """
    probabilities = np.asarray(q, dtype=float)
    if not np.all((probabilities >= 0.0) & (probabilities <= 1.0)):
        raise ValueError(f"`q` must hold probabilities in [0, 1], got {q!r}.")
    order = np.argsort(values, kind="stable")
    sorted_values = np.asarray(values, dtype=float)[order]
    w = np.asarray(weights, dtype=float)[order]
    cumulative = np.cumsum(w)
    positions = (cumulative - 0.5 * w) / cumulative[-1]
    return np.interp(probabilities, positions, sorted_values)


def weighted_interval(
    values: np.ndarray, weights: np.ndarray, prob: float, method: str, flags: tuple[str, ...]
) -> tuple[IntervalResult, float]:
    """(mean with the equal-tailed interval at ``prob``, sd) of a weighted sample, as a row."""
    total = weights.sum()
    mean = float(weights @ values / total)
    sd = float(math.sqrt(max(weights @ (values - mean) ** 2 / total, 0.0)))
    low, high = weighted_quantile(values, weights, [(1 - prob) / 2, (1 + prob) / 2])
    return IntervalResult(
        mean, ConfidenceInterval(float(low), float(high)), prob, method, flags
    ), sd


@dataclass
class ImportanceDraws:
    """Draws of pi (S, K) and C (S, K, K) with weights (S,) and the sampler's bookkeeping."""

    pi: np.ndarray
    c: np.ndarray
    weights: np.ndarray
    tried: int = 0
    in_d: int = 0
    found: int = 0


def in_identifiable_set(c: np.ndarray, det: np.ndarray | None = None) -> np.ndarray:
    """Whether each C (S, K, K) is in D: diagonally dominant in every column, det C > 0.

    ``det``: the determinants of ``c`` when the caller has them already.
    """
    size = c.shape[-1]
    off = c - 2.0 * np.eye(size)
    dominant = (np.diagonal(c, axis1=1, axis2=2) > off.max(axis=1)).all(axis=1)
    return np.asarray(dominant & ((np.linalg.det(c) if det is None else det) > 0.0))


def _chunk(
    data: KClassData, alpha: float, beta: float, size: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One chunk of proposals: (C in D, pi, log weight); pi outside the simplex has -inf."""
    concentration = beta + data.confusion.astype(float)
    c = np.stack([rng.dirichlet(row, size) for row in concentration], axis=1)
    det = np.linalg.det(c)
    keep = in_identifiable_set(c, det)
    c, det = c[keep], det[keep]
    p = rng.dirichlet(1.0 + data.test.astype(float), len(c))
    pi = np.linalg.solve(np.swapaxes(c, 1, 2), p[..., None])[..., 0]
    exponent = (alpha - 1.0) + (data.m if data.design == "random" else 0.0)
    inside = np.asarray((pi >= 0.0).all(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        log_w = (np.log(np.where(inside[:, None], pi, 1.0)) * exponent).sum(axis=1)
        log_w -= np.log(det)  # det C > 0 on D
    log_w = np.where(inside & np.isfinite(log_w), log_w, -np.inf)
    return c, pi, log_w


def importance_draws(
    data: KClassData, prior: DirichletPrior, proposals: int, rng: np.random.Generator
) -> ImportanceDraws:
    """``proposals`` proposal draws in D (fewer if D is too rare), weighted (module docstring).

    ``prior`` has its ``beta`` resolved (:meth:`DirichletPrior.for_classes`). When no proposal
    lands in D the draws are empty with ``in_d == 0``, for the caller to explain.

    Raises
    ------
    ValueError
        If none of the proposals in D gives a pi on the simplex.
    """
    alpha, beta = prior.alpha, cast(float, prior.beta)  # resolved by for_classes
    cs, pis, logs = [], [], []
    tried = in_d = found = 0
    while in_d < proposals and tried < MAX_TRIES * proposals:
        c, pi, log_w = _chunk(data, alpha, beta, CHUNK, rng)
        tried += CHUNK
        found += len(c)
        keep = min(len(c), proposals - in_d)
        cs.append(c[:keep])
        pis.append(pi[:keep])
        logs.append(log_w[:keep])
        in_d += keep
    if in_d == 0:  # the caller explains why (which classes break the constraint)
        empty = np.empty((0, data.confusion.shape[0]))
        return ImportanceDraws(empty, empty[:, None], np.empty(0), tried, in_d, found)
    log_w = np.concatenate(logs)
    if not np.isfinite(log_w).any():
        raise ValueError(
            f"`data`: the importance sampler found no draw of the confusion matrix (of {in_d}) "
            "for which the judged test shares correspond to true shares on the simplex, so it "
            "cannot describe this posterior (its mass lies where a share is near 0 and the "
            "judge near its limits). Raise `proposals` or use method='nuts'; and check that the "
            "test and calibration counts use the same classes in the same order."
        )
    weights = np.exp(log_w - log_w.max())
    keep = weights > 0
    return ImportanceDraws(
        pi=np.concatenate(pis)[keep],
        c=np.concatenate(cs)[keep],
        weights=weights[keep],
        tried=tried,
        in_d=in_d,
        found=found,
    )


def pareto_k(weights: np.ndarray) -> float:
    """Pareto k-hat of the weights' upper tail (``arviz.psislw``; module docstring)."""
    az = quiet_import("arviz")

    if len(weights) < 5:  # too few draws to fit a tail; the ESS flag speaks for them
        return math.inf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # arviz warns when k-hat is high: that is our flag
        _, k_hat = az.psislw(np.log(weights), reff=1.0)
    return float(k_hat)
