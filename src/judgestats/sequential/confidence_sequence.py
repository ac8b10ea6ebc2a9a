r"""Anytime-valid confidence sequences for the mean of [0, 1] values, by betting.

The construction follows the capital processes of Waudby-Smith & Ramdas, "Estimating means of
bounded random variables by betting" (JRSS-B 2024, arXiv 2010.09686), implemented here from the
equations below.

**Betting.** Observations :math:`z_1, z_2, \ldots \in [0, 1]` arrive one at a time. For a
candidate mean :math:`\mu`, let :math:`m_t(\mu)` be what :math:`z_t` has in expectation given
the past if :math:`\mu` were the truth: :math:`m_t = \mu` for draws with replacement (i.i.d.),
and, for draws without replacement from a finite population of :math:`N` values with mean
:math:`\mu`,

.. math:: m_t(\mu) = \frac{N\mu - \sum_{i<t} z_i}{N - t + 1}.

A gambler who bets :math:`\lambda_t` (chosen before seeing :math:`z_t`) on
:math:`z_t > m_t` turns one unit into

.. math:: K_t^{+}(\mu) = \prod_{i \le t} \bigl(1 + \lambda_i^{+} (z_i - m_i(\mu))\bigr), \qquad
          K_t^{-}(\mu) = \prod_{i \le t} \bigl(1 - \lambda_i^{-} (z_i - m_i(\mu))\bigr),

with :math:`0 \le \lambda_i^{+} \le c / m_i` and :math:`0 \le \lambda_i^{-} \le c / (1 - m_i)`,
:math:`c = 1/2`, so every factor is positive. At the true mean both are non-negative
martingales with initial value 1, and Ville's inequality gives
:math:`P(\exists t: K_t^{\pm}(\mu^*) \ge 1/a) \le a`. So with :math:`a = \alpha / 2` per side,

.. math:: C_t = \{\mu : \max_{s \le t} K_s^{+}(\mu) < 2/\alpha \ \text{and}\
          \max_{s \le t} K_s^{-}(\mu) < 2/\alpha\}

holds :math:`\mu^*` at every :math:`t` simultaneously with probability at least
:math:`1 - \alpha`: a confidence *sequence*, valid at any stopping time, and the running maximum
makes it the running intersection of the per-time sets.

**Bets.** The predictable plug-in bet (the same for both sides, then truncated)

.. math:: \tilde\lambda_t = \sqrt{\frac{2 \log(2/\alpha)}{\hat\sigma^2_{t-1}\, t \log(1+t)}},
          \quad \hat\mu_t = \frac{1/2 + \sum_{i \le t} z_i}{t + 1}, \quad
          \hat\sigma^2_t = \frac{1/4 + \sum_{i \le t} (z_i - \hat\mu_i)^2}{t + 1},

:math:`\lambda_t^{+} = \min(\tilde\lambda_t, c/m_t)`, :math:`\lambda_t^{-} = \min(\tilde\lambda_t,
c/(1 - m_t))`. A small running variance (a judge that is rarely wrong) gives large bets and a
narrow sequence.

**Why the set is an interval, and the grid is exact in one direction.** Each factor
:math:`1 + \min(\tilde\lambda, c/m)(z - m)` decreases in :math:`m` (on both branches of the
minimum), and :math:`m_t(\mu)` increases in :math:`\mu`; so :math:`\max_s K_s^{+}(\mu)` is
non-increasing and :math:`\max_s K_s^{-}(\mu)` non-decreasing in :math:`\mu`. The rejected
candidates form a lower and an upper half-line. On a grid of candidates the largest grid point
rejected by :math:`K^{+}` is therefore a valid lower end (every smaller mean is rejected too),
and the smallest rejected by :math:`K^{-}` a valid upper end: the grid widens the interval by
at most one grid step per side and never loses coverage. Without replacement, a candidate whose
remaining mean leaves [0, 1] is impossible and rejected outright.

**Cost.** One pass over the :math:`n` observations with numpy vectors of the :math:`G` grid
points: :math:`O(nG)` time and :math:`O(G)` memory per sequence (:data:`GRID_SIZE` points, or
the N + 1 shares k / N of a finite population of at most :data:`EXACT_GRID_LIMIT` items),
batched over independent sequences for simulations.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from judgestats._validate import check_level

__all__ = [
    "BET_CAP",
    "EXACT_GRID_LIMIT",
    "GRID_SIZE",
    "betting_confidence_sequence",
    "bound_steps",
    "plug_in_bets",
    "predictable_variance",
    "running_bounds",
]

#: Truncation c of the bets: lambda+ <= c / m, lambda- <= c / (1 - m).
BET_CAP = 0.5
#: Candidate means on the default grid (interior points j / (GRID_SIZE - 1)).
GRID_SIZE = 2001
#: Largest population whose N + 1 possible shares k / N are used as the grid itself.
EXACT_GRID_LIMIT = 4000


def predictable_variance(z: np.ndarray) -> np.ndarray:
    r"""The running variance :math:`\hat\sigma^2_{t-1}` before each time t (module docstring).

    ``z`` has shape (..., n); the value for time t uses z_1 .. z_{t-1} only (1/4 at t = 1).
    """
    n = z.shape[-1]
    t = np.arange(1, n + 1, dtype=float)
    mean = (0.5 + np.cumsum(z, axis=-1)) / (t + 1.0)  # mu-hat_t, t = 1..n
    squares = np.cumsum((z - mean) ** 2, axis=-1)
    var = (0.25 + squares) / (t + 1.0)  # sigma-hat^2_t, t = 1..n
    return np.concatenate([np.full(z.shape[:-1] + (1,), 0.25), var[..., :-1]], axis=-1)


def plug_in_bets(z: np.ndarray, alpha: float) -> np.ndarray:
    r"""The predictable plug-in bets :math:`\tilde\lambda_t` of the module docstring.

    ``z`` has shape (..., n); the bet for time t uses z_1 .. z_{t-1} only.
    """
    t = np.arange(1, z.shape[-1] + 1, dtype=float)
    return np.sqrt(2.0 * math.log(1.0 / alpha) / (predictable_variance(z) * t * np.log1p(t)))


def wealth_factors(
    z_t: np.ndarray, bet: np.ndarray, m: np.ndarray, cap: float | np.ndarray = BET_CAP
) -> tuple[np.ndarray, np.ndarray]:
    """Wealth factors of the two gamblers at remaining means ``m`` (in [0, 1]).

    ``cap`` is the truncation c in (0, 1), one or one per sequence (every factor stays
    positive for any c < 1).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        up = np.minimum(bet, cap / m)  # m = 0: c / m = inf, the bet stays finite
        down = np.minimum(bet, cap / (1.0 - m))
    diff = z_t - m
    return 1.0 + up * diff, 1.0 - down * diff


#: Wealth is capped here once it passes the rejection level (rejection is permanent).
WEALTH_CAP = 1e200


def bound_steps(
    z: Any,
    grid: Any,
    *,
    alpha: float,
    population_size: int | None = None,
    exact_grid: bool = False,
    at: Any = None,
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """Yield ``(t, low, high)`` after observation t (1-based) for each t in ``at``.

    The generator form of :func:`running_bounds` (same arguments; ``at`` defaults to every
    time): a caller that stops early, as a simulation of a stopping rule does, stops the work.
    """
    z = np.atleast_2d(np.asarray(z, dtype=float))
    sequences, n = z.shape
    grid = np.asarray(grid, dtype=float)
    grid = np.broadcast_to(np.atleast_2d(grid), (sequences, grid.shape[-1]))
    checkpoints = set(range(1, n + 1) if at is None else (int(t) for t in at))
    side = alpha / 2.0
    bets = plug_in_bets(z, side)
    limit = 1.0 / side
    up = np.ones(grid.shape)
    down = np.ones(grid.shape)
    rejected_low = np.zeros(grid.shape, dtype=bool)
    rejected_high = np.zeros(grid.shape, dtype=bool)
    total = np.zeros((sequences, 1))
    for t in range(n):
        if population_size is None:
            m = grid
        else:
            m = np.clip((population_size * grid - total) / (population_size - t), 0.0, 1.0)
        gain_up, gain_down = wealth_factors(z[:, t : t + 1], bets[:, t : t + 1], m)
        up = np.minimum(up * gain_up, WEALTH_CAP)
        down = np.minimum(down * gain_down, WEALTH_CAP)
        total += z[:, t : t + 1]
        rejected_low |= up >= limit
        rejected_high |= down >= limit
        if t + 1 in checkpoints:
            possible, too_low, too_high = _feasible(grid, total, population_size, t + 1)
            yield (
                t + 1,
                *interval_ends(
                    grid, rejected_low | too_low, rejected_high | too_high, possible, exact_grid
                ),
            )


def _feasible(
    grid: np.ndarray, total: np.ndarray, population_size: int | None, seen: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Candidates the data leave possible for sure, and those too low / too high to be.

    Without replacement the remaining sum :math:`N\mu - \sum_{i \le t} z_i` must lie in
    [0, N - t]; at time t this implies it at every earlier time, so no history is needed.
    """
    if population_size is None:
        none = np.zeros(grid.shape, dtype=bool)
        return ~none, none, none
    rest = population_size * grid - total
    too_low = rest < -1e-9
    too_high = rest > population_size - seen + 1e-9
    return ~(too_low | too_high), too_low, too_high


def running_bounds(
    z: Any,
    grid: Any,
    *,
    alpha: float,
    population_size: int | None = None,
    exact_grid: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    r"""Lower and upper ends of the confidence sequence at every time, for many sequences.

    Parameters
    ----------
    z : array_like, shape (R, n)
        R independent sequences of n observations in [0, 1].
    grid : array_like, shape (G,) or (R, G)
        Increasing candidate means in [0, 1] (one grid, or one per sequence).
    alpha : float
        1 - the confidence level; each side spends alpha / 2.
    population_size : int, optional
        N for draws without replacement (n <= N); None for i.i.d. draws.
    exact_grid : bool, default False
        True when the true mean is known to be a grid point (the finite-population share on the
        grid k / N): the ends are then the extreme *accepted* grid points. Otherwise the ends
        are the innermost *rejected* points (0 and 1 when none), which is valid for any mean.

    Returns
    -------
    low, high : ndarray, shape (R, n)
        The running-intersection interval after each observation.
    """
    z = np.atleast_2d(np.asarray(z, dtype=float))
    low, high = np.empty(z.shape), np.empty(z.shape)
    for t, low_t, high_t in bound_steps(
        z, grid, alpha=alpha, population_size=population_size, exact_grid=exact_grid
    ):
        low[:, t - 1], high[:, t - 1] = low_t, high_t
    return low, high


def interval_ends(
    grid: np.ndarray,
    rejected_low: np.ndarray,
    rejected_high: np.ndarray,
    possible: np.ndarray,
    exact: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """The interval's ends from the rejected half-lines (see the module docstring).

    When the bets reject every candidate (an event of probability at most alpha), the interval
    falls back to the candidates the data leave possible for sure.
    """
    size = grid.shape[1]
    # index of the largest rejected-from-below point (-1: none) and smallest from above (G: none)
    below = np.where(rejected_low.any(axis=1), size - 1 - np.argmax(rejected_low[:, ::-1], 1), -1)
    above = np.where(rejected_high.any(axis=1), np.argmax(rejected_high, axis=1), size)

    def pick(index: np.ndarray) -> np.ndarray:
        index = np.clip(index, 0, size - 1)[:, None]
        return np.take_along_axis(grid, index, axis=1)[:, 0]

    if exact:
        low, high = pick(below + 1), pick(above - 1)
        empty = below + 1 > above - 1
    else:
        low = np.where(below >= 0, pick(below), 0.0)
        high = np.where(above < size, pick(above), 1.0)
        empty = low > high
    if empty.any():
        low = np.where(empty, pick(np.argmax(possible, axis=1)), low)
        high = np.where(empty, pick(size - 1 - np.argmax(possible[:, ::-1], axis=1)), high)
    return low, high


def betting_confidence_sequence(
    values: Any,
    *,
    confidence_level: float = 0.95,
    population_size: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    r"""The betting confidence sequence for the mean of values in [0, 1], after each value.

    Parameters
    ----------
    values : array_like of float in [0, 1]
        The observations in the order they were drawn (i.i.d., or uniformly without replacement
        from ``population_size`` values).
    confidence_level : float, default 0.95
        :math:`1 - \alpha`: the mean lies inside every interval of the sequence at once with at
        least this probability.
    population_size : int, optional
        N: estimate the mean of a finite population of N values sampled without replacement.

    Returns
    -------
    low, high : ndarray of shape (n,)
        The running-intersection confidence sequence (see the module docstring), on a grid of
        ``GRID_SIZE`` candidate means, each end rounded outward to the grid.

    Raises
    ------
    ValueError
        For values outside [0, 1], more values than ``population_size``, an invalid level.
    """
    level = check_level(confidence_level)
    array = np.asarray(values, dtype=float)
    if array.ndim != 1 or array.size == 0 or not np.all((array >= 0) & (array <= 1)):
        raise ValueError(
            "`values` must be a non-empty 1-d array of numbers in [0, 1], got "
            f"{np.asarray(values)!r:.80}."
        )
    grid = np.linspace(0.0, 1.0, GRID_SIZE)
    if population_size is not None:
        if isinstance(population_size, bool) or not isinstance(population_size, (int, np.integer)):
            raise TypeError(f"`population_size` must be an int, got {population_size!r}.")
        if population_size < array.size:
            raise ValueError(
                f"`population_size` ({population_size}) must be at least the number of "
                f"values ({array.size})."
            )
    low, high = running_bounds(
        array[None, :], grid, alpha=1.0 - level, population_size=population_size
    )
    return low[0], high[0]
