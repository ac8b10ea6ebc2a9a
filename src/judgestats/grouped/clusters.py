r"""Cluster-robust arithmetic for repeated judging: ratio estimators over clusters of rows.

When an item is judged several times (Inspect epochs, several samples per prompt) every row is
one judgment and the rows that share an item id form a *cluster*. The rows of one cluster are
correlated (the same answer, the same judge, the same difficulty), so counting them as
independent items understates the variance. Each of the three rates of the closed form (p-hat
over the test rows, q0-hat and q1-hat over the calibration rows of each class) is a ratio
estimator over clusters,

.. math:: \hat r = \frac{\sum_i a_i}{\sum_i b_i},

with :math:`a_i` the rows of cluster *i* the judge called correct (for q0: incorrect) and
:math:`b_i` the rows of cluster *i* in that arm. Its linearised, cluster-robust variance over the
:math:`G` clusters that have rows in the arm (the ratio estimator of Cochran, *Sampling
Techniques*, 3rd ed. 1977, Ch. 6, with clusters as the sampling units as in its Ch. 9; the
small-sample factor :math:`G/(G-1)` is that
of the "CR1" sandwich estimator, Cameron and Miller, J. Human Resources 50(2), 2015) is

.. math:: V = \frac{G}{G-1} \frac{\sum_i (a_i - \hat r b_i)^2}{(\sum_i b_i)^2}.

The *design effect* (Kish, *Survey Sampling*, 1965) compares it with the same formula
when every row is its own cluster, :math:`V_1 = \hat r(1-\hat r)/(B-1)` with
:math:`B = \sum_i b_i`:  :math:`d = V / V_1`. Using that reference (rather than
:math:`\hat r(1-\hat r)/B`) makes :math:`d = 1` exactly, up to rounding, when every cluster
holds one row, so unrepeated data keep their interval. The *effective size* of the arm is
:math:`B / d`: the number of independent judgments that would carry the same information.

Guards:

- :math:`d` is floored at 1. Repeats of one item cannot be negatively correlated in the model
  behind the closed form (a mixture of Bernoullis has a non-negative intra-cluster correlation),
  so :math:`d < 1` is noise, and flooring keeps a lucky draw from narrowing the interval below
  that of independent rows.
- When :math:`V` cannot be estimated, i.e. :math:`\hat r \in \{0, 1\}` (then
  :math:`V = V_1 = 0` and the ratio is 0/0) or fewer than two clusters have rows in the arm (the
  factor :math:`G/(G-1)` is undefined), :math:`d` is the value it takes under perfect
  within-cluster correlation, :math:`\sum_i b_i^2 / B` (the size-weighted mean cluster size;
  the effective size is then :math:`B^2 / \sum_i b_i^2`, the number of clusters when they are
  of equal size). With no events there is no information about the correlation, so the
  conservative bound is used; with one row per cluster it is 1.

Everything here is numpy only and works along the last axis, so that a benchmark can evaluate
many replications in one call.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

__all__ = ["ArmDesign", "cluster_totals", "ratio_design"]


class ArmDesign(NamedTuple):
    """One arm's ratio estimate and its cluster design (floats, or arrays over leading axes)."""

    #: the ratio estimate sum(a) / sum(b)
    rate: Any
    #: rows in the arm, B = sum(b)
    rows: Any
    #: clusters with at least one row in the arm, G
    clusters: Any
    #: the design effect d (>= 1)
    design_effect: Any

    @property
    def effective_size(self) -> Any:
        """B / d: the number of independent rows carrying the same information."""
        return self.rows / self.design_effect


def cluster_totals(
    codes: np.ndarray, values: np.ndarray, in_arm: np.ndarray, n_clusters: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per-cluster numerator ``a`` and denominator ``b`` of one arm.

    Parameters
    ----------
    codes : ndarray of int
        The cluster (0 .. n_clusters - 1) of every row.
    values : ndarray of {0, 1}
        The row's contribution to the numerator (e.g. the judge called it correct).
    in_arm : ndarray of bool
        Whether the row belongs to the arm (e.g. a test row, a calibration row of class 0).
    n_clusters : int
        Number of clusters.

    Returns
    -------
    (a, b) : tuple of ndarray
        ``a[i]`` = sum of ``values`` over the arm's rows in cluster ``i``, ``b[i]`` = their
        number; both float64 of length ``n_clusters``.
    """
    weights = in_arm.astype(np.float64)
    a = np.bincount(codes, weights=weights * values, minlength=n_clusters)
    b = np.bincount(codes, weights=weights, minlength=n_clusters)
    return a, b


def ratio_design(a: Any, b: Any) -> ArmDesign:
    """Ratio estimate, rows, clusters and design effect of one arm (see the module docstring).

    Parameters
    ----------
    a, b : array_like
        Per-cluster numerators and denominators, clusters along the last axis
        (``0 <= a <= b``). Clusters with ``b = 0`` have no row in the arm and do not count.

    Returns
    -------
    ArmDesign
        Floats for 1-D input, arrays over the leading axes otherwise. ``rate`` is NaN where the
        arm has no rows.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    rows = b.sum(axis=-1)
    clusters = np.count_nonzero(b > 0, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = a.sum(axis=-1) / rows
        residual = a - rate[..., None] * b
        robust = clusters / (clusters - 1.0) * np.sum(residual**2, axis=-1) / rows**2
        independent = rate * (1.0 - rate) / (rows - 1.0)
        ceiling = np.sum(b**2, axis=-1) / rows  # perfect within-cluster correlation
        estimable = (clusters >= 2) & (rate > 0.0) & (rate < 1.0)
        effect = np.where(estimable, robust / independent, ceiling)
    effect = np.maximum(effect, 1.0)
    effect = np.where(effect < 1.0 + 1e-12, 1.0, effect)  # one row per cluster: 1, not 1 + ulp
    if rate.ndim == 0:
        return ArmDesign(float(rate), float(rows), int(clusters), float(effect))
    return ArmDesign(rate, rows, clusters, effect)
