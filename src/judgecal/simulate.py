r"""Data-generating processes and Monte Carlo coverage studies.

The data-generating process is that of Sec. 5 of Lee et al. (arXiv 2511.21140 v1) and Sec. 7.1
of Lee et al. (ICML 2026) (with the calibration designs of Lee et al. (ICML 2026) Sec. 8):

.. math::
    p = \theta q_1 + (1 - \theta)(1 - q_0) \quad\text{(Lee et al. (ICML 2026) eq. 9)}, \qquad
    k \sim \mathrm{Bin}(n, p), \quad k_0 \sim \mathrm{Bin}(m_0, q_0), \quad
    k_1 \sim \mathrm{Bin}(m_1, q_1).

Calibration designs
-------------------
``"stratified"`` (the papers' design)
    ``m0`` truly-incorrect and ``m1`` truly-correct items, both fixed.
``"random"``
    ``m = m0 + m1`` items drawn at random from a calibration population whose true accuracy is
    ``theta_cal`` (default: ``theta``, the test population's), so ``m1 ~ Bin(m, theta_cal)`` and
    ``m0 = m - m1`` are random. The judge's behaviour given the true label is the same in both
    populations (Lee et al. (ICML 2026) Sec. 8, the assumption under which the Rogan-Gladen
    estimate stays unbiased).

With ``allocation="adaptive"`` (stratified design only) the budget ``m = m0 + m1`` is split by
Algorithm 1 of Lee et al. v1: a pilot of ``m_pilot`` items per arm, then
``m1 = round(m / (1 + (1/p_hat - 1) sqrt(kappa)))`` with ``kappa = (1 - q0~) / (1 - q1~)``
(Prop. 2), clamped to ``[m_pilot, m - m_pilot]``; the pilot items are part of the arms.

Every parameter (``theta``, ``q0``, ``q1``, ``n``, ``m0``, ``m1``, ``theta_cal``) is a scalar, a
1-D sequence (which becomes a dimension named after the parameter) or a 1-D
``xarray.DataArray`` (which keeps its own dimension, so ``m0`` and ``m1`` can share a dimension
``"m"`` and vary together). Each grid cell draws from its own random stream, derived from
``random_seed`` and the cell's flat index by :class:`numpy.random.SeedSequence`, so results do
not depend on how the grid is chunked or on how many workers compute it.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from judgecal._validate import (
    as_generator,
    as_real_array,
    check_choice,
    check_counts,
    check_level,
    check_positive_int,
    check_proportions,
    is_xarray,
)
from judgecal.exceptions import JudgeCalWarning

__all__ = ["coverage", "simulate_counts"]

METHODS = ("naive", "lang_reiczigel", "guaranteed", "bayes_eti", "bayes_hdi")
DESIGNS = ("stratified", "random")
ALLOCATIONS = ("fixed", "adaptive")
PARAMETERS = ("theta", "q0", "q1", "n", "m0", "m1", "theta_cal")
STATISTICS = (
    "coverage",
    "coverage_se",
    "width_mean",
    "width_median",
    "bias",
    "rmse",
    "undefined_fraction",
)

#: Rows (replications x cells) per chunk: bounds the memory of one chunk to ~100 MB.
_CHUNK_ROWS = 2**19
#: Rows per chunk for the Bayesian methods (each chunk is one call of the exact engine, whose
#: work per calibration group is shared by the group's datasets: large chunks share more;
#: about 250 MB of marginals at most).
_CHUNK_ROWS_BAYES = 2**18


# ------------------------------------------------------------------------------------------------
# the grid
# ------------------------------------------------------------------------------------------------
def _check_values(name: str, values: np.ndarray) -> np.ndarray:
    if name in ("theta", "q0", "q1", "theta_cal"):
        return check_proportions(values, name)
    return check_counts(values, name, minimum=1).astype(np.int64)


def _as_parameter(value: Any, name: str) -> Any:
    """One parameter as a 0-d or 1-D DataArray, validated (the message names the parameter)."""
    import xarray as xr

    if is_xarray(value):
        if value.ndim > 1:
            raise ValueError(
                f"`{name}` must be a scalar or 1-D; got a DataArray with dims {value.dims}."
            )
        checked = _check_values(name, value.values)
        return value.copy(data=checked)
    array = as_real_array(value, name)
    if array.ndim > 1:
        raise ValueError(f"`{name}` must be a scalar or a 1-D sequence; got shape {array.shape}.")
    if array.ndim == 1 and array.size == 0:
        raise ValueError(f"`{name}` must not be empty.")
    checked = _check_values(name, array)
    if checked.ndim == 0:
        return xr.DataArray(checked)
    return xr.DataArray(checked, dims=(name,), coords={name: checked})


def _grid(params: dict[str, Any]) -> tuple[Any, dict[str, np.ndarray]]:
    """Broadcast the parameters; return (template DataArray, flat C-order values per name)."""
    import xarray as xr

    arrays = {name: _as_parameter(value, name) for name, value in params.items()}
    try:
        broadcast = xr.broadcast(*xr.align(*arrays.values(), join="exact"))
    except ValueError as error:
        raise ValueError(
            f"the parameter grids do not align on a shared dimension ({error})."
        ) from None
    template = broadcast[0]
    flat = {
        name: np.ascontiguousarray(b.transpose(*template.dims).values).reshape(-1)
        for name, b in zip(arrays, broadcast, strict=True)
    }
    coords = {name: a for name, a in arrays.items()}
    return template.copy(data=np.zeros(template.shape)).assign_coords(coords), flat


def _parameters(theta, q0, q1, n, m0, m1, theta_cal, design: str) -> dict[str, Any]:
    params = {"theta": theta, "q0": q0, "q1": q1, "n": n, "m0": m0, "m1": m1}
    if theta_cal is not None:
        if design != "random":
            raise ValueError(
                "`theta_cal` (the calibration population's accuracy) only enters "
                'the design "random"; with the stratified design the arm sizes '
                "are fixed and it has no effect."
            )
        params["theta_cal"] = theta_cal
    return params


def _entropy(random_seed: Any) -> int:
    """Root entropy of the per-cell streams: an int seed is used as is."""
    if isinstance(random_seed, numbers.Integral) and not isinstance(random_seed, bool):
        if random_seed < 0:
            raise ValueError(f"`random_seed` ({random_seed}) must be non-negative.")
        return int(random_seed)
    if random_seed is None:
        # without an argument SeedSequence draws its entropy from the OS as one int
        return int(cast("int", np.random.SeedSequence().entropy))
    return int(as_generator(random_seed).integers(0, 2**63 - 1))


# ------------------------------------------------------------------------------------------------
# the data-generating process of one grid cell
# ------------------------------------------------------------------------------------------------
def cell_generator(entropy: int, cell: int) -> np.random.Generator:
    """The random stream of grid cell ``cell`` (a child of ``SeedSequence(entropy)``)."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy, spawn_key=(cell,))))


def adaptive_allocation(
    m: Any, p_hat: Any, k0_pilot: Any, k1_pilot: Any, m_pilot: int
) -> tuple[np.ndarray, np.ndarray]:
    r"""Calibration allocation of Algorithm 1 (Lee et al. v1; Prop. 2), vectorised.

    .. math:: m_1 = \min\{\max\{\mathrm{round}(m / (1 + (1/\hat p - 1)\sqrt{\hat\kappa})),
              m_{pilot}\}, m - m_{pilot}\}, \quad m_0 = m - m_1,

    with :math:`\hat\kappa = (1 - \tilde q_0)/(1 - \tilde q_1)` and the Laplace-adjusted pilot
    accuracies :math:`\tilde q_j = (k_{j,pilot} + 1)/(m_{pilot} + 2)`. ``p_hat = 0`` gives
    ``m1 = m_pilot``. (Step 7 of the printed algorithm sets ``m1`` twice; the second assignment
    is meant to be ``m0 = m - m1``.)
    """
    m = np.asarray(m, dtype=np.float64)
    p = np.asarray(p_hat, dtype=np.float64)
    s0 = np.sqrt(1.0 - (np.asarray(k0_pilot) + 1.0) / (m_pilot + 2.0))
    s1 = np.sqrt(1.0 - (np.asarray(k1_pilot) + 1.0) / (m_pilot + 2.0))
    share = p * s1 / (p * s1 + (1.0 - p) * s0)  # = 1 / (1 + (1/p - 1) sqrt(kappa)); 0 at p = 0
    m1_star = np.floor(m * share + 0.5)  # ties round up, as judgecal.allocation does
    m1 = np.minimum(np.maximum(m1_star, m_pilot), m - m_pilot).astype(np.int64)
    return (m - m1).astype(np.int64), m1


def draw_cell(
    rng: np.random.Generator,
    values: dict[str, Any],
    reps: int,
    design: str,
    allocation: str,
    m_pilot: int,
) -> dict[str, np.ndarray]:
    """Draw ``reps`` datasets (k, n, k0, m0, k1, m1) of one grid cell; see the module docstring."""
    theta, q0, q1 = float(values["theta"]), float(values["q0"]), float(values["q1"])
    n, m0, m1 = int(values["n"]), int(values["m0"]), int(values["m1"])
    p = theta * q1 + (1.0 - theta) * (1.0 - q0)
    k = rng.binomial(n, p, reps)
    if design == "random":
        theta_cal = float(values.get("theta_cal", theta))
        arm1 = rng.binomial(m0 + m1, theta_cal, reps)
        arm0 = m0 + m1 - arm1
        k0, k1 = rng.binomial(arm0, q0), rng.binomial(arm1, q1)
    elif allocation == "adaptive":
        k0_pilot, k1_pilot = rng.binomial(m_pilot, q0, reps), rng.binomial(m_pilot, q1, reps)
        arm0, arm1 = adaptive_allocation(m0 + m1, k / n, k0_pilot, k1_pilot, m_pilot)
        k0 = k0_pilot + rng.binomial(arm0 - m_pilot, q0)
        k1 = k1_pilot + rng.binomial(arm1 - m_pilot, q1)
    else:
        arm0, arm1 = np.full(reps, m0), np.full(reps, m1)
        k0, k1 = rng.binomial(m0, q0, reps), rng.binomial(m1, q1, reps)
    return {"k": k, "n": np.full(reps, n), "k0": k0, "m0": arm0, "k1": k1, "m1": arm1}


def _check_design(
    design: Any, allocation: Any, m_pilot: Any, flat: dict[str, np.ndarray]
) -> tuple[str, str, int]:
    design = check_choice(design, "design", DESIGNS)
    allocation = check_choice(allocation, "allocation", ALLOCATIONS)
    m_pilot = int(check_counts(m_pilot, "m_pilot", minimum=1))
    if allocation == "adaptive":
        if design != "stratified":
            raise ValueError(
                '`allocation` "adaptive" needs the design "stratified" '
                "(Algorithm 1 chooses the arm sizes)."
            )
        budget = flat["m0"] + flat["m1"]
        if (budget < 2 * m_pilot).any():
            raise ValueError(
                f"Algorithm 1 needs a budget `m0` + `m1` of at least 2 * `m_pilot` "
                f"({2 * m_pilot}); got {int(budget.min())}."
            )
    return design, allocation, m_pilot


def simulate_counts(
    *,
    theta: Any,
    q0: Any,
    q1: Any,
    n: Any,
    m0: Any,
    m1: Any,
    reps: int = 1,
    design: str = "stratified",
    theta_cal: Any = None,
    allocation: str = "fixed",
    m_pilot: int = 10,
    random_seed: Any = None,
) -> Any:
    """Draw test and calibration counts over a grid of parameters (Lee et al. (ICML 2026) eq. 9).

    Parameters
    ----------
    theta, q0, q1 : float, 1-D sequence or 1-D DataArray
        True accuracy, judge specificity and sensitivity, in [0, 1].
    n, m0, m1 : int, 1-D sequence or 1-D DataArray
        Test-set size and calibration arm sizes (at least 1). With ``design="random"`` or
        ``allocation="adaptive"`` only the budget ``m0 + m1`` is used.
    reps : int, default 1
        Replications per grid cell.
    design : {"stratified", "random"}
        Calibration design (see the module docstring).
    theta_cal : float, 1-D sequence or DataArray, optional
        Accuracy of the calibration population (design ``"random"`` only; default ``theta``).
    allocation : {"fixed", "adaptive"}
        Arm sizes as given, or chosen by Algorithm 1 of Lee et al. v1 from a pilot of ``m_pilot``
        items per arm.
    m_pilot : int, default 10
        Pilot items per arm for the adaptive allocation.
    random_seed : int or numpy.random.Generator, optional
        Same seed, same Dataset.

    Returns
    -------
    xarray.Dataset
        Variables ``k``, ``k0``, ``k1`` (counts) and ``m0_drawn``, ``m1_drawn`` (the arm sizes
        used, random in the random and adaptive designs), with one dimension per swept
        parameter plus ``rep``; the parameters are coordinates.
    """
    design = check_choice(design, "design", DESIGNS)
    reps = check_positive_int(reps, "reps")
    template, flat = _grid(_parameters(theta, q0, q1, n, m0, m1, theta_cal, design))
    design, allocation, m_pilot = _check_design(design, allocation, m_pilot, flat)
    entropy = _entropy(random_seed)
    size = template.size
    out = {name: np.empty((size, reps), dtype=np.int64) for name in ("k", "k0", "k1", "m0", "m1")}
    for cell in range(size):
        values = {name: array[cell] for name, array in flat.items()}
        draws = draw_cell(cell_generator(entropy, cell), values, reps, design, allocation, m_pilot)
        for name, array in out.items():
            array[cell] = draws[name]
    return _dataset(
        template,
        {
            ("m0_drawn" if name == "m0" else "m1_drawn" if name == "m1" else name): a.reshape(
                template.shape + (reps,)
            )
            for name, a in out.items()
        },
        reps=reps,
        attrs={"design": design, "allocation": allocation, "random_seed": str(entropy)},
    )


def _dataset(
    template: Any, variables: dict[str, np.ndarray], *, reps: int | None, attrs: dict[str, Any]
) -> Any:
    import xarray as xr

    dims = template.dims
    data_vars = {}
    for name, array in variables.items():
        data_vars[name] = (dims + ("rep",) if array.ndim == len(dims) + 1 else dims, array)
    return xr.Dataset(data_vars, coords=template.coords, attrs=attrs)


# ------------------------------------------------------------------------------------------------
# the coverage study
# ------------------------------------------------------------------------------------------------
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


def _chunks(
    size: int, reps: int, methods: tuple[str, ...], exact: bool, chunk_cells: int | None
) -> list[np.ndarray]:
    if chunk_cells is None:
        bayes = any(m.startswith("bayes") for m in methods)
        rows = _CHUNK_ROWS_BAYES if bayes else _CHUNK_ROWS
        chunk_cells = 1 if exact else max(1, rows // reps)
    chunk_cells = int(check_counts(chunk_cells, "chunk_cells", minimum=1))
    return [
        np.arange(start, min(size, start + chunk_cells)) for start in range(0, size, chunk_cells)
    ]


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
        ``"guaranteed"``: :func:`judgecal.guaranteed_ci` (0.01-2 s per distinct dataset, so
        keep ``reps`` modest), estimate the clipped Rogan-Gladen eq. (4); with the random design
        it is computed given the realised arm sizes; not with ``allocation="adaptive"``.
        ``"bayes_eti"`` / ``"bayes_hdi"``: equal-tailed / highest-density credible interval of
        the exact posterior (:func:`judgecal.bayes.exact.exact_interval`); the point estimate is
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
    prior : judgecal.Prior, optional
        Prior of the Bayesian methods (default ``Prior()``).
    client : None, "local", str or distributed.Client, optional
        None computes in this process. ``"local"`` starts a ``dask.distributed.LocalCluster``
        (``n_workers`` workers) for the call; an address string (``"tcp://host:8786"``)
        connects to a running scheduler; a ``Client`` is used as is. Chunks and per-cell seeds
        are the same either way, so the results are identical.
    n_workers : int, optional
        Workers of the LocalCluster started for ``client="local"``.
    chunk_cells : int, optional
        Grid cells per chunk (default: about 5e5 replications per chunk, 3e4 for the Bayesian
        methods, one cell with ``exact=True``). Closed-form results do not depend on it.
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
        one :class:`~judgecal.JudgeCalWarning` counts them).

    Raises
    ------
    ValueError
        For an unknown method, design or allocation, ``reps`` < 1, a level outside (0, 1), a
        grid value out of range (the message names the parameter and shows the value), or
        ``exact=True`` where it does not apply.
    """
    level = check_level(confidence_level)
    reps = check_positive_int(reps, "reps")
    design = check_choice(design, "design", DESIGNS)
    template, flat = _grid(_parameters(theta, q0, q1, n, m0, m1, theta_cal, design))
    design, allocation, m_pilot = _check_design(design, allocation, m_pilot, flat)
    methods = _check_methods(method, bool(exact), design, allocation)
    from judgecal._coverage import ChunkSpec, evaluate_chunk
    from judgecal._dask import run_chunks

    spec = ChunkSpec(
        methods=methods,
        reps=reps,
        level=level,
        design=design,
        allocation=allocation,
        m_pilot=m_pilot,
        exact=bool(exact),
        entropy=_entropy(random_seed),
        prior=prior,
    )
    chunks = _chunks(template.size, reps, methods, bool(exact), chunk_cells)
    payloads = [(cells, {name: a[cells] for name, a in flat.items()}) for cells in chunks]
    results = run_chunks(
        evaluate_chunk, spec, payloads, client=client, n_workers=n_workers, progress=progress
    )
    stats = np.concatenate(results, axis=0)
    chance = (flat["q0"] + flat["q1"] - 1.0) <= 0.0
    if chance.any():
        warnings.warn(
            f"{int(chance.sum())} of {chance.size} grid cells have a judge no better "
            "than chance (q0 + q1 - 1 <= 0); no correction exists there, so their "
            "statistics are NaN (flag `no_better_than_chance`).",
            JudgeCalWarning,
            stacklevel=2,
        )
    return _coverage_dataset(
        template,
        stats,
        chance,
        methods,
        isinstance(method, str),
        attrs={
            "confidence_level": level,
            "reps": 0 if exact else reps,
            "design": design,
            "allocation": allocation,
            "exact": int(bool(exact)),
            "random_seed": str(spec.entropy),
            **({"exact_neglected_mass_bound": 6e-12} if exact else {}),
        },
    )


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
        ds = _dataset(template, variables, reps=None, attrs=attrs)
        return ds.assign_attrs(method=methods[0], point_estimate=_POINT_ESTIMATE[methods[0]])
    ds = xr.Dataset(
        {name: (("interval",) + template.dims, a) for name, a in variables.items()},
        coords=template.coords,
        attrs=attrs,
    )
    return ds.assign_coords(
        interval=list(methods), point_estimate=("interval", [_POINT_ESTIMATE[m] for m in methods])
    )
