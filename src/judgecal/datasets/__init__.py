"""Small bundled example data.

``example_labels.csv`` is a synthetic but realistic evaluation (made by
``scripts/make_example_dataset.py``): 2,400 test answers judged by an LLM (true accuracy 0.62,
judge specificity 0.78, sensitivity 0.91) and a calibration set of 110 truly-incorrect and 95
truly-correct answers labelled by humans. Columns: ``item_id``, ``set`` (test/calibration),
``judge`` (0/1), ``human`` (0/1 on calibration rows, empty on test rows).
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path
from typing import Any

from judgecal.data import JudgeData

__all__ = ["coverage_atlas", "example_path", "load_example"]

#: The true parameters the example was simulated from (for checking what the methods recover).
EXAMPLE_TRUTH = {"theta": 0.62, "q0": 0.78, "q1": 0.91}


def example_path() -> Path:
    """Path of the bundled item-level example CSV."""
    return Path(str(resources.files(__package__).joinpath("example_labels.csv")))


def load_example() -> JudgeData:
    """Counts of the bundled example (see the module docstring)."""
    return JudgeData.from_csv(example_path())


@functools.lru_cache(maxsize=1)
def coverage_atlas() -> dict[str, Any]:
    """Simulated coverage of the 95% Lang-Reiczigel interval (the cross-check's evidence).

    From the coverage atlas (``benchmarks/coverage_atlas.py``, 10,000 replications per cell,
    extracted by ``scripts/make_atlas_table.py``): ``coverage`` has the dims theta (21 values,
    0 to 1), q0 and q1 (0.6, 0.7, 0.8, 0.9, 0.95), n (200, 1000, 100000) and m = m0 = m1
    (5, 10, 20, 30, 50, 100, 250); the grid values are under those names.
    """
    import numpy as np

    with resources.files(__package__).joinpath("lr_coverage_atlas.npz").open("rb") as handle:
        table = np.load(handle)
        return {name: table[name] for name in table.files}
