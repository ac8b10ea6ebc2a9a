"""The entry point of the two-model comparison: :func:`compare`.

Method-specific options are grouped by method (``bootstrap={...}``, ``bayes={...}``), the way
bambi separates building a model from fitting it: the common options (design, method, level,
seed) are keywords of :func:`compare`, the options of one method a mapping that applies to that
method only.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from judgestats._validate import (
    MAX_SAMPLES,
    as_generator,
    check_choice,
    check_draws,
    check_level,
    check_positive_int,
)
from judgestats.bayes.diagnostics import TARGET_ACCEPT
from judgestats.comparison.diagnostics import (
    Finding,
    bootstrap_findings,
    convergence_finding,
    data_findings,
    diagnose,
    input_notes,
    judge_findings,
    monte_carlo_findings,
    randomness_text,
    verdict,
)
from judgestats.comparison.estimators import (
    MethodOutput,
    point_estimates,
    run_bayes,
    run_bootstrap,
    run_delta,
)
from judgestats.comparison.inputs import CompareInputs, ModelLabels, normalise_inputs
from judgestats.comparison.result import Comparison
from judgestats.exceptions import JudgeStatsWarning

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from judgestats._typing import SeedLike
    from judgestats.data import JudgeData

__all__ = [
    "BAYES_OPTIONS",
    "BOOTSTRAP_INTERVALS",
    "BOOTSTRAP_OPTIONS",
    "CALIBRATION_DESIGNS",
    "METHODS",
    "compare",
    "method_options",
]

CALIBRATION_DESIGNS = ("model_specific", "shared")
METHODS = ("delta", "bootstrap", "bayes")
#: The intervals the bootstrap reports (``bootstrap={"interval": ...}`` picks ``.ci``).
BOOTSTRAP_INTERVALS = ("bca", "percentile")
#: Options of ``method="bootstrap"`` and their defaults.
BOOTSTRAP_OPTIONS: Mapping[str, Any] = {"n_resamples": 4000, "interval": "bca"}
#: Options of ``method="bayes"`` (NUTS settings of the hierarchical model) and their defaults.
BAYES_OPTIONS: Mapping[str, Any] = {
    "prior": None,
    "draws": 1000,
    "tune": 1000,
    "chains": 4,
    "target_accept": TARGET_ACCEPT,
    "compiled": None,
    "progressbar": None,
}
_DEFAULTS = {"bootstrap": BOOTSTRAP_OPTIONS, "bayes": BAYES_OPTIONS}


def method_options(
    method: str, bootstrap: Mapping[str, Any] | None, bayes: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The checked options of ``method``, defaults filled in (empty for ``"delta"``).

    Raises
    ------
    TypeError
        If ``bootstrap`` or ``bayes`` is not a mapping (or None), or an option has a bad type.
    ValueError
        For options of a method other than ``method``, an unknown option name, or a bad value.
    """
    for name, given in (("bootstrap", bootstrap), ("bayes", bayes)):
        if given is None:
            continue
        if not isinstance(given, Mapping):
            raise TypeError(
                f"`{name}` must be a mapping of option names to values, e.g. "
                f"{{{next(iter(_DEFAULTS[name]))!r}: ...}}, or None; got "
                f"{type(given).__name__}."
            )
        if name != method:
            raise ValueError(
                f"`{name}` ({dict(given)!r}) holds options of method={name!r}, but method is "
                f"{method!r}; drop `{name}` or set method={name!r}."
            )
        unknown = [key for key in given if key not in _DEFAULTS[name]]
        if unknown:
            allowed = ", ".join(repr(key) for key in _DEFAULTS[name])
            raise ValueError(
                f"`{name}` has no option {unknown[0]!r}; the options of method={name!r} are "
                f"{allowed}."
            )
    if method == "bootstrap":
        given = {**BOOTSTRAP_OPTIONS, **(bootstrap or {})}
        return {
            "n_resamples": check_positive_int(
                given["n_resamples"], "n_resamples", maximum=MAX_SAMPLES
            ),
            "interval": check_choice(given["interval"], "interval", BOOTSTRAP_INTERVALS),
        }
    if method == "bayes":
        given = {**BAYES_OPTIONS, **(bayes or {})}
        draws, chains, tune = check_draws(given["draws"], given["chains"], tune=given["tune"])
        sizes = {"draws": draws, "tune": tune, "chains": chains}
        return {
            **given,
            **sizes,
            "target_accept": check_level(given["target_accept"], "target_accept"),
        }
    return {}


def _run_method(
    method: str,
    inputs: CompareInputs,
    level: float,
    options: dict[str, Any],
    rng: np.random.Generator,
) -> tuple[MethodOutput, list[Finding], list[Finding]]:
    """The method's output and its own warnings and notes."""
    if method == "delta":
        return run_delta(inputs, level), [], []
    if method == "bootstrap":
        n_resamples = options["n_resamples"]
        output = run_bootstrap(inputs, level, n_resamples, options["interval"], rng)
        found, notes = bootstrap_findings(output.n_dropped, n_resamples, output.bca_undefined)
        return output, found + monte_carlo_findings(output.ci, output.extras), notes
    output = run_bayes(inputs, level, options, rng)
    found = convergence_finding(output.convergence_flags, output.extras["convergence"])
    return output, found, []


def _keyed(findings: list[Finding]) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """Keys in order of first appearance, and each key's sentences."""
    messages: dict[str, tuple[str, ...]] = {}
    for finding in findings:
        for key in finding.keys:
            messages[key] = (*messages.get(key, ()), finding.message)
    return tuple(messages), messages


def compare(
    a: JudgeData | ModelLabels,
    b: JudgeData | ModelLabels,
    *,
    calibration: str = "model_specific",
    method: str = "delta",
    confidence_level: float = 0.95,
    random_seed: SeedLike = None,
    bootstrap: Mapping[str, Any] | None = None,
    bayes: Mapping[str, Any] | None = None,
) -> Comparison:
    """Compare the true accuracies of two models judged by the same judge: theta_A - theta_B.

    Parameters
    ----------
    a, b : JudgeData or ModelLabels
        Model A and model B. Two :class:`ModelLabels` give a paired design (the same test items,
        in the same order, judged for both models); :class:`~judgestats.JudgeData` counts give
        independent test sets. With ``calibration="shared"`` the calibration of ``a`` corrects
        both models and that of ``b`` (if any) is used only for the diagnostics.
    calibration : {"model_specific", "shared"}
        Correct each model with its own calibration set, or both with model A's (the follow-up
        on bias and uncertainty Sec. 4.1; shared calibration is biased when the judge treats the
        models differently).
    method : {"delta", "bootstrap", "bayes"}
        Delta-method interval (the follow-up on bias and uncertainty App. B); bootstrap
        resampling the test items jointly (pairing kept) and every calibration arm separately;
        or the posterior of the hierarchical model of :mod:`judgestats.bayes.compare_model`.
    confidence_level : float, default 0.95
        Level of every interval (credible probability for ``"bayes"``).
    random_seed : int or numpy.random.Generator, optional
        The only source of randomness (bootstrap and bayes).
    bootstrap : mapping, optional
        Options of ``method="bootstrap"`` only (:data:`BOOTSTRAP_OPTIONS`):
        ``n_resamples`` (int, default 4000, at least 200), the number of replicates; a
        warning ``bootstrap_monte_carlo_error`` (which weakens the verdict) says when the
        replicates do not settle the interval's ends; ``interval``
        (``"bca"``, the default, or ``"percentile"``), which interval is ``.ci`` (both are in
        ``.intervals``). The bootstrap is vectorised: 4000 replicates take milliseconds.
    bayes : mapping, optional
        Options of ``method="bayes"`` only (:data:`BAYES_OPTIONS`): ``prior``
        (:class:`~judgestats.bayes.compare_model.ComparePrior`, e.g. the scale of the half-normal
        prior on the between-model spread sigma); the NUTS settings ``draws`` (1000), ``tune``
        (1000), ``chains`` (4), ``target_accept`` (0.9); ``compiled``, a
        :class:`judgestats.bayes.nuts.NutsCache` the caller keeps to reuse compilation across
        comparisons (without one each call compiles the model); ``progressbar`` (bool; default
        None: a bar of the NUTS steps on stderr only when stderr is a terminal and the ``CI``
        environment variable is unset).

    Returns
    -------
    Comparison
        With the estimate, its interval, J per model, the instability J_A - J_B, the expected
        shared-calibration bias (the follow-up on bias and uncertainty App. C), flag keys with
        specific sentences (``flags``, ``flag_messages``; notes in ``note_keys``, ``notes``) and
        a verdict. Warnings are also issued as one :class:`~judgestats.JudgeStatsWarning`; they
        never stop the comparison from being reported.

    Raises
    ------
    TypeError
        If ``a`` or ``b`` is neither JudgeData nor ModelLabels, or ``bootstrap`` / ``bayes`` is
        not a mapping.
    ValueError
        For an unknown design, method, option or interval, options of another method, paired
        label arrays of different lengths, a calibration set without items of one class, model
        B without calibration labels under ``"model_specific"``, or a judge no better than
        chance (J <= 0) on either model.

    Examples
    --------
    >>> from judgestats import JudgeData, compare
    >>> a = JudgeData(k=700, n=1000, k0=170, m0=200, k1=180, m1=200)
    >>> b = JudgeData(k=600, n=1000, k0=168, m0=200, k1=182, m1=200)
    >>> result = compare(a, b)
    >>> round(result.estimate, 4), result.flags
    (0.1467, ())
    >>> result = compare(a, b, method="bootstrap", random_seed=1, bootstrap={"n_resamples": 2000})
    >>> result.details["n_resamples"], result.note_keys
    (2000, ('unpaired_test_sets',))
    """
    shared = check_choice(calibration, "calibration", CALIBRATION_DESIGNS) == "shared"
    method = check_choice(method, "method", METHODS)
    level = check_level(confidence_level)
    options = method_options(method, bootstrap, bayes)
    rng = as_generator(random_seed)
    inputs, input_keys = normalise_inputs(a, b, shared)
    output, method_warnings, method_notes = _run_method(method, inputs, level, options, rng)
    diag = diagnose(inputs, level)
    judge_warnings, judge_notes = judge_findings(inputs, diag, output.estimate, level)
    theta = dict(zip("AB", point_estimates(inputs), strict=True))
    found = judge_warnings + data_findings(inputs, theta, method) + method_warnings
    flags, messages = _keyed(found)
    note_keys, note_messages = _keyed(input_notes(input_keys) + judge_notes + method_notes)
    result = Comparison(
        estimate=float(output.estimate),
        ci=output.ci,
        confidence_level=level,
        method=method,
        calibration="shared" if shared else "model_specific",
        paired=inputs.cells is not None,
        theta_a=output.theta_a,
        theta_b=output.theta_b,
        youden=diag.youden,
        instability=diag.instability,
        delta_q0=diag.delta_q0,
        delta_q1=diag.delta_q1,
        expected_bias=diag.expected_bias,
        flags=flags,
        note_keys=note_keys,
        messages=messages | note_messages,
        verdict=verdict(output.estimate, output.ci, level, len(found), output.prob_a_better),
        intervals=output.intervals,
        inputs=inputs.to_dict(),
        se=output.se,
        prob_a_better=output.prob_a_better,
        idata=output.idata,
        details=output.extras,
        draws=output.draws,
        randomness=randomness_text(inputs, method, output.extras),
    )
    if found:
        warnings.warn(" ".join(f.message for f in found), JudgeStatsWarning, stacklevel=2)
    return result
