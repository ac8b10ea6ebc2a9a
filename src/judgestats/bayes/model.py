r"""The PyMC model of judgestats: the single definition of the Bayesian model.

**Stratified calibration** (``JudgeData.design == "stratified"``, m0 truly-incorrect and m1
truly-correct items picked by design):

.. math::
    \theta \sim \mathrm{Beta}(a_\theta, b_\theta), \quad
    q_0 \sim \mathrm{Beta}(a_0, b_0), \quad q_1 \sim \mathrm{Beta}(a_1, b_1), \\
    p = \theta q_1 + (1 - \theta)(1 - q_0), \\
    k \sim \mathrm{Bin}(n, p), \quad k_0 \sim \mathrm{Bin}(m_0, q_0), \quad
    k_1 \sim \mathrm{Bin}(m_1, q_1).

With ``Prior(better_than_chance=True)`` the prior of (q0, q1) is truncated to q0 + q1 > 1. The
model is then sampled in the coordinates (p, u0, u1) of :func:`build_model`'s Notes, in which the
truncation is no boundary at all and the posterior has no curved ridge, so NUTS neither meets a
wall nor misses the tails of theta.

**Random calibration** (``design == "random"``): the m = m0 + m1 labelled items are a random
subsample of the test population, so their four (human, judge) cells are multinomial,

.. math::
    (c_{11}, c_{10}, c_{01}, c_{00}) \sim \mathrm{Mult}\big(m;\ \theta q_1,\ \theta(1 - q_1),\
        (1 - \theta)(1 - q_0),\ (1 - \theta) q_0\big),

the joint likelihood whose maximum Chen et al. (2026) use. It factorises exactly (normalising
constants included, since :math:`\binom{m}{c_{11}, c_{10}, c_{01}, c_{00}} = \binom{m}{m_1}
\binom{m_1}{k_1}\binom{m_0}{k_0}`) into m1 ~ Bin(m, theta), k1 | m1 ~ Bin(m1, q1) and
k0 | m0 ~ Bin(m0, q0): the stratified model plus one observed variable,
``labelled_m1 ~ Bin(m0 + m1, theta)`` (:data:`LABELLED_CLASS_NAME`). A sample may hold one class
only (m0 = 0 or m1 = 0): the calibration binomial of the missing class has 0 trials and
contributes nothing. The added factor depends on theta alone, so the posterior under a
Beta(a, b) theta prior is the stratified one under Beta(a + m1, b + m0)
(:func:`judgestats.bayes.priors.random_design_prior`).

Every count lives in a ``pm.Data`` container (:data:`DATA_NAMES`), so :func:`set_counts` swaps new
counts into a built (and compiled) model; compiling and sampling live in
:mod:`judgestats.bayes.nuts`. pymc and pytensor are imported inside the functions, never at module
import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from judgestats.bayes._quiet import quiet_import
from judgestats.bayes.priors import Prior, as_prior
from judgestats.data import DESIGNS, JudgeData

if TYPE_CHECKING:  # pragma: no cover
    import pymc as pm

__all__ = [
    "DATA_NAMES",
    "LABELLED_CLASS_NAME",
    "OBSERVED_NAMES",
    "POSTERIOR_NAMES",
    "build_model",
    "set_counts",
]

#: Name of the ``pm.Data`` container that holds each count of :class:`JudgeData`.
DATA_NAMES = {"k": "k_data", "n": "n", "k0": "k0_data", "m0": "m0", "k1": "k1_data", "m1": "m1"}
#: Observed random variables (binomial likelihoods), named after the counts they model.
OBSERVED_NAMES = ("k", "k0", "k1")
#: Observed variable of the random design: the labelled items' class count, m1 ~ Bin(m, theta).
LABELLED_CLASS_NAME = "labelled_m1"
#: Variables reported in the posterior: the three parameters and two deterministics.
POSTERIOR_NAMES = ("theta", "q0", "q1", "p", "youden")


def _check_inputs(data: Any, prior: Any) -> Prior:
    if not isinstance(data, JudgeData):
        raise TypeError(f"`data` must be a JudgeData, got {type(data).__name__}.")
    if data.design not in DESIGNS:
        raise ValueError(
            f"`data.design` ({data.design!r}) must be one of {', '.join(map(repr, DESIGNS))}."
        )
    return as_prior(prior)


def build_model(data: JudgeData, prior: Prior | None = None) -> pm.Model:
    r"""Build the PyMC model of the true accuracy theta and the judge's q0, q1.

    Parameters
    ----------
    data : JudgeData
        The six counts; they enter through ``pm.Data`` containers named in :data:`DATA_NAMES`, so
        ``pm.set_data`` (or :func:`set_counts`) swaps in new counts without rebuilding.
        ``data.design`` picks the model: ``"random"`` adds ``labelled_m1`` (module docstring).
    prior : Prior, optional
        Beta priors; ``Prior()`` (uniform, better than chance) by default.

    Returns
    -------
    pymc.Model
        Variables ``theta``, ``q0``, ``q1``, ``p`` (judged-correct rate) and ``youden``
        (q0 + q1 - 1): with the truncation ``p``, ``q0_scaled`` and ``q1_scaled`` are the free
        variables and the others deterministics (Notes); without it ``theta``, ``q0``, ``q1``
        are free and ``p``, ``youden`` deterministic. Observed ``k``, ``k0``, ``k1``, and under
        the random design also observed ``labelled_m1`` (m1 of the m0 + m1 labelled items).

    Notes
    -----
    **Truncation to q0 + q1 > 1** (``prior.better_than_chance``). The target prior is

    .. math:: \pi(\theta, q_0, q_1) \propto \mathrm{Beta}(\theta; a_\theta, b_\theta)\,
              \mathrm{Beta}(q_0; a_0, b_0)\,\mathrm{Beta}(q_1; a_1, b_1)\,
              \mathbf 1\{q_0 + q_1 > 1\}.

    The test count pins p = theta q1 + (1 - theta)(1 - q0) to a width of order n^(-1/2), so in
    (theta, q0, q1) the posterior is a thin curved sheet, and with a weak judge or small arms
    its tails reach towards J = q0 + q1 - 1 -> 0, where theta = (p - 1 + q0) / J bends
    sharply: NUTS there needs tiny steps, mixes slowly and misses the tails of theta (with
    20 labels per arm its 2.5% quantile of theta scattered by +-0.02 around the exact 0.085
    on 4 x 1000 draws). The model therefore samples the coordinates in which the data act
    separately:

    .. math:: p \in (0, 1), \quad u_0 = \frac{q_0 - (1 - p)}{p} \in (0, 1), \quad
              u_1 = \frac{q_1 - p}{1 - p} \in (0, 1),

    i.e. ``q0 = 1 - p (1 - u0)`` and ``q1 = p + (1 - p) u1`` (free variables ``p``,
    ``q0_scaled`` = u0 and ``q1_scaled`` = u1, each ``Uniform(0, 1)``). Then
    :math:`J = p u_0 + (1 - p) u_1` and :math:`\theta = p u_0 / J`. The map from (0, 1)^3 onto
    {theta in (0, 1), q0 + q1 > 1} is a bijection: given p, theta in (0, 1) holds exactly when
    1 - q0 < p < q1, and then q0 + q1 > 1 follows. Its Jacobian is

    .. math:: \left|\frac{\partial(\theta, q_0, q_1)}{\partial(p, u_0, u_1)}\right|
              = \frac{p (1 - p)}{J}

    (:math:`\partial(p, q_0, q_1)/\partial(p, u_0, u_1)` is triangular with diagonal
    (1, p, 1 - p), and :math:`\partial\theta/\partial p = 1/J` at fixed (q0, q1)). A
    potential ``prior`` adds :math:`\log\mathrm{Beta}(\theta) + \log\mathrm{Beta}(q_0) +
    \log\mathrm{Beta}(q_1) + \log p + \log(1 - p) - \log J`, so the density of (p, u0, u1)
    is exactly the truncated prior above, carried over: the same model and the same posterior
    as sampling (theta, q0, q1) directly. In these coordinates the binomial of k acts on p
    alone and the calibration binomials on u0 and u1 (each through one of q0, q1); there is no
    boundary inside (0, 1)^3 and no funnel, and the truncation boundary J = 0 is the corner
    u0 = u1 = 0. On the hard cases of ``tests/test_nuts_exact_agreement.py`` NUTS now gives
    2-3 times the effective sample size in a third of the time, and its quantiles of theta
    agree with the exact engine within their Monte Carlo error
    (:func:`judgestats.posterior` also checks this on every NUTS fit: flag
    ``nuts_exact_disagree``). Because the prior lives in a potential,
    ``pm.sample_prior_predictive`` ignores it (PyMC warns); use the exact engine for prior
    draws.

    Without the truncation q0 and q1 are plain independent ``pm.Beta`` variables.
    """
    pm = quiet_import("pymc")

    prior = _check_inputs(data, prior)
    with pm.Model() as model:
        counts = {key: pm.Data(name, getattr(data, key)) for key, name in DATA_NAMES.items()}
        if prior.better_than_chance:
            theta, q0, q1, p = _judge_coordinates(prior)
        else:
            theta = pm.Beta("theta", *prior.theta)
            q0 = pm.Beta("q0", *prior.q0)
            q1 = pm.Beta("q1", *prior.q1)
            p = pm.Deterministic("p", theta * q1 + (1.0 - theta) * (1.0 - q0))
            pm.Deterministic("youden", q0 + q1 - 1.0)
        pm.Binomial("k", n=counts["n"], p=p, observed=counts["k"])
        pm.Binomial("k0", n=counts["m0"], p=q0, observed=counts["k0"])
        pm.Binomial("k1", n=counts["m1"], p=q1, observed=counts["k1"])
        if data.design == "random":  # the labelled items' classes also inform theta
            pm.Binomial(
                LABELLED_CLASS_NAME, n=counts["m0"] + counts["m1"], p=theta, observed=counts["m1"]
            )
    return model


def _judge_coordinates(prior: Prior) -> tuple[Any, Any, Any, Any]:
    """theta, q0, q1 and p from the free (p, u0, u1) of the truncated model (build_model Notes).

    Call inside the model's context.
    """
    pm = quiet_import("pymc")
    import pytensor.tensor as pt

    p = pm.Uniform("p", 0.0, 1.0)
    u0 = pm.Uniform("q0_scaled", 0.0, 1.0)
    u1 = pm.Uniform("q1_scaled", 0.0, 1.0)
    q0 = pm.Deterministic("q0", 1.0 - p * (1.0 - u0))
    q1 = pm.Deterministic("q1", p + (1.0 - p) * u1)
    youden = pm.Deterministic("youden", p * u0 + (1.0 - p) * u1)
    theta = pm.Deterministic("theta", p * u0 / youden)
    pm.Potential(
        "prior",
        pm.logp(pm.Beta.dist(*prior.theta), theta)
        + pm.logp(pm.Beta.dist(*prior.q0), q0)
        + pm.logp(pm.Beta.dist(*prior.q1), q1)
        + pt.log(p)
        + pt.log1p(-p)
        - pt.log(youden),
    )
    return theta, q0, q1, p


def set_counts(model: pm.Model, data: JudgeData) -> None:
    """Swap the counts of ``data`` into a model made by :func:`build_model` (``pm.set_data``)."""
    pm = quiet_import("pymc")

    if not isinstance(data, JudgeData):
        raise TypeError(f"`data` must be a JudgeData, got {type(data).__name__}.")
    pm.set_data({name: getattr(data, key) for key, name in DATA_NAMES.items()}, model=model)
