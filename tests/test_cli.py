"""The command line, driven through main([...]) and once as a real console script."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from judgestats.cli import main

PAPER_COUNTS = [
    "--k",
    "400",
    "--n",
    "1000",
    "--k0",
    "140",
    "--m0",
    "200",
    "--k1",
    "180",
    "--m1",
    "200",
]


def run(capsys, argv):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_estimate_from_counts_prints_the_paper_example(capsys):
    code, out, err = run(capsys, ["estimate", *PAPER_COUNTS])
    assert code == 0 and err == ""
    # the authors' reference code: theta-hat = (0.4 + 0.7 - 1) / (0.7 + 0.9 - 1) = 1/6,
    # interval (0.0564, 0.2627)
    assert "0.1667   0.0564   0.2627" in out
    assert "400 of 1000" in out


def test_estimate_json_is_machine_readable(capsys):
    code, out, _ = run(capsys, ["estimate", *PAPER_COUNTS, "--json", "--confidence-level", "0.9"])
    assert code == 0
    report = json.loads(out)
    assert report["confidence_level"] == 0.9
    assert report["inputs"] == {"k": 400, "n": 1000, "k0": 140, "m0": 200, "k1": 180, "m1": 200}
    assert report["adjusted"]["estimate"] == pytest.approx(1 / 6, abs=1e-15)
    # a 90% interval is narrower than the 95% one (0.0564, 0.2627)
    assert 0.0564 < report["adjusted"]["low"] < report["adjusted"]["high"] < 0.2627


def test_estimate_from_labels_file(tmp_path, capsys):
    path = tmp_path / "labels.csv"
    rows = (
        ["set,judge,human"]
        + ["test,1,"] * 3
        + ["test,0,"]
        + ["calibration,0,0", "calibration,1,0", "calibration,1,1", "calibration,1,1"]
    )
    path.write_text("\n".join(rows) + "\n")
    code, out, _ = run(capsys, ["estimate", "--labels", str(path), "--json"])
    assert code == 0
    assert json.loads(out)["inputs"] == {"k": 3, "n": 4, "k0": 1, "m0": 2, "k1": 2, "m1": 2}


def test_flags_are_printed(capsys):
    # p-hat = 0.05 < 1 - q0 = 0.3: the estimate is clipped to 0 and m0 = 20 < 30; the whole
    # interval lies below 0 (theta~ = (p~ + q0~ - 1) / (q0~ + q1~ - 1) is about -0.46 and the
    # half-width about 0.2), so it truncates to [0, 0]
    code, out, _ = run(
        capsys,
        [
            "estimate",
            "--k",
            "50",
            "--n",
            "1000",
            "--k0",
            "14",
            "--m0",
            "20",
            "--k1",
            "180",
            "--m1",
            "200",
        ],
    )
    assert code == 0
    assert "0.0000   0.0000   0.0000   0.0000" in out
    # clipped, zero width, small calibration, p-hat outside the judge's range
    assert out.count("warning:") == 4


def test_demo_runs_on_bundled_data(capsys):
    code, out, err = run(capsys, ["demo"])
    assert code == 0 and err == ""
    assert "example_labels.csv" in out and "of 2400 judged correct" in out
    assert "judgestats cross-check" in out
    code, out, _ = run(capsys, ["demo", "--json", "--seed", "3"])
    report = json.loads(out)
    assert report["estimate"]["inputs"]["n"] == 2400
    assert report["estimate"]["inputs"]["m0"] + report["estimate"]["inputs"]["m1"] == 205
    assert report["crosscheck"]["inputs"] == report["estimate"]["inputs"]


def test_posterior_command(capsys):
    code, out, err = run(capsys, ["posterior", *PAPER_COUNTS, "--seed", "1"])
    assert code == 0 and err == ""
    assert "method exact" in out
    assert [line.split()[0] for line in out.splitlines()[2:6]] == ["theta", "q0", "q1", "youden"]
    code, out, _ = run(capsys, ["posterior", *PAPER_COUNTS, "--json", "--seed", "1"])
    report = json.loads(out)
    # published posterior for these counts (uniform priors): mean about 0.1615
    assert report["variables"]["theta"]["mean"] == pytest.approx(0.1615, abs=0.002)


def test_crosscheck_command(capsys):
    code, out, _ = run(capsys, ["crosscheck", *PAPER_COUNTS, "--json", "--seed", "1"])
    assert code == 0
    report = json.loads(out)
    assert report["rows"]["rogan_gladen"]["estimate"] == pytest.approx(1 / 6, abs=1e-12)
    code, out, _ = run(
        capsys,
        [
            "crosscheck",
            "--k",
            "40",
            "--n",
            "100",
            "--k0",
            "7",
            "--m0",
            "10",
            "--k1",
            "9",
            "--m1",
            "10",
        ],
    )
    assert code == 0
    assert "note: " in out and "fewer than 30" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            [
                "estimate",
                "--k",
                "1200",
                "--n",
                "1000",
                "--k0",
                "1",
                "--m0",
                "2",
                "--k1",
                "1",
                "--m1",
                "2",
            ],
            "`k` (1200) must not exceed `n` (1000).",
        ),
        (["estimate", "--k", "x"], "--k: expected a whole number, got 'x'"),
        (["estimate", "--k", "4"], "missing --n, --k0, --m0, --k1, --m1"),
        (
            [
                "estimate",
                "--k",
                "2.5",
                "--n",
                "10",
                "--k0",
                "1",
                "--m0",
                "2",
                "--k1",
                "1",
                "--m1",
                "2",
            ],
            "`k` (2.5) must be a whole number",
        ),
        (["estimate", *PAPER_COUNTS, "--confidence-level", "1.5"], "`confidence_level` (1.5)"),
        (
            [
                "estimate",
                "--k",
                "4",
                "--n",
                "10",
                "--k0",
                "2",
                "--m0",
                "10",
                "--k1",
                "3",
                "--m1",
                "10",
            ],
            "no better than chance",
        ),
        (["estimate", "--labels", "/nonexistent/labels.csv"], "labels.csv: no such file"),
        (["estimate", "--labels", "x.csv", "--k", "3"], "either --labels or the six counts"),
        (["frobnicate"], "invalid choice"),
        (["posterior", *PAPER_COUNTS, "--method", "gibbs"], "invalid choice"),
        (["posterior", *PAPER_COUNTS, "--draws", "0"], "`draws`"),
    ],
)
def test_user_errors_exit_2_with_one_line(capsys, argv, message):
    code, out, err = run(capsys, argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("judgestats: error: ")
    assert message in err


def test_bad_label_file_names_row_and_column(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("set,judge,human\ntest,1,\ncalibration,yes,1\n")
    code, _, err = run(capsys, ["estimate", "--labels", str(path)])
    assert code == 2
    assert "row 3" in err and "`judge`" in err and "'yes'" in err


def test_help_exits_zero(capsys):
    assert main(["estimate", "--help"]) == 0
    assert "--labels" in capsys.readouterr().out


SCRIPT = Path(sys.executable).with_name("judgestats")


@pytest.mark.skipif(not SCRIPT.exists(), reason="console script not installed next to python")
def test_console_script_has_no_traceback():
    done = subprocess.run([str(SCRIPT), "estimate", "--k", "-1"], capture_output=True, text=True)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
