"""The cross-check's flags: each one's sentence for the data, naming the interval it concerns."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from judgestats.data import JudgeData
from judgestats.frequentist import SMALL_CALIBRATION, Estimate
from judgestats.results import IntervalResult

if TYPE_CHECKING:  # pragma: no cover
    from judgestats.bayes.binary_posterior import Posterior

__all__ = ["ATLAS_COVERAGE_FLOOR", "CONFLICT_FLAGS"]

#: Posterior flags that mean the data conflict with each other or with the prior: then the
#: posterior interval is not recommended over the closed form either.
CONFLICT_FLAGS = ("calibration_contradicts_prior", "test_calibration_conflict")


def _disagreement(
    data: JudgeData,
    est: Estimate | None,
    rows: dict[str, IntervalResult],
    tolerance: float,
    conflict: list[str],
    small: bool,
) -> str | None:
    """The ``intervals_disagree`` sentence, or None when the interval ends agree."""
    lr, eti = rows["rogan_gladen"], rows["posterior_eti"]
    difference = max(abs(lr.low - eti.low), abs(lr.high - eti.high)) if est is not None else 0.0
    if difference > tolerance:
        if conflict:
            why = (
                "the data conflict (see " + ", ".join(conflict) + "): no single accuracy and "
                "judge explains all three counts, so check the calibration labels and that the "
                "test and calibration items come from one population"
            )
        elif getattr(data, "design", "stratified") == "random":
            why = (
                "with a random labelled sample the posterior also learns theta from the "
                "labelled class balance m1/m, which the closed form ignores (see "
                "judgestats.class_balance_test)"
            )
        elif small:
            why = (
                "the calibration set is small, so the normal approximation behind the "
                "Lang-Reiczigel interval is rough"
            )
        else:
            why = "the equal-tailed interval makes no normal approximation"
        return (
            f"the Lang-Reiczigel and equal-tailed intervals differ by up to {difference:.3f} "
            f"(tolerance {tolerance:g}); {why}."
        )
    return None


def _density(posterior: Posterior, grid: np.ndarray) -> np.ndarray:
    """Posterior density of theta on ``grid`` (exact engine, or a kernel estimate for NUTS)."""
    return np.asarray(posterior.pdf(grid), dtype=float)


def _posterior_mode(posterior: Posterior) -> float:
    """Mode of theta: exact for the exact engine, else the peak of the kernel estimate."""
    if hasattr(posterior.engine, "mode"):
        return float(posterior.engine.mode())
    grid = np.linspace(0.0, 1.0, 2001)
    return float(grid[np.argmax(_density(posterior, grid))])


#: Simulated coverage below which the cross-check says the closed form under-covers.
ATLAS_COVERAGE_FLOOR = 0.93


def _grid_floor(grid: np.ndarray, value: float) -> int:
    """Index of the largest grid value not above ``value``, else of the smallest.

    The atlas lookup thereby errs towards the weaker judge.
    """
    below = np.flatnonzero(grid <= value + 1e-12)
    return int(below[-1]) if below.size else 0


def _atlas_coverage(data: JudgeData, est: Estimate | None) -> tuple[float, str] | None:
    """Simulated 95% Lang-Reiczigel coverage at the atlas cell nearest to this evaluation.

    The cell: theta nearest the Rogan-Gladen estimate, q0 and q1 the largest atlas values not
    above the observed rates, n nearest on a log scale, and the largest atlas m0 = m1 not above
    the smaller arm (so the lookup errs towards weak judges and small calibration). None
    outside the atlas (a rate below 0.55, an arm of fewer than 5 items) and for levels other
    than 95%.
    """
    if est is None or abs(est.confidence_level - 0.95) > 1e-12 or not min(data.q0, data.q1) >= 0.55:
        return None
    from judgestats.datasets import coverage_atlas

    atlas = coverage_atlas()
    arm = min(data.m0, data.m1)
    if arm < atlas["m"][0]:
        return None
    index = (
        int(np.argmin(np.abs(atlas["theta"] - est.theta))),
        _grid_floor(atlas["q0"], data.q0),
        _grid_floor(atlas["q1"], data.q1),
        int(np.argmin(np.abs(np.log(atlas["n"]) - np.log(data.n)))),
        int(np.flatnonzero(atlas["m"] <= arm)[-1]),
    )
    values = [
        atlas[name][i] for name, i in zip(("theta", "q0", "q1", "n", "m"), index, strict=True)
    ]
    cell = (
        f"theta {values[0]:g}, q0 {values[1]:g}, q1 {values[2]:g}, n {values[3]:g}, "
        f"m0 = m1 = {values[4]:g}"
    )
    return float(atlas["coverage"][index]), cell


def _missing_answers(
    no_closed_form: str | None, has_posterior: bool, no_posterior: str | None
) -> dict[str, str]:
    """The ``no_closed_form`` and ``posterior_unavailable`` sentences, where they apply."""
    flags: dict[str, str] = {}
    if no_closed_form is not None:
        rest = (
            "only the posterior rows are reported"
            if has_posterior
            else "the posterior could not be computed either (see posterior_unavailable)"
        )
        flags["no_closed_form"] = (
            f"no Rogan-Gladen estimate or Lang-Reiczigel interval: {no_closed_form}; {rest}."
        )
    if not has_posterior:
        flags["posterior_unavailable"] = (
            f"no posterior: {(no_posterior or 'it could not be computed').rstrip('.')}. The "
            "posterior rows are empty and the recommended interval is chosen without them."
        )
    return flags


def _boundary(bound: int, lr: IntervalResult, eti: IntervalResult, has_posterior: bool) -> str:
    """The ``boundary`` sentence: the estimate clipped to ``bound``, and what each interval does."""
    credible = (
        f"The equal-tailed credible interval ({eti.low:.4f}, {eti.high:.4f}) never contains "
        f"{bound} by construction; the"
        if has_posterior
        else "The"
    )
    return (
        f"the Rogan-Gladen estimate is clipped to {bound}: p-hat lies outside the range "
        f"[1 - q0-hat, q1-hat] that the calibration allows. {credible} Lang-Reiczigel interval "
        f"({lr.low:.4f}, {lr.high:.4f}) is truncated at it."
    )


def _flags(
    data: JudgeData,
    est: Estimate | None,
    no_closed_form: str | None,
    rows: dict[str, IntervalResult],
    tolerance: float,
    posterior: Posterior | None,
    no_posterior: str | None = None,
) -> dict[str, str]:
    """Flag key -> its sentence for these data; each names the interval it talks about.

    ``posterior`` is None where it could not be computed; ``no_posterior`` then says why.
    """
    from judgestats.bayes.binary_posterior import DIAGNOSTIC_FLAGS

    posterior_flags = () if posterior is None else posterior.flags
    conflict = [flag for flag in CONFLICT_FLAGS if flag in posterior_flags]
    flags = _missing_answers(no_closed_form, posterior is not None, no_posterior)
    lr, eti = rows["rogan_gladen"], rows["posterior_eti"]
    small = min(data.m0, data.m1) < SMALL_CALIBRATION
    disagreement = _disagreement(data, est, rows, tolerance, conflict, small)
    if disagreement is not None:
        flags["intervals_disagree"] = disagreement
    if small and est is not None:
        flags["small_calibration"] = (
            f"a calibration arm has fewer than {SMALL_CALIBRATION} items (m0 = {data.m0}, m1 = "
            f"{data.m1}); the Lang-Reiczigel interval relies on a normal approximation there; "
            "label more items."
        )
    if est is not None and "clipped" in est.flags:
        flags["boundary"] = _boundary(0 if est.theta <= 0.0 else 1, lr, eti, posterior is not None)
    atlas = _atlas_coverage(data, est)
    if atlas is not None and atlas[0] < ATLAS_COVERAGE_FLOOR:
        coverage, cell = atlas
        flags["closed_form_undercovers"] = (
            f"in simulations of this regime ({cell}) the 95% Lang-Reiczigel interval covered the "
            f"true accuracy only {coverage:.1%} of the time (coverage atlas, 10,000 "
            "replications)."
        )
    if est is not None and "zero_width" in est.flags:
        flags["zero_width"] = (
            "the Lang-Reiczigel interval has zero width after truncation to [0, 1]; it does not "
            "describe the uncertainty."
        )
    for flag in posterior_flags:
        flags[flag] = DIAGNOSTIC_FLAGS[flag]
    return flags
