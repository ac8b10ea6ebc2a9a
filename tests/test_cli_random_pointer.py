"""`estimate --design random` points to the one interval to report (issue 26 item 3)."""

from __future__ import annotations

import shlex

from judgestats.cli import main

COUNTS = ["--k", "400", "--n", "1000", "--k0", "40", "--m0", "50", "--k1", "45", "--m1", "50"]


def _out(capsys, argv):
    assert main(argv) == 0
    return capsys.readouterr().out


def test_estimate_random_design_points_to_the_crosscheck_recommendation(capsys):
    out = _out(capsys, ["estimate", *COUNTS, "--design", "random", "--interval", "guaranteed"])
    pointers = [line for line in out.splitlines() if line.startswith("  which to report: ")]
    assert len(pointers) == 1
    command = pointers[0].split("): ", 1)[1]
    words = shlex.split(command)
    assert words[:2] == ["judgestats", "crosscheck"]
    assert "--interval" not in words and "guaranteed" not in words
    assert words[2:] == [*COUNTS, "--design", "random"]
    # the command runs and names the interval to report
    assert "recommended:" in _out(capsys, words[1:])


def test_option_with_equals_and_json_are_left_out(capsys):
    out = _out(capsys, ["estimate", "--interval=guaranteed", *COUNTS, "--design", "random"])
    assert out.splitlines()[-1].endswith(
        shlex.join(["judgestats", "crosscheck", *COUNTS, "--design", "random"])
    )
    assert "which to report" not in _out(
        capsys, ["estimate", *COUNTS, "--design", "random", "--json"]
    )


def test_no_pointer_for_the_stratified_design_or_other_commands(capsys):
    assert "which to report" not in _out(capsys, ["estimate", *COUNTS])
    out = _out(capsys, ["crosscheck", *COUNTS, "--design", "random"])
    assert "which to report" not in out
