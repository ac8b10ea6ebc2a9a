r"""The three methods of the two-model comparison: delta method, bootstrap, hierarchical posterior.

Follows "Bias and Uncertainty in LLM-as-a-Judge Estimation" (below: the follow-up on bias and
uncertainty); its equations were numbered only in part, so the formulas are written out here
(Delta = model A minus model B, J = q0 + q1 - 1 is Youden's index).

**Per-model estimate** (Rogan-Gladen; Lee et al., arXiv 2511.21140 v1, eq. 4):
theta_X = (p_X + q0_X - 1) / J_X, unclipped (:func:`judgestats.frequentist.rogan_gladen_raw`).

**Calibration design** (the follow-up on bias and uncertainty Sec. 4.1, App. A.1).
*Model-specific*: each model is corrected with the (q0, q1) measured on its own labelled
responses. *Shared* ("judge-centric"): model A's calibration serves both models, so

.. math:: \hat\theta_A - \hat\theta_B = (\hat p_A - \hat p_B) / \hat J

(the follow-up on bias and uncertainty App. B: the (1 - q0) terms cancel).

**Delta-method variance** (the follow-up on bias and uncertainty App. B). Shared calibration:

.. math:: \mathrm{Var} = \frac{\mathrm{Var}(\hat p_A - \hat p_B)}{J^2}
          + \frac{(p_A - p_B)^2}{J^4}\Big(\frac{q_0(1-q_0)}{m_0} + \frac{q_1(1-q_1)}{m_1}\Big);

model-specific calibration (independent calibration sets, Lee et al. v1 App. A.1 per model):

.. math:: \mathrm{Var} = \mathrm{Var}\Big(\frac{\hat p_A}{J_A} - \frac{\hat p_B}{J_B}\Big)
          + \sum_{X\in\{A,B\}} \frac{(1-\theta_X)^2 q_{0X}(1-q_{0X})/m_{0X}
          + \theta_X^2 q_{1X}(1-q_{1X})/m_{1X}}{J_X^2},

whose calibration terms are those of the single-model variance
(:func:`judgestats.frequentist.delta_variance` with ``n = inf``). The test term comes from the
per-item differences w_i = y_Ai/J_A - y_Bi/J_B when the verdicts are paired (its plug-in
variance over n), and from p_X(1 - p_X)/(n_X J_X^2) summed over the models when they are not.

**Bootstrap**: the test items (jointly, so the pairing is kept) and every calibration arm are
resampled separately (:func:`judgestats.comparison.bootstrap.categorical_bootstrap`); percentile and
BCa intervals. **Bayes**: the hierarchical model of :mod:`judgestats.bayes.compare_model`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from judgestats.comparison.inputs import Calibration, CompareInputs, youden_of
from judgestats.frequentist import delta_variance, lang_reiczigel_ci, rogan_gladen_raw, z_quantile
from judgestats.results import ConfidenceInterval, IntervalResult

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable

__all__ = [
    "MethodOutput",
    "bootstrap_samples",
    "bootstrap_statistic",
    "difference_variance",
    "point_estimates",
    "rogan_gladen_counts",
    "run_bayes",
    "run_bootstrap",
    "run_delta",
]


@dataclass
class MethodOutput:
    """What a method returns: the difference with its interval, per-model rows, and facts.

    ``n_dropped`` (bootstrap replicates with J <= 0), ``bca_undefined`` (the BCa interval was
    replaced by the percentile one) and ``convergence_flags`` (NUTS) are turned into warnings
    and notes by :mod:`judgestats.comparison.diagnostics`.
    """

    estimate: float
    ci: ConfidenceInterval
    theta_a: IntervalResult
    theta_b: IntervalResult
    intervals: dict[str, ConfidenceInterval]
    method: str
    se: float | None = None
    draws: dict[str, np.ndarray] | None = None
    n_dropped: int = 0
    bca_undefined: bool = False
    convergence_flags: tuple[str, ...] = ()
    prob_a_better: float | None = None
    idata: Any = None
    extras: dict[str, Any] = field(default_factory=dict)


def rogan_gladen_counts(k: Any, n: Any, calib: Any) -> tuple[np.ndarray, np.ndarray]:
    """Unclipped Rogan-Gladen theta and J from counts (arrays broadcast); NaN where J <= 0."""
    k0, m0, k1, m1 = calib
    return rogan_gladen_raw(np.divide(k, n), np.divide(k0, m0), np.divide(k1, m1))


def point_estimates(inputs: CompareInputs) -> tuple[float, float]:
    """(theta_A, theta_B), each corrected with the calibration the design assigns it."""
    theta_a, _ = rogan_gladen_counts(inputs.k_a, inputs.n_a, inputs.calib_a)
    theta_b, _ = rogan_gladen_counts(inputs.k_b, inputs.n_b, inputs.calib_b_used)
    return float(theta_a), float(theta_b)


def difference_variance(inputs: CompareInputs) -> float:
    """Delta-method variance of theta_A - theta_B (module docstring; the follow-up's App. B)."""
    theta_a, theta_b = point_estimates(inputs)
    ja, jb = youden_of(inputs.calib_a), youden_of(inputs.calib_b_used)
    if inputs.cells is not None:
        weights = np.array([1 / ja - 1 / jb, 1 / ja, -1 / jb, 0.0])
        freq = np.asarray(inputs.cells, dtype=float) / inputs.n_a
        mean = float(freq @ weights)
        test = (float(freq @ weights**2) - mean**2) / inputs.n_a
    else:
        pa, pb = inputs.k_a / inputs.n_a, inputs.k_b / inputs.n_b
        test = pa * (1 - pa) / (inputs.n_a * ja**2) + pb * (1 - pb) / (inputs.n_b * jb**2)
    if inputs.shared:
        k0, m0, k1, m1 = inputs.calib_a
        q0, q1 = k0 / m0, k1 / m1
        gap = inputs.k_a / inputs.n_a - inputs.k_b / inputs.n_b
        return test + gap**2 / ja**4 * (q0 * (1 - q0) / m0 + q1 * (1 - q1) / m1)
    calibration = 0.0
    for theta, k, n, (k0, m0, k1, m1) in (
        (theta_a, inputs.k_a, inputs.n_a, inputs.calib_a),
        (theta_b, inputs.k_b, inputs.n_b, inputs.calib_b_used),
    ):
        # the calibration term of the single-model variance: no test-set term (n = inf)
        calibration += delta_variance(k / n, k0 / m0, k1 / m1, theta, math.inf, m0, m1)
    return test + calibration


# -------------------------------------------------------------------------------------------
# delta method
# -------------------------------------------------------------------------------------------
def _lang_reiczigel(k: int, n: int, calib: Calibration, level: float) -> ConfidenceInterval:
    k0, m0, k1, m1 = calib
    try:
        return lang_reiczigel_ci(k / n, k0 / m0, k1 / m1, n, m0, m1, confidence_level=level)
    except ValueError:  # the Laplace-adjusted judge is no better than chance
        return ConfidenceInterval(float("nan"), float("nan"))


def run_delta(inputs: CompareInputs, level: float) -> MethodOutput:
    """Delta-method interval of the difference; Lang-Reiczigel intervals per model."""
    theta_a, theta_b = point_estimates(inputs)
    difference = theta_a - theta_b
    se = math.sqrt(difference_variance(inputs))
    half = z_quantile(level) * se
    ci = ConfidenceInterval(max(-1.0, difference - half), min(1.0, difference + half))
    per_model = [
        IntervalResult(
            theta,
            _lang_reiczigel(k, n, calib, level),
            level,
            "rogan_gladen+lang_reiczigel",
        )
        for theta, k, n, calib in (
            (theta_a, inputs.k_a, inputs.n_a, inputs.calib_a),
            (theta_b, inputs.k_b, inputs.n_b, inputs.calib_b_used),
        )
    ]
    return MethodOutput(
        estimate=difference,
        ci=ci,
        theta_a=per_model[0],
        theta_b=per_model[1],
        intervals={"delta": ci},
        method="rogan_gladen+delta",
        se=se,
    )


# -------------------------------------------------------------------------------------------
# bootstrap
# -------------------------------------------------------------------------------------------
def bootstrap_samples(inputs: CompareInputs) -> list[np.ndarray]:
    """Category counts of every independent sample: the test items, then each calibration arm."""
    samples = (
        [np.array(inputs.cells)]
        if inputs.cells is not None
        else [
            np.array([inputs.k_a, inputs.n_a - inputs.k_a]),
            np.array([inputs.k_b, inputs.n_b - inputs.k_b]),
        ]
    )
    for calib in (inputs.calib_a,) if inputs.shared else (inputs.calib_a, inputs.calib_b):
        k0, m0, k1, m1 = calib  # type: ignore[misc]
        samples += [np.array([k0, m0 - k0]), np.array([k1, m1 - k1])]
    return samples


def bootstrap_statistic(inputs: CompareInputs) -> Callable[..., np.ndarray]:
    """theta_A, theta_B and their difference from resampled category counts (last axis)."""
    paired, shared = inputs.cells is not None, inputs.shared

    def statistic(*counts: np.ndarray) -> np.ndarray:
        if paired:
            cells, rest = counts[0], counts[1:]
            n_a = n_b = cells.sum(axis=-1)
            k_a, k_b = cells[..., 0] + cells[..., 1], cells[..., 0] + cells[..., 2]
        else:
            (test_a, test_b), rest = counts[:2], counts[2:]
            k_a, n_a, k_b, n_b = test_a[..., 0], test_a.sum(-1), test_b[..., 0], test_b.sum(-1)
        calibs = [
            (arm0[..., 0], arm0.sum(-1), arm1[..., 0], arm1.sum(-1))
            for arm0, arm1 in zip(rest[::2], rest[1::2], strict=True)
        ]
        theta_a, _ = rogan_gladen_counts(k_a, n_a, calibs[0])
        theta_b, _ = rogan_gladen_counts(k_b, n_b, calibs[0] if shared else calibs[1])
        return np.stack([theta_a, theta_b, theta_a - theta_b], axis=-1)

    return statistic


def _clipped(
    interval: ConfidenceInterval, bound: tuple[float, float], estimate: float
) -> ConfidenceInterval:
    """Clip to ``bound`` (accuracies in [0, 1], differences in [-1, 1]), widen to hold ``estimate``.

    An interval that misses its own estimate reports a Monte Carlo accident, not the data.
    """
    low, high = np.clip(interval, *bound)
    if np.isfinite(estimate) and np.isfinite(low) and np.isfinite(high):
        low, high = min(low, estimate), max(high, estimate)
    return ConfidenceInterval(float(low), float(high))


def _mc_band(result: Any, kind: str, j: int, bound: tuple[float, float]) -> np.ndarray:
    """Monte Carlo bands of statistic ``j``'s two ends (``kind`` interval), clipped as it is."""
    return np.clip((result.bca_mc if kind == "bca" else result.percentile_mc)[j], *bound)


def run_bootstrap(
    inputs: CompareInputs, level: float, n_resamples: int, interval: str, rng: np.random.Generator
) -> MethodOutput:
    """Percentile and BCa intervals from the categorical bootstrap; ``interval`` picks ``ci``."""
    from judgestats.comparison.bootstrap import categorical_bootstrap

    result = categorical_bootstrap(
        bootstrap_statistic(inputs),
        bootstrap_samples(inputs),
        n_resamples=n_resamples,
        confidence_level=level,
        rng=rng,
    )
    bca_defined = all(np.isfinite(result.bca[j]).all() for j in range(3))
    bca_undefined = interval == "bca" and not bca_defined
    kind = "percentile" if bca_undefined else interval
    bounds = ((0.0, 1.0), (0.0, 1.0), (-1.0, 1.0))
    percentile, bca = (
        [
            _clipped(ci, bound, float(est))
            for ci, bound, est in zip(intervals, bounds, result.estimate, strict=True)
        ]
        for intervals in (result.percentile, result.bca)
    )
    chosen = bca if kind == "bca" else percentile
    raw = (result.bca if kind == "bca" else result.percentile)[2]
    band = _mc_band(result, kind, 2, bounds[2])
    extended = bool(np.isfinite(raw).all() and not raw.low <= result.estimate[2] <= raw.high)
    method = f"rogan_gladen+bootstrap_{kind}"
    per_model = [
        IntervalResult(float(result.estimate[j]), chosen[j], level, method) for j in (0, 1)
    ]
    draws = {
        name: result.replicates[:, j] for j, name in enumerate(("theta_a", "theta_b", "difference"))
    }
    return MethodOutput(
        estimate=float(result.estimate[2]),
        ci=chosen[2],
        theta_a=per_model[0],
        theta_b=per_model[1],
        intervals={"percentile": percentile[2], "bca": bca[2]},
        method=method,
        draws=draws,
        n_dropped=result.n_dropped,
        bca_undefined=bca_undefined,
        extras={
            "n_resamples": n_resamples,
            "interval": kind,
            "acceleration": float(result.acceleration[2]),
            "bias_correction": float(result.bias_correction[2]),
            "monte_carlo_error": [float(e) for e in np.diff(band, axis=1)[:, 0] / 2.0],
            "monte_carlo_band": band.tolist(),
            "extended_to_estimate": extended,
        },
    )


# -------------------------------------------------------------------------------------------
# hierarchical posterior
# -------------------------------------------------------------------------------------------
def _quantiles(values: np.ndarray, level: float) -> tuple[float, float, float]:
    """(median, low, high) of draws: the equal-tailed interval at ``level``."""
    alpha = (1.0 - level) / 2.0
    low, median, high = np.quantile(values, [alpha, 0.5, 1.0 - alpha])
    return float(median), float(low), float(high)


def _quantile_dict(values: np.ndarray, level: float) -> dict[str, float]:
    return dict(zip(("estimate", "low", "high"), _quantiles(values, level), strict=True))


def run_bayes(
    inputs: CompareInputs,
    level: float,
    options: dict[str, Any],
    rng: np.random.Generator,
) -> MethodOutput:
    """Posterior medians and equal-tailed intervals of the hierarchical model.

    ``options`` are the keyword arguments of
    :func:`judgestats.bayes.compare_model.sample_comparison` (``prior``, ``draws``, ``tune``,
    ``chains``, ``target_accept``, ``compiled``, ``progressbar``).
    """
    from judgestats.bayes.compare_model import sample_comparison

    fit = sample_comparison(
        cells=inputs.cells,
        test=(inputs.k_a, inputs.n_a, inputs.k_b, inputs.n_b),
        calib_a=inputs.calib_a,
        calib_b=None if inputs.shared else inputs.calib_b,
        rng=rng,
        **options,
    )
    draws = {name: fit.draws(name) for name in ("theta_a", "theta_b", "difference")}
    method = "posterior_median+eti"

    def row(values: np.ndarray) -> IntervalResult:
        median, low, high = _quantiles(values, level)
        return IntervalResult(median, ConfidenceInterval(low, high), level, method)

    difference = row(draws["difference"])
    extras = {
        "population_sd": {
            arm: _quantile_dict(fit.draws(f"sigma_{arm}"), level) for arm in ("q0", "q1")
        },
        "posterior_instability": _quantile_dict(fit.draws("delta_youden"), level),
        "convergence": fit.diagnostics,
        "prior": fit.prior_dict,
    }
    return MethodOutput(
        estimate=difference.estimate,
        ci=difference.ci,
        theta_a=row(draws["theta_a"]),
        theta_b=row(draws["theta_b"]),
        intervals={"eti": difference.ci},
        method=method,
        draws=draws,
        convergence_flags=fit.flags,
        prob_a_better=float(np.mean(draws["difference"] > 0)),
        idata=fit.idata,
        extras=extras,
    )
