r"""Diagnostics of a posterior: sampler convergence and conflicts between data and model.

Every condition is a stable key in :data:`FLAGS` with a plain-language message that says what
was found, which interval it concerns and what to do. Tests assert keys, never sentences.

Convergence (NUTS only; Vehtari et al. 2021): R-hat above :data:`R_HAT_MAX`, an effective sample
size below :data:`ESS_MIN`, divergent transitions.

NUTS against the exact engine (``nuts_exact_disagree``): the binary model also has a
deterministic posterior (:mod:`judgestats.bayes.exact`, milliseconds), so every set of draws of
it is checked there: the 2.5%, 50% and 97.5% quantiles of theta from the draws against the exact
ones, in units of their Monte Carlo standard errors (ArviZ's ``mcse(method="quantile")``, from
the draws' effective sample size); more than :data:`EXACT_CHECK_Z` of them on any quantile
raises the flag (:func:`exact_agreement`). It catches a sampler that misses a tail without any
divergence or R-hat warning.

Conflicts (both engines):

``calibration_contradicts_prior``
    The calibration data alone (Beta posteriors of q0 and q1 without the truncation) give
    ``P(q0 + q1 > 1) < CONTRADICTION_PROB``: the better-than-chance prior, not the data, decides
    that the judge is better than chance.
``test_calibration_conflict``
    A two-sided posterior predictive p-value of k, k0 or k1 is below :data:`PREDICTIVE_ALPHA`:
    the counts cannot all come from one (theta, q0, q1), typically a test rate p-hat outside what
    the calibration allows, and the posterior is narrow because the data disagree.
``weak_judge``
    The posterior probability that Youden's J = q0 + q1 - 1 lies below :data:`WEAK_YOUDEN`
    exceeds one half. With J that small the correction divides by a number near zero, so the
    interval for theta is wide and depends on the prior. The probability comes from the
    posterior of J itself, so it does not depend on n.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from judgestats.bayes._quiet import quiet_import
from judgestats.results import WEAK_YOUDEN, register_flags

__all__ = [
    "ADVICE",
    "CONTRADICTION_PROB",
    "ESS_MIN",
    "EXACT_CHECK_QUANTILES",
    "EXACT_CHECK_Z",
    "FLAGS",
    "PREDICTIVE_ALPHA",
    "R_HAT_MAX",
    "SHARED_FLAGS",
    "WEAK_YOUDEN",
    "TARGET_ACCEPT",
    "convergence",
    "convergence_flags",
    "exact_agreement",
    "predictive_p_values",
    "truncation_probability",
]

#: Thresholds of the convergence checks.
R_HAT_MAX = 1.01
ESS_MIN = 400
#: Largest |NUTS quantile - exact quantile| / its Monte Carlo se before ``nuts_exact_disagree``.
EXACT_CHECK_Z = 4.0
#: The quantiles of theta :func:`exact_agreement` compares (the 95% interval's ends, the median).
EXACT_CHECK_QUANTILES = (0.025, 0.5, 0.975)
#: Conflict thresholds (see the module docstring).
CONTRADICTION_PROB = 0.05
PREDICTIVE_ALPHA = 0.05

#: NUTS target acceptance rate of every NUTS path (the binary, K-class, stratified and comparison
#: posteriors): the hierarchical models diverge at PyMC's 0.8 on realistic counts, and 0.9 costs
#: the small models only somewhat shorter steps.
TARGET_ACCEPT = 0.9

#: Advice attached to the convergence flags.
ADVICE = (
    "increase `draws` and `tune`, try a more informative `prior`, or use "
    "method='exact', which needs no sampling"
)

#: Plain-language explanation of every flag a posterior can carry.
FLAGS = {
    "r_hat": f"R-hat exceeds {R_HAT_MAX}: the chains disagree, so no NUTS summary (theta's "
    f"interval included) can be trusted; {ADVICE}",
    "low_ess": f"an effective sample size is below {ESS_MIN}: the NUTS quantiles, and so the "
    f"credible interval of theta, carry Monte Carlo error; {ADVICE}",
    "divergences": "NUTS reported divergent transitions: the sampler missed part of the "
    f"posterior, so its credible interval of theta may be too narrow; {ADVICE}",
    "nuts_exact_disagree": (
        f"a quantile of theta from the NUTS draws (2.5%, 50% or 97.5%) is more than "
        f"{EXACT_CHECK_Z:g} Monte Carlo standard errors from the exact posterior's: the sampler "
        "missed part of the posterior, so its credible interval of theta is off; use "
        "method='exact' (the same model, no sampling), or more `draws` and `tune`"
    ),
    "calibration_contradicts_prior": (
        "the calibration set says the judge is no better than chance (less than "
        f"{CONTRADICTION_PROB:.0%} of its posterior has q0 + q1 > 1), so the better-than-chance "
        "prior, not the data, decides the direction of the correction and the credible interval "
        "of theta reflects that assumption; check that the labels are not swapped, or report "
        "the uncorrected rate"
    ),
    "test_calibration_conflict": (
        "the test count and the calibration counts disagree (a posterior predictive p-value is "
        f"below {PREDICTIVE_ALPHA}): no single accuracy and judge explain them together, so the "
        "credible interval of theta is narrow only because the data conflict; check that the "
        "calibration items come from the same population and judge as the test items"
    ),
    "weak_judge": (
        f"the judge is weak: Youden's J = q0 + q1 - 1 is more likely below {WEAK_YOUDEN} than "
        "above, so the correction divides by a number near zero; the credible interval of "
        "theta is wide and leans on the prior, and more calibration items narrow it fastest"
    ),
    "one_class_labelled": (
        "the labelled sample holds items of one true class only, so the judge's error rate on "
        "the other class comes from its prior alone; the credible interval of theta includes "
        "that uncertainty"
    ),
}
#: Keys the package-wide catalogue already holds with the same meaning
#: (:data:`judgestats.results.FLAG_MESSAGES`); a posterior keeps its own sentence for them here.
SHARED_FLAGS = ("one_class_labelled",)
register_flags({key: message for key, message in FLAGS.items() if key not in SHARED_FLAGS})


def convergence(idata: Any, var_names: tuple[str, ...]) -> dict[str, float]:
    """Max R-hat, min bulk and tail ESS over ``var_names`` and the number of divergences."""
    az = quiet_import("arviz")

    post = idata.posterior[list(var_names)]
    values = {
        "r_hat": az.rhat(post),
        "ess_bulk": az.ess(post, method="bulk"),
        "ess_tail": az.ess(post, method="tail"),
    }
    divergences = 0
    if "sample_stats" in idata.groups() and "diverging" in idata.sample_stats:
        divergences = int(np.asarray(idata.sample_stats["diverging"]).sum())

    def extreme(dataset: Any, reduce: Any) -> float:
        finite = [
            float(v)
            for name in var_names
            for v in np.asarray(dataset[name]).ravel()
            if np.isfinite(float(v))
        ]
        return float(reduce(finite)) if finite else float("nan")

    return {
        "r_hat": extreme(values["r_hat"], max),
        "ess_bulk": extreme(values["ess_bulk"], min),
        "ess_tail": extreme(values["ess_tail"], min),
        "divergences": divergences,
    }


def exact_agreement(idata: Any, data: Any, prior: Any) -> float:
    """Largest |draws' quantile - exact quantile| / Monte Carlo se of theta (module docstring).

    The quantiles are :data:`EXACT_CHECK_QUANTILES`; the exact ones come from
    :class:`judgestats.bayes.exact.ExactPosterior` under the same prior (the random design's
    folded in). NaN when the exact engine has no answer or the draws are too few for a Monte
    Carlo se. A difference under 1e-9 counts as agreement whatever its se.
    """
    from judgestats.bayes.exact import ExactPosterior
    from judgestats.bayes.priors import random_design_prior

    az = quiet_import("arviz")
    theta = np.asarray(idata.posterior["theta"], dtype=float)
    theta = theta.reshape(-1, theta.shape[-1]) if theta.ndim > 1 else theta[None]
    try:
        engine_prior = random_design_prior(data, prior) if data.design == "random" else prior
        exact = np.atleast_1d(ExactPosterior(data, engine_prior).quantile(EXACT_CHECK_QUANTILES))
    except (ValueError, FloatingPointError, ArithmeticError):
        return float("nan")
    worst = 0.0
    for q, reference in zip(EXACT_CHECK_QUANTILES, exact, strict=True):
        difference = abs(float(np.quantile(theta, q)) - float(reference))
        if difference < 1e-9:
            continue
        se = float(az.mcse(theta, method="quantile", prob=q))
        if not se > 0.0:
            return float("nan")
        worst = max(worst, difference / se)
    return worst


def convergence_flags(diagnostics: dict[str, float]) -> tuple[str, ...]:
    """Keys of the convergence flags that apply to ``diagnostics`` (see :func:`convergence`)."""
    return tuple(
        name
        for name, bad in (
            ("r_hat", not diagnostics["r_hat"] <= R_HAT_MAX),
            ("low_ess", not min(diagnostics["ess_bulk"], diagnostics["ess_tail"]) >= ESS_MIN),
            ("divergences", diagnostics["divergences"] > 0),
        )
        if bad
    )


def predictive_p_values(data: Any, expect: Any) -> dict[str, float]:
    """Two-sided posterior predictive p-values of the counts k, k0 and k1 of ``data``.

    For a count ``c ~ Bin(N, r)`` with r = p, q0 or q1, ``P(rep <= c) = E[F(c; N, r)]`` and
    ``P(rep >= c) = E[1 - F(c - 1; N, r)]`` over the posterior (binomial CDF ``F``); the
    p-value is ``min(1, 2 min(...))``, and 1 for a count of no trials. Small values mean that
    this count is hard to reproduce from the posterior that all three counts imply together:
    the test set and the calibration set disagree.

    ``expect(funcs, var)`` returns ``[E[func(var)] for func in funcs]`` under the posterior
    (each engine's ``expect``: the exact engine's nested rule, or the mean over draws).
    """
    from judgestats._binomial import at_least, at_most

    out = {}
    for name, count, trials, var in (
        ("k", data.k, data.n, "p"),
        ("k0", data.k0, data.m0, "q0"),
        ("k1", data.k1, data.m1, "q1"),
    ):
        if trials == 0:
            out[name] = 1.0
            continue
        low, high = expect(
            [
                lambda r, c=count, m=trials: at_most(c, m, r),
                lambda r, c=count, m=trials: at_least(c, m, r),
            ],
            var,
        )
        out[name] = float(min(1.0, 2 * min(low, high)))
    return out


def truncation_probability(beta0: tuple[float, float], beta1: tuple[float, float]) -> float:
    r"""``P(q0 + q1 > 1)`` for independent ``q0 ~ Beta(*beta0)`` and ``q1 ~ Beta(*beta1)``.

    .. math:: P = \int_0^1 g_0(q)\, S_1(1 - q)\, dq,

    with ``S1`` the survival function of q1; Gauss-Legendre on the box that holds all but
    1e-14 of q0's mass, split in four panels.
    """
    from scipy import special as sc

    from judgestats.bayes._panels import gauss_legendre
    from judgestats.bayes._terms import beta_box

    (a0, b0), (a1, b1) = beta0, beta1
    low, high = (float(v) for v in beta_box(np.array(a0), np.array(b0)))
    x, w = gauss_legendre(32)
    edges = np.linspace(low, high, 5)
    half = np.diff(edges)[:, None] / 2
    q = edges[:-1, None] + half * (x + 1)
    with np.errstate(divide="ignore"):
        log_g0 = sc.xlogy(a0 - 1, q) + sc.xlog1py(b0 - 1, -q) - sc.betaln(a0, b0)
    total = np.sum(half * w * np.exp(log_g0) * sc.betaincc(a1, b1, 1 - q))
    return float(np.clip(total, 0.0, 1.0))
