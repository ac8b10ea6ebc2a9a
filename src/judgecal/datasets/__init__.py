"""Small bundled example data.

``example_labels.csv`` is a synthetic but realistic evaluation (made by
``scripts/make_example_dataset.py``): 2,400 test answers judged by an LLM (true accuracy 0.62,
judge specificity 0.78, sensitivity 0.91) and a calibration set of 110 truly-incorrect and 95
truly-correct answers labelled by humans. Columns: ``item_id``, ``set`` (test/calibration),
``judge`` (0/1), ``human`` (0/1 on calibration rows, empty on test rows).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from judgecal.data import JudgeData

__all__ = ["example_path", "load_example"]

#: The true parameters the example was simulated from (for checking what the methods recover).
EXAMPLE_TRUTH = {"theta": 0.62, "q0": 0.78, "q1": 0.91}


def example_path() -> Path:
    """Path of the bundled item-level example CSV."""
    return Path(str(resources.files(__package__).joinpath("example_labels.csv")))


def load_example() -> JudgeData:
    """Counts of the bundled example (see the module docstring)."""
    return JudgeData.from_csv(example_path())
