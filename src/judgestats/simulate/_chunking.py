"""How :func:`judgestats.simulate.coverage` splits its grid cells into chunks and tasks.

* **Closed form** (``"naive"``, ``"lang_reiczigel"``): every replication's interval depends on
  its own counts only, so any chunking gives the same numbers. Chunks hold at most
  :data:`CHUNK_ROWS` replications (memory) and, on a cluster, there are at least
  :data:`TASKS_PER_THREAD` per worker thread (load balance) unless a chunk would fall under
  :data:`MIN_TASK_ROWS` replications (a task's overhead, a few milliseconds, would show).
* **Guaranteed** (no Bayesian method): chunks of whole settings (n, m0, m1, q0, q1, theta_cal;
  theta varies inside one), at most :data:`CHUNK_ROWS` replications each, the same here and on
  any cluster; on a cluster each chunk runs in parts (:func:`guaranteed_parts`, about
  :data:`TASKS_PER_THREAD` per worker thread, none under :data:`GUARANTEED_MIN_PART_ROWS`
  replications where that can be avoided). Every part draws the whole chunk (microseconds a
  dataset) and computes the intervals of its share of the chunk's distinct datasets, in whole
  groups of equal (n, k0, m0, k1, m1), balanced by an estimate of their cost into parts of
  decreasing size, which the cluster runs largest first
  (:func:`judgestats.simulate._kernels.calibration_parts`, ``part_shares``). An interval costs
  0.01-0.3 s and is computed once per distinct dataset in a task, so the split is made over
  datasets, not cells. The guaranteed study of ``benchmarks/bench_dask.py`` (16 cells in 4
  settings, 289 distinct datasets) ran earlier as one task per setting: those 4 tasks computed
  7.6% of the datasets twice (8.7% more CPU than the serial chunk), and there could not be more
  of them. Its 8 parts for 2 workers cost the serial chunk's CPU within the machine's noise
  (-2% to +4%, three runs in this process), and run in order on 2 workers they end within
  0.7% of the ideal time (CPU of each part); parts of equal dataset counts instead ended 7%
  after it (the cost of a dataset varies 10x, 2-25 ms here). On a 2-worker LocalCluster (Dask
  task stream, a loaded machine) the parts ran largest first and both workers ended within
  0.01 s of each other.
* **Bayesian** (exact engine): the engine shares work among the datasets of a calibration group
  (equal k0, m0, k1, m1), and a dataset's numbers depend on the other members of its group (the
  shared quadrature covers them all), never on datasets outside it. A chunk therefore holds the
  cells of one calibration setting (equal q0, q1, m0, m1, theta_cal), and its datasets are split
  into parts of whole calibration groups (:func:`bayes_parts`; one task each, see
  :func:`judgestats.simulate._kernels.calibration_parts`): at least one part per
  :data:`BAYES_MAX_ROWS` replications (memory) and, on a cluster, about
  :data:`BAYES_TASKS_PER_THREAD` parts per worker thread over the study (not under
  :data:`BAYES_MIN_PART_ROWS` replications a part). Whatever the parts, every group is computed
  whole, so the results are the same here and on any number of workers. Parts cost no more
  than the chunks: the 18 parts of the Bayesian study of ``benchmarks/bench_dask.py`` for 2
  workers took 40.0 s of CPU, its 9 serial chunks 40.4 s (one engine thread each, in this
  process), and run in order on 2 workers they end 1.2% after the ideal time; the time the
  2-worker run lost (16.6% of the serial time in the quiet run) went to Dask's own threads
  (4-5%, :mod:`judgestats._dask`), to the serial run's second engine thread (4%), to the end
  of the run (about 1%); the Dask task stream showed 0.04 s of gaps between a worker's 9
  tasks. The rest (about 5%) was not found in the tasks' CPU time: both cores busy at once
  (shared cache, the host) is the likely cause, untested.
* ``chunk_cells`` given: consecutive cells in grid order, that many per chunk.
"""

from __future__ import annotations

import numpy as np

#: Replications per closed-form chunk at most (about 100 MB of temporaries).
CHUNK_ROWS = 2**19
#: Replications per Bayesian part at most (about 250 MB of marginals).
BAYES_MAX_ROWS = 2**18
#: Replications per Bayesian part at least when splitting for a cluster.
BAYES_MIN_PART_ROWS = 32
#: Bayesian parts wanted per worker thread: a part holds whole calibration groups, so more parts
#: add no work beyond drawing the chunk again (milliseconds), and they balance uneven settings.
BAYES_TASKS_PER_THREAD = 8
#: Tasks per worker thread wanted on a cluster (lets fast workers take more).
TASKS_PER_THREAD = 4
#: Replications per task at least when splitting for a cluster.
MIN_TASK_ROWS = 2**14
#: Replications per guaranteed part at least when splitting for a cluster (0.01-0.3 s each).
GUARANTEED_MIN_PART_ROWS = 8

_BAYES_KEY = ("m0", "m1", "q0", "q1", "theta_cal")
#: theta (and nothing else) varies inside a setting of the guaranteed interval's studies
_GUARANTEED_KEY = ("n", "m0", "m1", "q0", "q1", "theta_cal")


def _sorted_cells(flat: dict[str, np.ndarray], names: tuple[str, ...]) -> tuple[np.ndarray, ...]:
    """(cells ordered by the columns ``names``, then grid order; the key of each, in that order)."""
    columns = [flat[name] for name in names if name in flat]
    order = np.lexsort(columns[::-1])  # lexsort sorts by its last key first; it is stable
    return order, np.stack([c[order] for c in columns], axis=1)


def _calibration_chunks(flat: dict[str, np.ndarray]) -> list[np.ndarray]:
    """One chunk per calibration setting, its cells in grid order."""
    order, keys = _sorted_cells(flat, _BAYES_KEY)
    return np.split(order, np.flatnonzero(np.any(keys[1:] != keys[:-1], axis=1)) + 1)


def bayes_parts(chunks: list[np.ndarray], reps: int, threads: int | None) -> list[int]:
    """Parts (tasks) of each Bayesian chunk; the results do not depend on them.

    ``ceil(rows / BAYES_MAX_ROWS)`` each, and on a cluster of ``threads`` worker threads
    about ``BAYES_TASKS_PER_THREAD * threads`` in all, shared in proportion to the chunks' rows,
    with no part under ``BAYES_MIN_PART_ROWS`` rows where that can be avoided.
    """
    rows = np.array([chunk.size * reps for chunk in chunks])
    return _parts(
        rows, -(-rows // BAYES_MAX_ROWS), BAYES_TASKS_PER_THREAD, threads, BAYES_MIN_PART_ROWS
    )


def guaranteed_parts(chunks: list[np.ndarray], reps: int, threads: int | None) -> list[int]:
    """Parts (tasks) of each guaranteed chunk; the results do not depend on them.

    One each here; on a cluster of ``threads`` worker threads about ``TASKS_PER_THREAD *
    threads`` in all, shared in proportion to the chunks' rows, with no part under
    ``GUARANTEED_MIN_PART_ROWS`` rows where that can be avoided.
    """
    rows = np.array([chunk.size * reps for chunk in chunks])
    return _parts(rows, np.ones_like(rows), TASKS_PER_THREAD, threads, GUARANTEED_MIN_PART_ROWS)


def _parts(
    rows: np.ndarray, base: np.ndarray, per_thread: int, threads: int | None, min_rows: int
) -> list[int]:
    """``base`` parts per chunk, more on a cluster (see :func:`bayes_parts`)."""
    parts = base
    if threads is not None and rows.size:
        wanted = np.ceil(per_thread * threads * rows / rows.sum()).astype(np.int64)
        parts = np.maximum(parts, np.minimum(wanted, np.maximum(rows // min_rows, 1)))
    return [int(p) for p in parts]


def _chunk_count(size: int, reps: int, threads: int | None, min_rows: int) -> int:
    """Chunks for ``size`` cells of ``reps`` replications whose results do not depend on it."""
    rows = size * reps
    count = -(-rows // CHUNK_ROWS)
    if threads is not None:
        wanted = min(TASKS_PER_THREAD * threads, max(1, rows // min_rows))
        count = max(count, wanted)
    return min(size, count)


def plan_chunks(
    flat: dict[str, np.ndarray],
    reps: int,
    methods: tuple[str, ...],
    exact: bool,
    chunk_cells: int | None,
    threads: int | None,
) -> list[np.ndarray]:
    """The flat cell indices of each chunk (together, every cell once).

    Parameters
    ----------
    flat : dict of numpy.ndarray
        The grid's parameters, one value per cell (C order).
    reps : int
        Replications per cell.
    methods : tuple of str
        The study's methods.
    exact : bool
        Exact sums (one cell per chunk in this process).
    chunk_cells : int, optional
        Cells per chunk (validated), in grid order; overrides the rules above.
    threads : int, optional
        Worker threads of the cluster (None: this process computes).

    Returns
    -------
    list of numpy.ndarray
        Chunks of flat cell indices.
    """
    size = flat["theta"].size
    if chunk_cells is not None:
        step = int(chunk_cells)
        return [np.arange(start, min(size, start + step)) for start in range(0, size, step)]
    if exact:  # one cell per chunk here (a fine progress bar); on a cluster, fewer tasks
        count = size if threads is None else min(size, 4 * TASKS_PER_THREAD * threads)
        return np.array_split(np.arange(size), count)
    if any(method.startswith("bayes") for method in methods):
        return _calibration_chunks(flat)
    if "guaranteed" in methods:  # split into parts of datasets for a cluster, not into chunks
        order, keys = _sorted_cells(flat, _GUARANTEED_KEY)
        return _split_between_settings(order, keys, _chunk_count(size, reps, None, 1))
    return np.array_split(np.arange(size), _chunk_count(size, reps, threads, MIN_TASK_ROWS))


def _split_between_settings(order: np.ndarray, keys: np.ndarray, count: int) -> list[np.ndarray]:
    """About ``count`` chunks of about equal size, cut only where the setting changes."""
    starts = np.flatnonzero(np.any(keys[1:] != keys[:-1], axis=1)) + 1
    if count <= 1 or starts.size == 0:
        return [order]
    targets = np.arange(1, count) * order.size / count
    cuts = np.unique(starts[np.abs(starts[None, :] - targets[:, None]).argmin(axis=1)])
    return np.split(order, cuts)
