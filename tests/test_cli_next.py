"""``judgestats next`` end to end on the bundled example: three batches of labels, then errors."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from judgestats.cli import main

ROOT = Path(__file__).resolve().parents[1]
ITEMS = str(ROOT / "src" / "judgestats" / "datasets" / "example_items.csv")
TRUTH = ROOT / "tests" / "fixtures" / "sequential" / "example_items_truth.csv"
BASE = ["next", "--items", ITEMS, "--judge-column", "verdict", "--positive", "C"]


def _truth() -> dict[str, int]:
    with TRUTH.open() as handle:
        return {row["id"]: int(row["truth"]) for row in csv.DictReader(handle)}


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_three_batches_end_to_end(tmp_path, capsys):
    truth, labels = _truth(), tmp_path / "labels.csv"
    argv = [*BASE, "--batch", "20", "--width", "0.05", "--seed", "7", "--json"]
    code, out, _ = _run(argv, capsys)  # no label file yet: the first batch
    assert code == 0
    given: dict[str, int] = {}
    widths = []
    for number in range(1, 4):
        answer = json.loads(out)
        batch = answer["next"]
        assert len(batch) == 20 and not set(batch) & set(given)
        assert answer["reached"] is False
        given.update({item: truth[item] for item in batch})
        with labels.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["id", "human"])
            writer.writerows((item, "CI"[1 - label]) for item, label in given.items())
        code, out, _ = _run([*argv, "--human", str(labels)], capsys)
        assert code == 0
        interval = json.loads(out)["interval"]
        assert interval["n_labelled"] == 20 * number and interval["n_items"] == 200
        widths.append(interval["width"])
        known = sum(given.values())  # what 20 * number labels settle for sure
        assert (
            known / 200 <= interval["low"] <= interval["high"] <= (known + 200 - 20 * number) / 200
        )
    assert widths[0] >= widths[1] >= widths[2]
    share = sum(truth.values()) / 200
    assert interval["low"] <= share <= interval["high"]


def test_text_output_and_reached(capsys):
    argv = [*BASE, "--human-column", "human_label", "--batch", "5", "--width", "0.99"]
    code, out, _ = _run(argv, capsys)
    assert code == 0
    assert "60 of 200 items labelled" in out
    assert "target width 0.99: reached" in out and "next " not in out
    code, out, _ = _run([*argv[:-1], "0.01"], capsys)
    lines = out.splitlines()
    assert "not reached" in lines[1] and lines[2].startswith("next 5 items to label")
    assert len(lines) == 8 and all(line.startswith("item") for line in lines[3:])


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--batch", "0"], "--batch (0) must be at least 1"),
        (["--human", "{labels_unknown}"], "not among the 200 items"),
        (["--human", "{labels_conflict}"], "contradicts the human label"),
        (["--width", "1.5"], "--width"),
        (["--target", "both"], "--target"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(extra, message, tmp_path, capsys):
    unknown, conflict = tmp_path / "unknown.csv", tmp_path / "conflict.csv"
    unknown.write_text("id,human\nitem999,C\n")
    conflict.write_text("id,human\nitem016,C\n")  # the table's human_label says I (0)
    extra = [e.format(labels_unknown=unknown, labels_conflict=conflict) for e in extra]
    code, out, err = _run([*BASE, "--human-column", "human_label", *extra], capsys)
    assert code == 2 and out == ""
    assert err.startswith("judgestats: error:") and err.count("\n") == 1
    assert message in err


def test_a_label_file_with_its_header_only(tmp_path, capsys):
    labels = tmp_path / "labels.csv"
    labels.write_text("id,human\n")
    code, out, _ = _run([*BASE, "--human", str(labels), "--batch", "3", "--seed", "7"], capsys)
    first = _run([*BASE, "--batch", "3", "--seed", "7"], capsys)[1]
    assert code == 0 and out == first and "0 of 200 items labelled" in out


def test_no_items_file(capsys):
    code, _, err = _run(["next", "--batch", "5"], capsys)
    assert code == 2 and "--items FILE or --log FILE" in err
