"""The full posterior of the true accuracy: :func:`posterior` and its result, :class:`Posterior`.

A :class:`Posterior` delegates every number to an engine with one protocol (``quantile``,
``mean``, ``sd``, ``interval``, ``cdf``, ``pdf``, ``sample``, ``expect`` (behind the
posterior predictive p-values of :func:`judgestats.bayes.diagnostics.predictive_p_values`),
``prob_youden_below``):

``method="exact"`` (the default)
    :class:`judgestats.bayes.exact.ExactPosterior`: deterministic integration, exact marginals of
    theta, q0, q1, Youden's J and p; milliseconds.
``method="nuts"``
    :class:`~judgestats.bayes.draws_engine.DrawsEngine` over the draws of PyMC's NUTS (or
    nutpie) on the model of :func:`judgestats.bayes.model.build_model`, with convergence
    diagnostics.

The ArviZ ``InferenceData`` (:attr:`Posterior.idata`) is built on first access; for the exact
engine it holds ``draws * chains`` i.i.d. joint draws from the same integration.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, cast

import numpy as np

from judgestats._validate import (
    POSTERIOR_METHODS,
    as_generator,
    check_choice,
    check_draws,
    check_flag,
    check_level,
    check_open_probabilities,
    check_positive_int,
)
from judgestats.bayes._quiet import quiet_import
from judgestats.bayes.diagnostics import (
    CONTRADICTION_PROB,
    ESS_MIN,
    EXACT_CHECK_Z,
    FLAGS,
    PREDICTIVE_ALPHA,
    R_HAT_MAX,
    TARGET_ACCEPT,
    WEAK_YOUDEN,
    convergence,
    convergence_flags,
    exact_agreement,
    predictive_p_values,
    truncation_probability,
)
from judgestats.bayes.draws_engine import VARIABLES, DrawsEngine
from judgestats.bayes.priors import Prior, as_prior
from judgestats.data import JudgeData
from judgestats.exceptions import JudgeStatsWarning
from judgestats.results import ConfidenceInterval, Result

if TYPE_CHECKING:  # pragma: no cover
    import arviz as az
    import pandas as pd
    from matplotlib.axes import Axes

    from judgestats._typing import SeedLike
    from judgestats.bayes.exact import ExactPosterior
    from judgestats.bayes.nuts import NutsCache

__all__ = [
    "DIAGNOSTIC_FLAGS",
    "ESS_MIN",
    "R_HAT_MAX",
    "VARIABLES",
    "DrawsEngine",
    "Posterior",
    "posterior",
]

#: Every flag a :class:`Posterior` can carry, with its message (see
#: :mod:`judgestats.bayes.diagnostics`).
DIAGNOSTIC_FLAGS = FLAGS
_PARAMETERS = ("theta", "q0", "q1")


# -------------------------------------------------------------------------------------------
# the result
# -------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Posterior(Result):
    """Posterior of theta, q0, q1, Youden's J and p for one :class:`JudgeData`.

    Attributes
    ----------
    engine : ExactPosterior or DrawsEngine
        Computes every number (see the module docstring).
    method : str
        ``"exact"`` or ``"nuts"``.
    data : JudgeData
    prior : Prior
        The prior as given (for a random design the engine folds in the labelled class counts).
    n_draws, n_chains : int
        Size of :attr:`idata` (draws per chain, chains).
    diagnostics : dict
        NUTS: ``r_hat`` (max over theta, q0, q1), ``ess_bulk`` / ``ess_tail`` (min),
        ``divergences``, ``exact_check_z`` (largest distance of the draws' 2.5%, 50%, 97.5%
        quantiles of theta from the exact engine's, in Monte Carlo standard errors; flag
        ``nuts_exact_disagree`` above 4). Both methods: ``p_value_k``, ``p_value_k0``,
        ``p_value_k1`` (posterior predictive), ``prob_weak`` (P(J < 0.2)),
        ``prob_better_than_chance`` (P(q0 + q1 > 1) from the calibration data alone).
    flags : tuple of str
        Keys of :data:`DIAGNOSTIC_FLAGS` that apply (registered in
        :data:`judgestats.results.FLAG_MESSAGES`).
    """

    title: ClassVar[str] = "judgestats posterior"

    engine: ExactPosterior | DrawsEngine = field(repr=False)
    method: str
    data: JudgeData
    prior: Prior
    n_draws: int = 1000
    n_chains: int = 4
    diagnostics: dict[str, float] = field(default_factory=dict)
    flags: tuple[str, ...] = ()
    seed: int = field(default=0, repr=False)
    sampled: az.InferenceData | None = field(default=None, repr=False)

    @cached_property
    def idata(self) -> az.InferenceData:
        """ArviZ InferenceData of the posterior, built on first access.

        Groups: ``posterior`` (theta, q0, q1, youden, p), ``observed_data`` (k, k0, k1),
        ``constant_data`` (n, m0, m1) and, for NUTS, ``sample_stats``.
        """
        if self.sampled is not None:
            return self.sampled
        az = quiet_import("arviz")

        values = self.engine.sample(self.n_draws * self.n_chains, random_seed=self.seed)
        posterior_group = {
            var: np.asarray(values[var]).reshape(self.n_chains, self.n_draws) for var in VARIABLES
        }
        observed = {name: np.asarray(getattr(self.data, name)) for name in ("k", "k0", "k1")}
        if self.data.design == "random":  # the labelled class count informs theta
            observed["labelled_m1"] = np.asarray(self.data.m1)
        return az.from_dict(
            posterior=posterior_group,
            observed_data=observed,
            constant_data={
                name: np.asarray(getattr(self.data, name)) for name in ("n", "m0", "m1")
            },
        )

    @classmethod
    def from_idata(
        cls, idata: Any, *, data: JudgeData, prior: Prior | None = None, method: str = "nuts"
    ) -> Posterior:
        """Wrap MCMC draws of this model (e.g. from your own PyMC run) as a Posterior.

        ``idata.posterior`` must hold theta, q0, q1, youden and p. Convergence diagnostics (when
        the draws have chains) and the conflict diagnostics are computed and warned about as in
        :func:`posterior`.
        """
        if not isinstance(data, JudgeData):
            raise TypeError(f"`data` must be a JudgeData, got {type(data).__name__}.")
        prior = Prior() if prior is None else prior
        missing = [var for var in VARIABLES if var not in idata.posterior]
        if missing:
            raise ValueError(f"`idata` lacks the posterior variables {missing}.")
        engine = DrawsEngine({var: np.asarray(idata.posterior[var]) for var in VARIABLES})
        diagnostics = convergence(idata, _PARAMETERS)
        flags = convergence_flags(diagnostics)
        diagnostics["exact_check_z"] = exact_agreement(idata, data, prior)
        if diagnostics["exact_check_z"] > EXACT_CHECK_Z:
            flags = (*flags, "nuts_exact_disagree")
        values, conflict_flags = _conflicts(engine, data, prior)
        diagnostics = {**diagnostics, **values}
        flags = flags + conflict_flags
        _warn(flags, diagnostics)
        sizes = idata.posterior.sizes
        return cls(
            engine=engine,
            method=method,
            data=data,
            prior=prior,
            n_draws=int(sizes.get("draw", 1)),
            n_chains=int(sizes.get("chain", 1)),
            diagnostics=diagnostics,
            flags=flags,
            sampled=idata,
        )

    # -- numbers ------------------------------------------------------------------------------
    def draws(self, var: str = "theta") -> np.ndarray:
        """All draws of ``var`` in :attr:`idata` (chains stacked), a 1-D array."""
        var = check_choice(var, "var", VARIABLES)
        # arviz sets the groups as attributes at run time; its annotations do not declare them
        return np.asarray(self.idata.posterior[var]).reshape(-1)  # type: ignore[attr-defined]

    def quantile(self, q: Any, var: str = "theta") -> float | np.ndarray:
        """Posterior quantile(s) of ``var`` at probabilities ``q`` in (0, 1)."""
        var = check_choice(var, "var", VARIABLES)
        levels = check_open_probabilities(q, "q")
        out = self.engine.quantile(levels if levels.ndim else float(levels), var=var)
        return float(out) if np.ndim(out) == 0 else np.asarray(out)

    def mean(self, var: str = "theta") -> float:
        """Posterior mean of ``var``."""
        return float(self.engine.mean(check_choice(var, "var", VARIABLES)))

    def sd(self, var: str = "theta") -> float:
        """Posterior standard deviation of ``var``."""
        return float(self.engine.sd(check_choice(var, "var", VARIABLES)))

    def ci(self, prob: float = 0.95, kind: str = "eti", var: str = "theta") -> ConfidenceInterval:
        """Credible interval: equal-tailed (``"eti"``) or shortest, highest-density (``"hdi"``)."""
        prob = check_level(prob, "prob")
        kind = check_choice(kind, "kind", ("eti", "hdi"))
        var = check_choice(var, "var", VARIABLES)
        low, high = self.engine.interval(prob, kind, var)
        return ConfidenceInterval(float(low), float(high))

    def pdf(self, x: Any, var: str = "theta") -> float | np.ndarray:
        """Posterior density of ``var`` at ``x`` (exact engine; a kernel estimate for NUTS)."""
        return self.engine.pdf(x, var=check_choice(var, "var", VARIABLES))

    def cdf(self, x: Any, var: str = "theta") -> float | np.ndarray:
        """Posterior CDF of ``var`` at ``x``."""
        return self.engine.cdf(x, var=check_choice(var, "var", VARIABLES))

    def summary(self, prob: float = 0.95) -> pd.DataFrame:
        """DataFrame, one row per variable: mean, sd, median, ETI and HDI bounds.

        For NUTS also the ArviZ columns mcse_mean, ess_bulk, ess_tail and r_hat.
        """
        import pandas as pd

        prob = check_level(prob, "prob")
        lo, hi = f"{(1 - prob) / 2:.1%}", f"{(1 + prob) / 2:.1%}"
        rows = {}
        for var in VARIABLES:
            eti, hdi = self.ci(prob, "eti", var), self.ci(prob, "hdi", var)
            rows[var] = {
                "mean": self.mean(var),
                "sd": self.sd(var),
                "median": self.quantile(0.5, var),
                f"eti_{lo}": eti.low,
                f"eti_{hi}": eti.high,
                "hdi_low": hdi.low,
                "hdi_high": hdi.high,
            }
        frame = pd.DataFrame.from_dict(rows, orient="index")
        if self.method == "nuts":
            az = quiet_import("arviz")

            extra = az.summary(self.idata, var_names=list(VARIABLES), kind="diagnostics")
            frame = frame.join(extra[["mcse_mean", "ess_bulk", "ess_tail", "r_hat"]])
        return frame

    def posterior_predictive_check(self) -> pd.DataFrame:
        """Two-sided posterior predictive p-values of the observed counts k, k0 and k1."""
        import pandas as pd

        d = self.data
        rows = {
            name: {"observed": getattr(d, name), "p_value": self.diagnostics[f"p_value_{name}"]}
            for name in ("k", "k0", "k1")
        }
        frame = pd.DataFrame.from_dict(rows, orient="index")
        frame.index.name = "count"
        return frame

    # -- output -----------------------------------------------------------------------------
    @property
    def flag_messages(self) -> list[str]:
        """The flags as sentences, in the posterior's words (:data:`DIAGNOSTIC_FLAGS`)."""
        return [DIAGNOSTIC_FLAGS[flag] for flag in self.flags]

    def to_dict(self, prob: float = 0.95) -> dict[str, Any]:
        """Return a JSON-safe dict: inputs, prior, per-variable summaries, diagnostics, flags."""
        variables = {}
        for var in VARIABLES:
            eti, hdi = self.ci(prob, "eti", var), self.ci(prob, "hdi", var)
            variables[var] = {
                "mean": self.mean(var),
                "sd": self.sd(var),
                "median": float(self.quantile(0.5, var)),
                "eti": [eti.low, eti.high],
                "hdi": [hdi.low, hdi.high],
            }
        return {
            "method": self.method,
            "prob": float(prob),
            "inputs": self.data.to_dict(),
            "prior": {
                "theta": list(self.prior.theta),
                "q0": list(self.prior.q0),
                "q1": list(self.prior.q1),
                "better_than_chance": self.prior.better_than_chance,
            },
            "variables": variables,
            "diagnostics": {
                k: (int(v) if isinstance(v, (int, np.integer)) else float(v))
                for k, v in self.diagnostics.items()
            },
            "flags": {flag: DIAGNOSTIC_FLAGS[flag] for flag in self.flags},
        }

    def plot(self, ax: Axes | None = None, prob: float = 0.95) -> Axes:
        """Plot the posterior density of theta with its ETI and the Lang-Reiczigel interval."""
        import matplotlib.pyplot as plt

        from judgestats.frequentist import lang_reiczigel_ci

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.5))
        low, high = cast(np.ndarray, self.engine.quantile(np.array([1e-6, 1 - 1e-6]), var="theta"))
        grid = np.linspace(max(low - 0.02, 0.0), min(high + 0.02, 1.0), 400)
        ax.plot(
            grid,
            np.asarray(self.pdf(grid)),
            color="0.3",
            label=f"posterior of theta ({self.method})",
        )
        eti = self.ci(prob, "eti")
        ax.axvspan(eti.low, eti.high, color="C0", alpha=0.2, label=f"{prob:.0%} credible (ETI)")
        d = self.data
        try:
            lr = lang_reiczigel_ci(d.p, d.q0, d.q1, d.n, d.m0, d.m1, confidence_level=prob)
        except ValueError:  # no closed-form correction (judge no better than chance, one class)
            lr = None
        if lr is not None:
            for bound in lr:
                ax.axvline(bound, color="C3", linestyle="--")
            ax.plot([], [], color="C3", linestyle="--", label=f"{prob:.0%} Lang-Reiczigel")
        ax.set_xlabel("true accuracy theta")
        ax.set_ylabel("density")
        ax.legend(loc="best", fontsize="small")
        return ax

    def _repr_html_(self) -> str:
        """Compact HTML table for notebooks: 95% summaries of theta, q0, q1, J; the flags."""
        from judgestats._html import fmt4, result_block

        rows = []
        for var in ("theta", "q0", "q1", "youden"):
            eti, hdi = self.ci(0.95, "eti", var), self.ci(0.95, "hdi", var)
            values = (self.mean(var), float(self.quantile(0.5, var)), *eti, *hdi)
            rows.append((var, *(fmt4(v) for v in values)))
        d = self.data
        title = (
            f"judgestats posterior (method {self.method}, 95% credible intervals): k = {d.k} "
            f"of n = {d.n}, q0 = {d.k0}/{d.m0}, q1 = {d.k1}/{d.m1}"
        )
        header = ("", "mean", "median", "ETI low", "ETI high", "HDI low", "HDI high")
        return result_block(
            title, header, rows, [(flag, DIAGNOSTIC_FLAGS[flag]) for flag in self.flags]
        )

    def __str__(self) -> str:
        d = self.data
        lines = [
            f"judgestats posterior (method {self.method}, 95% credible intervals)",
            f"  test set      : {d.k} of {d.n} judged correct; calibration q0 = {d.k0}/{d.m0}, "
            f"q1 = {d.k1}/{d.m1}",
            f"  {'':<8}{'median':>9}{'ETI low':>9}{'ETI high':>9}{'HDI low':>9}{'HDI high':>9}",
        ]
        for var in _PARAMETERS:
            eti, hdi = self.ci(0.95, "eti", var), self.ci(0.95, "hdi", var)
            values = (float(self.quantile(0.5, var)), *eti, *hdi)
            lines.append(f"  {var:<8}" + "".join(f"{v:9.4f}" for v in values))
        lines += [
            f"  warning ({flag}): {message}"
            for flag, message in zip(self.flags, self.flag_messages, strict=True)
        ]
        return "\n".join(lines)

    def __repr__(self) -> str:
        low, high = self.ci()
        return (
            f"Posterior(method={self.method!r}, theta mean={self.mean():.6g}, "
            f"95% ETI=({low:.6g}, {high:.6g}), data={self.data!r}, flags={self.flags!r})"
        )


# -------------------------------------------------------------------------------------------
# diagnostics
# -------------------------------------------------------------------------------------------
def _conflicts(
    engine: Any, data: JudgeData, prior: Prior
) -> tuple[dict[str, float], tuple[str, ...]]:
    """Conflict and regime diagnostics (both engines) and the flags they raise."""
    p_values = predictive_p_values(data, engine.expect)
    prob_weak = engine.prob_youden_below(WEAK_YOUDEN)
    (a0, b0), (a1, b1) = prior.q0, prior.q1
    better = truncation_probability(
        (a0 + data.k0, b0 + data.m0 - data.k0), (a1 + data.k1, b1 + data.m1 - data.k1)
    )
    values = {f"p_value_{name}": value for name, value in p_values.items()}
    values.update(prob_weak=prob_weak, prob_better_than_chance=better)
    flags = []
    if data.m0 == 0 or data.m1 == 0:
        flags.append("one_class_labelled")
    if prior.better_than_chance and better < CONTRADICTION_PROB:
        flags.append("calibration_contradicts_prior")
    if min(p_values.values()) < PREDICTIVE_ALPHA:
        flags.append("test_calibration_conflict")
    if prob_weak > 0.5:
        flags.append("weak_judge")
    return values, tuple(flags)


def _warn(flags: tuple[str, ...], diagnostics: dict[str, float]) -> None:
    if not flags:
        return
    details = "; ".join(f"{flag}: {DIAGNOSTIC_FLAGS[flag]}" for flag in flags)
    warnings.warn(f"check this posterior -- {details}.", JudgeStatsWarning, stacklevel=3)


# -------------------------------------------------------------------------------------------
# the entry point
# -------------------------------------------------------------------------------------------
def posterior(
    data: JudgeData,
    *,
    prior: Prior | None = None,
    method: str = "exact",
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    random_seed: SeedLike = None,
    progressbar: bool | None = None,
    sampler: str = "pymc",
    target_accept: float = TARGET_ACCEPT,
    cores: int = 1,
    compiled: NutsCache | None = None,
) -> Posterior:
    """Posterior of the true accuracy theta and the judge's specificity q0 and sensitivity q1.

    Parameters
    ----------
    data : JudgeData
        With ``data.design == "random"`` (labelled items drawn from the test population) the
        labelled class count m1 ~ Bin(m0 + m1, theta) also informs theta.
    prior : Prior, optional
        ``Prior()`` (uniform, judge better than chance) by default.
    method : {"exact", "nuts"}
        Deterministic integration (default; exact marginals, milliseconds) or MCMC with NUTS.
    draws, chains : int
        Size of :attr:`Posterior.idata`: draws per chain and chains (for ``"exact"``,
        ``draws * chains`` i.i.d. draws, made on first access).
    tune : int
        NUTS tuning steps per chain.
    random_seed : int or numpy.random.Generator, optional
        The only source of randomness; the same seed gives the same draws.
    progressbar : bool, optional
        ``method="nuts"``: draw a progress bar of the sampling on stderr (nutpie's own with
        ``sampler="nutpie"``). Default (None): only when stderr is a terminal and the ``CI``
        environment variable is unset; ``"exact"`` takes milliseconds and draws none.
    sampler : {"pymc", "nutpie"}
        NUTS implementation; nutpie must be installed.
    target_accept : float, default 0.9
        NUTS target acceptance rate, as on every NUTS path (raise it, e.g. to 0.95, if
        divergences are reported).
    cores : int, default 1
        Processes that run NUTS chains; 1 starts none.
    compiled : optional
        A compiled-sampler cache (:class:`judgestats.bayes.nuts.NutsCache`) reused across fits.

    Returns
    -------
    Posterior

    Raises
    ------
    TypeError
        If ``data`` is not a JudgeData, ``prior`` not a Prior, a count option not an integer,
        or ``progressbar`` not True, False or None.
    ValueError
        For an unknown ``method`` or ``sampler``, non-positive ``draws``/``tune``/``chains``/
        ``cores``, a ``target_accept`` outside (0, 1), or nutpie requested but not installed;
        with ``method="exact"``, naming ``data``, for a calibration arm ``m0`` or ``m1`` beyond
        2**44 (see :data:`judgestats.bayes.exact_vectorised.MAX_ARM`) or data it cannot integrate.

    Warns
    -----
    JudgeStatsWarning
        Once, listing every flag that applies (see :data:`DIAGNOSTIC_FLAGS`).

    Examples
    --------
    >>> post = posterior(JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200))
    >>> [round(v, 4) for v in post.ci(0.95)]
    [0.0511, 0.2581]
    """
    if not isinstance(data, JudgeData):
        raise TypeError(f"`data` must be a JudgeData, got {type(data).__name__}.")
    prior = as_prior(prior)
    method = check_choice(method, "method", POSTERIOR_METHODS)
    sampler = check_choice(sampler, "sampler", ("pymc", "nutpie"))
    draws, chains, tune = check_draws(draws, chains, tune=tune)
    cores = check_positive_int(cores, "cores")
    target_accept = check_level(target_accept, "target_accept")
    progressbar = check_flag(progressbar, "progressbar", allow_none=True)
    rng = as_generator(random_seed)
    if method == "exact":
        from judgestats.bayes.exact import ExactPosterior
        from judgestats.bayes.priors import random_design_prior

        engine_prior = random_design_prior(data, prior) if data.design == "random" else prior
        engine = ExactPosterior(data, engine_prior)
    else:
        from judgestats.bayes.binary_nuts import sample_nuts

        sampled = sample_nuts(
            data,
            prior,
            draws=draws,
            tune=tune,
            chains=chains,
            rng=rng,
            sampler=sampler,
            target_accept=target_accept,
            cores=cores,
            progressbar=progressbar,
            compiled=compiled,
        )
        return Posterior.from_idata(sampled, data=data, prior=prior)
    conflict_values, conflict_flags = _conflicts(engine, data, prior)
    _warn(conflict_flags, conflict_values)
    return Posterior(
        engine=engine,
        method=method,
        data=data,
        prior=prior,
        n_draws=draws,
        n_chains=chains,
        diagnostics=conflict_values,
        flags=conflict_flags,
        seed=int(rng.integers(2**63 - 1)),
    )
