r"""Kernels of :func:`judgestats.simulate.coverage`: one chunk of grid cells -> summary statistics.

A chunk is a set of grid cells (flat indices plus their parameter values). Monte Carlo chunks
draw every cell from its own stream (:func:`judgestats.simulate.process.cell_generator`),
evaluate the interval for all replications of the chunk at once and reduce each cell's
replications to the statistics of :data:`STATISTICS`. Exact chunks sum the joint pmf

.. math:: P(k, k_0, k_1) = \mathrm{Bin}(k; n, p)\,\mathrm{Bin}(k_0; m_0, q_0)\,
          \mathrm{Bin}(k_1; m_1, q_1), \qquad p = \theta q_1 + (1 - \theta)(1 - q_0),

over the data space (Lee et al. (ICML 2026) eq. 9), so they carry no Monte Carlo error.

Everything here is a plain module-level function of picklable arguments, so Dask workers can run
it.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from judgestats._dask import one_blas_thread
from judgestats.exceptions import JudgeStatsWarning
from judgestats.simulate.process import cell_generator, draw_cell

#: Each binomial's tails below this probability are left out of the exact sums.
#: The statistics of one cell and one method, in the order of the last axis of a chunk.
STATISTICS = (
    "coverage",
    "coverage_se",
    "width_mean",
    "width_median",
    "bias",
    "rmse",
    "undefined_fraction",
)

EXACT_TAIL = 1e-12
#: Table entries per block in the exact sums (bounds the memory of one block).
_EXACT_BLOCK = 2**20
#: Table entries lighter than this are left out of the weighted median of the width.
_MEDIAN_WEIGHT = 1e-14


@dataclass(frozen=True)
class ChunkSpec:
    """What every chunk of one coverage study shares."""

    methods: tuple[str, ...]
    reps: int
    level: float
    design: str
    allocation: str
    m_pilot: int
    exact: bool
    entropy: int
    prior: Any = None
    #: Threads one chunk may use (the exact posterior engine's); None: its default.
    threads: int | None = None

    def with_threads(self, threads: int | None) -> ChunkSpec:
        """The same study, its chunks limited to ``threads`` threads each."""
        return replace(self, threads=threads)


def evaluate_chunk(spec: ChunkSpec, cells: np.ndarray, values: dict[str, np.ndarray]) -> np.ndarray:
    """Statistics of the cells of one chunk: shape (cells, methods, :data:`STATISTICS`).

    All methods are evaluated on the same simulated datasets. BLAS runs on one thread here: the
    exact posterior engine's matrix products round differently with another BLAS thread count,
    and a Dask worker has one (dask sets ``OPENBLAS_NUM_THREADS=1``) where this process has one
    per CPU, so the chunk gives the same bits wherever it runs.
    """
    with one_blas_thread():
        return _evaluate(spec, cells, values)


def _evaluate(spec: ChunkSpec, cells: np.ndarray, values: dict[str, np.ndarray]) -> np.ndarray:
    """:func:`evaluate_chunk` with BLAS limited."""
    out = np.full((cells.size, len(spec.methods), len(STATISTICS)), np.nan)
    usable = np.flatnonzero(values["q0"] + values["q1"] - 1.0 > 0.0)
    if usable.size == 0:
        return out
    if spec.exact:
        for i in usable:
            for j, method in enumerate(spec.methods):
                out[i, j] = _exact_cell(
                    method, spec.level, {name: a[i] for name, a in values.items()}
                )
        return out
    data = _draw(spec, cells, values, usable)
    for j, method in enumerate(spec.methods):
        low, high, est = interval_and_estimate(
            method, spec.level, data, spec.prior, threads=spec.threads
        )
        out[usable, j] = summarise(low, high, est, values["theta"][usable][:, None])
    return out


def _draw(
    spec: ChunkSpec, cells: np.ndarray, values: dict[str, np.ndarray], usable: np.ndarray
) -> dict[str, np.ndarray]:
    """The datasets of the cells ``usable`` of a chunk: arrays of shape (usable cells, reps)."""
    draws = [
        draw_cell(
            cell_generator(spec.entropy, int(cells[i])),
            {name: a[i] for name, a in values.items()},
            spec.reps,
            spec.design,
            spec.allocation,
            spec.m_pilot,
        )
        for i in usable
    ]
    return {name: np.stack([d[name] for d in draws]) for name in draws[0]}


# ------------------------------------------------------------------------------------------------
# Bayesian and guaranteed chunks in parts: whole calibration groups per task
# ------------------------------------------------------------------------------------------------
#: A calibration group's shared table costs about as much as this many of its datasets.
GROUP_COST = 50
_BAYES_GROUP = ("k0", "m0", "k1", "m1")
#: The guaranteed interval shares its nuisance grid and calibration pmfs among the datasets of
#: equal (n, k0, m0, k1, m1) (:func:`judgestats.guaranteed.guaranteed_intervals`).
_GUARANTEED_GROUP = ("n", "k0", "m0", "k1", "m1")
_DATASET = ("k", "n", "k0", "m0", "k1", "m1")


def part_shares(parts: int, decreasing: bool) -> np.ndarray:
    """Share of a chunk's estimated cost given to each of its parts (they sum to 1).

    Equal, or ``decreasing`` linearly from twice the last part's share to it. Parts run in
    order of their estimated cost on a cluster (the larger first,
    :func:`judgestats._dask.run_chunks`'s priorities), so decreasing parts end a run with the
    smallest, which fill the time that the errors of a cost estimate would leave idle.
    """
    shares = np.linspace(2.0, 1.0, parts) if decreasing else np.ones(parts)
    return shares / shares.sum()


def calibration_parts(
    data: dict[str, np.ndarray], parts: int, *, guaranteed: bool = False
) -> np.ndarray:
    r"""The part (0 .. parts - 1) of every dataset: whole calibration groups, balanced.

    Bayesian (default): a group is the datasets with equal ``(k0, m0, k1, m1)``; the exact
    engine shares its work among them, and a dataset's posterior depends on its group only, so
    any assignment of whole groups gives the same numbers. A group costs its datasets plus
    :data:`GROUP_COST`. ``guaranteed``: a group is the datasets with equal ``(n, k0, m0, k1,
    m1)`` (they share the interval's calibration part, a few per cent of its cost; an interval
    depends on its own dataset alone), and it costs :func:`guaranteed_cost` summed over its
    distinct datasets (each is computed once).

    Groups go, costliest first (ties in key order), to the part with the least cost per share
    (:func:`part_shares`): longest processing time first, into parts of equal cost (Bayesian;
    their costs are well estimated, and the memory bound of a part holds) or of decreasing cost
    (guaranteed; a dataset's cost varies 10x, 2-25 ms, in the guaranteed study of
    ``benchmarks/bench_dask.py``).
    """
    shape = data["k0"].shape
    if parts == 1:
        return np.zeros(shape, dtype=np.int64)
    names = _GUARANTEED_GROUP if guaranteed else _BAYES_GROUP
    key = np.stack([data[name].ravel() for name in names], axis=1)
    _, inverse, counts = np.unique(key, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    if guaranteed:
        rows = np.stack([data[name].ravel() for name in _DATASET], axis=1)
        first = np.unique(rows, axis=0, return_index=True)[1]
        flat = {name: data[name].ravel()[first] for name in ("k0", "m0", "k1", "m1")}
        cost = np.bincount(inverse[first], weights=guaranteed_cost(flat), minlength=counts.size)
    else:
        cost = (counts + GROUP_COST).astype(float)
    shares = part_shares(parts, decreasing=guaranteed)
    load = np.zeros(parts)
    owner = np.empty(counts.size, dtype=np.int64)
    for group in np.argsort(-cost, kind="stable"):
        owner[group] = np.argmin(load / shares)
        load[owner[group]] += cost[group]
    return owner[inverse].reshape(shape)


def guaranteed_cost(data: dict[str, np.ndarray]) -> np.ndarray:
    r"""Relative cost of the guaranteed interval of each dataset (a rough estimate).

    .. math:: c = (\max(k_0 / m_0 + k_1 / m_1 - 1, 0) + 0.05)\,\sqrt{m_0 + m_1}

    The interval searches a nuisance set that grows with the arms, and it is found quickly
    where the calibration shows a weak judge. On the 289 distinct datasets of the guaranteed
    study of ``benchmarks/bench_dask.py`` (n = 100, 20-item arms; 2-25 ms each) the cost's
    correlation with the estimated Youden J was 0.64; on a grid of n 50 / 400 and arms of
    15-60 items, 0.53 with J and 0.42 with the arm sizes (10x the arms: 3-4x the cost).
    """
    m0, m1 = (np.maximum(data[name], 1) for name in ("m0", "m1"))
    youden = np.maximum(data["k0"] / m0 + data["k1"] / m1 - 1.0, 0.0)
    return (youden + 0.05) * np.sqrt(m0 + m1)


def evaluate_part(
    spec: ChunkSpec, cells: np.ndarray, values: dict[str, np.ndarray], part: int, parts: int
) -> tuple[np.ndarray, np.ndarray]:
    """Intervals of part ``part`` of a chunk's datasets (see :func:`calibration_parts`).

    Every part draws the whole chunk (cheap next to the posteriors and guaranteed intervals)
    and keeps its own groups (Bayesian groups when the study has a Bayesian method, else the
    guaranteed interval's).
    Returns the flat indices of its datasets into the (usable cells, reps) array of the chunk
    and their (low, high, estimate) per method: shape (datasets, methods, 3). BLAS runs on
    one thread, as in :func:`evaluate_chunk`.
    """
    usable = np.flatnonzero(values["q0"] + values["q1"] - 1.0 > 0.0)
    if usable.size == 0:
        return np.empty(0, dtype=np.int64), np.empty((0, len(spec.methods), 3))
    with one_blas_thread():
        data = _draw(spec, cells, values, usable)
        guaranteed = not any(method.startswith("bayes") for method in spec.methods)
        owner = calibration_parts(data, parts, guaranteed=guaranteed)
        mine = np.flatnonzero(owner.ravel() == part)
        chosen = {name: a.ravel()[mine] for name, a in data.items()}
        out = np.empty((mine.size, len(spec.methods), 3))
        for j, method in enumerate(spec.methods):
            out[:, j] = np.stack(
                interval_and_estimate(method, spec.level, chosen, spec.prior, threads=spec.threads),
                axis=1,
            )
    return mine, out


def merge_parts(
    spec: ChunkSpec, values: dict[str, np.ndarray], results: list[tuple[np.ndarray, np.ndarray]]
) -> np.ndarray:
    """Statistics of a chunk's cells from its parts (:func:`evaluate_part`).

    The same array as :func:`evaluate_chunk` returns: shape (cells, methods, statistics).
    """
    out = np.full((values["theta"].size, len(spec.methods), len(STATISTICS)), np.nan)
    usable = np.flatnonzero(values["q0"] + values["q1"] - 1.0 > 0.0)
    if usable.size == 0:
        return out
    flat = np.full((usable.size * spec.reps, len(spec.methods), 3), np.nan)
    for index, part in results:
        flat[index] = part
    merged = flat.reshape(usable.size, spec.reps, len(spec.methods), 3)
    for j in range(len(spec.methods)):
        low, high, est = (np.ascontiguousarray(merged[:, :, j, i]) for i in range(3))
        out[usable, j] = summarise(low, high, est, values["theta"][usable][:, None])
    return out


# ------------------------------------------------------------------------------------------------
# intervals and point estimates of many datasets
# ------------------------------------------------------------------------------------------------
def interval_and_estimate(
    method: str,
    level: float,
    data: dict[str, np.ndarray],
    prior: Any = None,
    *,
    threads: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(low, high, estimate) of ``method`` for datasets ``data`` (arrays of equal shape).

    NaN where the method gives no answer (an empty calibration arm in the random design; for the
    closed form, an estimated judge no better than chance). ``threads`` limits the exact
    posterior engine's threads (None: its default); results do not depend on it.
    """
    k, n, k0, m0, k1, m1 = (data[name] for name in ("k", "n", "k0", "m0", "k1", "m1"))
    p_hat = k / n
    if method == "naive":
        from judgestats.frequentist import naive_wald_ci

        low, high = naive_wald_ci(p_hat, n, confidence_level=level)
        return np.asarray(low), np.asarray(high), p_hat
    low, high, est = (np.full(k.shape, np.nan) for _ in range(3))
    ok = (m0 > 0) & (m1 > 0)
    if method == "lang_reiczigel":
        from judgestats.frequentist import lang_reiczigel_ci, rogan_gladen

        q0_hat, q1_hat = k0[ok] / m0[ok], k1[ok] / m1[ok]
        with warnings.catch_warnings():  # estimated judges no better than chance give NaN
            warnings.simplefilter("ignore", JudgeStatsWarning)
            low[ok], high[ok] = lang_reiczigel_ci(
                p_hat[ok], q0_hat, q1_hat, n[ok], m0[ok], m1[ok], confidence_level=level
            )
            est[ok] = rogan_gladen(p_hat[ok], q0_hat, q1_hat, clip=True)
        return low, high, est
    if method == "guaranteed":
        return _guaranteed(level, [a.ravel() for a in (k, n, k0, m0, k1, m1)], k.shape)
    low[ok], high[ok], est[ok] = _bayes(
        method, level, prior, [a[ok] for a in (k, n, k0, m0, k1, m1)], threads
    )
    return low, high, est


def _guaranteed(
    level: float, counts: list[np.ndarray], shape: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Guaranteed interval and clipped Rogan-Gladen estimate, once per distinct dataset.

    The interval exists for every dataset (also with an empty arm of a random design); the
    estimate is NaN where the Rogan-Gladen correction is undefined.
    """
    from judgestats.frequentist import rogan_gladen
    from judgestats.guaranteed import guaranteed_intervals

    unique, inverse = np.unique(
        np.stack(counts, axis=1).astype(np.int64), axis=0, return_inverse=True
    )
    c = unique.T  # k, n, k0, m0, k1, m1; grouped by calibration inside
    low, high = guaranteed_intervals(c[0], c[1], c[2], c[3], c[4], c[5], level)
    est = np.full(unique.shape[0], np.nan)
    for i, (k, n, k0, m0, k1, m1) in enumerate(unique.tolist()):
        if m0 > 0 and m1 > 0 and k0 / m0 + k1 / m1 > 1.0:
            est[i] = rogan_gladen(k / n, k0 / m0, k1 / m1, clip=True)
    inverse = inverse.ravel()
    return (low[inverse].reshape(shape), high[inverse].reshape(shape), est[inverse].reshape(shape))


def _bayes(
    method: str, level: float, prior: Any, counts: list[np.ndarray], threads: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Posterior interval and median, computed once per distinct dataset (k, n, k0, m0, k1, m1)."""
    from judgestats.bayes.exact import exact_interval, exact_quantiles

    if counts[0].size == 0:
        return np.empty(0), np.empty(0), np.empty(0)
    unique, inverse = np.unique(np.stack(counts, axis=1), axis=0, return_inverse=True)
    inverse = inverse.ravel()
    k, n, k0, m0, k1, m1 = (unique[:, j] for j in range(6))
    alpha = 1.0 - level
    if method == "bayes_eti":
        levels = [alpha / 2, 0.5, 1 - alpha / 2]
        q = exact_quantiles(k, n, k0, m0, k1, m1, levels, prior=prior, workers=threads)
        low, median, high = q[:, 0], q[:, 1], q[:, 2]
    else:
        low, high = exact_interval(
            k, n, k0, m0, k1, m1, prob=level, kind="hdi", prior=prior, workers=threads
        )
        median = exact_quantiles(k, n, k0, m0, k1, m1, 0.5, prior=prior, workers=threads)
    return low[inverse], high[inverse], median[inverse]


def summarise(low: np.ndarray, high: np.ndarray, est: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Reduce replications (axis 1) to the columns of :data:`STATISTICS`.

    An interval that does not exist (NaN) counts as not covering; widths, bias and RMSE are taken
    over the replications where the interval / estimate exists.
    """
    reps = low.shape[1]
    covered = (low <= theta) & (theta <= high)
    cover = covered.sum(axis=1) / reps
    width = high - low
    error = est - theta
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows give NaN
        columns = (
            cover,
            np.sqrt(cover * (1.0 - cover) / reps),
            np.nanmean(width, axis=1),
            np.nanmedian(width, axis=1),
            np.nanmean(error, axis=1),
            np.sqrt(np.nanmean(error**2, axis=1)),
            np.isnan(low).sum(axis=1) / reps,
        )
    return np.stack(columns, axis=1)


# ------------------------------------------------------------------------------------------------
# exact sums over the data space
# ------------------------------------------------------------------------------------------------
def _support_bounds(size: int, prob: float) -> tuple[int, int]:
    """First and last value of Bin(size, prob) with both tails below EXACT_TAIL cut off."""
    from scipy.stats import binom

    low = int(binom.ppf(EXACT_TAIL, size, prob)) if 0.0 < prob < 1.0 else 0
    high = int(binom.isf(EXACT_TAIL, size, prob)) if 0.0 < prob < 1.0 else size
    return max(low, 0), min(high, size)


def _support(size: int, prob: float) -> tuple[np.ndarray, np.ndarray]:
    """Values of Bin(size, prob) with both tails below EXACT_TAIL cut off, and their pmf."""
    from scipy.stats import binom

    low, high = _support_bounds(size, prob)
    values = np.arange(low, high + 1)
    return values, binom.pmf(values, size, prob)


def exact_datasets(method: str, values: dict[str, Any]) -> int:
    """How many datasets :func:`_exact_cell` sums over for one cell (its cost)."""
    theta, q0, q1 = float(values["theta"]), float(values["q0"]), float(values["q1"])
    arms = [(values["n"], theta * q1 + (1.0 - theta) * (1.0 - q0))]
    if method != "naive":
        arms += [(values["m0"], q0), (values["m1"], q1)]
    count = 1
    for size, prob in arms:
        low, high = _support_bounds(int(size), prob)
        count *= high - low + 1
    return count


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    keep = weights > 0
    values, weights = values[keep], weights[keep]
    if values.size == 0:
        return np.nan
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cumulative, 0.5 * cumulative[-1])])


def _exact_cell(method: str, level: float, values: dict[str, Any]) -> np.ndarray:
    """Statistics of one cell by summing the joint pmf (closed-form methods)."""
    theta, q0, q1 = float(values["theta"]), float(values["q0"]), float(values["q1"])
    n, m0, m1 = int(values["n"]), int(values["m0"]), int(values["m1"])
    k, wk = _support(n, theta * q1 + (1.0 - theta) * (1.0 - q0))
    if method == "naive":
        k0, w0, k1, w1 = np.array([m0]), np.ones(1), np.array([m1]), np.ones(1)
    else:
        (k0, w0), (k1, w1) = _support(m0, q0), _support(m1, q1)
    acc = np.zeros(6)  # covered, defined, sum w*width, defined-estimate mass, sum w*err, w*err^2
    widths, weights = [], []
    step = max(1, _EXACT_BLOCK // (k.size * k1.size))
    for start in range(0, k0.size, step):
        block = slice(start, start + step)
        data = {
            "k": k[:, None, None],
            "n": np.full((1, 1, 1), n),
            "k0": k0[None, block, None],
            "m0": np.full((1, 1, 1), m0),
            "k1": k1[None, None, :],
            "m1": np.full((1, 1, 1), m1),
        }
        shape = (k.size, k0[block].size, k1.size)
        data = {name: np.broadcast_to(a, shape) for name, a in data.items()}
        low, high, est = interval_and_estimate(method, level, data)
        w = wk[:, None, None] * w0[None, block, None] * w1[None, None, :]
        defined, has_est = ~np.isnan(low), ~np.isnan(est)
        acc += [
            w[(low <= theta) & (theta <= high)].sum(),
            w[defined].sum(),
            (w * np.where(defined, high - low, 0.0)).sum(),
            w[has_est].sum(),
            (w * np.where(has_est, est - theta, 0.0)).sum(),
            (w * np.where(has_est, est - theta, 0.0) ** 2).sum(),
        ]
        keep = defined & (w > _MEDIAN_WEIGHT)  # the rest cannot move the weighted median
        widths.append((high - low)[keep])
        weights.append(w[keep])
    total = wk.sum() * w0.sum() * w1.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.array(
            [
                acc[0],
                0.0,
                acc[2] / acc[1],
                _weighted_median(np.concatenate(widths), np.concatenate(weights)),
                acc[4] / acc[3],
                np.sqrt(acc[5] / acc[3]),
                1.0 - acc[1] / total,
            ]
        )
