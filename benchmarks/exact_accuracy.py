"""Accuracy of the exact posterior engine against the independent brute-force reference.

For every case of tests/reference/posterior_reference.json (made by
tests/reference/make_reference.py, an independent integration that shares no code with the
engine), the engine's 2.5%, 50% and 97.5% quantiles and means of theta, q0, q1, Youden's J and p,
and its shortest 95% interval of theta, are compared with the reference; so are the theta
quantiles and shortest interval of the vectorised path (``exact_quantiles`` / ``exact_interval``
on the case and six neighbouring test counts sharing its calibration, a group that takes the
shared-calibration rule wherever it applies). Prints the worst absolute error per regime and
writes benchmarks/results/exact_accuracy.json.

    python benchmarks/exact_accuracy.py
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _env import write_results  # noqa: E402

import judgestats as jc  # noqa: E402
from judgestats.bayes.exact import ExactPosterior, exact_interval, exact_quantiles  # noqa: E402
from judgestats.bayes.priors import Prior  # noqa: E402

REFERENCE = Path(__file__).resolve().parents[1] / "tests" / "reference" / "posterior_reference.json"
VARIABLES = ("theta", "q0", "q1", "youden", "p")
#: Regimes by case-id prefix, in the order of the table.
REGIMES = (
    ("weak", "weak judges (q0 + q1 from 1.02 to 1.2), n up to 1e6"),
    ("tiny", "tiny calibration arms (1 to 5 items), n from 1 to 1e6"),
    ("huge", "huge test sets (n = 1e8, 1e9), m = 20 and 1e4"),
    ("perfect", "calibration all correct (k0 = m0, k1 = m1)"),
    ("zero", "calibration all wrong in one arm"),
    ("k_", "estimates at 0 and 1 (k = 0, k = n)"),
    ("phat", "p-hat outside [1 - q0-hat, q1-hat]"),
    ("worse", "calibration worse than chance (truncated prior)"),
    ("untrunc", "no better-than-chance truncation"),
    ("prior", "informative priors (theta Beta(2, 5), Jeffreys; q0 Beta(5, 2))"),
    ("jeffreys", "Jeffreys theta prior at 0 and 1"),
    ("m0_zero", "one empty calibration arm (random design)"),
    ("m1_zero", "one empty calibration arm (random design)"),  # the same row
    ("", "other (README example, small n)"),
)


def regime(case_id: str) -> str:
    """The regime label of a case id."""
    for prefix, label in REGIMES:
        if case_id.startswith(prefix):
            return label
    return REGIMES[-1][1]


def errors(entry: dict) -> dict[str, float]:
    """Worst absolute errors of one case: quantiles per variable, means, shortest interval."""
    c = entry["case"]
    design = "random" if min(c["m0"], c["m1"]) == 0 else "stratified"
    data = jc.JudgeData(
        k=c["k"], n=c["n"], k0=c["k0"], m0=c["m0"], k1=c["k1"], m1=c["m1"], design=design
    )
    prior = Prior(
        theta=tuple(c["theta"]),
        q0=tuple(c["q0"]),
        q1=tuple(c["q1"]),
        better_than_chance=c["truncate"],
    )
    post = ExactPosterior(data, prior)
    out = {}
    for var in VARIABLES:
        ref = entry["summary"][var]
        out[f"quantile_{var}"] = float(
            np.max(np.abs(np.asarray(post.quantile(entry["levels"], var=var)) - ref["quantiles"]))
        )
        out[f"mean_{var}"] = abs(post.mean(var) - ref["mean"])
    out["hdi_theta"] = float(
        np.max(np.abs(np.asarray(post.interval(0.95, "hdi")) - entry["summary"]["theta"]["hdi95"]))
    )
    ks = np.unique(np.clip(c["k"] + np.array([0, 1, -1, 2, -2, 3, -3]), 0, c["n"]))
    row = int(np.flatnonzero(ks == c["k"])[0])
    counts = (ks, c["n"], c["k0"], c["m0"], c["k1"], c["m1"])
    quantiles = exact_quantiles(*counts, entry["levels"], prior=prior)[row]
    out["vectorised_quantile_theta"] = float(
        np.max(np.abs(quantiles - entry["summary"]["theta"]["quantiles"]))
    )
    low, high = exact_interval(*counts, kind="hdi", prior=prior)
    out["vectorised_hdi_theta"] = float(
        np.max(np.abs(np.array([low[row], high[row]]) - entry["summary"]["theta"]["hdi95"]))
    )
    return out


def main() -> None:
    cases = json.loads(REFERENCE.read_text())["cases"]
    start = time.perf_counter()
    rows = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        for entry in cases:
            rows[entry["id"]] = errors(entry)
    by_regime: dict[str, dict[str, float]] = {}
    counts: dict[str, int] = {}
    for case_id, err in rows.items():
        label = regime(case_id)
        counts[label] = counts.get(label, 0) + 1
        worst = by_regime.setdefault(label, {})
        for key, value in err.items():
            worst[key] = max(worst.get(key, 0.0), value)
    print(f"{len(cases)} reference cases, {time.perf_counter() - start:.1f} s")
    print(
        "| regime | cases | theta quantiles | q0, q1 quantiles | J, p quantiles "
        "| HDI of theta | vectorised: theta quantiles, HDI |"
    )
    print("|---|---|---|---|---|---|---|")
    printed = set()
    for _, label in REGIMES:
        if label not in by_regime or label in printed:
            continue
        printed.add(label)
        w = by_regime[label]
        q = max(w["quantile_q0"], w["quantile_q1"])
        jp = max(w["quantile_youden"], w["quantile_p"])
        print(
            f"| {label} | {counts[label]} | {w['quantile_theta']:.1e} | {q:.1e} | {jp:.1e} "
            f"| {w['hdi_theta']:.1e} | {w['vectorised_quantile_theta']:.1e}, "
            f"{w['vectorised_hdi_theta']:.1e} |"
        )
    overall = max(max(v for k, v in err.items()) for err in rows.values())
    print(f"worst absolute error over every case, variable and summary: {overall:.1e}")
    write_results(
        "exact_accuracy",
        {"cases": rows, "by_regime": by_regime, "counts": counts, "worst": overall},
    )


if __name__ == "__main__":
    main()
