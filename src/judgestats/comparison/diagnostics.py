r"""Judge diagnostics of a two-model comparison, its warnings and notes, the verdict.

Sections refer to "Bias and Uncertainty in LLM-as-a-Judge Estimation" (the follow-up on bias and
uncertainty).

**Judge diagnostics** (Sec. 4.4, Sec. 7 items 5-6): J per model, and the instability
Delta J = J_A - J_B (with Delta q0, Delta q1), each from the model's own calibration set with an
Agresti-Caffo interval (one success and one failure added to every calibration arm, the
adjustment of Lee et al. v1 eq. 6). **Expected shared-calibration bias** (App. C): with A's
calibration applied to B, theta_B-tilde tends to (theta_B J_B + q0_A - q0_B) / J_A, so the
comparison is off by

.. math:: \mathrm{bias} = \frac{\theta_B\,\Delta J - \Delta q_0}{J_A}
          = \frac{\theta_B\,\Delta q_1 - (1 - \theta_B)\,\Delta q_0}{J_A}.

**Flags.** Every warning and note is a stable key (tests assert keys, never sentences) with a
generic sentence in the package catalogue (:data:`judgestats.results.FLAG_MESSAGES`): the new keys
are in :data:`WARNING_FLAGS` and :data:`NOTE_FLAGS`; :data:`REUSED_FLAGS` are keys other modules
register with the same meaning (``weak_judge``, ``p_outside_judge_range``,
``small_calibration``, and the NUTS convergence keys of :mod:`judgestats.bayes.diagnostics`). Each
:class:`Finding` also carries the specific sentence, with the numbers of this comparison.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeGuard

from judgestats._html import fmt_percent
from judgestats.bayes.diagnostics import ADVICE as POSTERIOR_ADVICE
from judgestats.bayes.diagnostics import FLAGS as POSTERIOR_FLAGS
from judgestats.comparison.estimators import rogan_gladen_counts
from judgestats.comparison.inputs import CompareInputs, youden_of
from judgestats.frequentist import SMALL_CALIBRATION, z_quantile
from judgestats.results import WEAK_YOUDEN, ConfidenceInterval, IntervalResult, register_flags

__all__ = [
    "CONVERGENCE_ADVICE",
    "INSTABILITY_NOTE",
    "LOW_J",
    "NOTE_FLAGS",
    "REUSED_FLAGS",
    "WARNING_FLAGS",
    "Finding",
    "JudgeDiagnostics",
    "COMMAND_LINE_WORDING",
    "SMALL_CALIBRATION_ADVICE",
    "bootstrap_findings",
    "command_line_text",
    "monte_carlo_findings",
    "convergence_finding",
    "data_findings",
    "diagnose",
    "expected_shared_bias",
    "input_notes",
    "interval_text",
    "judge_findings",
    "randomness_text",
    "verdict",
]

#: A judge whose J interval reaches below this is flagged as weak (Sec. 4.4).
LOW_J = WEAK_YOUDEN
#: An instability interval reaching beyond this (but including zero) earns a note.
INSTABILITY_NOTE = 0.1

#: Warnings only the comparison raises (generic sentences; the specific ones carry numbers).
WARNING_FLAGS = register_flags(
    {
        "instability_unchecked": "calibration is shared, but model B has no calibration labels "
        "of its own, so whether the judge treats both models alike (the instability J_A - J_B) "
        "cannot be checked; shared calibration needs that check to be defensible (the follow-up "
        "on bias and uncertainty Sec. 7)",
        "instability_under_shared": "the judge treats the two models differently (an interval "
        "of J_A - J_B, q0_A - q0_B or q1_A - q1_B excludes zero) and shared calibration routes "
        "this mismatch into the comparison, amplified by 1/J (the follow-up on bias and "
        "uncertainty App. C): use calibration='model_specific'",
        "shared_bias_dominates": "the expected shared-calibration bias (the follow-up on bias "
        "and uncertainty App. C) is as large as the estimated difference itself, so the sign of "
        "the difference may be an artefact of sharing the calibration",
        "bootstrap_monte_carlo_error": "the Monte Carlo error of the bootstrap interval's ends "
        "is large (a tenth of its width or more, or enough to move an end across zero, or the "
        "interval had to be widened to hold its estimate): the verdict may change with the "
        "seed; increase `n_resamples`",
        "bootstrap_dropped_replicates": "some bootstrap replicates had a judge no better than "
        "chance (J <= 0) and were dropped: the calibration set cannot rule out a useless judge, "
        "so the bootstrap intervals understate the uncertainty",
    }
)
#: Remarks that are not warnings.
NOTE_FLAGS = register_flags(
    {
        "identical_calibration_counts": "a and b carry identical calibration counts: taken to be "
        "one shared calibration set, so model B has none of its own",
        "unpaired_test_sets": "the test sets are treated as independent samples; pass "
        "item-level judgestats.ModelLabels to use the pairing of the test items",
        "instability_corrected": "the judge treats the two models differently (an interval of "
        "J_A - J_B, q0_A - q0_B or q1_A - q1_B excludes zero); model-specific calibration, used "
        "here, corrects each model with its own (q0, q1), where sharing model A's calibration "
        "would have biased the comparison (the follow-up on bias and uncertainty App. C)",
        "instability_inconclusive": "the instability J_A - J_B is not distinguishable from "
        f"zero, but its interval reaches beyond {INSTABILITY_NOTE:g}: larger calibration sets "
        "would settle whether the judge treats the two models alike",
        "bca_undefined": "the BCa interval is undefined here (every replicate fell on one side "
        "of the estimate); the percentile interval is reported instead",
    }
)
#: Keys registered elsewhere with the same meaning (the comparison's sentences add numbers):
#: by :mod:`judgestats.results` and :mod:`judgestats.bayes.diagnostics` (imported above).
REUSED_FLAGS = (
    "weak_judge",
    "p_outside_judge_range",
    "small_calibration",
    "r_hat",
    "low_ess",
    "divergences",
)


class Finding(NamedTuple):
    """One warning or note: its keys (usually one) and the specific sentence."""

    keys: tuple[str, ...]
    message: str


def _finding(key: str, message: str) -> Finding:
    return Finding((key,), message)


def interval_text(value: IntervalResult) -> str:
    """``+0.123 (+0.045, +0.201)``: an estimate and its interval, signed, three decimals."""
    return f"{value.estimate:+.3f} ({value.low:+.3f}, {value.high:+.3f})"


def expected_shared_bias(
    theta_b: float, q0_a: float, q1_a: float, q0_b: float, q1_b: float
) -> float:
    r"""Asymptotic bias of theta_A - theta_B when A's calibration corrects B.

    From App. C of the follow-up on bias and uncertainty.

    .. math:: \mathrm{bias} = \frac{\theta_B (J_A - J_B) - (q_{0A} - q_{0B})}{J_A}
              = \frac{\theta_B \Delta q_1 - (1 - \theta_B) \Delta q_0}{J_A}
    """
    return (theta_b * (q1_a - q1_b) - (1.0 - theta_b) * (q0_a - q0_b)) / (q0_a + q1_a - 1.0)


# -------------------------------------------------------------------------------------------
# judge diagnostics (closed form, the same for every method)
# -------------------------------------------------------------------------------------------
def _adjusted(k: int, m: int) -> tuple[float, float]:
    """Agresti-Caffo adjusted proportion (k + 1) / (m + 2) and its variance."""
    q = (k + 1) / (m + 2)
    return q, q * (1 - q) / (m + 2)


def _linear_interval(
    estimate: float,
    terms: list[tuple[int, int, int]],
    level: float,
    bound: float,
    offset: float = 0.0,
) -> IntervalResult:
    """Interval for offset + sum(sign * q) from adjusted proportions; terms are (sign, k, m)."""
    centre, variance = offset, 0.0
    for sign, k, m in terms:
        q, v = _adjusted(k, m)
        centre += sign * q
        variance += v
    half = z_quantile(level) * math.sqrt(variance)
    low, high = max(-bound, centre - half), min(bound, centre + half)
    return IntervalResult(
        float(estimate), ConfidenceInterval(float(low), float(high)), level, "agresti_caffo"
    )


@dataclass(frozen=True)
class JudgeDiagnostics:
    """J per model, the instability and its parts, and the expected shared-calibration bias."""

    youden: dict[str, IntervalResult | None]
    instability: IntervalResult | None
    delta_q0: IntervalResult | None
    delta_q1: IntervalResult | None
    expected_bias: float | None


def diagnose(inputs: CompareInputs, level: float) -> JudgeDiagnostics:
    """The judge diagnostics from each model's own calibration set (module docstring)."""
    youden: dict[str, IntervalResult | None] = {}
    for model, calib in (("A", inputs.calib_a), ("B", inputs.calib_b)):
        if calib is None:
            youden[model] = None
            continue
        k0, m0, k1, m1 = calib
        youden[model] = _linear_interval(
            youden_of(calib), [(1, k0, m0), (1, k1, m1)], level, 1.0, offset=-1.0
        )
    if inputs.calib_b is None:
        return JudgeDiagnostics(youden, None, None, None, None)
    (k0a, m0a, k1a, m1a), (k0b, m0b, k1b, m1b) = inputs.calib_a, inputs.calib_b
    q0a, q1a, q0b, q1b = k0a / m0a, k1a / m1a, k0b / m0b, k1b / m1b
    instability = _linear_interval(
        (q0a + q1a) - (q0b + q1b),
        [(1, k0a, m0a), (1, k1a, m1a), (-1, k0b, m0b), (-1, k1b, m1b)],
        level,
        2.0,
    )
    delta_q0 = _linear_interval(q0a - q0b, [(1, k0a, m0a), (-1, k0b, m0b)], level, 1.0)
    delta_q1 = _linear_interval(q1a - q1b, [(1, k1a, m1a), (-1, k1b, m1b)], level, 1.0)
    theta_b, _ = rogan_gladen_counts(inputs.k_b, inputs.n_b, inputs.calib_b)
    bias = expected_shared_bias(float(theta_b), q0a, q1a, q0b, q1b)
    return JudgeDiagnostics(youden, instability, delta_q0, delta_q1, float(bias))


# -------------------------------------------------------------------------------------------
# warnings and notes
# -------------------------------------------------------------------------------------------
def _excludes_zero(value: IntervalResult | None) -> TypeGuard[IntervalResult]:
    return value is not None and not value.low <= 0.0 <= value.high


def input_notes(keys: list[str]) -> list[Finding]:
    """The notes of the input checks (no numbers: the catalogue's sentence, as a sentence)."""
    return [_finding(key, NOTE_FLAGS[key] + ".") for key in keys]


def _instability_findings(
    inputs: CompareInputs, diag: JudgeDiagnostics, pct: str
) -> tuple[list[Finding], list[Finding]]:
    parts = (
        ("J_A - J_B", diag.instability),
        ("q0_A - q0_B", diag.delta_q0),
        ("q1_A - q1_B", diag.delta_q1),
    )
    unstable = "; ".join(
        f"{name} = {interval_text(value)}" for name, value in parts if _excludes_zero(value)
    )
    bias = diag.expected_bias
    if unstable and inputs.shared:
        message = (
            f"the judge treats the two models differently ({unstable}; {pct} "
            "intervals excluding zero). Shared calibration routes this mismatch into the "
            f"comparison, amplified by 1/J (expected bias {bias:+.3f}, the follow-up on bias and "
            "uncertainty App. C): use calibration='model_specific'."
        )
        return [_finding("instability_under_shared", message)], []
    if unstable:
        message = (
            f"the judge treats the two models differently ({unstable}); "
            "model-specific calibration, used here, corrects each model with its own (q0, q1). "
            f"Sharing model A's calibration would have biased the comparison by about "
            f"{bias:+.3f} (the follow-up on bias and uncertainty App. C)."
        )
        return [], [_finding("instability_corrected", message)]
    spread = diag.instability
    if spread is not None and max(abs(spread.low), abs(spread.high)) > INSTABILITY_NOTE:
        message = (
            f"the instability J_A - J_B = {interval_text(spread)} is not "
            f"distinguishable from zero, but the data cannot rule out a difference beyond "
            f"{INSTABILITY_NOTE:g}: larger calibration sets would settle it."
        )
        return [], [_finding("instability_inconclusive", message)]
    return [], []


def judge_findings(
    inputs: CompareInputs, diag: JudgeDiagnostics, estimate: float, level: float
) -> tuple[list[Finding], list[Finding]]:
    """Warnings and notes about the judge: weak J, instability, the shared-calibration bias."""
    found: list[Finding] = []
    pct = fmt_percent(level)
    for model, j in diag.youden.items():
        if j is not None and j.low < LOW_J:
            found.append(
                _finding(
                    "weak_judge",
                    f"judge quality is low for model {model}: J = {j.estimate:.3f}, {pct} "
                    f"interval ({j.low:.3f}, {j.high:.3f}) reaches below {LOW_J:g}. Every "
                    "corrected estimate divides by J, so it is unstable; treat the comparison "
                    "with caution.",
                )
            )
    if inputs.calib_b is None:
        key = "instability_unchecked"
        found.append(_finding(key, WARNING_FLAGS[key] + "."))
        return found, []
    unstable, notes = _instability_findings(inputs, diag, pct)
    found += unstable
    bias = diag.expected_bias
    if inputs.shared and bias is not None and abs(bias) >= abs(estimate) > 0.0:
        found.append(
            _finding(
                "shared_bias_dominates",
                f"the expected shared-calibration bias ({bias:+.3f}) is as large as the "
                f"estimate itself ({estimate:+.3f}): its sign may be an artefact of sharing the "
                "calibration.",
            )
        )
    return found, notes


#: What to do about a small calibration arm, per method in use (never the method in use itself).
SMALL_CALIBRATION_ADVICE = {
    "delta": "the normal approximations of the delta method are rough; prefer "
    "method='bootstrap' or, better, method='bayes'",
    "bootstrap": "the bootstrap resamples so few labels coarsely and its intervals can "
    "undercover; method='bayes' models the calibration counts exactly",
    "bayes": "the posterior, used here, needs no normal approximation, but with so few labels "
    "the prior weighs more: check that the verdict holds under another `prior`",
}


def data_findings(
    inputs: CompareInputs, theta: dict[str, float], method: str = "delta"
) -> list[Finding]:
    """Warnings about the counts: an estimate outside [0, 1], a small calibration arm.

    The small-arm advice depends on ``method``, the method in use, and never recommends it.
    """
    found = [
        _finding(
            "p_outside_judge_range",
            f"the Rogan-Gladen estimate for model {model} ({value:.3f}) lies outside [0, 1]: "
            "its judged-correct rate is outside the range the estimated judge can produce. "
            "It is reported unclipped, so the difference stays unbiased to first order.",
        )
        for model, value in theta.items()
        if not 0.0 <= value <= 1.0
    ]
    used = {"A": inputs.calib_a, "B": inputs.calib_b_used}
    small = sorted({m for m, (_, m0, _, m1) in used.items() if min(m0, m1) < SMALL_CALIBRATION})
    if small:
        found.append(
            _finding(
                "small_calibration",
                f"a calibration arm used for model {' and '.join(small)} has fewer than "
                f"{SMALL_CALIBRATION} items: {SMALL_CALIBRATION_ADVICE[method]}.",
            )
        )
    return found


def bootstrap_findings(
    n_dropped: int, n_resamples: int, bca_undefined: bool
) -> tuple[list[Finding], list[Finding]]:
    """The bootstrap's warning (replicates dropped) and note (BCa replaced by percentile)."""
    found = []
    if n_dropped:
        found.append(
            _finding(
                "bootstrap_dropped_replicates",
                f"{n_dropped} of {n_resamples} bootstrap replicates had a judge no better than "
                "chance (J <= 0) and were dropped: the calibration set cannot rule out a useless "
                "judge, so the bootstrap intervals understate the uncertainty.",
            )
        )
    notes = [_finding("bca_undefined", NOTE_FLAGS["bca_undefined"] + ".")] if bca_undefined else []
    return found, notes


#: An end's Monte Carlo half-width above this share of the interval's width is flagged.
MC_TOLERANCE = 0.1


def monte_carlo_findings(ci: ConfidenceInterval, details: dict[str, Any]) -> list[Finding]:
    """A warning when the bootstrap interval's ends are not settled by its replicates."""
    bands = details["monte_carlo_band"]
    errors = details["monte_carlo_error"]
    width = ci.high - ci.low
    if not all(math.isfinite(e) for e in errors):
        return []
    straddles = any(low < 0.0 < high for low, high in bands)
    if not (max(errors) > MC_TOLERANCE * width or straddles or details["extended_to_estimate"]):
        return []
    n = details["n_resamples"]
    return [
        _finding(
            "bootstrap_monte_carlo_error",
            f"with {n} replicates the interval's ends are uncertain by about "
            f"+/-{errors[0]:.3f} and +/-{errors[1]:.3f} (Monte Carlo bands "
            f"({bands[0][0]:+.3f}, {bands[0][1]:+.3f}) and ({bands[1][0]:+.3f}, "
            f"{bands[1][1]:+.3f}); interval width {width:.3f})"
            + (
                "; the interval was widened to hold its estimate"
                if details["extended_to_estimate"]
                else ""
            )
            + ": the verdict may change with the seed; increase `n_resamples`.",
        )
    ]


#: What to do about a comparison posterior that did not converge.
CONVERGENCE_ADVICE = "increase `draws` and `tune`, try a more informative `prior`"


def convergence_finding(flags: tuple[str, ...], diagnostics: dict[str, Any]) -> list[Finding]:
    """One warning for the NUTS convergence flags (keys of :mod:`judgestats.bayes.diagnostics`)."""
    if not flags:
        return []
    # the single-model advice (method='exact') does not apply: the comparison has its own
    details = "; ".join(
        POSTERIOR_FLAGS[flag].removesuffix(f"; {POSTERIOR_ADVICE}") for flag in flags
    )
    ess = min(diagnostics["ess_bulk"], diagnostics["ess_tail"])
    message = (
        f"the comparison posterior may be unreliable ({details}; max R-hat "
        f"{diagnostics['r_hat']:.3f}, min ESS {ess:.0f}, {diagnostics['divergences']} "
        f"divergences): {CONVERGENCE_ADVICE}."
    )
    return [Finding(tuple(flags), message)]


#: The advice above speaks Python; the command line says the same with its options.
COMMAND_LINE_WORDING = {
    "method='bootstrap'": "--method bootstrap",
    "method='bayes'": "--method bayes",
    "calibration='model_specific'": "--calibration model_specific",
    "increase `n_resamples`": "increase --n-resamples",
    CONVERGENCE_ADVICE: "increase --draws and --tune, try a more informative prior "
    "(--prior-theta, --sigma-scale)",
    "another `prior`": "another prior (--prior-theta, --sigma-scale)",
    "pass item-level judgestats.ModelLabels": "give item-level label files (--labels-a and "
    "--labels-b, or --log-a and --log-b with --human)",
}


def command_line_text(text: str) -> str:
    """``text`` with the Python advice of this module in command-line options."""
    for python, option in COMMAND_LINE_WORDING.items():
        text = text.replace(python, option)
    return text


# -------------------------------------------------------------------------------------------
# the verdict and what the intervals cover
# -------------------------------------------------------------------------------------------
def verdict(
    estimate: float,
    ci: ConfidenceInterval,
    level: float,
    n_warnings: int,
    prob_a_better: float | None,
) -> str:
    """The conclusion about theta_A - theta_B, weakened when the diagnostics warn."""
    pct = fmt_percent(level)
    probability = "" if prob_a_better is None else f"; P(theta_A > theta_B) = {prob_a_better:.3f}"
    if ci.low <= 0.0 <= ci.high:
        text = (
            f"no clear difference: the {pct} interval ({ci.low:+.3f}, {ci.high:+.3f}) "
            f"includes zero{probability}."
        )
        return text + (" The diagnostics warn as well (see above)." if n_warnings else "")
    better, worse = ("A", "B") if ci.low > 0.0 else ("B", "A")
    text = (
        f"model {better} is more accurate than model {worse}: difference {estimate:+.3f}, "
        f"{pct} interval ({ci.low:+.3f}, {ci.high:+.3f}) excludes zero{probability}."
    )
    if n_warnings:
        return text + (
            f" Claim weakened: {n_warnings} diagnostic warning(s) above; report the "
            "direction as tentative, not established."
        )
    return text + " The judge diagnostics raise no warning."


def randomness_text(inputs: CompareInputs, method: str, details: dict[str, Any]) -> str:
    """Which sources of randomness the intervals of ``method`` cover (Sec. 7 item 4)."""
    test = (
        "paired test items (both models together)"
        if inputs.cells is not None
        else "test items of each model (independently)"
    )
    calib = (
        "the one shared calibration set"
        if inputs.shared
        else "both calibration sets (independently)"
    )
    if method == "delta":
        how = (
            "paired per-item differences"
            if inputs.cells is not None
            else "independent binomial test sets"
        )
        return (
            f"delta method (the follow-up on bias and uncertainty App. B; test term from "
            f"{how}): covers sampling of the {test} and of {calib}; per-model rows use "
            "Lang-Reiczigel intervals"
        )
    if method == "bootstrap":
        return (
            f"bootstrap, {details['n_resamples']} replicates, {details['interval']} "
            f"intervals: resamples the {test}, and separately each calibration arm of "
            f"{calib}"
        )
    likelihood = "model A's calibration only" if inputs.shared else "both calibration sets"
    return (
        "posterior equal-tailed credible intervals of the hierarchical model (likelihood: "
        f"test verdicts and {likelihood}; (q0, q1) partially pooled across the models)"
    )
