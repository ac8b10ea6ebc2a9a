"""Clustered (all epochs) and one-epoch estimates say which question each answers (issue 26 item 2).

With the bundled example, model-a is 0.749 over all epochs (clustered) and 0.898 from epoch 1
alone; each output names the question it answers and points to the other.
"""

from __future__ import annotations

from judgestats.cli import main
from judgestats.datasets import data_files

GROUPED = str(data_files()["example_grouped_items.csv"])
READ = ["--judge-column", "verdict", "--human-column", "human_label", "--positive", "C"]


def _out(capsys, argv):
    assert main(argv) == 0
    return capsys.readouterr().out


def _question(out: str) -> str:
    (line,) = [line for line in out.splitlines() if line.startswith("  question: ")]
    return line


def test_clustered_estimate_says_it_answers_all_epochs(capsys):
    out = _out(capsys, ["estimate", "--items", GROUPED, *READ, "--by", "model"])
    assert "model-a  248/330" in out and "0.7491" in out
    line = _question(out)
    assert "over all 3 epochs' answers" in line and "clustered by id" in line
    assert "`--epoch N`" in line and "epoch N's answers alone" in line
    assert out.splitlines()[1] == line  # right under the title


def test_one_epoch_crosscheck_says_it_answers_that_epoch(capsys):
    out = _out(capsys, ["crosscheck", "--items", GROUPED, *READ, "--epoch", "1", "--by", "model"])
    assert "0.8979" in out
    line = _question(out)
    assert "epoch 1's answers alone" in line
    assert "`judgestats estimate` without --epoch" in line and "all epochs' answers" in line


def test_one_epoch_single_estimate_and_crosscheck_say_so(capsys, tmp_path):
    import pandas as pd

    frame = pd.read_csv(GROUPED)
    path = tmp_path / "a.csv"
    frame[frame["model"] == "model-a"].to_csv(path, index=False)
    for command in ("estimate", "crosscheck"):
        out = _out(capsys, [command, "--items", str(path), *READ, "--epoch", "2"])
        assert "epoch 2's answers alone" in _question(out)
    assert "all 3 epochs" in _question(_out(capsys, ["estimate", "--items", str(path), *READ]))


def test_no_question_line_without_repeats_or_epochs_nor_in_json(capsys):
    out = _out(
        capsys,
        [
            "estimate",
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
        ],
    )
    assert "question:" not in out
    out = _out(capsys, ["estimate", "--items", GROUPED, *READ, "--by", "model", "--json"])
    assert "question" not in out
