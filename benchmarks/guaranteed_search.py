"""How far the guaranteed interval's supremum search is from a much finer one (review, issue 27).

The p-value of :func:`judgestats.guaranteed_ci` is a supremum over the judge's plausible values
(q0, q1), searched on a coarse grid and the set's boundary arcs, then refined around the
largest values (``judgestats._guaranteed_tails``: ``_COARSE`` grid points a side, ``_ARC``
points an arc, ``_STARTS`` starting points, ``_ROUNDS`` rounds). A search that misses the
maximiser makes the p-value too small and the interval narrower than its own construction.
This script computes the intervals of every other dataset of ``bench_guaranteed.py --speed``'s
regime grid (108 datasets, seed 12) with the shipped search, with the settings before the review
(one start, 25 points an arc, three rounds), and with finer arcs and a finer grid,
and reports each one's median seconds and how far it is narrower than a much finer search
(33 x 33 grid, 97 points an arc, four starts, six rounds), which is the reference here, not the
truth.

    python benchmarks/guaranteed_search.py

Writes benchmarks/results/guaranteed_search.json.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import write_results  # noqa: E402
from bench_guaranteed import _grid_datasets  # noqa: E402

#: (coarse grid points a side, arc points, starts, rounds): the reference, then the settings.
REFERENCE = (33, 97, 4, 6)
SETTINGS = {
    "one start, 25 an arc, 3 rounds (as before the review)": (9, 25, 1, 3),
    "shipped": (9, 25, 2, 4),
    "finer arcs": (9, 49, 2, 4),
    "finer grid": (17, 49, 2, 4),
}


def intervals(cases: list[tuple[int, ...]], setting: tuple[int, int, int, int]) -> Any:
    """(low, high) of every case with the search ``setting``, and the median seconds."""
    from judgestats import _guaranteed_tails as tails
    from judgestats.guaranteed import guaranteed_interval

    shipped = (tails._COARSE, tails._ARC, tails._STARTS, tails._ROUNDS)
    tails._COARSE, tails._ARC, tails._STARTS, tails._ROUNDS = setting
    try:
        out, seconds = [], []
        for counts in cases:
            tails._calibration.cache_clear()  # a cold call, as a user's single interval
            start = time.perf_counter()
            out.append(tuple(guaranteed_interval(*counts, 0.95)))
            seconds.append(time.perf_counter() - start)
    finally:
        tails._COARSE, tails._ARC, tails._STARTS, tails._ROUNDS = shipped
    return np.array(out), float(np.median(seconds))


def main() -> None:
    cases = list(_grid_datasets(np.random.default_rng(12)))[::2]
    reference, reference_s = intervals(cases, REFERENCE)
    rows = {"reference": {"setting": REFERENCE, "median_s": reference_s}}
    for name, setting in SETTINGS.items():
        ends, median_s = intervals(cases, setting)
        narrower = np.maximum(ends[:, 0] - reference[:, 0], reference[:, 1] - ends[:, 1])
        rows[name] = {
            "setting": setting,
            "median_s": median_s,
            "max_narrower_than_reference": float(narrower.max()),
            "datasets_narrower_by_1e-6": int((narrower > 1e-6).sum()),
        }
        print(name, rows[name], flush=True)
    write_results("guaranteed_search", {"datasets": len(cases), "settings": rows})


if __name__ == "__main__":
    main()
