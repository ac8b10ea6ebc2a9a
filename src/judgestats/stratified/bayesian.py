"""The stratified posterior: :func:`stratified_posterior` and :class:`StratifiedPosterior`.

The hierarchical model (per-stratum theta_s, q0_s and q1_s, the logits of q partially pooled
across strata) is written out in :mod:`judgestats.bayes.stratified_model`, with the reasons for
its priors. ``method=`` picks the engine:

``"nuts"``
    PyMC's NUTS on the hierarchical model, compiled once per number of strata
    (:func:`judgestats.bayes.stratified_model.compiled_stratified_nuts`).
``"exact"``
    One stratum only: nothing is pooled, so the posterior is :func:`judgestats.posterior` (the
    exact engine, uniform better-than-chance prior) on its counts, wrapped row by row; the
    result equals the binary posterior exactly.
``"auto"`` (the default)
    ``"exact"`` for one stratum, ``"nuts"`` for several.

It sits above :mod:`judgestats.bayes`, which imports nothing from :mod:`judgestats.stratified`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from judgestats._validate import (
    as_generator,
    check_choice,
    check_draws,
    check_flag,
    check_level,
    check_positive_int,
)
from judgestats.bayes.diagnostics import FLAGS, TARGET_ACCEPT, convergence, convergence_flags
from judgestats.bayes.nuts import NutsCache
from judgestats.bayes.priors import StratifiedPrior, checked_prior
from judgestats.bayes.stratified_model import (
    CHECKED,
    OUTPUT_NAMES,
    StratifiedCounts,
    compiled_stratified_nuts,
    stratified_idata,
)
from judgestats.exceptions import JudgeStatsWarning
from judgestats.results import FLAG_MESSAGES, ConfidenceInterval, IntervalResult, Result

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

    from judgestats._typing import SeedLike
    from judgestats.stratified.data import StratifiedData

__all__ = ["METHODS", "StratifiedPosterior", "stratified_posterior"]

#: The engines of :func:`stratified_posterior` (its ``method=``).
METHODS = ("auto", "exact", "nuts")
#: Parameters of each stratum, in the order of the summary.
_PARAMETERS = ("theta", "q0", "q1")


# -------------------------------------------------------------------------------------------
# the result
# -------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class StratifiedPosterior(Result):
    """Posterior of every stratum's theta_s, q0_s, q1_s and of the overall theta.

    Every row is an :class:`~judgestats.results.IntervalResult` whose ``estimate`` is the
    posterior median and whose ``ci`` is the equal-tailed credible interval at level ``prob``.

    Attributes
    ----------
    strata : tuple of str
        The stratum names.
    theta : IntervalResult
        The overall accuracy theta = sum_s w_s theta_s.
    theta_strata, q0, q1 : tuple of IntervalResult
        Per stratum (in the order of :attr:`strata`): accuracy, specificity, sensitivity.
    weights : tuple of float
        The test shares w_s.
    method : str
        ``"nuts"`` (the hierarchical model, S > 1) or ``"exact"`` (one stratum: the binary
        posterior of :func:`judgestats.posterior`).
    prior : StratifiedPrior
        The prior of the hierarchical model (``tau_scale``, the scale of the half-normal prior
        of tau).
    prob : float
        Level of the credible intervals.
    inputs : dict
        The counts (``data.to_dict()``).
    diagnostics : dict
        NUTS: max ``r_hat``, min ``ess_bulk`` / ``ess_tail`` over :data:`CHECKED`,
        ``divergences``; one stratum: the binary posterior's diagnostics.
    flags : tuple of str
        NUTS: the convergence keys ``r_hat``, ``low_ess``, ``divergences`` that apply; one
        stratum: the binary posterior's flags.
    idata : arviz.InferenceData
        ``posterior`` with ``theta`` (chain, draw) and ``theta_s``, ``q0``, ``q1``, ``youden``
        (chain, draw, stratum), and for NUTS ``mu``, ``tau`` (chain, draw, arm) and
        ``sample_stats``; one stratum: the exact engine's i.i.d. draws in the same layout.
    """

    title: ClassVar[str] = "judgestats stratified posterior"

    strata: tuple[str, ...]
    theta: IntervalResult
    theta_strata: tuple[IntervalResult, ...]
    q0: tuple[IntervalResult, ...]
    q1: tuple[IntervalResult, ...]
    weights: tuple[float, ...]
    method: str
    prior: StratifiedPrior
    prob: float
    inputs: dict[str, Any] = field(repr=False)
    diagnostics: dict[str, float] = field(default_factory=dict)
    flags: tuple[str, ...] = ()
    idata: Any = field(default=None, repr=False)

    def stratum(self, name: str) -> dict[str, IntervalResult]:
        """The rows of one stratum: ``{"theta": ..., "q0": ..., "q1": ...}``."""
        if name not in self.strata:
            raise KeyError(f"`name` ({name!r}) is not a stratum; the strata are {self.strata!r}.")
        index = self.strata.index(name)
        return {
            "theta": self.theta_strata[index],
            "q0": self.q0[index],
            "q1": self.q1[index],
        }

    def draws(self, var: str = "theta", stratum: str | None = None) -> np.ndarray:
        """All draws of ``var`` (chains stacked), for one ``stratum`` where it has a stratum dim.

        ``var`` is ``"theta"`` (overall, or stratum s's theta_s when ``stratum`` is given),
        ``"q0"``, ``"q1"`` or ``"youden"`` (``stratum`` required).
        """
        from judgestats._validate import check_choice

        var = check_choice(var, "var", ("theta", "q0", "q1", "youden"))
        posterior = self.idata.posterior
        if stratum is None:
            if var != "theta":
                raise ValueError(f"`stratum` is required for `var` {var!r}; give a stratum name.")
            return np.asarray(posterior["theta"]).reshape(-1)
        self.stratum(stratum)  # raises for an unknown name
        name = "theta_s" if var == "theta" else var
        return np.asarray(posterior[name].sel(stratum=stratum)).reshape(-1)

    @property
    def flag_messages(self) -> list[str]:
        """The flags as sentences, in the posterior's words (:data:`.diagnostics.FLAGS`)."""
        return [FLAGS.get(flag, FLAG_MESSAGES[flag]) for flag in self.flags]

    def _rows(self) -> list[tuple[str, str, str, IntervalResult]]:
        """(label, stratum, parameter, row) in the order of the summary."""
        rows = [("theta", "overall", "theta", self.theta)]
        for index, name in enumerate(self.strata):
            for parameter, values in zip(
                _PARAMETERS, (self.theta_strata, self.q0, self.q1), strict=True
            ):
                rows.append((f"{parameter}[{name}]", name, parameter, values[index]))
        return rows

    def summary(self) -> pd.DataFrame:
        """One row per quantity: overall theta, then theta, q0, q1 of each stratum.

        Columns: ``stratum``, ``parameter``, ``weight`` (w_s on the theta rows, 1 on the
        overall row, NaN on q rows), ``estimate`` (posterior median), ``low``, ``high``
        (equal-tailed interval at :attr:`prob`) and ``width``; index ``quantity``.
        """
        import pandas as pd

        weights = dict(zip(self.strata, self.weights, strict=True))
        records = []
        for label, stratum, parameter, row in self._rows():
            weight = 1.0 if stratum == "overall" else weights[stratum]
            records.append(
                {
                    "quantity": label,
                    "stratum": stratum,
                    "parameter": parameter,
                    "weight": weight if parameter == "theta" else float("nan"),
                    "estimate": row.estimate,
                    "low": row.low,
                    "high": row.high,
                    "width": row.width,
                }
            )
        return pd.DataFrame.from_records(records, index="quantity")

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict: inputs, prior, every row, diagnostics and flags."""
        return {
            "method": self.method,
            "prob": self.prob,
            "prior": {"tau_scale": self.prior.tau_scale},
            "inputs": self.inputs,
            "weights": list(self.weights),
            "theta": self.theta.to_dict(),
            "strata": {
                name: {key: row.to_dict() for key, row in self.stratum(name).items()}
                for name in self.strata
            },
            "diagnostics": {
                key: (int(v) if isinstance(v, (int, np.integer)) else float(v))
                for key, v in self.diagnostics.items()
            },
            "flags": {
                flag: message for flag, message in zip(self.flags, self.flag_messages, strict=True)
            },
        }

    def plot(self, ax: Axes | None = None) -> Axes:
        """Forest plot of each stratum's theta_s and the overall theta (median and interval)."""
        from judgestats.results import forest_plot

        frame = self.summary()
        frame = frame[frame["parameter"] == "theta"]
        frame = frame.iloc[list(range(1, len(frame))) + [0]]  # strata first, overall last
        return forest_plot(frame[["estimate", "low", "high"]], ax=ax, title=self.title)

    def __str__(self) -> str:
        level = f"{100 * self.prob:g}%"
        lines = [
            f"judgestats stratified posterior (method {self.method}, {level} equal-tailed "
            f"credible intervals, prior scale of tau {self.prior.tau_scale:g})",
            f"  {'':<24}{'weight':>8}{'median':>9}{'low':>9}{'high':>9}",
        ]
        summary = self.summary()
        for label, row in summary.iterrows():
            weight = "" if math.isnan(row["weight"]) else f"{row['weight']:8.4f}"
            lines.append(
                f"  {label!s:<24}{weight:>8}"
                + "".join(f"{row[c]:9.4f}" for c in ("estimate", "low", "high"))
            )
        lines += [
            f"  warning ({flag}): {message}"
            for flag, message in zip(self.flags, self.flag_messages, strict=True)
        ]
        return "\n".join(lines)


# -------------------------------------------------------------------------------------------
# the entry point
# -------------------------------------------------------------------------------------------
def stratified_posterior(
    data: StratifiedData,
    *,
    prior: StratifiedPrior | None = None,
    method: str = "auto",
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float = TARGET_ACCEPT,
    prob: float = 0.95,
    random_seed: SeedLike = None,
    progressbar: bool | None = None,
    compiled: NutsCache | None = None,
    cores: int = 1,
) -> StratifiedPosterior:
    """Posterior of the overall accuracy under stratified calibration, strata partially pooled.

    Parameters
    ----------
    data : StratifiedData
        The six counts per stratum (:class:`judgestats.stratified.StratifiedData`).
    prior : StratifiedPrior, optional
        ``StratifiedPrior()`` by default: ``tau_scale = 1``, the scale of the half-normal prior
        of tau_0, tau_1, the between-strata spread of logit q0 and logit q1
        (:mod:`judgestats.bayes.stratified_model`): smaller pools harder.
    method : {"auto", "exact", "nuts"}, default "auto"
        "auto": the exact binary posterior for one stratum, NUTS on the hierarchical model for
        several; "exact" needs one stratum; "nuts" samples the hierarchical model even for one.
    draws, tune, chains : int
        NUTS draws kept and tuning steps per chain, and chains (for "exact": the size of the
        exact engine's :attr:`~StratifiedPosterior.idata`).
    target_accept : float, default 0.9
        NUTS target acceptance rate (raise it if divergences are reported).
    prob : float, default 0.95
        Level of the equal-tailed credible intervals.
    random_seed : int or numpy.random.Generator, optional
        The only source of randomness; the same seed gives the same draws.
    progressbar : bool, optional
        Draw a progress bar of the NUTS steps on stderr (None: only on a terminal, ``CI`` unset).
    compiled : NutsCache, optional
        A caller-held cache of compiled samplers (one per number of strata and
        ``target_accept``), reused across fits.
    cores : int, default 1
        Processes the NUTS chains run in: ``cores > 1`` forks ``cores - 1`` workers for this
        call (Linux only; elsewhere the chains run here). The draws do not depend on it: chain
        ``c`` always uses the c-th child of the seed. On two cores a warm 3-stratum fit takes
        about half the time (``python benchmarks/bench_stratified.py``).

    Returns
    -------
    StratifiedPosterior
        With ``method="exact"``, the numbers of :func:`judgestats.posterior` (exact engine) on
        the stratum's counts: nothing is pooled.

    Raises
    ------
    TypeError
        If ``data`` lacks the strata and counts, ``prior`` is not a StratifiedPrior,
        ``compiled`` is not a NutsCache, a count option is not an integer, or ``progressbar``
        is not True, False or None.
    ValueError
        For an unknown ``method``, ``"exact"`` with several strata, non-positive ``draws``,
        ``tune``, ``chains`` or ``cores``, or a ``target_accept`` or ``prob`` outside (0, 1).
    RuntimeError
        If NUTS fails (explained; no PyMC traceback).

    Warns
    -----
    JudgeStatsWarning
        Once, listing the flags that apply (convergence: ``r_hat``, ``low_ess``,
        ``divergences``).
    """
    prior = checked_prior(prior, StratifiedPrior)
    counts = StratifiedCounts.from_data(data, prior.tau_scale)
    method = _choose_method(check_choice(method, "method", METHODS), counts.size)
    draws, chains, tune = check_draws(draws, chains, tune=tune)
    cores = check_positive_int(cores, "cores")
    target_accept = check_level(target_accept, "target_accept")
    prob = check_level(prob, "prob")
    progressbar = check_flag(progressbar, "progressbar", allow_none=True)
    if compiled is not None and not isinstance(compiled, NutsCache):
        raise TypeError(
            f"`compiled` must be a judgestats.bayes.nuts.NutsCache or None, got "
            f"{type(compiled).__name__}."
        )
    rng = as_generator(random_seed)
    inputs = data.to_dict() if callable(getattr(data, "to_dict", None)) else counts.to_dict()
    if method == "exact":
        return _single_stratum(data, counts, prior, draws, chains, prob, rng, inputs)
    engine = compiled_stratified_nuts(counts.size, target_accept=target_accept, cache=compiled)
    values, stats = engine.run(
        counts, draws=draws, tune=tune, chains=chains, rng=rng, cores=cores, progressbar=progressbar
    )
    idata = stratified_idata({name: values[name] for name in OUTPUT_NAMES}, counts, stats)
    diagnostics = convergence(idata, CHECKED)
    flags = convergence_flags(diagnostics)
    if flags:
        details = "; ".join(f"{flag}: {FLAGS[flag]}" for flag in flags)
        warnings.warn(
            f"check this stratified posterior -- {details}.", JudgeStatsWarning, stacklevel=2
        )
    return _result(idata, counts, prior, prob, inputs, diagnostics, flags)


def _choose_method(method: str, size: int) -> str:
    if method == "auto":
        return "exact" if size == 1 else "nuts"
    if method == "exact" and size > 1:
        raise ValueError(
            f"`method` ('exact') needs one stratum (nothing pooled); these counts have "
            f"{size} strata: use 'nuts' or 'auto'."
        )
    return method


def _single_stratum(
    data: Any,
    counts: StratifiedCounts,
    prior: StratifiedPrior,
    draws: int,
    chains: int,
    prob: float,
    rng: np.random.Generator,
    inputs: dict[str, Any],
) -> StratifiedPosterior:
    """One stratum: the exact binary posterior, its numbers wrapped row by row."""
    from judgestats.bayes.binary_posterior import posterior

    post = posterior(data.stratum(counts.strata[0]), draws=draws, chains=chains, random_seed=rng)
    method = "exact_posterior_median+eti"
    rows = {}
    for var in _PARAMETERS:
        low, high = post.ci(prob, "eti", var)
        rows[var] = IntervalResult(
            float(post.quantile(0.5, var)), ConfidenceInterval(low, high), prob, method
        )
    source = post.idata.posterior  # type: ignore[attr-defined]
    posterior_group = {
        "theta": np.asarray(source["theta"]),
        "theta_s": np.asarray(source["theta"])[..., None],
        **{var: np.asarray(source[var])[..., None] for var in ("q0", "q1", "youden")},
    }
    return StratifiedPosterior(
        strata=counts.strata,
        theta=rows["theta"],
        theta_strata=(rows["theta"],),
        q0=(rows["q0"],),
        q1=(rows["q1"],),
        weights=(1.0,),
        method="exact",
        prior=prior,
        prob=prob,
        inputs=inputs,
        diagnostics=dict(post.diagnostics),
        flags=post.flags,
        idata=stratified_idata(posterior_group, counts),
    )


def _result(
    idata: Any,
    counts: StratifiedCounts,
    prior: StratifiedPrior,
    prob: float,
    inputs: dict[str, Any],
    diagnostics: dict[str, float],
    flags: tuple[str, ...],
) -> StratifiedPosterior:
    """Median and equal-tailed interval of every reported quantity, as IntervalResults."""
    posterior = idata.posterior
    levels = [0.5, (1 - prob) / 2, (1 + prob) / 2]
    label = "hierarchical_posterior_median+eti"

    def row(values: Any) -> IntervalResult:
        median, low, high = (float(v) for v in np.quantile(np.asarray(values).ravel(), levels))
        return IntervalResult(median, ConfidenceInterval(low, high), prob, label)

    def per_stratum(name: str) -> tuple[IntervalResult, ...]:
        return tuple(row(posterior[name].sel(stratum=s)) for s in counts.strata)

    return StratifiedPosterior(
        strata=counts.strata,
        theta=row(posterior["theta"]),
        theta_strata=per_stratum("theta_s"),
        q0=per_stratum("q0"),
        q1=per_stratum("q1"),
        weights=tuple(float(w) for w in counts.weights),
        method="nuts",
        prior=prior,
        prob=prob,
        inputs=inputs,
        diagnostics=diagnostics,
        flags=flags,
        idata=idata,
    )
