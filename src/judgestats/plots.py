r"""The papers' figures, recomputed with judgestats (matplotlib is imported inside each function).

Each figure has a data function returning numbers (tested against the papers' statements) and a
``plot_*`` function drawing them:

==========================  ==========================  ==========================================
figure                      data                        plot
==========================  ==========================  ==========================================
v1 Fig. 2                   :func:`naive_bias`          :func:`plot_bias`
v1 Fig. 3                   :func:`interval_length`     :func:`plot_interval_length`
v1 Fig. 4 / ICML Fig. 5     :func:`coverage_study`      :func:`plot_coverage_study`
ICML Fig. 7                 :func:`shift_bias`          :func:`plot_shift`
ICML Fig. 4                 judgestats.planning           :func:`plot_human_regions`
==========================  ==========================  ==========================================

"v1" is Lee et al. v1: Lee et al., "How to Correctly Report LLM-as-a-Judge Evaluations", arXiv
2511.21140 v1 (``paper="000"``). "ICML" is Lee et al. (ICML 2026), the later version of the same
paper (``paper="001"``).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from judgestats.exceptions import JudgeStatsWarning

__all__ = [
    "coverage_study",
    "interval_length",
    "naive_bias",
    "plot_bias",
    "plot_coverage_study",
    "plot_human_regions",
    "plot_interval_length",
    "plot_shift",
    "shift_bias",
]

THETA_GRID = np.round(np.linspace(0.0, 1.0, 21), 10)
#: Calibration budget m0 + m1 of the main simulation in each paper version.
PAPER_BUDGET = {"000": 500, "001": 200}


def _axes(ax: Any) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(5, 4))[1]


# ------------------------------------------------------------------------------------------------
# Fig. 2: bias of the naive rate
# ------------------------------------------------------------------------------------------------
def naive_bias(theta: Any, q0: float = 0.7, q1: float = 0.9) -> np.ndarray:
    r"""Bias of the judged-correct rate, :math:`E[\hat p] - \theta` (Lee et al. (ICML 2026) eq. 9).

    .. math:: E[\hat p] - \theta = (q_0 + q_1 - 2)\theta + 1 - q_0,

    positive below the turning point :math:`(1 - q_0)/(2 - q_0 - q_1)` (0.75 for the papers'
    judge q0 = 0.7, q1 = 0.9) and negative above it.
    """
    theta = np.asarray(theta, dtype=np.float64)
    return (q0 + q1 - 2.0) * theta + 1.0 - q0


def plot_bias(
    q0: float = 0.7, q1: float = 0.9, *, m: int | None = 100, n: int = 1000, ax: Any = None
) -> Any:
    """Lee et al. v1 Fig. 2: E[p-hat] against theta, and E[theta-hat] with ``m`` items per arm.

    E[theta-hat] (clipped Rogan-Gladen) is computed exactly by summing over the data space
    (:func:`judgestats.simulate.coverage` with ``exact=True``). Returns the Axes.
    """
    from judgestats.simulate import coverage

    ax = _axes(ax)
    theta = np.linspace(0.0, 1.0, 101)
    expected = theta + naive_bias(theta, q0, q1)
    ax.plot(theta, theta, color="0.6", lw=1, ls=":", label="unbiased")
    ax.plot(theta, expected, color="C3", label=r"$E[\hat p]$ (naive)")
    turning = (1.0 - q0) / (2.0 - q0 - q1)
    ax.axvline(turning, color="0.4", lw=0.8, ls="--")
    ax.annotate(f"θ = {turning:.3g}", (turning, 0.05), xytext=(4, 0), textcoords="offset points")
    if m is not None:
        ds = coverage("lang_reiczigel", theta=THETA_GRID, q0=q0, q1=q1, n=n, m0=m, m1=m, exact=True)
        ax.plot(
            THETA_GRID,
            THETA_GRID + ds.bias.values,
            "o",
            ms=3,
            color="C0",
            label=rf"$E[\hat\theta]$ (m0 = m1 = {m}, n = {n})",
        )
    ax.set(
        xlabel="true accuracy θ",
        ylabel="expected estimate",
        title=f"Bias of the naive rate (q0 = {q0}, q1 = {q1})",
    )
    ax.legend(loc="upper left", fontsize="small")
    return ax


# ------------------------------------------------------------------------------------------------
# Fig. 3: interval length against calibration size
# ------------------------------------------------------------------------------------------------
def _prop2_m1(budget: np.ndarray, p_hat: np.ndarray, q0: float, q1: float) -> np.ndarray:
    """m1 = round(m / (1 + (1/p - 1) sqrt(kappa))), kappa = (1 - q0)/(1 - q1) (Prop. 2)."""
    kappa = (1.0 - q0) / (1.0 - q1)
    m1 = np.round(budget / (1.0 + (1.0 / p_hat - 1.0) * np.sqrt(kappa)))
    return np.clip(m1, 1, budget - 1)


def interval_length(
    p_hat: Any = (0.3, 0.5, 0.7, 0.9),
    m: Any = None,
    *,
    q0: float = 0.7,
    q1: float = 0.9,
    confidence_level: float = 0.95,
) -> Any:
    """Lang-Reiczigel length at n -> infinity against the per-arm calibration size (Fig. 3).

    ``symmetric`` uses m0 = m1 = m; ``adaptive`` splits the same budget 2m by Prop. 2 with the
    given q0, q1 as the error ratio. Returns an xarray Dataset over (p_hat, m).
    """
    import xarray as xr

    from judgestats.frequentist import lang_reiczigel_ci

    p = np.asarray(p_hat, dtype=np.float64)[:, None]
    m = np.arange(10, 501, 5) if m is None else np.asarray(m)
    m_row = m[None, :].astype(np.float64)
    low, high = lang_reiczigel_ci(
        p, q0, q1, np.inf, m_row, m_row, confidence_level=confidence_level
    )
    m1 = _prop2_m1(2 * m_row, p, q0, q1)
    a_low, a_high = lang_reiczigel_ci(
        p, q0, q1, np.inf, 2 * m_row - m1, m1, confidence_level=confidence_level
    )
    coords = {"p_hat": p[:, 0], "m": m}
    return xr.Dataset(
        {
            "symmetric": (("p_hat", "m"), high - low),
            "adaptive": (("p_hat", "m"), a_high - a_low),
            "adaptive_m1": (("p_hat", "m"), m1),
        },
        coords=coords,
    )


def plot_interval_length(
    p_hat: Any = (0.3, 0.5, 0.7, 0.9), *, q0: float = 0.7, q1: float = 0.9, ax: Any = None
) -> Any:
    """Lee et al. v1 Fig. 3: dashed symmetric, solid adaptive allocation. Returns the Axes."""
    ax = _axes(ax)
    ds = interval_length(p_hat, q0=q0, q1=q1)
    for i, p in enumerate(ds.p_hat.values):
        ax.plot(ds.m, ds.symmetric[i], ls="--", color=f"C{i}")
        ax.plot(ds.m, ds.adaptive[i], color=f"C{i}", label=f"p̂ = {p:g}")
    ax.axhline(0.1, color="0.6", lw=0.8, ls=":")
    ax.set(
        xlabel="calibration items per label type (m0 = m1 = m; adaptive: budget 2m)",
        ylabel="interval length (n → ∞)",
        ylim=(0, None),
        title=f"Interval length (q̂0 = {q0}, q̂1 = {q1})",
    )
    ax.legend(fontsize="small")
    return ax


# ------------------------------------------------------------------------------------------------
# Fig. 4 (Lee et al. v1) / Fig. 5 (Lee et al. (ICML 2026)): the Monte Carlo study
# ------------------------------------------------------------------------------------------------
def coverage_study(
    paper: str = "000",
    *,
    reps: int = 10_000,
    q0: float = 0.7,
    q1: float = 0.9,
    n: int = 1000,
    random_seed: Any = 0,
    exact: bool = True,
) -> dict[str, Any]:
    """The numbers of Lee et al. v1 Fig. 4 or Lee et al. (ICML 2026) Fig. 5 (``paper``).

    ``paper="000"``: Lee et al. v1, m0 + m1 = 500; ``paper="001"``: Lee et al. (ICML 2026),
    m0 + m1 = 200.

    Returns ``{"single_run": Dataset, "naive": Dataset, "adjusted": Dataset,
    "adaptive": Dataset}``: one replication per theta (counts, estimates, intervals), the
    coverage studies of the naive and Lang-Reiczigel intervals (exact sums by default) and the
    Monte Carlo study with Algorithm 1's allocation (``reps`` replications).
    """
    from judgestats.frequentist import lang_reiczigel_ci, naive_wald_ci, rogan_gladen
    from judgestats.simulate import coverage, simulate_counts

    if paper not in PAPER_BUDGET:
        raise ValueError(f"`paper` ({paper!r}) must be '000' or '001'.")
    half = PAPER_BUDGET[paper] // 2
    grid: dict[str, Any] = dict(theta=THETA_GRID, q0=q0, q1=q1, n=n, m0=half, m1=half)
    run = simulate_counts(**grid, reps=1, random_seed=random_seed).isel(rep=0)
    p, q0_hat, q1_hat = run.k / n, run.k0 / half, run.k1 / half
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        run["p_hat"] = p
        run["naive_low"], run["naive_high"] = naive_wald_ci(p, n)
        run["theta_hat"] = rogan_gladen(p, q0_hat, q1_hat)
        run["low"], run["high"] = lang_reiczigel_ci(p, q0_hat, q1_hat, n, half, half)
    mc: dict[str, Any] = {} if exact else {"reps": reps, "random_seed": random_seed}
    return {
        "single_run": run,
        "naive": coverage("naive", **grid, exact=exact, **mc),
        "adjusted": coverage("lang_reiczigel", **grid, exact=exact, **mc),
        "adjusted_mc": coverage("lang_reiczigel", **grid, reps=reps, random_seed=random_seed),
        "adaptive": coverage(
            "lang_reiczigel", **grid, reps=reps, allocation="adaptive", random_seed=random_seed
        ),
    }


def plot_coverage_study(
    paper: str = "000",
    *,
    reps: int = 10_000,
    random_seed: Any = 0,
    study: dict[str, Any] | None = None,
) -> Any:
    """Lee et al. v1 Fig. 4 (ICML 2026 version: Fig. 5): single run, coverage, length; a Figure."""
    import matplotlib.pyplot as plt

    study = coverage_study(paper, reps=reps, random_seed=random_seed) if study is None else study
    run = study["single_run"]
    fig, (a, b, c) = plt.subplots(1, 3, figsize=(14, 4))
    theta = run.theta.values
    a.plot(theta, theta, color="0.6", lw=1, ls=":")
    a.plot(theta, run.p_hat, "o-", ms=3, color="C3", label="naive p̂")
    a.fill_between(theta, run.naive_low, run.naive_high, color="C3", alpha=0.2)
    a.plot(theta, run.theta_hat, "o-", ms=3, color="C0", label="adjusted θ̂")
    a.fill_between(theta, run.low, run.high, color="C0", alpha=0.2)
    a.set(xlabel="true accuracy θ", ylabel="estimate", title="(a) a single run")
    a.legend(fontsize="small")
    b.plot(theta, study["naive"].coverage, "o-", ms=3, color="C3", label="naive interval")
    b.plot(
        theta, study["adjusted"].coverage, "o-", ms=3, color="C0", label="Lang-Reiczigel (exact)"
    )
    b.plot(
        theta,
        study["adjusted_mc"].coverage,
        "x",
        ms=4,
        color="C2",
        label=f"Lang-Reiczigel ({study['adjusted_mc'].attrs['reps']} reps)",
    )
    b.axhline(0.95, color="0.4", lw=0.8, ls="--")
    b.set(
        xlabel="true accuracy θ",
        ylabel="coverage",
        ylim=(-0.02, 1.02),
        title="(b) coverage of 95% intervals",
    )
    b.legend(fontsize="small")
    c.plot(theta, study["adjusted_mc"].width_mean, "o-", ms=3, color="C0", label="equal m0 = m1")
    c.plot(theta, study["adaptive"].width_mean, "o-", ms=3, color="C1", label="Algorithm 1")
    c.set(xlabel="true accuracy θ", ylabel="mean interval length", title="(c) allocation")
    c.legend(fontsize="small")
    budget = int(run.m0) + int(run.m1)
    fig.suptitle(
        f"q0 = {float(run.q0)}, q1 = {float(run.q1)}, n = {int(run.n)}, m0 + m1 = {budget}"
    )
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------------------------------------
# Lee et al. (ICML 2026) Fig. 7: five estimators under distribution shift
# ------------------------------------------------------------------------------------------------
def shift_bias(
    theta_cal: Any = None,
    *,
    theta: float = 0.5,
    q0: float = 0.7,
    q1: float = 0.9,
    n: int = 1000,
    m: int = 200,
    reps: int = 10_000,
    random_seed: Any = 0,
) -> Any:
    """Bias of the five estimators of Lee et al. (ICML 2026) Table 2 under a shift of accuracy.

    The calibration set is a random sample of ``m`` items from a population with accuracy
    ``theta_cal``; the test set has accuracy ``theta`` (Lee et al. (ICML 2026) Sec. 8, Fig. 7,
    App. E).
    Returns a DataArray over (estimator, theta_cal).
    """
    import xarray as xr

    from judgestats.designs.shift import shift_point_estimates
    from judgestats.simulate import simulate_counts

    theta_cal = np.linspace(0.25, 0.75, 11) if theta_cal is None else theta_cal
    ds = simulate_counts(
        theta=theta,
        q0=q0,
        q1=q1,
        n=n,
        m0=m - m // 2,
        m1=m // 2,
        reps=reps,
        design="random",
        theta_cal=theta_cal,
        random_seed=random_seed,
    )
    ok = (ds.m0_drawn > 0) & (ds.m1_drawn > 0)  # an empty arm leaves (iv) and (v) undefined
    est = shift_point_estimates(
        ds.k.values,
        n,
        ds.k0.values,
        np.maximum(ds.m0_drawn.values, 1),
        ds.k1.values,
        np.maximum(ds.m1_drawn.values, 1),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        bias = np.stack(
            [np.nanmean(np.where(ok, value, np.nan), axis=-1) - theta for value in est.values()]
        )
    return xr.DataArray(
        bias,
        dims=("estimator",) + ds.k.dims[:-1],
        coords={"estimator": list(est), "theta_cal": ds.theta_cal},
    )


def plot_shift(*, reps: int = 10_000, random_seed: Any = 0, ax: Any = None) -> Any:
    """Lee et al. (ICML 2026) Fig. 7: bias of the five estimators against calibration accuracy."""
    ax = _axes(ax)
    bias = shift_bias(reps=reps, random_seed=random_seed)
    for i, name in enumerate(bias.estimator.values):
        ax.plot(
            bias.theta_cal,
            bias.sel(estimator=name),
            "o-",
            ms=3,
            color=f"C{i}",
            label=f"({'i ii iii iv v'.split()[i]}) {name.replace('_', ' ')}",
        )
    ax.axhline(0.0, color="0.4", lw=0.8)
    ax.set(
        xlabel="calibration accuracy θ_Q (test θ_P = 0.5)",
        ylabel="bias",
        title="Estimators under distribution shift",
    )
    ax.legend(fontsize="small")
    return ax


# ------------------------------------------------------------------------------------------------
# Lee et al. (ICML 2026) Fig. 4: where the judge beats human-only labelling
# ------------------------------------------------------------------------------------------------
def plot_human_regions(q0_values: Any = (None, 0.9), *, axes: Any = None) -> Any:
    """Lee et al. (ICML 2026) Fig. 4: :func:`judgestats.planning.plot_human_only_regime` per q0.

    ``None`` draws Prop. 6.1's setting q0 = q1 = q (with its closed-form boundary); a number fixes
    q0 and puts q1 on the y axis. Returns the Figure.
    """
    import matplotlib.pyplot as plt

    from judgestats.planning import plot_human_only_regime

    q0_values = list(q0_values)
    if axes is None:
        fig, axes = plt.subplots(1, len(q0_values), figsize=(5 * len(q0_values), 4), squeeze=False)
        axes = axes[0]
    for ax, q0 in zip(axes, q0_values, strict=True):
        plot_human_only_regime(ax, q0=q0)
    axes[0].figure.tight_layout()
    return axes[0].figure
