"""The report's headline interval is a row of its table, and its theta figure is readable.

Issue 26 items 4 and 5: the figure draws every interval on its own row on a second axis beneath
the density (sharing x), labelled with the methods' display names; nothing is drawn at negative
density, no legend covers a curve; the headline interval (the guaranteed one of the flagged
example included) is always a row of the table the report shows.
"""

from __future__ import annotations

import re
from functools import cache

import numpy as np
import pytest

import judgestats as jc
from judgestats.recommendation import METHOD_LABELS, ROW_LABELS
from judgestats.reporting.figures import draw_judge, draw_theta

PAPER = dict(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)
# the example: the headline is the guaranteed interval, none of the cross-check's rows
FLAGGED = dict(k=50, n=1000, k0=9, m0=12, k1=10, m1=12)
NO_CORRECTION = dict(k=400, n=1000, k0=2, m0=20, k1=3, m1=20)
CASES = {"paper": PAPER, "flagged": FLAGGED, "no_correction": NO_CORRECTION}


@cache
def _report(name):
    return jc.report(jc.JudgeData(**CASES[name]))


def _headline_numbers(report):
    head, _ = report.recommendation()
    match = re.match(r"Report (\S+) \((\S+), (\S+)\): (.*), \S+ interval\.$", head)
    assert match, head
    return match.groups()


@pytest.mark.parametrize("name", list(CASES))
def test_headline_interval_is_a_row_of_the_table(name):
    report = _report(name)
    estimate, low, high, label = _headline_numbers(report)
    rows = report.interval_rows()
    assert (estimate, low, high) in [row[1:4] for row in rows]
    page = report.to_html()
    assert f"<td>{low}</td><td>{high}</td>" in page.replace("\n", "")
    assert f"| {estimate} | {low} | {high} |" in report.to_markdown()
    if name == "flagged":  # the guaranteed interval: a row of its own, named as in the headline
        assert label == "Rogan-Gladen + guaranteed"
        assert rows[-1][:4] == (label, estimate, low, high)
        assert len(rows) == len(ROW_LABELS) + 1


def test_no_row_is_added_when_the_headline_is_already_one():
    report = _report("paper")
    rows, pick = report.interval_values()
    assert [row[0] for row in rows] == list(ROW_LABELS.values())
    assert rows[pick][0] == "Rogan-Gladen + Lang-Reiczigel"


def test_grouped_report_sections_hold_their_headline_rows():
    from judgestats.datasets import data_files
    from judgestats.io import read_frame

    items = read_frame(
        data_files()["example_grouped_items.csv"],
        judge="verdict",
        human="human_label",
        positive="C",
    )
    grouped = jc.report_items(items[items["epoch"] == 1], by="model")
    for section in grouped.sections:
        rec = section.recommended
        shown = tuple(f"{v:.4f}" for v in (rec.estimate, rec.low, rec.high))
        assert shown in [row[1:4] for row in section.interval_rows()]


def _theta_axes(report):
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8, 5), layout="constrained")
    draw_theta(report, figure)
    return figure, figure.axes


@pytest.mark.parametrize("name", list(CASES))
def test_theta_figure_puts_each_interval_on_its_own_row_beneath_the_density(name):
    report = _report(name)
    figure, (density, intervals) = _theta_axes(report)
    assert density.get_shared_x_axes().joined(density, intervals)
    # nothing at negative density: the density axis starts at zero and every drawn y is >= 0
    assert density.get_ylim()[0] == 0.0
    for line in density.get_lines():
        assert np.nanmin(line.get_ydata()) >= 0.0
    # readable labels: the display names of the table's rows, none of the internal keys
    rows, pick = report.interval_values()
    labels = [tick.get_text() for tick in intervals.get_yticklabels()]
    assert [label.split("\n")[0] for label in labels] == [row[0] for row in rows]
    assert labels[pick].endswith("(recommended)")
    keys = [key for key in {*METHOD_LABELS, *ROW_LABELS} if "_" in key]  # lang_reiczigel, ...
    assert not any(key in label for label in labels for key in keys)
    assert not any("_" in label or "recommended:" in label for label in labels)
    # one row each: every bar lies on its own y, none overlaps another
    ys = [line.get_ydata()[0] for line in intervals.get_lines() if len(line.get_xdata()) == 2]
    assert len(ys) == len(set(ys))
    # no legend covers the curve
    assert density.get_legend() is None and intervals.get_legend() is None


def test_judge_figure_legend_lies_outside_the_axes():
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.5, 3.2), layout="constrained")
    draw_judge(_report("flagged"), figure)
    (ax,) = figure.axes
    assert ax.get_legend() is None
    assert len(figure.legends) == 1
    figure.canvas.draw()
    legend_box = figure.legends[0].get_window_extent()
    assert not legend_box.overlaps(ax.get_window_extent())
