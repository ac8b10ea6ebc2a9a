"""Simulation: the data-generating process and coverage studies built on it.

Modules, bottom to top:

* :mod:`judgestats.simulate.process` -- the data-generating process of one grid cell (Lee et al.,
  arXiv 2511.21140 v1 Sec. 5; Lee et al. (ICML 2026) Sec. 7.1 and 8), per-cell random streams,
  :func:`simulate_counts`;
* :mod:`judgestats.simulate._kernels` -- one chunk of cells to summary statistics (Monte Carlo or
  exact pmf sums);
* :mod:`judgestats.simulate.studies` -- :func:`coverage`, the grid study run locally or on Dask.
"""

from judgestats.simulate._grid import ALLOCATIONS, DESIGNS, PARAMETERS
from judgestats.simulate.process import (
    adaptive_allocation,
    cell_generator,
    draw_cell,
    simulate_counts,
)
from judgestats.simulate.studies import METHODS, coverage

__all__ = [
    "ALLOCATIONS",
    "DESIGNS",
    "METHODS",
    "PARAMETERS",
    "adaptive_allocation",
    "cell_generator",
    "coverage",
    "draw_cell",
    "simulate_counts",
]
