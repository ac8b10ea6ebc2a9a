"""The exact posterior for many datasets at once: :func:`exact_quantiles`, :func:`exact_interval`.

Identical datasets are computed once; groups of datasets sharing calibration counts share one
table (:mod:`judgestats.bayes._batch`), the rest use the per-dataset rule of
:mod:`judgestats.bayes._quadrature`; quantiles and shortest intervals are searched in chunks on
threads. The one-dataset engine is :class:`judgestats.bayes.exact.ExactPosterior`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from judgestats._validate import (
    check_level,
    check_open_probabilities,
    check_positive_int,
    check_six_counts,
)
from judgestats.bayes._batch import batch_ready, group_marginals, stack
from judgestats.bayes._panels import PanelDensity
from judgestats.bayes._quadrature import log_likelihood, theta_density, theta_range, theta_rule
from judgestats.bayes._terms import rows_for
from judgestats.bayes.priors import Prior, as_prior

__all__ = ["MAX_ARM", "check_arms", "check_kind", "exact_interval", "exact_quantiles"]


def check_kind(kind: Any) -> str:
    """Validate an interval kind: ``"eti"`` or ``"hdi"``."""
    if kind not in ("eti", "hdi"):
        raise ValueError(f"`kind` ({kind!r}) must be 'eti' or 'hdi'.")
    return str(kind)


#: The largest calibration arm (m0, m1) the engine integrates. Its Beta log densities are sums
#: like (a - 1) log q of size m, evaluated with an absolute error of about m * 2**-52: at arms of
#: 2**44 the interval's ends are within 2e-5 of their large-arm limit, from 2**48 they drift by
#: 1e-4 and more, about 2**52 the flags turn wrong, beyond 2**55 the interval is wrong or fails.
MAX_ARM = 2**44


def check_arms(m0: Any, m1: Any, hint: str) -> None:
    """A ValueError naming ``m0`` or ``m1`` where an arm exceeds :data:`MAX_ARM`.

    ``hint``: what to use instead, for the message.
    """
    for name, arm in (("m0", np.asarray(m0)), ("m1", np.asarray(m1))):
        if arm.size and (largest := int(np.max(arm))) > MAX_ARM:
            raise ValueError(
                f"`{name}` ({largest}) must be at most 2**44 ({MAX_ARM}) for the exact "
                "posterior: beyond it the Beta densities of the calibration lose their "
                f"precision in floating point and the interval drifts; {hint}."
            )


def _broadcast_counts(k: Any, n: Any, k0: Any, m0: Any, k1: Any, m1: Any) -> list[np.ndarray]:
    arrays = check_six_counts({"k": k, "n": n, "k0": k0, "m0": m0, "k1": k1, "m1": m1})
    check_arms(arrays["m0"], arrays["m1"], "use the closed form (Lang-Reiczigel) at such sizes")
    return [a.astype(float) for a in np.broadcast_arrays(*arrays.values())]


#: Smallest group of datasets sharing calibration counts that uses the shared table, and the
#: rows of marginals whose quantiles and shortest intervals are searched at once.
BATCH_MIN_GROUP = 4
SOLVE_CHUNK = 1024


def _theta_marginals(
    counts: list[np.ndarray], prior: Prior, pool: Any = None
) -> list[tuple[PanelDensity, tuple[np.ndarray, np.ndarray]]]:
    """Theta marginals of the distinct datasets among ``counts``, in blocks.

    Groups of at least ``BATCH_MIN_GROUP`` distinct datasets sharing calibration counts use the
    shared table of :mod:`judgestats.bayes._batch` (one task per group, run on ``pool``'s threads
    when given); the rest the per-dataset rule. Each block comes with ``(served, row)``: the
    flattened datasets it serves and its row for each of them.
    """
    flat = np.stack([c.ravel() for c in counts], axis=1)
    unique, inverse = np.unique(flat, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    k, n, k0, m0, k1, m1 = unique.T
    rows = rows_for(k, n, k0, m0, k1, m1, prior)
    keys, group = np.unique(unique[:, 2:], axis=0, return_inverse=True)
    group = group.ravel()
    low, high = theta_range(rows)
    tasks, single = [], []  # groups for the shared table, lone datasets
    for g in range(keys.shape[0]):
        members = np.flatnonzero(group == g)
        if members.size >= BATCH_MIN_GROUP and batch_ready(rows.take(members[:1])):
            tasks.append(members)
        else:
            single.append(members)

    def run(members: np.ndarray) -> tuple[list, np.ndarray]:
        return group_marginals(
            rows.take(members), float(low[members].min()), float(high[members].max())
        )

    def lone(members: np.ndarray) -> list[tuple[PanelDensity, np.ndarray]]:
        """The per-dataset rule (row by row: any split of the rows gives the same marginals)."""
        if not members.size:
            return []
        part = rows.take(members)
        edges, t, _, powers = theta_rule(part)
        return [(theta_density(part, log_likelihood(part, t), t, edges, powers), members)]

    submit = pool.submit if pool is not None else _now
    small = submit(lone, np.concatenate(single) if single else np.empty(0, dtype=np.int64))
    results = list((pool.map if pool is not None else map)(run, tasks))
    blocks = [block for parts, _ in results for block in parts]
    batched = [members[index] for members, (_, index) in zip(tasks, results, strict=True)]
    unserved = [
        np.delete(members, index) for members, (_, index) in zip(tasks, results, strict=True)
    ]
    out = []
    if blocks:
        batched_members = np.concatenate(batched)
        out += [(density, batched_members[block_rows]) for density, block_rows in stack(blocks)]
    out += small.result() + lone(
        np.concatenate(unserved) if unserved else np.empty(0, dtype=np.int64)
    )
    return [(density, _dataset_rows(members, inverse)) for density, members in out]


class _Done:
    """The result of a call made at once (the interface of a future)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def result(self) -> Any:
        return self.value


def _now(function: Any, *args: Any) -> _Done:
    """Call ``function(*args)`` now (in place of a thread pool's ``submit``)."""
    return _Done(function(*args))


def _dataset_rows(members: np.ndarray, inverse: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(datasets served by a block, the block row of each of them)."""
    position = np.full(int(inverse.max()) + 1, -1)
    position[members] = np.arange(members.size)
    served = np.flatnonzero(position[inverse] >= 0)
    return served, position[inverse[served]]


def _per_dataset(
    counts: list[np.ndarray], prior: Prior, width: int, operation, workers: int | None
) -> np.ndarray:
    """``operation(marginals)`` -> (rows, width) for every dataset of the flattened counts.

    Calibration groups, the lone datasets and the chunks of the searches (all blocks' at once)
    run on ``workers`` threads (numpy releases the GIL in its array loops), BLAS on one; the
    result depends on neither.
    """
    from concurrent.futures import ThreadPoolExecutor

    from judgestats._dask import one_blas_thread

    size = counts[0].size
    out = np.empty((size, width))
    with one_blas_thread(), ThreadPoolExecutor(max_workers=workers) as pool:
        jobs = []
        for density, (served, row) in _theta_marginals(counts, prior, pool):
            rows = density.edges.shape[0]
            for start in range(0, rows, SOLVE_CHUNK):  # small arrays for the searches
                chunk = np.arange(start, min(start + SOLVE_CHUNK, rows))
                jobs.append((served, row, chunk, pool.submit(operation, density.take(chunk))))
        for served, row, chunk, job in jobs:  # every block's chunks run at once
            mine = (row >= chunk[0]) & (row <= chunk[-1])
            out[served[mine]] = job.result()[row[mine] - chunk[0]]
    return out


def _check_workers(workers: Any) -> int:
    """Threads of the engine: ``workers``, or the CPUs available up to ENGINE_MAX_THREADS."""
    from judgestats._dask import ENGINE_MAX_THREADS, available_cpus

    if workers is None:
        return min(available_cpus(), ENGINE_MAX_THREADS)
    return check_positive_int(workers, "workers")


def exact_quantiles(
    k: Any,
    n: Any,
    k0: Any,
    m0: Any,
    k1: Any,
    m1: Any,
    q: Any,
    *,
    prior: Prior | None = None,
    workers: int | None = None,
) -> np.ndarray:
    """Posterior quantiles of theta for many datasets at once.

    Parameters
    ----------
    k, n, k0, m0, k1, m1 : array_like of int
        Counts; they broadcast together to the shape S.
    q : float or 1-D array_like
        Probabilities strictly inside (0, 1).
    prior : Prior, optional
        Shared prior (default ``Prior()``).
    workers : int, optional
        Threads (default: the CPUs available, at most 4); results do not depend on it.

    Returns
    -------
    numpy.ndarray
        Shape ``S + (len(q),)`` (``S`` when ``q`` is a scalar). Identical datasets are computed
        once.
    """
    prior = as_prior(prior)
    levels = check_open_probabilities(q, "q")
    if levels.ndim > 1:
        raise ValueError(f"`q` must be a scalar or 1-D, got shape {levels.shape}.")
    counts = _broadcast_counts(k, n, k0, m0, k1, m1)
    shape = counts[0].shape
    flat_q = np.atleast_1d(levels)
    out = np.empty(shape + (flat_q.size,))
    if counts[0].size:
        out = _per_dataset(
            counts,
            prior,
            flat_q.size,
            lambda density: density.quantile(
                np.broadcast_to(flat_q, (density.edges.shape[0], flat_q.size))
            ),
            _check_workers(workers),
        ).reshape(out.shape)
    return out[..., 0] if levels.ndim == 0 else out


def exact_interval(
    k: Any,
    n: Any,
    k0: Any,
    m0: Any,
    k1: Any,
    m1: Any,
    *,
    prob: float = 0.95,
    kind: str = "eti",
    prior: Prior | None = None,
    workers: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Credible intervals for theta for many datasets at once.

    Parameters
    ----------
    k, n, k0, m0, k1, m1 : array_like of int
        Counts; they broadcast together.
    prob : float, default 0.95
        Credibility level in (0, 1).
    kind : {"eti", "hdi"}
        Equal-tailed or shortest (highest-density) interval.
    prior : Prior, optional
        Shared prior (default ``Prior()``).
    workers : int, optional
        Threads (default: the CPUs available, at most 4); results do not depend on it.

    Returns
    -------
    (low, high) : tuple of numpy.ndarray
        Arrays of the broadcast shape.
    """
    prob = check_level(prob, "prob")
    kind = check_kind(kind)
    prior = as_prior(prior)
    if kind == "eti":
        out = exact_quantiles(
            k, n, k0, m0, k1, m1, [(1 - prob) / 2, (1 + prob) / 2], prior=prior, workers=workers
        )
        return out[..., 0], out[..., 1]
    counts = _broadcast_counts(k, n, k0, m0, k1, m1)
    shape = counts[0].shape
    if counts[0].size == 0:
        return np.empty(shape), np.empty(shape)
    out = _per_dataset(
        counts,
        prior,
        2,
        lambda density: np.stack(density.shortest(prob), axis=1),
        _check_workers(workers),
    )
    return out[:, 0].reshape(shape), out[:, 1].reshape(shape)
