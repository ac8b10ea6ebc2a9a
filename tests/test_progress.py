"""Progress bars (tqdm) on stderr: forced on, silenced, off by default under CI or without a tty."""

from __future__ import annotations

import io
import subprocess
import sys
import warnings

import pytest

from judgestats import JudgeStatsWarning
from judgestats._progress import SilentBar, is_enabled, progress_bar
from judgestats.planning import required_calibration


class _Terminal(io.StringIO):
    """A stderr stand-in that claims to be a terminal."""

    def isatty(self) -> bool:
        return True


def _terminal(monkeypatch) -> _Terminal:
    """Make stderr a terminal and unset ``CI``: the conditions under which bars are on.

    Called in the test body (pytest's capture resets sys.stderr after fixtures run).
    """
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.delenv("CI", raising=False)
    return terminal


def test_bar_forced_on_draws_counts_on_stderr(capsys):
    bar = progress_bar(4, True, desc="work", unit="steps")
    for _ in range(4):
        bar.update()
    bar.close()
    err = capsys.readouterr().err
    assert "work: 100%" in err and "4/4" in err and "steps" in err
    assert err.endswith("\n") and err.count("\n") == 1  # one line, ended once
    bar.close()
    assert capsys.readouterr().err == ""  # closing twice ends the line once


def test_bar_on_a_terminal_by_default(monkeypatch):
    terminal = _terminal(monkeypatch)
    bar = progress_bar(3, None, desc="work", unit="steps")
    bar.update(3)
    bar.close()
    assert "3/3" in terminal.getvalue()


def test_bar_off_under_ci_even_on_a_terminal(monkeypatch):
    terminal = _terminal(monkeypatch)
    monkeypatch.setenv("CI", "true")
    assert is_enabled(None) is False
    bar = progress_bar(3, None, desc="work", unit="steps")
    assert isinstance(bar, SilentBar)
    bar.update(3)
    bar.close()
    assert terminal.getvalue() == ""


def test_bar_off_without_a_terminal(capsys):
    bar = progress_bar(3, None, desc="work", unit="steps")  # captured stderr: no terminal
    assert isinstance(bar, SilentBar)
    bar.update(3)
    bar.close()
    assert capsys.readouterr().err == ""


def test_progress_false_silences_a_terminal(monkeypatch):
    terminal = _terminal(monkeypatch)
    assert is_enabled(False) is False and is_enabled(True) is True
    bar = progress_bar(3, False, desc="work", unit="steps")
    bar.update(3)
    bar.close()
    assert terminal.getvalue() == ""


def test_counter_of_unknown_length_ends_its_line_on_close(capsys):
    bar = progress_bar(None, True, desc="search", unit=" budgets tried")
    bar.update()
    bar.update()
    bar.close()
    err = capsys.readouterr().err
    assert "search: 2 budgets tried" in err and err.endswith("\n")


def test_tqdm_is_imported_only_when_a_bar_is_drawn():
    code = (
        "import sys, judgestats as jc\n"
        "from judgestats._progress import progress_bar\n"
        "progress_bar(3, False, desc='x', unit='y').close()\n"
        "print('tqdm' in sys.modules)\n"
        "progress_bar(3, True, desc='x', unit='y').close()\n"
        "print('tqdm' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


def test_coverage_study_bar(capsys):
    from judgestats.simulate import coverage

    args = dict(theta=0.5, q0=0.8, q1=0.9, n=100, m0=[20, 30], m1=30, reps=50, random_seed=1)
    on = coverage("lang_reiczigel", **args, chunk_cells=1, progress=True)
    err = capsys.readouterr().err
    assert "coverage: 100%" in err and "2/2" in err and "chunks" in err
    off = coverage("lang_reiczigel", **args, chunk_cells=1, progress=False)
    assert capsys.readouterr().err == ""
    assert on.identical(off)


def _plan(progress):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)
        return required_calibration(0.4, 0.4, 0.7, 0.9, n=100, method="bayes", progress=progress)


@pytest.mark.slow
def test_bayes_planning_counts_the_budgets_tried(capsys):
    plan = _plan(True)
    err = capsys.readouterr().err
    # one redraw per budget tried: the last one shows the length of the search trace
    assert f"planning (method='bayes'): {len(plan.trace)} budgets tried" in err
    assert err.endswith("\n")
    same = _plan(False)
    assert capsys.readouterr().err == ""
    assert (same.m0, same.m1) == (plan.m0, plan.m1)  # the bar does not change the result


@pytest.mark.slow
def test_bayes_planning_silent_by_default_without_terminal(capsys):
    _plan(None)
    assert capsys.readouterr().err == ""


def test_frequentist_planning_draws_no_bar(capsys):
    required_calibration(0.2, 0.4, 0.7, 0.9, method="plugin", progress=True)
    assert capsys.readouterr().err == ""


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::judgestats.JudgeStatsWarning")
def test_nuts_bar_counts_every_step_of_every_chain(capsys):
    import judgestats as jc
    from judgestats.bayes.nuts import NutsCache

    data = jc.JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)
    options = {"method": "nuts", "draws": 120, "tune": 130, "chains": 2, "random_seed": 1}
    cache = NutsCache()  # the second fit reuses the first one's compiled model
    jc.posterior(data, **options, compiled=cache, progressbar=True)
    err = capsys.readouterr().err
    assert "NUTS: 100%" in err and "500/500" in err  # 2 chains x (130 + 120) steps
    jc.posterior(data, **options, compiled=cache)
    assert capsys.readouterr().err == ""  # default: stderr is not a terminal here


@pytest.mark.slow
def test_cli_no_progress_reaches_the_planner(monkeypatch, capsys):
    from judgestats.cli import main

    _terminal(monkeypatch)
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
