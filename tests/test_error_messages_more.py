"""Errors that did not name their argument or file (issue 25 item 7)."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import judgestats as jc
from judgestats import paper
from judgestats.cli import main

DATA = jc.JudgeData(400, 1000, 140, 200, 180, 200)
COUNTS = ["--k", "400", "--n", "1000", "--k0", "140", "--m0", "200", "--k1", "180", "--m1", "200"]
LABELS = "set,judge,human\ntest,1,\ntest,0,\ncalibration,1,1\ncalibration,0,0\ncalibration,1,1\n"


def _cli(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    assert captured.err.count("\n") <= 1
    return code, captured.err


def test_a_negative_seed_names_random_seed(capsys):
    with pytest.raises(ValueError, match=r"`random_seed` \(-1\) must be a non-negative integer"):
        jc.posterior(DATA, random_seed=-1)
    code, err = _cli(capsys, "posterior", *COUNTS, "--seed", "-1")
    assert code == 2 and "`random_seed` (--seed) (-1) must be a non-negative integer" in err


def test_alpha_zero_suggests_an_alpha():
    with pytest.raises(ValueError, match=r"`alpha` \(0\) .* e\.g\. 0\.05 for a 95% interval"):
        paper.confidence_interval(0.4, 0.7, 0.9, 1000, 200, 200, alpha=0)


def test_a_latin1_label_file_names_the_file_and_the_encoding(tmp_path, capsys):
    path = tmp_path / "labels.csv"
    path.write_bytes((LABELS + "calibration,0,0\n").encode() + "# café\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"labels\.csv: not UTF-8 text \(byte 0xe9 at position"):
        jc.JudgeData.from_csv(path)
    items = tmp_path / "items.csv"
    items.write_bytes("id,judge,human\ncafé,1,1\n".encode("latin-1"))
    code, err = _cli(capsys, "estimate", "--items", str(items), "--human-column", "human")
    assert code == 2 and f"{items}: not UTF-8 text" in err and "Latin-1" in err


def test_gzip_files_are_read_transparently(tmp_path):
    plain = tmp_path / "labels.csv"
    plain.write_text(LABELS)
    packed = tmp_path / "labels.csv.gz"
    packed.write_bytes(gzip.compress(LABELS.encode()))
    assert jc.JudgeData.from_csv(packed) == jc.JudgeData.from_csv(plain)
    items = tmp_path / "items.jsonl.gz"
    items.write_bytes(gzip.compress(b'{"id": 1, "judge": 1, "human": 1}\n{"id": 2, "judge": 0}\n'))
    frame = jc.io.read_frame(items, judge="judge", human="human")
    assert list(frame["id"]) == ["1", "2"]


def test_a_folder_is_not_called_a_missing_file(tmp_path, capsys):
    folder = tmp_path / "d"
    folder.mkdir()
    items = tmp_path / "items.csv"
    items.write_text("id,judge\na,1\nb,0\n")
    for argv in (
        ["estimate", "--items", str(folder), "--human-column", "h"],
        ["estimate", "--items", str(items), "--human", str(folder)],
        ["estimate", "--labels", str(folder)],
    ):
        code, err = _cli(capsys, *argv)
        assert code == 2 and f"{folder}: is a folder, not a file" in err


def test_a_count_too_large_for_numpy_says_so():
    with pytest.raises(ValueError, match=r"`k` \(590295810358705651712\) is too large"):
        jc.JudgeData(k=2**69, n=2**70, k0=1, m0=2, k1=1, m1=2)


def test_figures_checks_the_suffix_before_drawing(tmp_path, capsys, monkeypatch):
    from judgestats import plots

    def never(*args, **kwargs):
        raise AssertionError("drawn before the output was checked")

    monkeypatch.setattr(plots, "plot_coverage_study", never)
    code, err = _cli(capsys, "figures", "4", "--output", str(tmp_path / "x.txt"))
    assert code == 2 and "cannot tell the image format of" in err and ".txt" in err
    code, err = _cli(capsys, "figures", "4", "--output", str(tmp_path / "x.png"), "--seed", "-1")
    assert code == 2 and "`random_seed` (--seed) (-1)" in err


def test_shapes_that_do_not_broadcast_are_named():
    with pytest.raises(ValueError, match=r"`q0` has shape \(3,\) and `p` has shape \(2,\)"):
        jc.lang_reiczigel_ci(np.array([0.4, 0.5]), np.array([0.7, 0.8, 0.9]), 0.9, 1000, 200, 200)
    with pytest.raises(ValueError, match=r"`m0` has shape \(3,\) and `n` has shape \(2,\)"):
        jc.lang_reiczigel_ci(0.4, 0.7, 0.9, [1000, 2000], [200, 300, 400], 200)
    with pytest.raises(ValueError, match=r"`q1` has shape \(3,\) and `p` has shape \(2,\)"):
        jc.rogan_gladen([0.4, 0.5], 0.7, [0.9, 0.8, 0.7])


@pytest.mark.parametrize("path", [None, 7, b"log.json", ["log.json"]])
def test_readers_name_path_when_it_is_not_a_path(path):
    # os.fspath's own TypeError ("expected str, bytes or os.PathLike object") named no argument
    from judgestats import io

    readers = [
        io.read_table,
        io.load_json,
        lambda p: io.read_lm_eval(p, metric="acc"),
        io.read_inspect,
        io.read_promptfoo,
        jc.ModelLabels.from_csv,
    ]
    for reader in readers:
        with pytest.raises(TypeError, match=r"`path` must be a file path \(a str or an os.Path"):
            reader(path)
