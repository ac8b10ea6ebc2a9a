r"""Monte Carlo and exact coverage studies of the intervals over a parameter grid.

Every grid cell draws its datasets from the data-generating process of
:mod:`judgestats.simulate.process` (its own random stream), evaluates each interval on them and
keeps summary statistics (:data:`judgestats.simulate._kernels.STATISTICS`); with ``exact=True`` the
coverage is a sum over the joint pmf instead. Chunks of cells run locally or on Dask
(:mod:`judgestats._dask`).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from judgestats._validate import (
    MAX_SAMPLES,
    check_choice,
    check_counts,
    check_flag,
    check_level,
    check_positive_int,
)
from judgestats.exceptions import JudgeStatsWarning
from judgestats.simulate._chunking import bayes_parts, guaranteed_parts, plan_chunks
from judgestats.simulate._grid import (
    DESIGNS,
    as_dataset,
    check_design,
    grid,
    grid_parameters,
    root_entropy,
)
from judgestats.simulate._kernels import (
    STATISTICS,
    ChunkSpec,
    evaluate_chunk,
    evaluate_part,
    exact_datasets,
    merge_parts,
    part_shares,
)

__all__ = ["coverage"]

METHODS = ("naive", "lang_reiczigel", "guaranteed", "bayes_eti", "bayes_hdi")


# ------------------------------------------------------------------------------------------------
# the coverage study
# ------------------------------------------------------------------------------------------------
#: The most datasets one cell's exact sum may cover (about 20 s of one core).
EXACT_MAX_DATASETS = 10**8


def _check_exact_cost(flat: dict[str, np.ndarray], methods: tuple[str, ...]) -> None:
    """Refuse ``exact=True`` on a cell whose data space is too large to sum over."""
    for cell in range(flat["theta"].size):
        values = {name: array[cell] for name, array in flat.items()}
        for method in methods:
            count = exact_datasets(method, values)
            if count > EXACT_MAX_DATASETS:
                shown = ", ".join(f"{k} = {values[k]:g}" for k in ("n", "m0", "m1"))
                raise ValueError(
                    f"`exact=True` would sum over {count:,} datasets at {shown} (method "
                    f"{method!r}), more than {EXACT_MAX_DATASETS:,}: use Monte Carlo replications "
                    "(exact=False, `reps`), whose error at these sizes is tiny."
                )


def _check_methods(method: Any, exact: bool, design: str, allocation: str) -> tuple[str, ...]:
    if isinstance(method, str):
        names: tuple[str, ...] = (method,)
    elif isinstance(method, (list, tuple)):
        names = tuple(method)
    else:
        raise TypeError(
            f"`method` must be a string, one of {', '.join(map(repr, METHODS))}, or a list of "
            f"them; got {method!r}."
        )
    if not names:
        raise ValueError(f"`method` must name at least one of {', '.join(METHODS)}.")
    for name in names:
        check_choice(name, "method", METHODS)
        if exact and name.startswith("bayes"):
            raise ValueError(
                f"`exact=True` sums the joint pmf over the data space for the "
                f'closed-form and guaranteed intervals only ("naive", '
                f'"lang_reiczigel", "guaranteed"); '
                f"got `method` {name!r}."
            )
    if exact and (design != "stratified" or allocation != "fixed"):
        raise ValueError("`exact=True` needs the stratified design with fixed arm sizes.")
    if "guaranteed" in names and allocation != "fixed":
        raise ValueError(
            "the guaranteed interval needs arm sizes fixed before the test set is "
            "judged (its guarantee holds given the arm sizes); `allocation` "
            '"adaptive" chooses them from the test data. Use allocation="fixed".'
        )
    if len(set(names)) != len(names):
        raise ValueError(f"`method` lists a method twice: {list(names)}.")
    return names


def coverage(
    method: str | Sequence[str],
    *,
    theta: Any,
    q0: Any,
    q1: Any,
    n: Any,
    m0: Any,
    m1: Any,
    reps: int = 10_000,
    confidence_level: float = 0.95,
    design: str = "stratified",
    random_seed: Any = None,
    exact: bool = False,
    theta_cal: Any = None,
    allocation: str = "fixed",
    m_pilot: int = 10,
    prior: Any = None,
    client: Any = None,
    n_workers: int | None = None,
    chunk_cells: int | None = None,
    progress: bool | None = None,
) -> Any:
    r"""Coverage, width, bias and RMSE of an interval method over a grid of settings.

    For every grid cell, ``reps`` datasets are drawn from the data-generating process of
    :func:`simulate_counts` (Lee et al. v1 Sec. 5, Lee et al. (ICML 2026) Sec. 7.1), the interval
    and point estimate of ``method`` are computed for each, and the replications are reduced to
    summary statistics chunk by chunk, so arbitrarily large grids run in bounded memory.

    Parameters
    ----------
    method : {"naive", "lang_reiczigel", "guaranteed", "bayes_eti", "bayes_hdi"} or a list of them
        A sequence evaluates every method on the same simulated datasets and adds a first
        dimension ``interval`` to the result (not ``method``, which ``Dataset.sel`` reserves).
        ``"naive"``: Wald interval of p-hat, estimate p-hat (Lee et al. v1 eq. 2).
        ``"lang_reiczigel"``: eqs. (5)-(7), estimate the clipped Rogan-Gladen eq. (4).
        ``"guaranteed"``: :func:`judgestats.guaranteed_ci` (about 0.05 s median per distinct
        dataset, up to 0.3 s for large n or 200-item arms, ``benchmarks/bench_guaranteed.py
        --speed``; so keep ``reps`` modest), estimate the clipped Rogan-Gladen eq. (4); with the
        random design it is computed given the realised arm sizes; not with
        ``allocation="adaptive"``.
        ``"bayes_eti"`` / ``"bayes_hdi"``: equal-tailed / highest-density credible interval of
        the exact posterior (:func:`judgestats.bayes.exact.exact_interval`); the point estimate is
        the posterior median (invariant to reparametrisation, and the centre of the ETI).
    theta, q0, q1, n, m0, m1 : scalar, 1-D sequence or 1-D DataArray
        The grid (see :func:`simulate_counts`); each 1-D input becomes a dimension.
    reps : int, default 10_000
        Replications per cell (ignored with ``exact=True``).
    confidence_level : float, default 0.95
        Level of the intervals, strictly inside (0, 1).
    design, theta_cal, allocation, m_pilot
        Calibration design, as in :func:`simulate_counts`.
    random_seed : int or numpy.random.Generator, optional
        Root of the per-cell random streams; same seed, same Dataset (locally or on Dask).
    exact : bool, default False
        For ``"naive"`` and ``"lang_reiczigel"`` with fixed stratified arms: sum the joint pmf
        of (k, k0, k1) over the data space instead of simulating, so there is no Monte Carlo
        error (``coverage_se`` = 0). Tails of each binomial below 1e-12 are left out, so the
        neglected probability is below 3e-12 (recorded in ``attrs``).
    prior : judgestats.Prior, optional
        Prior of the Bayesian methods (default ``Prior()``).
    client : None, "local", str or distributed.Client, optional
        None computes in this process. ``"local"`` starts a ``dask.distributed.LocalCluster``
        (``n_workers`` workers) for the call; an address string (``"tcp://host:8786"``)
        connects to a running scheduler; a ``Client`` is used as is. Chunks and per-cell seeds
        are the same either way, so the results are identical. The LocalCluster's workers run
        without dask's ``MALLOC_TRIM_THRESHOLD_`` (with it, numpy code runs 1.7-3x slower in a
        worker) and without the workers' stack profiler, its servers with slower diagnostic
        ticks (:data:`judgestats._dask.QUIET_CLUSTER`, 4-5% of a busy 2-core machine); start
        your own cluster so too (:mod:`judgestats._dask`).
    n_workers : int, optional
        Workers of the LocalCluster started for ``client="local"``.
    chunk_cells : int, optional
        Grid cells per chunk, in grid order. The default (see
        :mod:`judgestats.simulate._chunking`): at most about 5e5 replications per chunk and, on
        a cluster, several chunks per worker thread; for the Bayesian methods one chunk per
        calibration setting (q0, q1, m0, m1), run in parts of whole calibration groups (as
        many as the cluster needs), so their results are the same here and on any number of
        workers; for the guaranteed interval chunks of whole settings, run on a cluster in
        parts of distinct datasets; one cell with ``exact=True``. Closed-form and guaranteed
        results do not depend on it; Bayesian results given ``chunk_cells`` can differ in the
        last digits (a calibration group split between chunks shares its quadrature within
        each).
    progress : bool, optional
        Show a progress bar on stderr; default on when stderr is a terminal and ``CI`` is unset.

    Returns
    -------
    xarray.Dataset
        One dimension per swept parameter; the parameters are coordinates. Variables:
        ``coverage`` (fraction of replications whose interval contains theta; a replication
        whose interval does not exist, e.g. an estimated judge no better than chance, counts as
        a miss), ``coverage_se`` (its Monte Carlo standard error, sqrt(c(1 - c)/reps)),
        ``width_mean``, ``width_median`` (over the replications where the interval exists),
        ``bias`` and ``rmse`` of the point estimate (where it exists), ``undefined_fraction``
        and the flag ``no_better_than_chance`` (cells with q0 + q1 <= 1: all statistics NaN,
        one :class:`~judgestats.JudgeStatsWarning` counts them).

    Raises
    ------
    TypeError
        If ``exact`` is not True or False, or ``progress`` not True, False or None.
    ValueError
        For an unknown method, design or allocation, ``reps`` < 1, a level outside (0, 1), a
        grid value out of range (the message names the parameter and shows the value), or
        ``exact=True`` where it does not apply or where a cell's data space is too large to
        sum over (more than :data:`EXACT_MAX_DATASETS` datasets); ``reps`` above
        :data:`judgestats._validate.MAX_SAMPLES`; a grid of more cells than that.
    """
    level = check_level(confidence_level)
    reps = check_positive_int(reps, "reps", maximum=MAX_SAMPLES)
    exact = check_flag(exact, "exact")
    progress = check_flag(progress, "progress", allow_none=True)
    design = check_choice(design, "design", DESIGNS)
    template, flat = grid(grid_parameters(theta, q0, q1, n, m0, m1, theta_cal, design))
    design, allocation, m_pilot = check_design(design, allocation, m_pilot, flat)
    methods = _check_methods(method, exact, design, allocation)
    if exact:
        _check_exact_cost(flat, methods)
    if chunk_cells is not None:
        chunk_cells = int(check_counts(chunk_cells, "chunk_cells", minimum=1))
    if n_workers is not None:
        n_workers = check_positive_int(n_workers, "n_workers")
    spec = ChunkSpec(
        methods=methods,
        reps=reps,
        level=level,
        design=design,
        allocation=allocation,
        m_pilot=m_pilot,
        exact=exact,
        entropy=root_entropy(random_seed),
        prior=prior,
    )
    stats = _run_study(spec, flat, template.size, chunk_cells, client, n_workers, progress)
    chance = (flat["q0"] + flat["q1"] - 1.0) <= 0.0
    _warn_chance(chance)
    return _coverage_dataset(
        template, stats, chance, methods, isinstance(method, str), attrs=_attrs(spec)
    )


def _run_study(
    spec: ChunkSpec,
    flat: dict[str, np.ndarray],
    size: int,
    chunk_cells: int | None,
    client: Any,
    n_workers: int | None,
    progress: bool | None,
) -> np.ndarray:
    """Statistics of every cell, shape (cells, methods, statistics), here or on Dask.

    Bayesian and guaranteed studies (default chunks) run each chunk in parts of whole
    calibration groups (:func:`~judgestats.simulate._chunking.bayes_parts`,
    :func:`~judgestats.simulate._chunking.guaranteed_parts`), merged here.
    """
    from judgestats._dask import run_chunks, session

    with session(client, n_workers) as dask_session:
        threads = None if dask_session is None else dask_session.threads
        chunks = plan_chunks(flat, spec.reps, spec.methods, spec.exact, chunk_cells, threads)
        values = [{name: a[cells] for name, a in flat.items()} for cells in chunks]
        task_spec = spec if dask_session is None else spec.with_threads(dask_session.engine_threads)
        bayes = any(method.startswith("bayes") for method in spec.methods)
        in_parts = (
            not spec.exact and chunk_cells is None and (bayes or "guaranteed" in spec.methods)
        )
        if in_parts:
            counts = (bayes_parts if bayes else guaranteed_parts)(chunks, spec.reps, threads)
            payloads: list[tuple[Any, ...]] = [
                (cells, chunk, part, parts)
                for cells, chunk, parts in zip(chunks, values, counts, strict=True)
                for part in range(parts)
            ]
            func: Any = evaluate_part
            priorities = [  # estimated replications of each part: the largest first
                float(share * cells.size)
                for cells, parts in zip(chunks, counts, strict=True)
                for share in part_shares(parts, decreasing=not bayes)
            ]
        else:
            payloads, func = list(zip(chunks, values, strict=True)), evaluate_chunk
            priorities = None
        results = run_chunks(
            func,
            task_spec,
            payloads,
            dask_session=dask_session,
            progress=progress,
            priorities=priorities,
        )
    if in_parts:
        starts = np.cumsum([0] + counts)
        results = [
            merge_parts(spec, chunk, results[starts[i] : starts[i + 1]])
            for i, chunk in enumerate(values)
        ]
    stats = np.empty((size, len(spec.methods), len(STATISTICS)))
    for cells, result in zip(chunks, results, strict=True):
        stats[cells] = result
    return stats


def _warn_chance(chance: np.ndarray) -> None:
    """One warning that counts the grid cells whose judge is no better than chance, if any."""
    if chance.any():
        warnings.warn(
            f"{int(chance.sum())} of {chance.size} grid cells have a judge no better "
            "than chance (q0 + q1 - 1 <= 0); no correction exists there, so their "
            "statistics are NaN (flag `no_better_than_chance`).",
            JudgeStatsWarning,
            stacklevel=3,  # the caller of coverage()
        )


def _attrs(spec: ChunkSpec) -> dict[str, Any]:
    """The study's settings, recorded in the Dataset's ``attrs``."""
    return {
        "confidence_level": spec.level,
        "reps": 0 if spec.exact else spec.reps,
        "design": spec.design,
        "allocation": spec.allocation,
        "exact": int(spec.exact),
        "random_seed": str(spec.entropy),
        **({"exact_neglected_mass_bound": 6e-12} if spec.exact else {}),
    }


_POINT_ESTIMATE = {
    "naive": "p-hat",
    "lang_reiczigel": "Rogan-Gladen, clipped",
    "guaranteed": "Rogan-Gladen, clipped",
    "bayes_eti": "posterior median",
    "bayes_hdi": "posterior median",
}


def _coverage_dataset(
    template: Any,
    stats: np.ndarray,
    chance: np.ndarray,
    methods: tuple[str, ...],
    single: bool,
    attrs: dict[str, Any],
) -> Any:
    """Assemble the result: stats has shape (cells, methods, statistics)."""
    import xarray as xr

    shape = template.shape
    variables = {
        name: stats[:, :, i].T.reshape((len(methods),) + shape) for i, name in enumerate(STATISTICS)
    }
    variables["no_better_than_chance"] = np.broadcast_to(
        chance.reshape(shape), (len(methods),) + shape
    )
    if single:
        variables = {name: a[0] for name, a in variables.items()}
        ds = as_dataset(template, variables, reps=None, attrs=attrs)
        return ds.assign_attrs(method=methods[0], point_estimate=_POINT_ESTIMATE[methods[0]])
    ds = xr.Dataset(
        {name: (("interval",) + template.dims, a) for name, a in variables.items()},
        coords=template.coords,
        attrs=attrs,
    )
    return ds.assign_coords(
        interval=list(methods), point_estimate=("interval", [_POINT_ESTIMATE[m] for m in methods])
    )
