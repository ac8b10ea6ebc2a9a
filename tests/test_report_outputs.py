"""Report outputs that block the write: named, refused, never replaced, nothing left behind."""

from __future__ import annotations

import os
import sys

import pytest

import judgestats as jc
import judgestats.io  # noqa: F401  (jc.io: the readers load lazily)
from judgestats.cli import main

PAPER = dict(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)
COUNTS = ["--k", "400", "--n", "1000", "--k0", "140", "--m0", "200", "--k1", "180", "--m1", "200"]


@pytest.fixture(scope="module")
def paper_report():
    return jc.report(jc.JudgeData(**PAPER))


def _report(capsys, *argv):
    code = main(["report", *COUNTS, *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_figure_path_that_is_a_folder_is_named_and_nothing_is_written(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "clash").mkdir()
    (tmp_path / "clash" / "r_theta.png").mkdir()
    code, out, err = _report(capsys, "--output", "clash/r.md")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "cannot write clash/r_theta.png" in err and "a folder" in err
    assert "cannot write clash/r.md" not in err
    assert sorted(p.name for p in (tmp_path / "clash").iterdir()) == ["r_theta.png"]


def test_a_rename_that_fails_midway_is_undone(paper_report, tmp_path, monkeypatch):
    (tmp_path / "r.md").write_text("old report")
    real = os.replace
    calls = []

    def failing(source, target):  # the third rename (a figure) fails
        calls.append(target)
        if str(target).endswith(".png") and len([c for c in calls if ".png" in str(c)]) == 2:
            raise IsADirectoryError(21, "Is a directory", source, None, target)
        return real(source, target)

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(OSError, match="Is a directory") as caught:
        paper_report.save(tmp_path / "r.md")
    assert caught.value.filename.endswith(".png")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.md"]
    assert (tmp_path / "r.md").read_text() == "old report"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_output_is_refused_not_replaced(tmp_path, capsys):
    fifo = tmp_path / "r.md"
    os.mkfifo(fifo)
    code, out, err = _report(capsys, "--output", str(fifo))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"cannot write {fifo}" in err and "a FIFO" in err
    assert fifo.is_fifo() and sorted(p.name for p in tmp_path.iterdir()) == ["r.md"]


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links need privileges")
def test_a_symlink_output_is_refused_not_replaced(tmp_path, capsys):
    real = tmp_path / "real.md"
    real.write_text("keep me")
    link = tmp_path / "r.md"
    link.symlink_to(real)
    code, _, err = _report(capsys, "--output", str(link))
    assert code == 2 and f"cannot write {link}" in err and "a symbolic link" in err
    assert link.is_symlink() and real.read_text() == "keep me"


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_a_device_is_refused(paper_report):
    with pytest.raises(ValueError, match="cannot write /dev/null: .*a character device"):
        paper_report.save("/dev/null", format="html")


def test_a_symlinked_figure_is_refused_before_anything_is_written(paper_report, tmp_path):
    (tmp_path / "elsewhere.png").write_bytes(b"png")
    (tmp_path / "r_theta.png").symlink_to(tmp_path / "elsewhere.png")
    with pytest.raises(ValueError, match=r"r_theta\.png: it exists and is a symbolic link"):
        paper_report.save(tmp_path / "r.md")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere.png", "r_theta.png"]


def test_save_names_a_path_of_the_wrong_type(paper_report):
    with pytest.raises(TypeError, match=r"`path` must be a str or os.PathLike, got int"):
        paper_report.save(5)


def test_a_path_with_a_nul_character_is_named_and_nothing_is_written(paper_report, tmp_path):
    # Python's bare "embedded null byte" named no argument.
    target = tmp_path / "re\0port.html"
    with pytest.raises(ValueError, match=r"`path` \(.*\) holds a NUL character"):
        paper_report.save(target)
    with pytest.raises(ValueError, match=r"`path` \(.*\) holds a NUL character"):
        jc.io.read_frame(os.fspath(target).replace(".html", ".csv"), judge="judge")
    assert not list(tmp_path.iterdir())


def test_an_existing_regular_file_is_still_replaced(paper_report, tmp_path):
    (tmp_path / "r.html").write_text("old")
    paper_report.save(tmp_path / "r.html")
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")


def test_a_file_name_too_long_is_named_and_nothing_is_written(paper_report, tmp_path):
    # open() raised a bare "OSError: [Errno 36] File name too long" that named no argument.
    target = tmp_path / ("r" * 256 + ".html")
    with pytest.raises(ValueError, match=r"`path` \(.*\) holds a file or folder name 261 "):
        paper_report.save(target)
    with pytest.raises(ValueError, match=r"`path` \(.*\) holds a file or folder name"):
        jc.io.read_frame(tmp_path / ("r" * 256 + ".csv"), judge="judge")
    assert not list(tmp_path.iterdir())


def test_a_figure_name_too_long_is_refused_before_anything_is_written(paper_report, tmp_path):
    # The report's own name fits; its figure `<stem>_theta.png` does not.
    target = tmp_path / ("r" * 247 + ".md")
    with pytest.raises(ValueError, match=r"`path` \(.*_theta\.png'\) holds a file or folder"):
        paper_report.save(target)
    assert not list(tmp_path.iterdir())


def test_a_long_name_that_fits_is_written(paper_report, tmp_path):
    # The temporary twin was named after the target plus 14 characters, so a 250-character
    # name (which the file system holds) failed with "File name too long".
    target = tmp_path / ("r" * 245 + ".html")
    paper_report.save(target)
    assert [p.name for p in tmp_path.iterdir()] == [target.name]
