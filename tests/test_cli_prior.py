"""The prior options of the CLI (--prior-theta/--prior-q0/--prior-q1/--no-truncation) and the
NUTS diagnostics it prints."""

from __future__ import annotations

import json
import warnings

import pytest

from judgestats import JudgeData, JudgeStatsWarning, posterior
from judgestats.bayes.priors import Prior
from judgestats.cli import main

COUNTS = ["--k", "400", "--n", "1000", "--k0", "140", "--m0", "200", "--k1", "180", "--m1", "200"]
DATA = JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)
README_COMPARE = ["compare", "--a", "420,1000,160,200,175,200", "--b", "380,1000,150,200,170,200"]


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_prior_options_reach_the_posterior(capsys):
    code, out, err = run(
        [
            "posterior",
            *COUNTS,
            "--prior-theta",
            "2",
            "3",
            "--prior-q0",
            "4",
            "2",
            "--prior-q1",
            "5",
            "1.5",
            "--no-truncation",
            "--json",
        ],
        capsys,
    )
    assert code == 0, err
    prior = Prior(theta=(2, 3), q0=(4, 2), q1=(5, 1.5), better_than_chance=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        expected = posterior(DATA, prior=prior, method="exact", draws=1000, chains=4)
    result = json.loads(out)
    assert result["prior"] == {
        "theta": [2.0, 3.0],
        "q0": [4.0, 2.0],
        "q1": [5.0, 1.5],
        "better_than_chance": False,
    }
    assert result["variables"]["theta"]["eti"] == pytest.approx(
        list(expected.ci(0.95, "eti")), abs=1e-9
    )


def test_crosscheck_uses_the_prior(capsys):
    base = ["crosscheck", *COUNTS, "--json"]
    code, default, err = run(base, capsys)
    assert code == 0, err
    code, informed, err = run([*base, "--prior-theta", "50", "5"], capsys)
    assert code == 0, err
    assert informed != default  # a strong theta prior moves the posterior rows


def test_posterior_text_names_the_prior(capsys):
    code, out, _ = run(["posterior", *COUNTS, "--prior-theta", "2", "3"], capsys)
    assert code == 0
    assert "theta ~ Beta(2, 3)" in out and "q0 ~ Beta(1, 1)" in out
    assert "judge better than chance" in out
    code, out, _ = run(["posterior", *COUNTS, "--no-truncation"], capsys)
    assert code == 0 and "no truncation" in out


@pytest.mark.parametrize(
    ("option", "values", "message"),
    [
        (
            "--prior-theta",
            ["0", "1"],
            "argument --prior-theta: expected a finite number greater than 0, got '0'",
        ),
        ("--prior-q0", ["1", "-2"], "argument --prior-q0: expected a finite number greater than 0"),
        (
            "--prior-q1",
            ["1", "inf"],
            "argument --prior-q1: expected a finite number greater than 0",
        ),
        (
            "--prior-q1",
            ["x", "1"],
            "argument --prior-q1: expected a number greater than 0, got 'x'",
        ),
        ("--prior-theta", ["1"], "argument --prior-theta: expected 2 arguments"),
    ],
)
@pytest.mark.parametrize("command", ["posterior", "crosscheck"])
def test_bad_prior_values_exit_2_naming_the_option(command, option, values, message, capsys):
    code, out, err = run([command, *COUNTS, option, *values], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err


def test_no_truncation_takes_no_value(capsys):
    code, _, err = run(["posterior", *COUNTS, "--no-truncation", "yes"], capsys)
    assert code == 2 and "unrecognized arguments: yes" in err


@pytest.mark.slow
def test_nuts_text_output_prints_the_diagnostics(capsys):
    code, out, err = run(
        [
            "posterior",
            *COUNTS,
            "--method",
            "nuts",
            "--draws",
            "100",
            "--chains",
            "2",
            "--seed",
            "1",
        ],
        capsys,
    )
    assert code == 0, err
    line = next(line for line in out.splitlines() if "NUTS diagnostics" in line)
    assert "max R-hat" in line and "min ESS bulk" in line and "min ESS tail" in line
    assert "divergences" in line
    assert "warning (low_ess): an effective sample size is below 400" in out  # 200 draws: flagged
    code, out, _ = run(["posterior", *COUNTS], capsys)
    assert code == 0 and "NUTS diagnostics" not in out  # exact: nothing to diagnose


@pytest.mark.slow
def test_crosscheck_nuts_text_prints_the_diagnostics(capsys):
    code, out, err = run(
        [
            "crosscheck",
            *COUNTS,
            "--method",
            "nuts",
            "--draws",
            "100",
            "--chains",
            "2",
            "--seed",
            "1",
        ],
        capsys,
    )
    assert code == 0, err
    assert "NUTS diagnostics: max R-hat" in out


@pytest.mark.slow
def test_compare_bayes_prior_theta_and_diagnostics(capsys):
    options = [
        "--method",
        "bayes",
        "--draws",
        "100",
        "--tune",
        "200",
        "--chains",
        "2",
        "--seed",
        "1",
    ]
    code, out, err = run([*README_COMPARE, *options, "--prior-theta", "2", "2", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["details"]["prior"]["theta"] == [2.0, 2.0]
    code, out, err = run([*README_COMPARE, *options], capsys)
    assert code == 0, err
    assert "NUTS diagnostics: max R-hat" in out and " 0 divergences" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--method", "bayes", "--prior-q0", "2", "2"], "--prior-q0 does not apply to compare"),
        (["--method", "bayes", "--prior-q1", "2", "2"], "--prior-q1 does not apply to compare"),
        (["--method", "bayes", "--no-truncation"], "--no-truncation does not apply to compare"),
        (["--prior-theta", "2", "2"], "--prior-theta applies to --method bayes only"),
        (
            ["--method", "bayes", "--prior-theta", "2", "0"],
            "argument --prior-theta: expected a finite number greater than 0",
        ),
    ],
)
def test_compare_prior_errors(extra, message, capsys):
    code, out, err = run([*README_COMPARE, *extra], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err
