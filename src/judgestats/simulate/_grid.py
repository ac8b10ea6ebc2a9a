"""The grid of a simulation: parameters broadcast over named dimensions, seeds, the result frame.

Package-internal helpers of :mod:`judgestats.simulate` (public names in a private module): the
data-generating process (:mod:`judgestats.simulate.process`) and the coverage study
(:mod:`judgestats.simulate.studies`) both read their parameters through :func:`grid`.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, cast

import numpy as np

from judgestats._validate import (
    DESIGNS,
    MAX_SAMPLES,
    as_generator,
    as_real_array,
    check_choice,
    check_counts,
    check_proportions,
    is_xarray,
)

ALLOCATIONS = ("fixed", "adaptive")
PARAMETERS = ("theta", "q0", "q1", "n", "m0", "m1", "theta_cal")


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
    values, counts = np.unique(checked, return_counts=True)
    if (counts > 1).any():
        repeated = values[counts > 1][0]
        raise ValueError(
            f"`{name}` repeats a value ({repeated:g}, {counts.max()} times): each value is a "
            "coordinate of the study's grid, so give each once."
        )
    return xr.DataArray(checked, dims=(name,), coords={name: checked})


def grid(params: dict[str, Any]) -> tuple[Any, dict[str, np.ndarray]]:
    """Broadcast the parameters; return (template DataArray, flat C-order values per name)."""
    import xarray as xr

    arrays = {name: _as_parameter(value, name) for name, value in params.items()}
    sizes = {dim: size for a in arrays.values() for dim, size in a.sizes.items()}
    cells = math.prod(sizes.values())
    if cells > MAX_SAMPLES:
        shown = " x ".join(f"{size:,} ({dim})" for dim, size in sizes.items())
        raise ValueError(
            f"the parameter grid has {shown} = {cells:,} cells, more than the "
            f"{MAX_SAMPLES:,} a study can hold: sweep fewer values at once."
        )
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


def grid_parameters(theta, q0, q1, n, m0, m1, theta_cal, design: str) -> dict[str, Any]:
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


def root_entropy(random_seed: Any) -> int:
    """Root entropy of the per-cell streams: an int seed is used as is."""
    if isinstance(random_seed, numbers.Integral) and not isinstance(random_seed, bool):
        if random_seed < 0:
            raise ValueError(f"`random_seed` ({random_seed}) must be non-negative.")
        return int(random_seed)
    if random_seed is None:
        # without an argument SeedSequence draws its entropy from the OS as one int
        return int(cast("int", np.random.SeedSequence().entropy))
    return int(as_generator(random_seed).integers(0, 2**63 - 1))


def check_design(
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


def as_dataset(
    template: Any, variables: dict[str, np.ndarray], *, reps: int | None, attrs: dict[str, Any]
) -> Any:
    import xarray as xr

    dims = template.dims
    data_vars = {}
    for name, array in variables.items():
        data_vars[name] = (dims + ("rep",) if array.ndim == len(dims) + 1 else dims, array)
    return xr.Dataset(data_vars, coords=template.coords, attrs=attrs)
