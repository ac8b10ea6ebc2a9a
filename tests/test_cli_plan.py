"""The command line's ``judgestats plan`` (widths, budgets, the Bayes column, errors)."""

from __future__ import annotations

import json
import warnings

import pytest

from judgestats import JudgeStatsWarning
from judgestats.cli import main
from judgestats.planning import (
    required_calibration,
)


# ---- command line -----------------------------------------------------------------------------
def run(capsys, argv):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_plan_width_prints_each_rule(capsys):
    code, out, err = run(
        capsys, ["plan", "--p", "0.3", "--q0", "0.7", "--q1", "0.9", "--width", "0.1"]
    )
    assert code == 0 and err == ""
    for rule in ("equal", "algorithm1", "optimal"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JudgeStatsWarning)  # the optimum has m1 < 30
            plan = required_calibration(0.1, 0.3, 0.7, 0.9, allocation=rule)
        assert f"{rule:<16}{plan.m0:>8}{plan.m1:>8}{plan.total:>8}{plan.width:9.4f}" in out
    assert "humans only" in out


def test_cli_plan_budget_json(capsys):
    code, out, _ = run(
        capsys,
        ["plan", "--p", "0.3", "--q0", "0.7", "--q1", "0.9", "--m", "200", "--n", "1000", "--json"],
    )
    assert code == 0
    report = json.loads(out)
    plans = report["plans"]
    assert report["m"] == 200 and (plans["equal"]["m0"], plans["equal"]["m1"]) == (100, 100)
    assert plans["optimal"]["width"] <= min(plans["equal"]["width"], plans["algorithm1"]["width"])
    assert report["human_only"]["m"] == 200


@pytest.mark.slow
def test_cli_plan_bayes_column(capsys):
    code, out, _ = run(
        capsys,
        ["plan", "--p", "0.6", "--q0", "0.85", "--q1", "0.9", "--m", "40", "--n", "500", "--bayes"],
    )
    assert code == 0 and "bayes" in out and "warning: a calibration arm" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--p", "0.3", "--q0", "0.7", "--q1", "0.9"], "one of the arguments --width --m"),
        (
            ["--p", "0.3", "--q0", "0.7", "--q1", "0.9", "--width", "0.1", "--m", "100"],
            "not allowed with argument",
        ),
        (
            ["--p", "1.3", "--q0", "0.7", "--q1", "0.9", "--m", "100"],
            "`p` (1.3) must lie in [0, 1]",
        ),
        (["--p", "x", "--q0", "0.7", "--q1", "0.9", "--m", "100"], "expected a number in (0, 1)"),
        (["--p", "0.3", "--q0", "0.7", "--q1", "0.9", "--m", "100", "--bayes"], "must be a finite"),
        (
            ["--p", "0.3", "--q0", "0.7", "--q1", "0.9", "--m", "10", "--m-pilot", "6"],
            "is too large for `m`",
        ),
        (
            ["--p", "0.5", "--q0", "0.8", "--q1", "0.9", "--width", "0.01", "--n", "1000"],
            "unreachable",
        ),
    ],
)
def test_cli_plan_errors_exit_2_with_one_line(capsys, argv, message):
    code, out, err = run(capsys, ["plan", *argv])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err
