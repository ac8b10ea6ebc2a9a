"""The target of a random-design result in the report, the grouped cross-check and the CLI.

`target="items"` (the share of correct items among those evaluated) can be asked of
:func:`judgestats.report`, :func:`judgestats.report_items`, :func:`judgestats.crosscheck_items`
and ``judgestats crosscheck | report --target``; every one of them states the target it reports
(issue 24 item 1).
"""

from __future__ import annotations

import json
import shlex

import numpy as np
import pandas as pd
import pytest
from scipy.stats import hypergeom

import judgestats as jc
from judgestats.cli import main

# 56 random labelled items of 350 (34 correct); a judge with q0-hat 20/22, q1-hat 20/34: the
# rule gives the labels-only Blaker interval for both targets (checked below by brute force)
DATA = jc.JudgeData(k=113, n=294, k0=20, m0=22, k1=20, m1=34, design="random")
COUNTS = ["--k", "113", "--n", "294", "--k0", "20", "--m0", "22", "--k1", "20", "--m1", "34"]


def blaker_share(x: int, m: int, total: int, alpha: float = 0.05) -> tuple[float, float]:
    """Blaker's interval for the share T / N by brute force over T (hypergeometric sampling).

    T is accepted where the probability of a sample count whose smaller tail is no larger than
    the observed one's exceeds alpha; the interval spans the accepted T.
    """
    accepted = []
    counts = np.arange(m + 1)
    for correct in range(x, total - (m - x) + 1):
        pmf = hypergeom(total, correct, m).pmf(counts)
        tail = np.minimum(np.cumsum(pmf), np.cumsum(pmf[::-1])[::-1])
        if pmf[tail <= tail[x] * (1 + 1e-7)].sum() > alpha:
            accepted.append(correct)
    return min(accepted) / total, max(accepted) / total


def test_report_items_target_headline_and_row_are_blakers_share_interval():
    low, high = blaker_share(34, 56, 350)
    assert (round(low, 4), round(high, 4)) == (0.4829, 0.72)  # by hand: T from 169 to 252
    rep = jc.report(DATA, target="items")
    head, _ = rep.recommendation()
    assert head == (
        "Report 0.6071 (0.4829, 0.7200): labels only, Blaker (exact), 95% interval for the "
        "share of correct items among the 350 evaluated (target 'items')."
    )
    assert rep.interval_rows()[-1] == (
        "labels only, Blaker (exact), share of correct items", "0.6071", "0.4829", "0.7200",
        "0.2371",
    )  # fmt: skip
    assert rep.recommended.low == pytest.approx(low, abs=1e-9)
    assert rep.recommended.high == pytest.approx(high, abs=1e-9)
    assert rep.command.endswith("random_seed=0, target='items')")


def test_report_population_target_is_stated_for_random_design_only():
    head, _ = jc.report(DATA).recommendation()
    assert head.endswith("95% interval for the accuracy of the process (target 'population').")
    stratified = jc.JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)
    assert (
        jc.report(stratified)
        .recommendation()[0]
        .endswith("Rogan-Gladen + Lang-Reiczigel, 95% interval.")
    )


@pytest.mark.parametrize("target", ["items", "share", None])
def test_report_refuses_a_target_that_does_not_apply(target):
    stratified = jc.JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)
    with pytest.raises(ValueError, match="`target`"):
        jc.report(stratified, target=target)


def _items_frame() -> pd.DataFrame:
    """Two groups of random-design items: group a is DATA's items, group b has 30 labels."""
    rng = np.random.default_rng(3)
    rows = []
    for group, size, labelled in (("a", 350, 56), ("b", 200, 30)):
        truth = rng.random(size) < 0.6
        judge = np.where(truth, rng.random(size) < 0.8, rng.random(size) < 0.2)
        human = np.full(size, None, dtype=object)
        human[:labelled] = truth[:labelled].astype(int)
        rows.append(pd.DataFrame({"id": [f"{group}{i}" for i in range(size)], "judge":
                                  judge.astype(int), "human": human, "task": group}))  # fmt: skip
    frame = pd.concat(rows, ignore_index=True)
    frame["human"] = frame["human"].astype("Int64")
    return frame


def test_grouped_crosscheck_passes_the_target_to_every_group_and_states_it():
    items = _items_frame()
    table = jc.crosscheck_items(items, by="task", design="random", target="items")
    assert table.target == "items"
    assert all(row.result.recommended.target == "items" for row in table.rows)
    assert "for the items target" in str(table)
    assert json.loads(json.dumps(table.to_dict()))["target"] == "items"
    population = jc.crosscheck_items(items, by="task", design="random")
    assert "for the population target" in str(population)
    with pytest.raises(ValueError, match="`target`"):
        jc.crosscheck_items(items, by="task", target="items")  # stratified


def test_grouped_report_records_the_target_in_its_command():
    rep = jc.report_items(_items_frame(), by="task", design="random", target="items")
    assert rep.command.endswith("design='random', target='items')")
    assert all(section.recommended.target == "items" for section in rep.sections)


def test_cli_crosscheck_target_items(capsys):
    assert main(["crosscheck", *COUNTS, "--design", "random", "--target", "items"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == (
        "  recommended: labels only, Blaker (exact) 0.6071 (0.4829, 0.7200), 95% interval for "
        "the items target"
    )
    assert out[2].startswith("    why: for the share of correct items among the 350 evaluated")


@pytest.mark.parametrize("command", ["crosscheck", "report"])
def test_cli_target_items_needs_the_random_design(capsys, tmp_path, command):
    output = ["--output", str(tmp_path / "r.md")] if command == "report" else []
    assert main([command, *COUNTS, "--target", "items", *output]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--target items needs --design random" in err[0]
    assert not list(tmp_path.iterdir())  # nothing written


def test_cli_report_target_items_writes_the_headline_and_the_command(capsys, tmp_path):
    path = tmp_path / "r.md"
    argv = ["report", *COUNTS, "--design", "random", "--target", "items", "--output", str(path)]
    assert main(argv) == 0
    text = path.read_text()
    assert "95% interval for the share of correct items among the 350 evaluated" in text
    command = next(line for line in text.splitlines() if line.startswith("| command |"))
    words = shlex.split(command.split("|")[2].replace("\\", ""))
    assert words[words.index("--target") + 1] == "items"
