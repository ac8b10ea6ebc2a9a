"""Simulation: the data-generating process and coverage studies built on it.

Modules, bottom to top:

* :mod:`judgecal.simulate.process` -- the data-generating process of one grid cell (Lee et al.,
  arXiv 2511.21140 v1 Sec. 5; Lee et al. (ICML 2026) Sec. 7.1 and 8), per-cell random streams,
  :func:`simulate_counts`;
* :mod:`judgecal.simulate._kernels` -- one chunk of cells to summary statistics (Monte Carlo or
  exact pmf sums);
* :mod:`judgecal.simulate.studies` -- :func:`coverage`, the grid study run locally or on Dask.
"""

from judgecal.simulate._grid import ALLOCATIONS, DESIGNS, PARAMETERS
from judgecal.simulate.process import (
    adaptive_allocation,
    cell_generator,
    draw_cell,
    simulate_counts,
)
from judgecal.simulate.studies import METHODS, coverage

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
