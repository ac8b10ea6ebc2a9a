"""Small bundled example data.

``example_labels.csv`` is a synthetic but realistic evaluation (made by
``scripts/make_example_dataset.py``): 2,400 test answers judged by an LLM (true accuracy 0.62,
judge specificity 0.78, sensitivity 0.91) and a calibration set of 110 truly-incorrect and 95
truly-correct answers labelled by humans. Columns: ``item_id``, ``set`` (test/calibration),
``judge`` (0/1), ``human`` (0/1 on calibration rows, empty on test rows).

Item-level examples for :mod:`judgestats.io` (made by ``scripts/make_io_examples.py``; true
accuracy 0.70, judge specificity 0.80, sensitivity 0.90): ``example_items.csv`` (``id``,
``verdict`` C/I, ``human_label`` C/I or empty), ``example_lm_eval_samples.jsonl`` (an
lm-evaluation-harness samples file, metric ``acc``) with ``example_human_labels.csv`` (``id``,
``human``: labels of 40 of its documents), and ``example_promptfoo_results.json`` (promptfoo
results with an ``llm-rubric`` judge, 20 rows rated by a person).

Inspect AI logs (made by ``scripts/make_example_inspect.py``): ``example_inspect.eval``, 400
samples graded by a ``model_graded_qa`` judge (true accuracy 0.70, specificity 0.80, sensitivity
0.90, some P/N grades), with 80 scores edited by two reviewers inside the log (the human
labels); ``example_inspect_b.eval``, a second model (true accuracy 0.60) on the same 400 ids;
``example_compare_labels.csv`` (``id``, ``model``, ``human``), 80 labels per model for
``judgestats compare --log-a ... --log-b ... --model-column model``.

``example_grouped_items.csv`` (made by ``scripts/make_example_grouped.py``): three models x 150
questions, every answer graded in 3 epochs, 40 answers per model labelled, for grouped estimates
(``--by model``) and repeated judging clustered by item.

:func:`data_files` lists every bundled file.
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path
from typing import Any

from judgestats.data import JudgeData

__all__ = [
    "DATA_SUFFIXES",
    "EXAMPLE_TRUTH",
    "coverage_atlas",
    "data_files",
    "example_path",
    "load_example",
]

#: The true parameters the example was simulated from (for checking what the methods recover).
EXAMPLE_TRUTH = {"theta": 0.62, "q0": 0.78, "q1": 0.91}


def example_path() -> Path:
    """Path of the bundled item-level example CSV."""
    return Path(str(resources.files(__package__).joinpath("example_labels.csv")))


#: Extensions of the bundled example data files that :func:`data_files` lists.
DATA_SUFFIXES = (".csv", ".json", ".jsonl", ".eval")


def data_files() -> dict[str, Path]:
    """The bundled example data files, by file name.

    ``judgestats demo --show-data`` prints them.
    """
    folder = resources.files(__package__)
    return {
        entry.name: Path(str(entry))
        for entry in sorted(folder.iterdir(), key=lambda e: e.name)
        if entry.is_file() and entry.name.endswith(DATA_SUFFIXES)
    }


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
