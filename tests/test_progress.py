"""Progress bars on stderr: drawn when forced on, silent when off or when stderr is no terminal."""

from __future__ import annotations

import io
import sys
import warnings

import pytest

from judgestats import JudgeStatsWarning
from judgestats._dask import ProgressBar, is_enabled
from judgestats.planning import required_calibration


class _Terminal(io.StringIO):
    """A stderr stand-in that claims to be a terminal."""

    def isatty(self) -> bool:
        return True


def test_bar_forced_on_draws_counts_on_stderr(capsys):
    bar = ProgressBar(4, True, label="work", unit="steps")
    for _ in range(4):
        bar.update()
    err = capsys.readouterr().err
    assert "work: [" in err and "4/4 steps" in err
    assert err.endswith("\n") and err.count("\n") == 1  # one line, ended once
    bar.close()
    assert capsys.readouterr().err == ""  # a complete bar is not ended twice


def test_bar_off_and_auto_without_terminal_write_nothing(capsys):
    for enabled in (False, None):  # pytest's captured stderr is not a terminal
        bar = ProgressBar(3, enabled)
        bar.update(3)
        bar.close()
    assert capsys.readouterr().err == ""


def test_auto_is_on_for_a_terminal_unless_ci(monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Terminal())
    monkeypatch.delenv("CI", raising=False)
    assert is_enabled(None) is True
    monkeypatch.setenv("CI", "true")
    assert is_enabled(None) is False
    assert is_enabled(True) is True and is_enabled(False) is False


def test_counter_of_unknown_length_ends_its_line_on_close(capsys):
    bar = ProgressBar(None, True, label="search", unit="budgets tried")
    bar.update()
    bar.update()
    bar.close()
    err = capsys.readouterr().err
    assert "search: 2 budgets tried" in err and err.endswith("\n")


def _plan(progress):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        return required_calibration(0.4, 0.4, 0.7, 0.9, n=100, method="bayes", progress=progress)


def test_bayes_planning_counts_the_budgets_tried(capsys):
    plan = _plan(True)
    err = capsys.readouterr().err
    # one redraw per budget tried: the last one shows the length of the search trace
    assert f"planning (method='bayes'): {len(plan.trace)} budgets tried" in err
    assert err.endswith("\n")
    same = _plan(False)
    assert capsys.readouterr().err == ""
    assert (same.m0, same.m1) == (plan.m0, plan.m1)  # the bar does not change the result


def test_bayes_planning_silent_by_default_without_terminal(capsys):
    _plan(None)
    assert capsys.readouterr().err == ""


def test_frequentist_planning_draws_no_bar(capsys):
    required_calibration(0.2, 0.4, 0.7, 0.9, method="plugin", progress=True)
    assert capsys.readouterr().err == ""


@pytest.mark.filterwarnings("ignore::judgestats.JudgeStatsWarning")
def test_nuts_bar_counts_every_step_of_every_chain(capsys):
    import judgestats as jc

    data = jc.JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)
    jc.posterior(
        data, method="nuts", draws=120, tune=130, chains=2, random_seed=1, progressbar=True
    )
    err = capsys.readouterr().err
    assert "NUTS: [" in err and "500/500 steps" in err  # 2 chains x (130 + 120) steps
    jc.posterior(data, method="nuts", draws=120, tune=130, chains=2, random_seed=1)
    assert capsys.readouterr().err == ""  # default: stderr is not a terminal here


def test_cli_no_progress_reaches_the_planner(monkeypatch, capsys):
    from judgestats.cli import main

    monkeypatch.setattr(sys, "stderr", _Terminal())
    monkeypatch.delenv("CI", raising=False)
    argv = [
        "plan",
        "--p",
        "0.4",
        "--q0",
        "0.7",
        "--q1",
        "0.9",
        "--n",
        "100",
        "--width",
        "0.4",
        "--bayes",
    ]
    assert main([*argv, "--no-progress"]) == 0
    assert sys.stderr.getvalue() == ""
    assert main(argv) == 0  # a terminal: the bar is on by default
    assert "planning (method='bayes')" in sys.stderr.getvalue()
    capsys.readouterr()
