r"""Priors of the Bayesian models, one object per model (the keyword is always ``prior=``).

:class:`Prior` -- the binary model: independent Betas for theta, q0 and q1;
:class:`DirichletPrior` -- the K-class model: Dirichlet concentrations of the class shares and of
the rows of the confusion matrix; :class:`StratifiedPrior` -- the hierarchical stratified model:
the scale of the half-normal prior of the between-strata spread.

For the binary model:

With ``better_than_chance=True`` (the default) the joint prior of (q0, q1) is the product of the two
Betas truncated to the region q0 + q1 > 1 (a judge better than chance):

.. math:: \pi(q_0, q_1) \propto \mathrm{Beta}(q_0; a_0, b_0)\,\mathrm{Beta}(q_1; a_1, b_1)\,
          \mathbf 1\{q_0 + q_1 > 1\}

so the posterior cannot flip the labels (q -> 1 - q, theta -> 1 - theta) when the calibration set is
small. theta stays independent of (q0, q1) a priori.

:func:`random_design_prior` folds the labelled class counts of the random calibration design into
the theta prior: the stratified posterior under it is the random-design posterior.
"""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass
from typing import Any

from judgestats._validate import check_positive_real, check_six_counts
from judgestats.data import JudgeData, require_design

__all__ = [
    "DirichletPrior",
    "Prior",
    "StratifiedPrior",
    "as_prior",
    "checked_prior",
    "random_design_prior",
]


def _beta_parameters(value: Any, name: str) -> tuple[float, float]:
    """Validate a pair (a, b) of Beta parameters: finite and strictly positive."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise TypeError(f"`{name}` must be a pair (a, b) of Beta parameters, got {value!r}.")
    pair = []
    for part in value:
        if isinstance(part, bool) or not isinstance(part, numbers.Real):
            raise TypeError(f"`{name}` must hold two real numbers, got {value!r}.")
        number = float(part)
        if not (number > 0.0 and number < float("inf")):
            raise ValueError(
                f"`{name}` ({tuple(value)!r}) must hold two finite Beta parameters greater than "
                "0, e.g. (1, 1) for a uniform prior."
            )
        pair.append(number)
    return pair[0], pair[1]


@dataclass(frozen=True)
class Prior:
    """Beta priors for the true accuracy theta, the specificity q0 and the sensitivity q1.

    Parameters
    ----------
    theta, q0, q1 : tuple of float, default (1, 1)
        Beta(a, b) parameters, each strictly positive. (1, 1) is uniform.
    better_than_chance : bool, default True
        Truncate the joint prior of (q0, q1) to q0 + q1 > 1.

    Examples
    --------
    >>> Prior()  # uniform on theta, uniform on the better-than-chance triangle of (q0, q1)
    Prior(theta=(1.0, 1.0), q0=(1.0, 1.0), q1=(1.0, 1.0), better_than_chance=True)
    >>> Prior.from_counts(k0=45, m0=50, k1=48, m1=50).q0
    (46.0, 6.0)
    """

    theta: tuple[float, float] = (1.0, 1.0)
    q0: tuple[float, float] = (1.0, 1.0)
    q1: tuple[float, float] = (1.0, 1.0)
    better_than_chance: bool = True

    def __post_init__(self) -> None:
        for name in ("theta", "q0", "q1"):
            object.__setattr__(self, name, _beta_parameters(getattr(self, name), name))
        if not isinstance(self.better_than_chance, (bool,)):
            raise TypeError(
                f"`better_than_chance` must be True or False, got {self.better_than_chance!r}."
            )

    @classmethod
    def from_counts(
        cls,
        *,
        k0: int,
        m0: int,
        k1: int,
        m1: int,
        base: Prior | None = None,
        theta: tuple[float, float] | None = None,
        better_than_chance: bool = True,
    ) -> Prior:
        """Turn an earlier calibration study into Beta priors for q0 and q1 (conjugate update).

        The earlier study found ``k0`` of ``m0`` truly-incorrect items judged incorrect and ``k1``
        of ``m1`` truly-correct items judged correct. Starting from ``base`` (uniform by default),
        q0 ~ Beta(a0 + k0, b0 + m0 - k0) and q1 ~ Beta(a1 + k1, b1 + m1 - k1). ``theta`` overrides
        the base prior of theta (the earlier study says nothing about this test set's accuracy).
        """
        base = base or cls()
        checked = check_six_counts({"k0": k0, "m0": m0, "k1": k1, "m1": m1}, scalar=True)
        counts = {name: int(value) for name, value in checked.items()}
        a0, b0 = base.q0
        a1, b1 = base.q1
        return cls(
            theta=base.theta if theta is None else theta,
            q0=(a0 + counts["k0"], b0 + counts["m0"] - counts["k0"]),
            q1=(a1 + counts["k1"], b1 + counts["m1"] - counts["k1"]),
            better_than_chance=better_than_chance,
        )

    def describe(self) -> str:
        """The prior in words, as ``judgestats posterior`` and the report print it.

        Examples
        --------
        >>> text = Prior(q0=(46, 6)).describe()
        >>> text.startswith("theta ~ Beta(1, 1), q0 ~ Beta(46, 6), q1 ~ Beta(1, 1), judge")
        True
        >>> Prior(better_than_chance=False).describe()
        'theta ~ Beta(1, 1), q0 ~ Beta(1, 1), q1 ~ Beta(1, 1), no truncation'
        """
        parts = [
            f"{name} ~ Beta({a:g}, {b:g})"
            for name in ("theta", "q0", "q1")
            for a, b in [getattr(self, name)]
        ]
        truncation = (
            "judge better than chance (q0 + q1 > 1)" if self.better_than_chance else "no truncation"
        )
        return f"{', '.join(parts)}, {truncation}"


def random_design_prior(data: JudgeData, prior: Prior | None = None) -> Prior:
    r"""The stratified-model prior whose posterior equals the random-design posterior.

    Under the random design the labelled items' class count adds the likelihood factor
    :math:`\theta^{m_1}(1 - \theta)^{m_0}` (``labelled_m1 ~ Bin(m0 + m1, theta)``, see
    :mod:`judgestats.bayes.model`), which depends on theta alone. Multiplied into a
    ``Beta(a, b)`` theta prior it gives ``Beta(a + m1, b + m0)``; the priors of q0 and q1 and the
    truncation are unchanged.

    Parameters
    ----------
    data : JudgeData
        Counts with ``design="random"``.
    prior : Prior, optional
        The user's prior; ``Prior()`` by default.

    Returns
    -------
    Prior
        ``prior`` with theta ~ Beta(a + m1, b + m0).

    Raises
    ------
    TypeError
        If ``data`` is not a JudgeData or ``prior`` not a Prior.
    ValueError
        If ``data.design`` is not ``"random"``.
    """
    require_design(data, "random", "random_design_prior")
    if prior is None:
        prior = Prior()
    elif not isinstance(prior, Prior):
        raise TypeError(
            f"`prior` must be a judgestats.bayes.Prior or None, got {type(prior).__name__}."
        )
    a, b = prior.theta
    return dataclasses.replace(prior, theta=(a + data.m1, b + data.m0))


def as_prior(prior: Any) -> Prior:
    """``Prior()`` for None, the prior itself for a Prior; a TypeError naming `prior` otherwise."""
    return checked_prior(prior, Prior)


@dataclass(frozen=True)
class DirichletPrior:
    """Dirichlet priors of a K-class judge: the class shares pi and every row of its matrix C.

    pi ~ Dirichlet(alpha 1_K) and each row C_i ~ Dirichlet(beta 1_K), restricted to the
    identifiability set (see :mod:`judgestats.bayes.kclass_model`).

    Parameters
    ----------
    alpha : float, default 1
        Dirichlet concentration of pi (1: uniform on the simplex).
    beta : float, optional
        Dirichlet concentration of every row of C; None (the default) means 2 / K, two prior
        pseudo-items per row spread over its K cells (1 at K = 2: the binary uniform prior).

    Examples
    --------
    >>> DirichletPrior().for_classes(4)
    DirichletPrior(alpha=1.0, beta=0.5)
    """

    alpha: float = 1.0
    beta: float | None = None

    def __post_init__(self) -> None:
        alpha = check_positive_real(
            self.alpha, "alpha", "Dirichlet concentration of the class shares"
        )
        object.__setattr__(self, "alpha", alpha)
        if self.beta is not None:
            beta = check_positive_real(
                self.beta, "beta", "Dirichlet concentration of each confusion row"
            )
            object.__setattr__(self, "beta", beta)

    def for_classes(self, size: int) -> DirichletPrior:
        """Return this prior with ``beta`` resolved for ``size`` classes (None -> 2 / K)."""
        return DirichletPrior(self.alpha, 2.0 / size if self.beta is None else self.beta)


@dataclass(frozen=True)
class StratifiedPrior:
    """The prior scale of the hierarchical stratified model (:mod:`.stratified_model`).

    Parameters
    ----------
    tau_scale : float, default 1
        Scale of the half-normal prior of tau_0 and tau_1, the between-strata spread of logit q0
        and logit q1: smaller pools the strata harder. theta_s is uniform and the population
        means of logit q are Normal(logit 0.8, 1.5) (fixed; see the model's docstring).

    Examples
    --------
    >>> StratifiedPrior(tau_scale=0.5)
    StratifiedPrior(tau_scale=0.5)
    """

    tau_scale: float = 1.0

    def __post_init__(self) -> None:
        scale = check_positive_real(
            self.tau_scale,
            "tau_scale",
            "the scale of the half-normal prior of the between-strata spread tau; 1 by default",
        )
        object.__setattr__(self, "tau_scale", scale)


def checked_prior(prior: Any, kind: type) -> Any:
    """``kind()`` for None, the prior itself for a ``kind``; else a TypeError naming `prior`."""
    if prior is None:
        return kind()
    if not isinstance(prior, kind):
        raise TypeError(
            f"`prior` must be a judgestats.bayes.{kind.__name__} or None, got "
            f"{type(prior).__name__}."
        )
    return prior
