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
truncation is a smooth reparametrisation, not a ``-inf`` wall (see :func:`build_model`), so NUTS
never meets a hard boundary.

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
        Variables ``theta``, ``q0``, ``q1`` (parameters), ``p`` (judged-correct rate) and
        ``youden`` (q0 + q1 - 1) as deterministics, observed ``k``, ``k0``, ``k1``, and under
        the random design also observed ``labelled_m1`` (m1 of the m0 + m1 labelled items).

    Notes
    -----
    **Truncation to q0 + q1 > 1** (``prior.better_than_chance``). The target prior is

    .. math:: \pi(q_0, q_1) \propto \mathrm{Beta}(q_0; a_0, b_0)\,\mathrm{Beta}(q_1; a_1, b_1)\,
              \mathbf 1\{q_0 + q_1 > 1\}.

    For q0 in (0, 1) the admissible q1 form the interval (1 - q0, 1). The model samples
    ``q0 ~ Beta(a0, b0)`` and a free ``q1_scaled ~ Uniform(0, 1)`` (v below) and sets

    .. math:: q_1 = (1 - q_0) + q_0 v = 1 - q_0 (1 - v),

    a bijection from (0, 1)^2 onto the triangle {q0 + q1 > 1} with Jacobian
    :math:`|\partial(q_0, q_1)/\partial(q_0, v)| = \partial q_1/\partial v = q_0`. A potential
    ``q1_prior`` adds :math:`\log \mathrm{Beta}(q_1; a_1, b_1) + \log q_0`, so the density of
    (q0, v) is :math:`\mathrm{Beta}(q_0)\cdot 1 \cdot \mathrm{Beta}(q_1(q_0, v))\, q_0`, and the
    change of variables back to (q0, q1) divides by the Jacobian q0:

    .. math:: \pi(q_0, q_1) = \mathrm{Beta}(q_0)\,\mathrm{Beta}(q_1)\quad\text{on } q_0 + q_1 > 1,

    exactly the truncated product (its normalising constant is irrelevant to MCMC). The density
    is smooth inside the triangle, so NUTS never proposes an impossible point. Because part of the
    prior lives in a potential, ``pm.sample_prior_predictive`` ignores it (PyMC warns); use the
    exact engine (or NUTS on the model without observations) for prior draws.

    Without the truncation q0 and q1 are plain independent ``pm.Beta`` variables.
    """
    pm = quiet_import("pymc")
    import pytensor.tensor as pt

    prior = _check_inputs(data, prior)
    with pm.Model() as model:
        counts = {key: pm.Data(name, getattr(data, key)) for key, name in DATA_NAMES.items()}
        theta = pm.Beta("theta", *prior.theta)
        q0 = pm.Beta("q0", *prior.q0)
        if prior.better_than_chance:
            scaled = pm.Uniform("q1_scaled", 0.0, 1.0)
            q1 = pm.Deterministic("q1", 1.0 - q0 * (1.0 - scaled))
            pm.Potential("q1_prior", pm.logp(pm.Beta.dist(*prior.q1), q1) + pt.log(q0))
        else:
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


def set_counts(model: pm.Model, data: JudgeData) -> None:
    """Swap the counts of ``data`` into a model made by :func:`build_model` (``pm.set_data``)."""
    pm = quiet_import("pymc")

    if not isinstance(data, JudgeData):
        raise TypeError(f"`data` must be a JudgeData, got {type(data).__name__}.")
    pm.set_data({name: getattr(data, key) for key, name in DATA_NAMES.items()}, model=model)
