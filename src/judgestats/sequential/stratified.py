r"""Sequential stratified calibration: Algorithm 1 made sequential, an interval valid at stopping.

The stratified design (Lee et al., arXiv 2511.21140 v1) calibrates the judge on two arms of
items whose truth is known: arm 0 holds truly-incorrect items, where the share the judge calls
incorrect is its specificity :math:`q_0`; arm 1 holds truly-correct items, where the share it
calls correct is its sensitivity :math:`q_1`. The test set gives k judged correct of n, :math:`p
= E[k/n]`, and the accuracy is the Rogan-Gladen map

.. math:: \theta = g(p, q_0, q_1) = \frac{p + q_0 - 1}{q_0 + q_1 - 1}.

**Sequential allocation.** :class:`StratifiedLabellingSession` draws the calibration items one
at a time, each arm's items in one seeded random order of its pool. After ``pilot`` items per
arm, the next item goes to arm 1 when :math:`m_1 < m_1^\star(m_0 + m_1 + 1)`, else to arm 0,
where :math:`m_1^\star(m)` is Algorithm 1's arm-1 size for budget m at :math:`\hat p = k/n` and
the smoothed accuracies so far, :math:`\tilde q_j = (k_j + 1)/(m_j + 2)`
(:func:`judgestats.planning.algorithm1_split`): the split the paper's rule would give a pilot of
the items judged so far. The choice uses only what was seen before the draw.

**The interval at any stopping time.** Each arm's verdicts are i.i.d. Bernoulli draws of its
rate, whatever the allocation: an arm's betting capital (:mod:`~.confidence_sequence`) is a
non-negative martingale in the arm's own draws, and a predictable choice of arm only pauses it,
so Ville's inequality holds over the whole labelling. (Drawing without replacement from a pool
that is itself an i.i.d. sample of its class is an i.i.d. sequence of that class, so the i.i.d.
sequence is the right one for the process's :math:`q_j`.) With :math:`C^0_t, C^1_t` the arms'
confidence sequences at level :math:`1 - \alpha/3` each and :math:`[p_-, p_+]` the
Clopper-Pearson interval of k of n at level :math:`1 - \alpha/3`, the union bound gives

.. math:: P\bigl(\exists t:\ p \notin [p_-, p_+] \ \text{or}\ q_0 \notin C^0_t \ \text{or}\
          q_1 \notin C^1_t\bigr) \le \alpha/3 + \alpha/3 + \alpha/3 = \alpha.

(The split is fixed before any label -- one that depended on the data would break the union
bound -- and equal, not optimised: with a large test set p's share of the width is small, and
moving some of its alpha to the arms would narrow the interval a little. p's interval is a
fixed-sample one because all n verdicts are known before the first label.) On that event, whenever
:math:`J_- = q_{0-} + q_{1-} - 1 > 0`, theta lies in the range of g over the box
:math:`B_t = [p_-, p_+] \times C^0_t \times C^1_t`. The map is linear-fractional with a positive
denominator on :math:`B_t`: :math:`g \ge c` is the half-space :math:`p + q_0 - 1 \ge c(q_0 + q_1
- 1)`, so g is monotone along every segment in the box (for example :math:`\partial g/\partial p
= 1/J > 0`, :math:`\partial g/\partial q_0 = (q_1 - p)/J^2`, :math:`\partial g/\partial q_1 =
-(p + q_0 - 1)/J^2`), and its extremes over the box are at vertices:

.. math:: C_t = \Bigl[\max\bigl(0, \min_{v \in V(B_t)} g(v)\bigr),\
          \min\bigl(1, \max_{v \in V(B_t)} g(v)\bigr)\Bigr],

:math:`P(\exists t: \theta \notin C_t) \le \alpha`. Where :math:`J_- \le 0` (the arms cannot
yet rule out a judge no better than chance) :math:`C_t = [0, 1]`. The arms' sequences are
running intersections, so :math:`C_t` only narrows.

``benchmarks/sequential_stratified.py`` measures the coverage at a data-dependent stop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from judgestats._closed_form import rogan_gladen_box
from judgestats._labels import binary_labels
from judgestats._validate import (
    as_generator,
    check_level,
    check_positive_int,
    check_scalar_count,
)
from judgestats.planning.algorithm1 import algorithm1_split, smoothed_pilot
from judgestats.sequential.confidence_sequence import GRID_SIZE, running_bounds
from judgestats.sequential.result import SequentialInterval
from judgestats.sequential.session import _ids
from judgestats.sequential.targets import verdict_interval

__all__ = [
    "PILOT",
    "StratifiedLabellingSession",
    "arm_bounds",
    "next_arm",
    "rogan_gladen_box",
]

#: Items per arm drawn before Algorithm 1 chooses the arm (also the smallest arm it allows).
PILOT = 5


def arm_bounds(hits: Any, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """One arm's i.i.d. betting confidence sequence at level 1 - ``alpha``, after each draw.

    ``hits`` (R, L): 1 where the judge was right on the arm's item (called a truly-incorrect
    item incorrect, or a truly-correct one correct), in the order drawn.
    """
    grid = np.linspace(0.0, 1.0, GRID_SIZE)
    return running_bounds(np.atleast_2d(hits), grid, alpha=alpha)


def next_arm(m0: Any, m1: Any, q0: Any, q1: Any, p_hat: Any, pilot: int = PILOT) -> Any:
    r"""The arm of the next calibration item: 1 where :math:`m_1 < m_1^\star(m_0 + m_1 + 1)`.

    ``m0``, ``m1`` count the items drawn in each arm (labelled or still pending); ``q0``, ``q1``
    are the smoothed accuracies :math:`\tilde q_j` of the verdicts seen so far. The first
    ``pilot`` items of each arm come first (arm 0, then arm 1). Elementwise over arrays (a
    simulation's replications).
    """
    m0, m1 = np.asarray(m0), np.asarray(m1)
    _, wanted, _, _ = algorithm1_split(m0 + m1 + 1, p_hat, q0, q1, pilot)
    choice = (m1 < wanted).astype(np.int64)
    return np.where(m0 < pilot, 0, np.where(m1 < pilot, 1, choice))


def _check_test_counts(k: Any, n: Any) -> tuple[int, int]:
    k, n = check_scalar_count(k, "k"), check_scalar_count(n, "n", 1)
    if k > n:
        raise ValueError(f"`k` ({k}) must not exceed `n` ({n}).")
    return k, n


class StratifiedLabellingSession:
    """Sequential stratified calibration: which arm to label next, and an interval valid at stop.

    The state is the two pools of calibration items (ids of truly-incorrect and truly-correct
    items), the judge's verdicts on those judged so far, the test counts k of n, and the seed
    of one random order of each pool. See the module docstring for the allocation and the
    interval for the accuracy theta (``target="population"``).

    Parameters
    ----------
    incorrect_ids, correct_ids : sequence
        The pools: items known to be incorrect (arm 0) and correct (arm 1); unique, disjoint.
    k, n : int
        Test items judged correct, and test items (0 <= k <= n, n >= 1).
    random_seed : int or numpy.random.Generator, optional
        Fixes each pool's order; keep it for the whole labelling.
    pilot : int, default 5
        Items per arm before Algorithm 1 chooses (and its smallest arm).

    Examples
    --------
    >>> session = StratifiedLabellingSession(
    ...     ["a", "b"], ["c", "d"], k=60, n=100, random_seed=0, pilot=1
    ... )
    >>> [session.arm_of(item) for item in session.next_batch(2)]
    [0, 1]
    """

    def __init__(
        self,
        incorrect_ids: Sequence[Any],
        correct_ids: Sequence[Any],
        *,
        k: int,
        n: int,
        random_seed: Any = None,
        pilot: int = PILOT,
    ) -> None:
        pools = (_ids(incorrect_ids, "incorrect_ids"), _ids(correct_ids, "correct_ids"))
        for name, pool in zip(("incorrect_ids", "correct_ids"), pools, strict=True):
            if not pool:
                raise ValueError(f"`{name}` must hold at least one item.")
            if len(set(pool)) != len(pool):
                raise ValueError(f"`{name}` must not repeat an id.")
        both = set(pools[0]) & set(pools[1])
        if both:
            raise ValueError(
                f"an item cannot be in both pools: {sorted(both)[0]!r} is in `incorrect_ids` "
                "and `correct_ids`."
            )
        self.k, self.n = _check_test_counts(k, n)
        self.pilot = check_positive_int(pilot, "pilot")
        if random_seed is None:
            random_seed = int(np.random.SeedSequence().generate_state(1)[0])
        self.random_seed = random_seed
        generator = as_generator(random_seed)
        self._pools = pools
        self._rank = [np.argsort(generator.permutation(len(pool))) for pool in pools]
        self._arm = {
            item: (arm, i) for arm, pool in enumerate(pools) for i, item in enumerate(pool)
        }
        self._verdicts = [np.full(len(pool), -1, dtype=np.int8) for pool in pools]
        self._pending = [np.zeros(len(pool), dtype=bool) for pool in pools]

    def arm_of(self, item: Any) -> int:
        """0 for an item of the truly-incorrect pool, 1 for the truly-correct pool."""
        if str(item) not in self._arm:
            raise ValueError(f"`item` {item!r} is in neither pool.")
        return self._arm[str(item)][0]

    def counts(self) -> tuple[int, int, int, int]:
        """(k0, m0, k1, m1): right calls and judged items in each arm (the six counts' four)."""
        hits = [self._hits(arm) for arm in (0, 1)]
        return int(hits[0].sum()), hits[0].size, int(hits[1].sum()), hits[1].size

    def _hits(self, arm: int) -> np.ndarray:
        """The arm's right calls, in the pool's order (the drawing order)."""
        seen = np.flatnonzero(self._verdicts[arm] >= 0)
        seen = seen[np.argsort(self._rank[arm][seen], kind="stable")]
        verdicts = self._verdicts[arm][seen].astype(np.int64)
        return 1 - verdicts if arm == 0 else verdicts

    def next_batch(self, size: int) -> list[str]:
        """The ids to judge next: ``size`` draws of sequential Algorithm 1 (fewer at the end).

        Within a batch the allocation counts the batch's earlier items as drawn, with the
        accuracies of the verdicts seen before it.
        """
        size = check_positive_int(size, "size")
        k0, m0, k1, m1 = self.counts()
        q0, q1 = smoothed_pilot(k0, m0), smoothed_pilot(k1, m1)
        free = [self._free(arm) for arm in (0, 1)]
        drawn = [m0 + int(self._pending[0].sum()), m1 + int(self._pending[1].sum())]
        if not free[0] and not free[1]:
            raise ValueError("every item of both pools is judged or pending already.")
        batch: list[str] = []
        while len(batch) < size and (free[0] or free[1]):
            arm = int(next_arm(drawn[0], drawn[1], q0, q1, self.k / self.n, self.pilot))
            arm = arm if free[arm] else 1 - arm
            index = free[arm].pop(0)
            self._pending[arm][index] = True
            drawn[arm] += 1
            batch.append(self._pools[arm][index])
        return batch

    def _free(self, arm: int) -> list[int]:
        """The arm's items neither judged nor pending, in the pool's order."""
        free = np.flatnonzero((self._verdicts[arm] < 0) & ~self._pending[arm])
        return [int(i) for i in free[np.argsort(self._rank[arm][free], kind="stable")]]

    def add_verdicts(self, ids: Sequence[Any], verdicts: Sequence[Any]) -> None:
        """Record the judge's verdicts (1 = judged correct) on calibration items of the pools.

        Raises
        ------
        ValueError
            For an id in neither pool or repeated, a verdict other than 0/1, one that
            contradicts an earlier verdict on the item, or lengths that differ.
        """
        names = _ids(ids, "ids")
        values = binary_labels(verdicts, "verdicts")
        if values.size != len(names):
            raise ValueError(
                f"`verdicts` ({values.size} values) must give one verdict per id "
                f"({len(names)} ids)."
            )
        if len(set(names)) != len(names):
            raise ValueError("`ids` must not repeat an id within one call.")
        unknown = [item for item in names if item not in self._arm]
        if unknown:
            raise ValueError(f"`ids`: {unknown[0]!r} is in neither pool.")
        for item, value in zip(names, values, strict=True):
            arm, index = self._arm[item]
            old = self._verdicts[arm][index]
            if old >= 0 and old != value:
                raise ValueError(
                    f"`verdicts`: item {item!r} has verdict {int(value)} here but {int(old)} "
                    "before; record each item's verdict once."
                )
        for item, value in zip(names, values, strict=True):
            arm, index = self._arm[item]
            self._verdicts[arm][index] = value
            self._pending[arm][index] = False

    def interval(self, *, confidence_level: float = 0.95) -> SequentialInterval:
        """The anytime-valid interval for theta now (module docstring)."""
        alpha = 1.0 - check_level(confidence_level)
        p_low, p_high = verdict_interval(np.array([float(self.k)]), self.n, alpha / 3.0)
        ends = []
        for arm in (0, 1):
            hits = self._hits(arm)
            if hits.size == 0:
                ends.append((0.0, 1.0))
            else:
                low, high = arm_bounds(hits[None, :], alpha / 3.0)
                ends.append((float(low[0, -1]), float(high[0, -1])))
        low, high = rogan_gladen_box((p_low[0], p_high[0]), ends[0], ends[1])
        k0, m0, k1, m1 = self.counts()
        estimate = _point_estimate(self.k / self.n, smoothed_pilot(k0, m0), smoothed_pilot(k1, m1))
        return SequentialInterval(
            target="population",
            confidence_level=1.0 - alpha,
            estimate=min(max(estimate, float(low)), float(high)),
            low=float(low),
            high=float(high),
            n_labelled=m0 + m1,
            n_items=len(self._pools[0]) + len(self._pools[1]),
        )

    def __repr__(self) -> str:
        k0, m0, k1, m1 = self.counts()
        return (
            f"StratifiedLabellingSession(k={self.k}, n={self.n}, k0={k0}, m0={m0}, k1={k1}, "
            f"m1={m1}, random_seed={self.random_seed!r})"
        )


def _point_estimate(p: float, q0: float, q1: float) -> float:
    """Rogan-Gladen at the smoothed accuracies; p itself for a judge no better than chance."""
    youden = q0 + q1 - 1.0
    return float(p) if youden <= 0 else float((p + q0 - 1.0) / youden)
