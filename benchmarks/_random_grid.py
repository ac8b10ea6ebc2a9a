"""The grid and candidates of the random-design benchmark (issue 24), shared by its scripts.

``benchmarks/random_design.py`` simulates over this grid, ``random_design_page.py`` judges and
prints its results, ``ppi_small_sample.py`` and ``random_rule_selection.py`` reuse it.
"""

from __future__ import annotations

import numpy as np

M_GRID = np.array([10, 20, 50, 100, 200, 500])
N_GRID = np.array([100, 1_000, 10_000, 1_000_000])
Q_GRID = np.array([0.5, 0.7, 0.9, 0.97, 0.99])
THETA_GRID = np.array([0.02, 0.1, 0.3, 0.5, 0.7, 0.9, 0.98])
TARGETS = ("population", "items")
METHODS = (
    "labels_only_cp", "labels_only_blaker", "ppi_pp", "ppi_pp_wald", "posterior_eti",
    "posterior_hdi",
)  # fmt: skip
POSTERIOR = ("posterior_eti", "posterior_hdi")
POSTERIOR_CELLS = {
    "m": (20, 100),
    "n": (1_000,),
    "q": ((0.7, 0.7), (0.9, 0.9), (0.97, 0.7)),
    "theta": (0.1, 0.5, 0.9),
}  # the posterior's subgrid (0.1 s a dataset); fmt: skip
LEVEL = 0.95
