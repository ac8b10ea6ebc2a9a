"""The comparison's advice never recommends the method in use, and speaks the caller's language.

Python results say ``method='bayes'``; the command line says ``--method bayes`` (issue 26 item 1).
"""

from __future__ import annotations

import warnings

import pytest

from judgestats import JudgeData, JudgeStatsWarning, compare
from judgestats.cli import main
from judgestats.comparison.diagnostics import (
    COMMAND_LINE_WORDING,
    CONVERGENCE_ADVICE,
    SMALL_CALIBRATION_ADVICE,
    command_line_text,
    convergence_finding,
    data_findings,
)
from judgestats.comparison.inputs import normalise_inputs

# calibration arms of 20 items: the small-calibration warning fires
A = JudgeData(700, 1000, 17, 20, 18, 20)
B = JudgeData(600, 1000, 16, 20, 18, 20)
COUNTS = ["--a", "700,1000,17,20,18,20", "--b", "600,1000,16,20,18,20"]


def _small_arm_sentence(method: str) -> str:
    inputs, _ = normalise_inputs(A, B, False)
    (finding,) = data_findings(inputs, {"A": 0.7, "B": 0.6}, method)
    assert finding.keys == ("small_calibration",)
    return finding.message


@pytest.mark.parametrize("method", ["delta", "bootstrap", "bayes"])
def test_small_calibration_advice_never_recommends_the_method_in_use(method):
    sentence = _small_arm_sentence(method)
    assert f"method='{method}'" not in sentence
    if method != "bayes":
        assert "method='bayes'" in sentence


@pytest.mark.parametrize("method", ["delta", "bootstrap"])
def test_python_result_speaks_python(method):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        result = compare(A, B, method=method, random_seed=1)
    (sentence,) = result.messages["small_calibration"]
    assert sentence.endswith(SMALL_CALIBRATION_ADVICE[method] + ".")
    assert "--method" not in sentence


@pytest.mark.parametrize("method", ["delta", "bootstrap"])
def test_cli_speaks_options_and_not_the_method_in_use(method, capsys):
    code = main(["compare", *COUNTS, "--method", method, "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 0
    warning = next(line for line in out.splitlines() if "fewer than 30 items" in line)
    assert "--method bayes" in warning
    assert f"--method {method}" not in warning
    for python in ("method='", "calibration='", "`n_resamples`", "judgestats.ModelLabels"):
        assert python not in out


def test_command_line_wording_covers_every_python_phrase_of_the_advice():
    for method, advice in SMALL_CALIBRATION_ADVICE.items():
        translated = command_line_text(advice)
        assert "method='" not in translated and "`prior`" not in translated, method
    assert command_line_text(CONVERGENCE_ADVICE) == COMMAND_LINE_WORDING[CONVERGENCE_ADVICE]


def test_convergence_advice_does_not_offer_the_single_model_exact_method():
    diagnostics = {"ess_bulk": 80.0, "ess_tail": 90.0, "r_hat": 1.03, "divergences": 0}
    (finding,) = convergence_finding(("r_hat", "low_ess"), diagnostics)
    assert "method='exact'" not in finding.message
    assert finding.message.count(CONVERGENCE_ADVICE) == 1
