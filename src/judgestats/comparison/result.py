"""The result of :func:`judgestats.compare`: numbers, the Sec. 7 checklist report, a picture.

Sections refer to "Bias and Uncertainty in LLM-as-a-Judge Estimation" (the follow-up on bias and
uncertainty). :class:`Comparison` follows the result contract of :mod:`judgestats.results`: every
(estimate, low, high) is an :class:`~judgestats.results.IntervalResult`, ``flags`` are stable keys,
:meth:`~Comparison.summary` returns a DataFrame and prints nothing, ``str(result)`` is the
printed report.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from judgestats._html import fmt_percent
from judgestats._json import to_json
from judgestats.comparison.diagnostics import interval_text
from judgestats.results import ConfidenceInterval, IntervalResult, Result

if TYPE_CHECKING:  # pragma: no cover
    import arviz as az
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["Comparison"]


# -------------------------------------------------------------------------------------------
# JSON helpers
# -------------------------------------------------------------------------------------------
def _json_interval(value: IntervalResult | None) -> dict[str, Any] | None:
    if value is None:
        return None
    return dict(zip(("estimate", "low", "high"), value, strict=True))


def _sentences(keys: tuple[str, ...], messages: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The specific sentences of ``keys`` in order, each once (several keys may share one)."""
    return tuple(dict.fromkeys(message for key in keys for message in messages[key]))


#: Estimator and interval of the difference row, by ``method`` (the bootstrap's depends on
#: the interval reported).
_DIFFERENCE_METHODS = {"delta": "rogan_gladen+delta", "bayes": "posterior_median+eti"}


@dataclass(frozen=True, eq=False)
class Comparison(Result):
    """theta_A - theta_B for two models judged by the same judge, with the judge diagnostics.

    Attributes
    ----------
    estimate : float
        theta_A - theta_B (Rogan-Gladen per model, unclipped; posterior median for ``"bayes"``).
    ci : ConfidenceInterval
        Interval of the difference at ``confidence_level`` (credible interval for ``"bayes"``).
    theta_a, theta_b : IntervalResult
        Per-model accuracy with its interval.
    youden : dict
        ``{"A": IntervalResult, "B": IntervalResult or None}``: J = q0 + q1 - 1 from each
        model's own calibration set (Agresti-Caffo interval); ``"B"`` is None when model B has no
        calibration labels.
    instability, delta_q0, delta_q1 : IntervalResult or None
        J_A - J_B, q0_A - q0_B, q1_A - q1_B (the follow-up on bias and uncertainty Sec. 4.4);
        None without B's calibration.
    expected_bias : float or None
        Bias of the shared-calibration comparison at the estimates (the follow-up on bias and
        uncertainty App. C).
    flags : tuple of str
        Keys of the warnings (:data:`judgestats.results.FLAG_MESSAGES`; also issued as one
        JudgeStatsWarning). :attr:`flag_messages` gives the specific sentences.
    note_keys : tuple of str
        Keys of the remarks that are not warnings; :attr:`notes` gives their sentences.
    messages : dict
        The specific sentences (with this comparison's numbers) of every warning and note key.
    verdict : str
        The conclusion, weakened when the diagnostics warn.
    prob_a_better : float or None
        Posterior P(theta_A > theta_B) (``method="bayes"`` only).
    idata : arviz.InferenceData or None
        The posterior (``method="bayes"`` only).
    """

    estimate: float
    ci: ConfidenceInterval
    confidence_level: float
    method: str
    calibration: str
    paired: bool
    theta_a: IntervalResult
    theta_b: IntervalResult
    youden: dict[str, IntervalResult | None]
    instability: IntervalResult | None
    delta_q0: IntervalResult | None
    delta_q1: IntervalResult | None
    expected_bias: float | None
    flags: tuple[str, ...]
    note_keys: tuple[str, ...]
    messages: dict[str, tuple[str, ...]]
    verdict: str
    intervals: dict[str, ConfidenceInterval]
    inputs: dict[str, Any]
    se: float | None = None
    prob_a_better: float | None = None
    idata: az.InferenceData | None = field(default=None, repr=False)
    details: dict[str, Any] = field(default_factory=dict, repr=False)
    draws: dict[str, np.ndarray] | None = field(default=None, repr=False)
    randomness: str = ""

    title: ClassVar[str] = "judgestats comparison, theta_A - theta_B"

    # -- flags ----------------------------------------------------------------------------------
    @property
    def flag_messages(self) -> list[str]:
        """The specific sentence of each flag, in the order of :attr:`flags`."""
        return [" ".join(self.messages[key]) for key in self.flags]

    @property
    def warnings(self) -> tuple[str, ...]:
        """The warnings as sentences, in the order they are printed (read-only)."""
        return _sentences(self.flags, self.messages)

    @property
    def notes(self) -> tuple[str, ...]:
        """The notes as sentences, in the order they are printed (read-only)."""
        return _sentences(self.note_keys, self.messages)

    # -- tables ---------------------------------------------------------------------------------
    @property
    def difference(self) -> IntervalResult:
        """theta_A - theta_B with its interval, as the row of a table."""
        method = _DIFFERENCE_METHODS.get(self.method)
        if method is None:  # bootstrap: the interval reported (BCa, or percentile)
            method = f"rogan_gladen+bootstrap_{self.details.get('interval', 'bca')}"
        return IntervalResult(self.estimate, self.ci, self.confidence_level, method, self.flags)

    def _rows(self) -> dict[str, tuple[float, float, float] | None]:
        rows: dict[str, IntervalResult | None] = {
            "theta_A": self.theta_a,
            "theta_B": self.theta_b,
            "theta_A - theta_B": self.difference,
            "J_A": self.youden["A"],
            "J_B": self.youden["B"],
            "J_A - J_B": self.instability,
            "q0_A - q0_B": self.delta_q0,
            "q1_A - q1_B": self.delta_q1,
        }
        out: dict[str, tuple[float, float, float] | None] = {
            name: None if value is None else (value.estimate, value.low, value.high)
            for name, value in rows.items()
        }
        if self.expected_bias is not None:
            out["expected shared-calibration bias"] = (
                self.expected_bias,
                float("nan"),
                float("nan"),
            )
        return out

    def summary(self) -> pd.DataFrame:
        """Return the numbers as a DataFrame (one row per quantity); prints nothing.

        Rows: per-model theta, the difference, J per model, the instability and its parts, the
        expected shared-calibration bias; columns ``estimate``, ``low``, ``high``. Quantities
        that cannot be computed (model B without calibration labels) are NaN. The flags, the
        notes and the verdict are also in the frame's ``.attrs``. ``str(result)`` (or
        :meth:`report`) is the Sec. 7 checklist as text.
        """
        import pandas as pd

        nan = (float("nan"),) * 3
        frame = pd.DataFrame.from_dict(
            {name: nan if value is None else value for name, value in self._rows().items()},
            orient="index",
            columns=["estimate", "low", "high"],
        )
        frame.index.name = "quantity"
        frame.attrs.update(
            flags=list(self.flags),
            warnings=list(self.warnings),
            notes=list(self.notes),
            verdict=self.verdict,
        )
        return frame

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of every number, the design, the flags and notes, and the verdict.

        ``flags`` and ``notes`` map each key to its specific sentence.
        """
        return to_json(
            {
                "estimand": "theta_A - theta_B",
                "method": self.method,
                "calibration": self.calibration,
                "paired": self.paired,
                "confidence_level": self.confidence_level,
                "inputs": self.inputs,
                "estimate": self.estimate,
                "ci": list(self.ci),
                "se": self.se,
                "intervals": {k: list(ci) for k, ci in self.intervals.items()},
                "theta_a": _json_interval(self.theta_a),
                "theta_b": _json_interval(self.theta_b),
                "youden": {k: _json_interval(v) for k, v in self.youden.items()},
                "instability": _json_interval(self.instability),
                "delta_q0": _json_interval(self.delta_q0),
                "delta_q1": _json_interval(self.delta_q1),
                "expected_shared_bias": self.expected_bias,
                "prob_a_better": self.prob_a_better,
                "intervals_cover": self.randomness,
                "details": self.details,
                "flags": {key: " ".join(self.messages[key]) for key in self.flags},
                "notes": {key: " ".join(self.messages[key]) for key in self.note_keys},
                "verdict": self.verdict,
            }
        )

    # -- the printed report: Sec. 7 checklist of the follow-up on bias and uncertainty ---------
    def report(self) -> str:
        """The Sec. 7 checklist as a printed report, warnings first (``str(result)``)."""
        inputs = self.inputs
        pct = fmt_percent(self.confidence_level)
        lines = [f"judgestats comparison of two models judged by the same judge ({pct} intervals)"]
        lines += [f"  WARNING: {text}" for text in self.warnings]

        def calib(c: dict[str, int] | None) -> str:
            return "none" if c is None else (f"q0 = {c['k0']}/{c['m0']}, q1 = {c['k1']}/{c['m1']}")

        design = (
            f"shared: model A's calibration ({calib(inputs['a']['calibration'])}) corrects "
            "both models"
            if self.calibration == "shared"
            else f"model-specific: A {calib(inputs['a']['calibration'])}; "
            f"B {calib(inputs['b']['calibration'])}"
        )
        test = (
            f"{inputs['a']['n']} paired test items"
            if self.paired
            else f"test sets of {inputs['a']['n']} (A) and {inputs['b']['n']} (B) items"
        )
        lines += [
            f"  1. estimand      : theta_A - theta_B (true accuracy), bias-corrected with "
            f"Rogan-Gladen per model; {test}",
            "  2. task          : model comparison (not single-model estimation)",
            f"  3. calibration   : {design}",
            f"  4. intervals     : {self.randomness}; not repeated judge runs",
            f"     {'quantity':<34}{'estimate':>9}{'low':>9}{'high':>9}",
        ]
        for name, value in self._rows().items():
            if value is not None:
                numbers = "".join(f"{v:9.4f}" if math.isfinite(v) else f"{'':>9}" for v in value)
                lines.append(f"     {name:<34}{numbers}")
        youden = "; ".join(
            f"J_{m} = {interval_text(v)}" if v is not None else f"J_{m}: no calibration of its own"
            for m, v in self.youden.items()
        )
        lines.append(f"  5. judge quality : {youden}")
        if self.instability is None:
            lines.append("  6. instability   : cannot be assessed (model B has no calibration)")
        else:
            lines.append(
                f"  6. instability   : J_A - J_B = {interval_text(self.instability)}; "
                f"expected shared-calibration bias {self.expected_bias:+.4f}"
            )
        lines.append(f"  7. verdict       : {self.verdict}")
        lines += [f"  note: {text}" for text in self.notes]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.report()

    def _repr_html_(self) -> str:
        """Compact HTML table for notebooks: every quantity, the flags, verdict and notes."""
        from judgestats._html import fmt4, result_block

        title = (
            f"{self.title} ({fmt_percent(self.confidence_level)} intervals; {self.method}, "
            f"{self.calibration} calibration)"
        )
        rows = [
            (name, *(fmt4(v) for v in value))
            for name, value in self._rows().items()
            if value is not None
        ]
        notes = (
            list(zip(self.flags, self.flag_messages, strict=True))
            + [("verdict", self.verdict)]
            + [(key, " ".join(self.messages[key])) for key in self.note_keys]
        )
        return result_block(title, ("quantity", "estimate", "low", "high"), rows, notes)

    def __repr__(self) -> str:
        return (
            f"Comparison(estimate={self.estimate:.6g}, ci=({self.ci.low:.6g}, "
            f"{self.ci.high:.6g}), method={self.method!r}, calibration={self.calibration!r}, "
            f"paired={self.paired}, flags={self.flags!r})"
        )

    # -- picture -------------------------------------------------------------------------------
    def plot(self, ax: Axes | Sequence[Axes] | None = None) -> Axes:
        """Per-model accuracies (left) and the difference (right); returns the difference's Axes.

        Bootstrap replicates and posterior draws are drawn as histograms, the delta method as its
        normal approximation; every interval is a bar under the curves.

        Parameters
        ----------
        ax : matplotlib Axes, or a pair of Axes, optional
            None draws both panels in a new figure (the per-model panel is
            ``result.plot().figure.axes[0]``); one Axes receives the difference panel only; a
            pair receives both panels.

        Returns
        -------
        matplotlib.axes.Axes
            The Axes of the difference theta_A - theta_B.
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, pair = plt.subplots(1, 2, figsize=(10, 3.8))
            left, right = pair[0], pair[1]
        elif isinstance(ax, (Sequence, np.ndarray)):
            left, right = ax[0], ax[1]
        else:
            left, right = None, ax
        if left is not None:
            for colour, (name, value) in zip(
                ("C0", "C1"), (("A", self.theta_a), ("B", self.theta_b)), strict=True
            ):
                values = None if self.draws is None else self.draws[f"theta_{name.lower()}"]
                _draw_distribution(left, values, value, None, colour, f"model {name}")
            left.set_xlabel("true accuracy theta")
            left.set_ylabel("density")
            left.legend(fontsize="small", loc="best")
        values = None if self.draws is None else self.draws["difference"]
        _draw_distribution(right, values, self.difference, self.se, "C2", "theta_A - theta_B")
        right.axvline(0.0, color="black", lw=0.8)
        right.set_xlabel("theta_A - theta_B")
        title = f"{self.method}, {self.calibration} calibration"
        if self.prob_a_better is not None:
            title += f", P(A > B) = {self.prob_a_better:.3f}"
        right.set_title(title, fontsize="medium")
        right.set_ylabel("density")
        right.legend(fontsize="small", loc="best")
        return right


def _draw_distribution(
    ax: Any,
    values: np.ndarray | None,
    value: IntervalResult,
    se: float | None,
    colour: str,
    label: str,
) -> None:
    """Histogram of draws, or a normal curve, or nothing; then the interval as a bar."""
    top = 1.0
    if values is not None and values.size:
        heights, _, _ = ax.hist(values, bins=60, density=True, alpha=0.4, color=colour, label=label)
        top = float(heights.max())
    elif se is not None and se > 0:
        grid = np.linspace(value.estimate - 4 * se, value.estimate + 4 * se, 400)
        curve = np.exp(-0.5 * ((grid - value.estimate) / se) ** 2) / (se * math.sqrt(2 * math.pi))
        ax.plot(grid, curve, color=colour, label=f"{label} (normal approximation)")
        top = float(curve.max())
    else:
        ax.plot([], [], color=colour, label=label)
    level = -0.05 * top * (1 + (colour == "C1"))
    ax.plot([value.low, value.high], [level, level], color=colour, lw=3)
    ax.plot([value.estimate], [level], "o", color=colour)
