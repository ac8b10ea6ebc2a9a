"""The labelling report: the anytime-valid interval's path over the labels, as a figure and a file.

The path's numbers are checked against the confidence sequence called afresh on every prefix of
the labels (its last value is the interval after exactly those labels), not against the
session's own one-pass path.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

import judgestats as jc
from judgestats.cli import main
from judgestats.reporting import labelling_report
from judgestats.reporting.labelling import draw_path
from judgestats.sequential.targets import interval_path

ROOT = Path(__file__).resolve().parents[1]
ITEMS = str(ROOT / "src" / "judgestats" / "datasets" / "example_items.csv")
TRUTH = ROOT / "tests" / "fixtures" / "sequential" / "example_items_truth.csv"


def _session(batches=3, size=20, seed=4):
    rng = np.random.default_rng(11)
    verdicts = rng.integers(0, 2, 150)
    truth = np.where(rng.random(150) < 0.85, verdicts, 1 - verdicts)
    session = jc.LabellingSession([f"i{j}" for j in range(150)], verdicts, random_seed=seed)
    for _ in range(batches):
        batch = session.next_batch(size)
        session.add_labels(batch, [int(truth[int(item[1:])]) for item in batch])
    return session, verdicts, truth


@pytest.mark.parametrize("target", ["items", "population"])
def test_path_by_label_is_the_interval_of_every_prefix(target):
    session, verdicts, truth = _session()
    report = labelling_report(session, target=target)
    order = [int(item[1:]) for item in session.labels]  # batches follow the session's order
    assert report.by == "label" and list(report.path["labelled"]) == list(range(1, 61))
    for t in (1, 7, 20, 33, 60):
        prefix = np.array(order[:t])
        lows, highs = interval_path(verdicts, prefix, truth[prefix], target=target, alpha=0.05)
        row = report.path.iloc[t - 1]
        assert (row["low"], row["high"]) == (lows[-1], highs[-1])
        errors = truth[prefix] - verdicts[prefix]
        if target == "population":
            expected = verdicts.mean() + errors.mean()
        else:  # labelled truth, unlabelled verdicts, shifted by the mean labelled error
            rest = np.setdiff1d(np.arange(150), prefix)
            expected = truth[prefix].sum() + verdicts[rest].sum() + rest.size * errors.mean()
            expected /= 150
        assert row["estimate"] == pytest.approx(min(max(expected, lows[-1]), highs[-1]))
    # the batch ends equal the intervals the session gave after each batch
    by_batch = session.path(target=target)
    ends = report.path.iloc[[19, 39, 59]]
    assert np.array_equal(ends[["low", "high"]].to_numpy(), by_batch[["low", "high"]].to_numpy())
    assert list(ends["batch"]) == [1, 2, 3]


class _Axes:
    """Records what the path figure draws."""

    def __init__(self):
        self.lines, self.bands = [], []

    def fill_between(self, x, low, high, **_):
        self.bands.append((np.asarray(x), np.asarray(low), np.asarray(high)))

    def plot(self, x, y, **_):
        self.lines.append((np.asarray(x), np.asarray(y)))

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


class _Figure:
    def __init__(self):
        self.ax = _Axes()

    def subplots(self):
        return self.ax


def test_the_figure_draws_the_path_numbers():
    session, verdicts, truth = _session(batches=2)
    report = labelling_report(session, width=0.1)
    figure = _Figure()
    draw_path(report, figure)
    ((x, low, high),) = figure.ax.bands
    assert np.array_equal(x, np.arange(1, 41)) and np.array_equal(low, report.path["low"])
    assert np.array_equal(high, report.path["high"])
    assert any(np.array_equal(y, report.path["estimate"]) for _, y in figure.ax.lines)
    assert report.figures["path"][:8] == b"\x89PNG\r\n\x1a\n"


def test_html_and_markdown_files_name_the_target(tmp_path):
    session, _, _ = _session()
    report = labelling_report(session, target="population", width=0.5)
    written = report.save(tmp_path / "labelling.html")
    text = written[0].read_text()
    assert written == [tmp_path / "labelling.html"]
    assert "target population" in text and "data:image/png;base64," in text
    assert "target width 0.5 reached" in text  # the width after 60 labels is below 0.5
    assert report.interval.width <= 0.5
    markdown = report.save(tmp_path / "labelling.md")
    assert [path.name for path in markdown] == ["labelling.md", "labelling_path.png"]
    assert "| 3 | 60 |" in markdown[0].read_text()


def test_nothing_written_on_failure(tmp_path):
    session, _, _ = _session()
    report = labelling_report(session)
    (tmp_path / "blocked.html").mkdir()
    with pytest.raises(ValueError, match="exists and is a folder"):
        report.save(tmp_path / "blocked.html")
    with pytest.raises(ValueError, match="cannot tell the format"):
        report.save(tmp_path / "labelling.txt")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocked.html"]


def test_errors():
    empty = jc.LabellingSession(["a", "b"], [1, 0], random_seed=0)
    with pytest.raises(ValueError, match="no label yet"):
        labelling_report(empty)
    with pytest.raises(TypeError, match="`session` must be a LabellingSession"):
        labelling_report("session")
    session, _, _ = _session(batches=1)
    with pytest.raises(ValueError, match="`width`"):
        labelling_report(session, width=0.0)
    with pytest.raises(ValueError, match="`by`"):
        session.path(by="item")
    active = jc.LabellingSession(["a", "b", "c"], [1, 0, 1], scores=[0.9, 0.2, 0.6])
    active.add_labels(["a"], [1])
    with pytest.raises(ValueError, match="by='batch'"):
        active.path(by="label")
    assert labelling_report(active).by == "batch"


def test_cli_writes_the_report_after_labels(tmp_path, capsys):
    with TRUTH.open() as handle:
        truth = {row["id"]: int(row["truth"]) for row in csv.DictReader(handle)}
    base = ["next", "--items", ITEMS, "--judge-column", "verdict", "--positive", "C"]
    base += ["--seed", "3", "--batch", "30", "--json"]
    assert main(base) == 0
    batch = json.loads(capsys.readouterr().out)["next"]
    labels = tmp_path / "labels.csv"
    labels.write_text("id,human\n" + "".join(f"{i},{'CI'[1 - truth[i]]}\n" for i in batch))
    out = tmp_path / "path.html"
    assert main([*base, "--human", str(labels), "--report", str(out)]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["report"] == str(out) and "target items" in out.read_text()
    assert main([*base, "--report", str(tmp_path / "none.html")]) == 2  # no label yet
    assert "no label yet" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["labels.csv", "path.html"]
