r"""Shortest intervals of many distributions at once, from their quantile and density functions.

The width ``w(a) = Q(a + prob) - Q(a)`` of the interval that starts at probability ``a`` has

.. math:: w'(a) = 1 / f(Q(a + prob)) - 1 / f(Q(a)),

so its interior minima are where the densities at both ends are equal. They are bracketed on a
grid of ``a`` and refined by false position (:func:`shortest_interval`); the densities of
:mod:`judgestats.bayes._panels` provide the functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["shortest_interval"]

#: Probabilities on the coarse grid that brackets the shortest interval.
SHORTEST_GRID = 256
#: Grid cells by which the bracket of the equal-density search may widen on each side.
BRACKET_STEPS = 8
#: Steps and tolerance (in probability) of the false-position search for equal densities.
REFINE_ITERATIONS = 100
REFINE_TOLERANCE = 1e-10
#: Relative difference of the densities at both ends at which the search stops (the width is
#: flat there: an end moves by about this times the interval's width).
RELATIVE_GAP_TOLERANCE = 1e-8
#: Rows of the grid evaluated at once.
GRID_ROWS = 64


def shortest_interval(
    quantile, density, rows: int, prob: float, *, grid: int = SHORTEST_GRID, approximate=None
) -> tuple[np.ndarray, np.ndarray]:
    """Shortest interval of mass ``prob`` for ``rows`` distributions.

    ``quantile(levels, sel)`` maps probabilities of shape (R, Q) to quantiles of the R
    distributions ``sel`` (a slice or indices) and ``density(t, sel)`` gives their density
    there; ``approximate(levels, sel)``, if given, is a cheaper quantile function used on the
    grid only. Each distribution is searched on its own (rows that need no further step are
    not evaluated). The width ``w(a) = Q(a + prob) - Q(a)`` has

    .. math:: w'(a) = 1 / f(Q(a + prob)) - 1 / f(Q(a)),

    so its interior minima are where the densities at both ends are equal, the sign of
    ``g(a) = f(Q(a)) - f(Q(a + prob))`` changing from - to +. On a grid of ``a`` in
    [0, 1 - prob] every such change, and each end of the grid where the width grows away from it
    (an interval touching a bound of the support, as when the density is unbounded there), is a
    candidate. The interior candidate with the smallest width on the grid is refined by false
    position (with a bisection every eighth step) on exact quantiles; it then competes with
    the end candidates on exact widths, since near an end of the support the width can be
    flat enough in ``a`` that the approximate grid ranks them wrongly. Several modes are
    handled because all local minima compete.
    """
    span = 1.0 - prob
    a = np.linspace(0.0, span, grid + 1)
    cell, best, pick = _grid_candidates(approximate or quantile, density, rows, prob, a)

    def gap(starts: np.ndarray, chosen: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Relative density gap at starts (rows, S), < 0 left of a minimum; and the ends.

        Only the rows ``chosen`` (a mask; all when None) are evaluated, the others are zero.
        """
        sel = slice(None) if chosen is None else np.flatnonzero(chosen)
        size = starts.shape[1]
        out, ends = np.zeros(starts.shape), np.zeros((rows, 2 * size))
        part = starts[sel]
        if part.shape[0]:
            ends[sel] = quantile(np.concatenate([part, part + prob], axis=1), sel)
            values = density(ends[sel], sel)
            with np.errstate(all="ignore"):
                ratio = (values[:, :size] - values[:, size:]) / (
                    values[:, :size] + values[:, size:]
                )
            out[sel] = np.nan_to_num(ratio)
        return out, ends

    # exact gaps at the grid cell's ends and at both ends of [0, span]: an end is a minimum
    # only if the width grows away from it; an end the grid picked that fails this puts the
    # minimum within a few cells of that end
    step_size = a[1] - a[0]
    lo, hi = a[cell], a[cell + 1]
    g4, ends4 = gap(np.stack([lo, hi, np.zeros(rows), np.full(rows, span)], axis=1))
    g_lo, g_hi = g4[:, 0], g4[:, 1]
    start_ok = np.isfinite(best[:, 1]) & (g4[:, 2] >= 0)
    end_ok = np.isfinite(best[:, 2]) & (g4[:, 3] <= 0)
    near_start, near_end = (pick == 1) & ~start_ok, (pick == 2) & ~end_ok
    lo = np.where(near_start, 0.0, np.where(near_end, span - step_size, lo))
    hi = np.where(near_start, step_size, np.where(near_end, span, hi))
    g_lo = np.where(
        near_start, g4[:, 2], np.where(near_end, gap(lo[:, None], near_end)[0][:, 0], g_lo)
    )
    g_hi = np.where(
        near_start, gap(hi[:, None], near_start)[0][:, 0], np.where(near_end, g4[:, 3], g_hi)
    )
    interior = (np.isfinite(best[:, 0]) & (pick == 0)) | near_start | near_end
    interior |= ~(start_ok | end_ok)
    x_ends = np.full((rows, 2), np.nan)
    if interior.any():
        bracket = _widen_bracket(gap, interior, (lo, hi, g_lo, g_hi), span, step_size)
        x_ends = _false_position(gap, interior, bracket)
    # the refined interior candidate and the end candidates compete on exact widths
    lows = np.stack([x_ends[:, 0], ends4[:, 2], ends4[:, 3]], axis=1)
    highs = np.stack([x_ends[:, 1], ends4[:, 6], ends4[:, 7]], axis=1)
    valid = np.stack([interior, start_ok, end_ok], axis=1)
    pick = np.argmin(np.where(valid, highs - lows, np.inf), axis=1)
    chosen = np.arange(rows)
    return lows[chosen, pick], highs[chosen, pick]


def _grid_candidates(
    quantile: Any, density: Any, rows: int, prob: float, a: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The grid's best interior cell, the three candidates' widths and the one it picks.

    On the grid ``a`` of starts, an interior minimum lies in a cell where the density gap
    ``f(Q(a)) - f(Q(a + prob))`` changes sign from - to +; the ends of ``[0, 1 - prob]`` are
    candidates where the width grows away from them. Returns ``(cell, best, pick)``: the
    interior cell of smallest width, the widths (rows, 3) of the interior, start and end
    candidates (inf where none) and the index of the smallest.
    """
    grid = a.size - 1
    levels = np.concatenate([a, a + prob])
    cell = np.empty(rows, dtype=np.intp)
    best = np.empty((rows, 3))
    for start in range(0, rows, GRID_ROWS):  # blocks of rows: arrays that stay in cache
        sel = slice(start, min(start + GRID_ROWS, rows))
        q = quantile(np.broadcast_to(levels, (sel.stop - start, levels.size)), sel)
        dens = density(q, sel)
        width = q[:, grid + 1 :] - q[:, : grid + 1]
        g = dens[:, : grid + 1] - dens[:, grid + 1 :]
        rises = (g[:, :-1] < 0) & (g[:, 1:] >= 0)  # interior minimum in cell i
        cell_width = np.where(rises, np.minimum(width[:, :-1], width[:, 1:]), np.inf)
        cell[sel] = np.argmin(cell_width, axis=1)
        best[sel, 0] = cell_width[np.arange(sel.stop - start), cell[sel]]
        best[sel, 1] = np.where(g[:, 0] >= 0, width[:, 0], np.inf)  # minimum at a = 0
        best[sel, 2] = np.where(g[:, -1] <= 0, width[:, -1], np.inf)  # minimum at a = span
    return cell, best, np.argmin(best, axis=1)


def _widen_bracket(
    gap: Any, interior: np.ndarray, bracket: tuple[np.ndarray, ...], span: float, step: float
) -> tuple[np.ndarray, ...]:
    """Move the ends of ``(lo, hi, g_lo, g_hi)`` outwards by a cell until they bracket the root.

    The approximate grid may put the root a cell off; at most ``BRACKET_STEPS`` moves.
    """
    lo, hi, g_lo, g_hi = bracket
    for _ in range(BRACKET_STEPS):
        left, right = interior & (g_lo > 0) & (lo > 0), interior & (g_hi < 0) & (hi < span)
        if not (left.any() or right.any()):
            break
        lo = np.where(left, np.maximum(lo - step, 0.0), lo)
        hi = np.where(right, np.minimum(hi + step, span), hi)
        g_lo = np.where(left, gap(lo[:, None], left)[0][:, 0], g_lo)
        g_hi = np.where(right, gap(hi[:, None], right)[0][:, 0], g_hi)
    return lo, hi, g_lo, g_hi


def _false_position(gap: Any, interior: np.ndarray, bracket: tuple[np.ndarray, ...]) -> np.ndarray:
    """Refine the root of the density gap in ``(lo, hi)``; the interval's ends there (rows, 2).

    False position (Illinois variant), with a bisection every eighth step.
    """
    lo, hi, g_lo, g_hi = bracket
    rows = lo.shape[0]
    side = np.zeros(rows)
    x_ends = np.full((rows, 2), np.nan)
    moving = interior.copy()  # a row stops once it has converged: its result is its own
    for step in range(REFINE_ITERATIONS):
        with np.errstate(all="ignore"):
            x = lo - g_lo * (hi - lo) / (g_hi - g_lo)
        bad = ~np.isfinite(x) | (x <= lo) | (x >= hi) | (step % 8 == 7)
        x = np.where(bad, 0.5 * (lo + hi), x)
        g_x, ends = gap(x[:, None], moving)
        g_x = g_x[:, 0]
        x_ends = np.where(moving[:, None], ends, x_ends)
        right = moving & (g_x > 0)
        left = moving & ~right
        hi, g_hi = np.where(right, x, hi), np.where(right, g_x, g_hi)
        lo, g_lo = np.where(left, x, lo), np.where(left, g_x, g_lo)
        side = np.where(
            right, np.minimum(side, 0) - 1, np.where(left, np.maximum(side, 0) + 1, side)
        )
        g_lo = np.where(moving & (side >= 2), g_lo / 2, g_lo)  # Illinois: halve the stale end
        g_hi = np.where(moving & (side <= -2), g_hi / 2, g_hi)
        moving &= ~((hi - lo < REFINE_TOLERANCE) | (np.abs(g_x) < RELATIVE_GAP_TOLERANCE))
        if not moving.any():
            break
    return x_ends
