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

from typing import Any

import numpy as np

from judgestats._validate import (
    MAX_SAMPLES,
    check_choice,
    check_positive_int,
)
from judgestats.planning.algorithm1 import algorithm1_split, smoothed_pilot
from judgestats.simulate._grid import (
    DESIGNS,
    as_dataset,
    check_design,
    grid,
    grid_parameters,
    root_entropy,
)

__all__ = ["adaptive_allocation", "cell_generator", "draw_cell", "simulate_counts"]


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
    q0_t, q1_t = smoothed_pilot(k0_pilot, m_pilot), smoothed_pilot(k1_pilot, m_pilot)
    m0, m1, _, _ = algorithm1_split(m, p_hat, q0_t, q1_t, m_pilot)
    return m0, m1


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
    reps = check_positive_int(reps, "reps", maximum=MAX_SAMPLES)
    template, flat = grid(grid_parameters(theta, q0, q1, n, m0, m1, theta_cal, design))
    design, allocation, m_pilot = check_design(design, allocation, m_pilot, flat)
    entropy = root_entropy(random_seed)
    size = template.size
    if size * reps > MAX_SAMPLES:
        raise ValueError(
            f"`reps` ({reps:,}) x the grid's {size:,} cells = {size * reps:,} simulated "
            f"datasets, held in memory, must be at most {MAX_SAMPLES:,}: use fewer `reps` or "
            "a smaller grid (or judgestats.simulate.coverage, which keeps only summaries)."
        )
    out = {name: np.empty((size, reps), dtype=np.int64) for name in ("k", "k0", "k1", "m0", "m1")}
    for cell in range(size):
        values = {name: array[cell] for name, array in flat.items()}
        draws = draw_cell(cell_generator(entropy, cell), values, reps, design, allocation, m_pilot)
        for name, array in out.items():
            array[cell] = draws[name]
    return as_dataset(
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
