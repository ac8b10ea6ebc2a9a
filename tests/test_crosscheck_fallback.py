"""The cross-check answers where the exact posterior refuses the data (issue 25).

The exact engine raises a ValueError naming ``data`` where its quadrature cannot hold the
posterior (k = 0 of 1e9 with a perfect judge; p-hat at 0 or 1 against a judge at chance). The
cross-check then carries no posterior (NaN rows, the ``posterior_unavailable`` flag) and
recommends from the closed form and the guaranteed interval, through the Python API, the
printout, ``to_dict`` / ``--json``, ``plot``, the report and the CLI.

The expected intervals come from two derivations made here, not from the code under test:

* k = 0 of n = 1e9 with 20 of 20 on each arm: the 95% Clopper-Pearson upper bound of p is
  1 - 0.025^(1/n) (about 3.7e-9) and the lower bound of q1 is 0.025^(1/20) (about 0.83); since
  p = theta q1 + (1 - theta)(1 - q0) >= theta q1, every accuracy consistent with the data lies
  in [0, 3.7e-9 / 0.83], about [0, 4.5e-9]. An honest interval contains that region.
* q0-hat = q1-hat = 0.5 from 200 or 1000 items per arm: the Clopper-Pearson intervals of q0
  and q1 hold 0.5, so J = q0 + q1 - 1 = 0 is plausible; at J = 0 the judge's verdicts carry no
  information about theta, so an interval with guaranteed coverage can exclude no accuracy:
  it is [0, 1].
"""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from test_grouped_crosscheck import group_rows

import judgestats as jc
from judgestats.cli import main

matplotlib.use("Agg")

LEVEL = 0.95
#: The three datasets of the issue: (k, n, k0, m0, k1, m1).
PERFECT_K0 = (0, 10**9, 20, 20, 20, 20)
CHANCE_ALL_CORRECT = (10**9, 10**9, 100, 200, 100, 200)
CHANCE_NONE_CORRECT = (0, 10**9, 500, 1000, 500, 1000)
EXAMPLES = [PERFECT_K0, CHANCE_ALL_CORRECT, CHANCE_NONE_CORRECT]
FLAG = "posterior_unavailable"


def _clopper_pearson(k: int, m: int) -> tuple[float, float]:
    """95% Clopper-Pearson interval of k of m (the beta quantiles)."""
    low = 0.0 if k == 0 else float(stats.beta.ppf(0.025, k, m - k + 1))
    high = 1.0 if k == m else float(stats.beta.ppf(0.975, k + 1, m - k))
    return low, high


def plausible_region(counts: tuple[int, ...]) -> tuple[float, float]:
    """The accuracies an honest interval must contain (module docstring)."""
    k, n, k0, m0, k1, m1 = counts
    (q0_low, q0_high), (q1_low, q1_high) = _clopper_pearson(k0, m0), _clopper_pearson(k1, m1)
    if q0_low + q1_low - 1 <= 0.0 <= q0_high + q1_high - 1:  # J = 0 plausible
        return 0.0, 1.0
    assert k == 0  # the perfect-judge example
    p_high = -math.expm1(math.log(0.025) / n)  # 1 - 0.025^(1/n), without cancellation
    return 0.0, p_high / q1_low


def quiet_crosscheck(data: jc.JudgeData, **options: Any) -> jc.CrossCheck:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        return jc.crosscheck(data, **options)


def assert_honest(low: float, high: float, estimate: float, counts: tuple[int, ...]) -> None:
    """Finite, positive width, inside [0, 1], holding its estimate and the plausible region."""
    region = plausible_region(counts)
    assert all(math.isfinite(v) for v in (low, high, estimate))
    assert 0.0 <= low < high <= 1.0
    assert low <= estimate <= high
    assert low <= region[0] and high >= region[1]


def strict_json(text: str) -> Any:
    """Parse JSON refusing NaN and infinities (DESIGN.md's result contract)."""

    def refuse(name: str) -> None:
        raise ValueError(f"non-strict JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def checks() -> dict[tuple[int, ...], jc.CrossCheck]:
    return {counts: quiet_crosscheck(jc.JudgeData(*counts)) for counts in EXAMPLES}


def test_the_derivation_of_the_regions():
    # the perfect judge: the region is tiny but not empty, and starts at 0
    low, high = plausible_region(PERFECT_K0)
    assert low == 0.0 and 3.7e-9 < high < 4.6e-9
    assert plausible_region(CHANCE_ALL_CORRECT) == (0.0, 1.0)
    assert plausible_region(CHANCE_NONE_CORRECT) == (0.0, 1.0)


def test_the_exact_posterior_does_refuse_these_data():
    # the cross-check's fallback is only tested if the posterior itself raises
    for counts in EXAMPLES:
        with pytest.raises(ValueError, match="`data`.*could not be integrated"):
            jc.posterior(jc.JudgeData(*counts))


@pytest.mark.parametrize("counts", EXAMPLES)
def test_crosscheck_answers_without_a_posterior(checks, counts):
    check = checks[counts]
    assert check.posterior is None and check.posterior_method is None
    assert FLAG in check.flags and FLAG in check.messages
    assert math.isnan(check.prob_weak_judge)
    for key in ("posterior_eti", "posterior_hdi"):
        assert all(math.isnan(v) for v in check.rows[key])
    rec = check.recommended
    assert rec is not None and rec.level == LEVEL
    assert rec.method in ("guaranteed", "lang_reiczigel")  # never a posterior interval
    assert_honest(rec.low, rec.high, rec.estimate, counts)


def test_the_flag_is_in_the_catalogue_and_warned():
    from judgestats.results import FLAG_MESSAGES

    assert FLAG in FLAG_MESSAGES
    with pytest.warns(jc.JudgeStatsWarning, match=FLAG):
        jc.crosscheck(jc.JudgeData(*PERFECT_K0))


@pytest.mark.parametrize("counts", EXAMPLES)
def test_printout_summary_json_and_plot(checks, counts):
    check = checks[counts]
    text = str(check)
    assert "no posterior" in text.splitlines()[0]
    frame = check.summary()
    assert frame.loc["posterior median + equal-tailed"].isna().all()
    assert FLAG in frame.attrs["flags"]
    out = strict_json(json.dumps(check.to_dict(), allow_nan=False))
    assert out["posterior_method"] is None and FLAG in out["flags"]
    assert out["rows"]["posterior_eti"] == dict.fromkeys(("estimate", "low", "high", "width"))
    rec = out["recommended"]
    assert_honest(rec["low"], rec["high"], rec["estimate"], counts)
    ax = check.plot()
    assert "posterior density of theta" not in [line.get_label() for line in ax.get_lines()]
    assert "<table" in check._repr_html_()


def test_option_errors_are_still_raised():
    # only the engine's refusal of the data is caught; an invalid option still names itself
    data = jc.JudgeData(*PERFECT_K0)
    with pytest.raises(ValueError, match="`draws`"):
        jc.crosscheck(data, draws=0)
    with pytest.raises(ValueError, match="`method`"):
        jc.crosscheck(data, method="bogus")


def test_good_data_keep_their_posterior():
    check = quiet_crosscheck(jc.JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200))
    assert check.posterior is not None and FLAG not in check.flags
    assert check.posterior_method == "exact"


@pytest.mark.parametrize(
    "counts",
    [
        # the random design: k = 0 of 1e9 with 3 of 3 on each arm; every calibration item
        # judged wrong (stratified: its random-design twin now integrates, to the reference of
        # tests/test_random_posterior_reference.py); both beyond the exact engine
        (0, 10**9, 3, 3, 3, 3, "random"),
        (10, 20, 0, 60, 0, 60, "stratified"),
    ],
)
def test_other_refused_data_get_an_interval(counts):
    data = jc.JudgeData(*counts[:6], design=counts[6])
    check = quiet_crosscheck(data)
    assert check.posterior is None and FLAG in check.flags
    rec = check.recommended
    assert 0.0 <= rec.low < rec.high <= 1.0 and rec.low <= rec.estimate <= rec.high
    if data.design == "random":
        # the labelled items are a random sample: their share of correct items, m1 / m, is
        # an unbiased estimate of theta, and any honest interval holds it here
        assert rec.low <= data.m1 / (data.m0 + data.m1) <= rec.high
    else:
        # every calibration item judged wrong: q0 + q1 - 1 is about -1, the judge is worse
        # than chance and no correction exists; only [0, 1] is honest
        assert (rec.low, rec.high) == (0.0, 1.0)


def test_report_without_a_posterior(checks):
    data = jc.JudgeData(*PERFECT_K0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        rep = jc.report(data)
    assert rep.posterior is None and set(rep.figures) == {"theta"}
    assert rep.figures["theta"].startswith(b"\x89PNG")
    html, text = rep.to_html(), rep.to_markdown()
    for document in (html, text):
        assert "posterior_unavailable" in document and "no posterior" in document
    assert all(cell == "n/a" for row in rep.posterior_rows() for cell in row[2:])


def _headline_interval(markdown: str) -> tuple[float, float, float]:
    found = re.search(r"\*\*Report ([0-9.]+) \(([0-9.]+), ([0-9.]+)\)", markdown)
    assert found is not None
    estimate, low, high = (float(v) for v in found.groups())
    return estimate, low, high


def _counts_argv(counts: tuple[int, ...]) -> list[str]:
    names = ("--k", "--n", "--k0", "--m0", "--k1", "--m1")
    return [part for name, value in zip(names, counts, strict=True) for part in (name, str(value))]


@pytest.mark.parametrize("counts", EXAMPLES)
def test_cli_crosscheck_and_report(counts, capsys, tmp_path):
    argv = _counts_argv(counts)
    assert main(["crosscheck", *argv]) == 0
    assert "no posterior" in capsys.readouterr().out
    assert main(["crosscheck", *argv, "--json"]) == 0
    out = strict_json(capsys.readouterr().out)
    assert FLAG in out["flags"] and out["posterior_method"] is None
    rec = out["recommended"]
    assert_honest(rec["low"], rec["high"], rec["estimate"], counts)
    target = tmp_path / "x.md"
    assert main(["report", *argv, "--output", str(target)]) == 0
    capsys.readouterr()
    written = sorted(path.name for path in tmp_path.iterdir())
    assert written == ["x.md", "x_theta.png"]  # no judge figure without a posterior
    text = Path(target).read_text(encoding="utf-8")
    assert "`posterior_unavailable`" in text
    estimate, low, high = _headline_interval(text)  # four decimals
    region = plausible_region(counts)
    assert low <= region[0] and high >= round(region[1], 4) and low < high
    assert low <= estimate <= high


def test_grouped_crosscheck_answers_for_a_refused_group(capsys):
    # group "bad": every calibration item judged wrong, beyond the exact engine
    frame = pd.DataFrame(
        group_rows("good", 400, 1000, 140, 200, 180, 200) + group_rows("bad", 10, 20, 0, 60, 0, 60)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        table = jc.crosscheck_items(frame, by="model")
        rep = jc.report_items(frame, by="model")
    rows = {row.key[0]: row for row in table.rows}
    bad, good = rows["bad"], rows["good"]
    assert FLAG in bad.flags and bad.result is not None and bad.result.posterior is None
    assert bad.agree is None and FLAG not in good.flags and good.result.posterior is not None
    assert table.method == "exact"
    rec = bad.result.recommended
    assert (rec.low, rec.high) == (0.0, 1.0)  # a judge worse than chance: nothing excluded
    out = strict_json(json.dumps(table.to_dict(), allow_nan=False))
    assert out["posterior_method"] == "exact"
    assert "posterior_unavailable" in rep.to_markdown() and "<html" in rep.to_html()
    assert np.isfinite(good.row("posterior_eti")).all()


def test_every_calibration_item_wrong_under_the_random_design_keeps_its_posterior():
    # the theta prior Beta(61, 61) of the 120 labelled items decides; the engine integrates
    # it (it refused before: tests/test_random_posterior_reference.py has the reference), the
    # conflict is flagged, and the recommendation still comes from the labels alone
    check = quiet_crosscheck(jc.JudgeData(10, 20, 0, 60, 0, 60, design="random"))
    assert check.posterior is not None and FLAG not in check.flags
    assert {"calibration_contradicts_prior", "test_calibration_conflict"} <= set(check.flags)
    assert check.recommended.method.startswith("labels_only")
    assert check.recommended.low < 0.5 < check.recommended.high
